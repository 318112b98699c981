package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"slices"
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

func TestTablePack(t *testing.T) {
	var multi [][]uint32
	src := newTable(100)
	for i := range uint64(100) {
		src.insert(i*0x9e3779b97f4a7c15+7, uint32(i%3), &multi)
	}
	src.insert(7, 2, &multi) // key 7 (i == 0) now has rules 0 and 2: a rule set
	p, ok := src.pack(3, len(multi))
	if !ok || len(p.vals) != 0 || p.count != src.count {
		t.Fatalf("pack: ok %v, %d vals, count %d/%d", ok, len(p.vals), p.count, src.count)
	}
	for i := range uint64(100) {
		k := i*0x9e3779b97f4a7c15 + 7
		want, _ := src.get(k)
		if got, ok := p.get(k); !ok || got != want {
			t.Fatalf("key %d: got %d %v, want %d", i, got, ok, want)
		}
	}
	if _, ok := p.get(12345); ok {
		t.Fatal("an absent key was found")
	}
	// Two keys that differ only in the bits the values take collide.
	c := newTable(4)
	c.insert(0x1000, 0, &multi)
	c.insert(0x1001, 1, &multi)
	if _, ok := c.pack(2, 0); ok {
		t.Fatal("colliding keys were packed")
	}
}

// TestSealManyRuleSets: a catalog whose values are shared by many rules
// (more rule sets than a packed table's value bits hold) keeps its tables
// unpacked, and still loads and finds.
func TestSealManyRuleSets(t *testing.T) {
	c := &Catalog{}
	const n = 50
	for i := range n {
		r := Rule{ID: fmt.Sprintf("R%d", i), Category: "x", Severity: SeverityError}
		for j := range n {
			if j != i {
				// Each pair of rules shares a value: n*(n-1)/2 rule sets.
				r.Values = append(r.Values, NewValue(fmt.Sprintf("shared value %d %d", min(i, j), max(i, j))))
			}
		}
		c.Rules = append(c.Rules, r)
	}
	md, err := Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bits.Len(uint(len(md.rules)+len(md.multi)-1)) <= maxPackedBits {
		t.Fatalf("only %d rule sets: the test needs more than %d value bits", len(md.multi), maxPackedBits)
	}
	key := bytes.Repeat([]byte{3}, SealKeySize)
	var buf bytes.Buffer
	if err := Seal(&buf, c, key, nil); err != nil {
		t.Fatal(err)
	}
	m, _, err := LoadSealed(buf.Bytes(), key)
	if err != nil {
		t.Fatal(err)
	}
	if m.lit.tab.vbits != 0 {
		t.Fatal("the table was packed")
	}
	line := []byte("x shared value 3 17 y")
	if got, want := m.Find(line, nil), md.Find(line, nil); len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("sealed %v, Markdown %v", got, want)
	}
}
