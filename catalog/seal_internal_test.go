package catalog

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParseSealed fuzzes the loader behind the integrity check (which a
// fuzzer cannot forge): any bytes either fail to parse or give a Matcher
// whose Find neither panics nor loops nor reports a match out of range.
func FuzzParseSealed(f *testing.F) {
	c := &Catalog{Rules: []Rule{
		{ID: "A", Category: "x", Severity: SeverityError, Values: []Value{NewValue("Jane Doe"), NewValue("jane.doe@corp.example")}},
		{ID: "B", Category: "y", Severity: SeverityNote, Match: MatchIdentifier, Values: []Value{NewValue("Acme Corp")}},
		{ID: "C", Category: "z", Severity: SeverityWarning, CaseSensitive: true, Values: []Value{NewValue("ACCT-0042")}},
		{ID: "D", Category: "z", Severity: SeverityWarning, NoBoundary: true, Values: []Value{NewValue("secretproj")}},
		{ID: "E", Category: "z", Severity: SeverityWarning, NoBoundary: true, CaseSensitive: true, Values: []Value{NewValue("Jane Doe")}},
	}}
	key := bytes.Repeat([]byte{1}, SealKeySize)
	var buf bytes.Buffer
	if err := Seal(&buf, c, key, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	lines := [][]byte{[]byte("Jane Doe, AcmeCorp acme_corp ACCT-0042 xsecretprojx"), []byte("é\u0301 Jane\xffDoe jane.doe@corp.example")}
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkSealedHeader(data) != nil {
			return
		}
		m, _, err := parseSealed(data, key)
		if err != nil {
			if !errors.Is(err, ErrSealedInvalid) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		for _, line := range lines {
			for _, x := range m.Find(line, nil) {
				if x.Start < 0 || x.End > len(line) || x.Start > x.End || x.Rule < 0 || x.Rule >= len(m.rules) {
					t.Fatalf("bad match %v", x)
				}
			}
		}
	})
}
