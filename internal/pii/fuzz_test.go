package pii

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// FuzzDetect checks the invariants every detector must keep on any input:
// no panic, spans inside the line and non-empty, matches of one detector
// in increasing, non-overlapping order, and each match re-found when its
// own text is scanned alone (the recognisers are local).
func FuzzDetect(f *testing.F) {
	for k := range specs {
		for _, s := range specs[k].samples.TP {
			f.Add([]byte(s.Line))
		}
		for _, s := range specs[k].samples.FP {
			f.Add([]byte(s))
		}
	}
	for _, s := range commonFP {
		f.Add([]byte(s))
	}
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fr := &scanner.Fragment{Lines: []scanner.Line{{Number: 1, Text: line}}}
		last := map[string]int{}
		d.Detect(fr, func(m scanner.Match) {
			if m.Line != 0 || m.Start < 0 || m.End > len(line) || m.Start >= m.End {
				t.Fatalf("%s: bad span [%d,%d) in %d bytes", m.RuleID, m.Start, m.End, len(line))
			}
			if e, ok := last[m.RuleID]; ok && m.Start < e {
				t.Fatalf("%s: overlapping or unordered spans", m.RuleID)
			}
			last[m.RuleID] = m.End
		})
	})
}

// fuzzValidator runs one validator on arbitrary input and checks its span.
func fuzzValidator(f *testing.F, name string, seeds []string) {
	for k := range specs {
		if specs[k].name != name {
			continue
		}
		for _, s := range specs[k].samples.TP {
			f.Add(s.Line)
		}
		for _, s := range specs[k].samples.FP {
			f.Add(s)
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	d := only(f, name, false)
	f.Fuzz(func(t *testing.T, line string) {
		for _, m := range run(d, line) {
			if m.Start < 0 || m.End > len(line) || m.Start >= m.End {
				t.Fatalf("bad span [%d,%d) in %d bytes", m.Start, m.End, len(line))
			}
			// A match is self-contained: scanning exactly its text finds it again.
			again := run(d, line[m.Start:m.End])
			if len(again) != 1 || again[0].Start != 0 || again[0].End != m.End-m.Start {
				t.Fatalf("match not found again in isolation: %d matches", len(again))
			}
		}
	})
}

func FuzzEmail(f *testing.F) { fuzzValidator(f, "email", []string{"a@b.co", "@@", "x@.y", "a.@b.cd"}) }
func FuzzPhone(f *testing.F) {
	fuzzValidator(f, "phone", []string{"+1 (415) 867-2671", "+(0)", "+44 (0)(0)", "(415)"})
}
func FuzzCard(f *testing.F) {
	fuzzValidator(f, "credit-card", []string{"4539 1488 0343 6467", "4539 ", "4539-1488-"})
}
func FuzzIBAN(f *testing.F) {
	fuzzValidator(f, "iban", []string{"DE89 3704 0044 0532 0130 00", "DE89 ", "LC55"})
}
func FuzzSSN(f *testing.F) { fuzzValidator(f, "us-ssn", []string{"536-22-1784", "536 22 1784 ", "--"}) }
func FuzzIP(f *testing.F) {
	fuzzValidator(f, "ip-address", []string{"52.14.200.7", "2a00:1450::1", ":::", "1.2.3.4:", "2a00::1.2.3.4"})
}

// FuzzParseIPv6 checks the allocation-free IPv6 parser against net/netip.
func FuzzParseIPv6(f *testing.F) {
	for _, s := range []string{
		"::", "::1", "1::", "2001:db8::1", "2a00:1450:4001:82a::200e", "::ffff:1.2.3.4",
		"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::",
		"1:2:3:4:5:6:7::", "::1.2.3.4", "1.2.3.4", ":1", "1:", "::01.2.3.4", "fe80::1%eth0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseIPv6([]byte(s))
		want, err := netip.ParseAddr(s)
		wantOK := err == nil && want.Is6() && want.Zone() == ""
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("parseIPv6(%q) = %v, %v; netip says %v, %v", s, got, ok, want, err)
		}
	})
}

// FuzzDetectFragment runs the detectors over arbitrary multi-line
// fragments of every kind, with and without a credits file name: commit
// trailers, credits and author blocks look across lines and back along a
// line.
func FuzzDetectFragment(f *testing.F) {
	f.Add("Fix (#1), Signed-off-by: A B <a.b@mailhost.io>\n\nAuthor: C <c@mailhost.io>", uint8(0))
	f.Add("author:\n  - A (@a) <a.b@mailhost.io>\n- x\nfoo: <c@mailhost.io>", uint8(1))
	f.Add("# adapted by\n# A <a.b@mailhost.io>\nMessage-ID: <x@y.io> <z@w.io>", uint8(2))
	f.Add("<@:>(@)<x@Y.IO>cid:a@b.io", uint8(3))
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	kinds := []finding.Kind{finding.KindCommitMessage, finding.KindDiff, finding.KindFile, finding.KindText}
	f.Fuzz(func(t *testing.T, text string, sel uint8) {
		fr := &scanner.Fragment{Kind: kinds[int(sel)%len(kinds)]}
		if sel&4 != 0 {
			fr.Path = "vendor/x/AUTHORS.md"
		}
		for i, l := range strings.Split(text, "\n") {
			fr.Lines = append(fr.Lines, scanner.Line{Number: i + 1, Text: []byte(l)})
		}
		d.Detect(fr, func(m scanner.Match) {
			if m.Line < 0 || m.Line >= len(fr.Lines) {
				t.Fatalf("%s: line %d of %d", m.RuleID, m.Line, len(fr.Lines))
			}
			if n := len(fr.Lines[m.Line].Text); m.Start < 0 || m.End > n || m.Start >= m.End {
				t.Fatalf("%s: bad span [%d,%d) in %d bytes", m.RuleID, m.Start, m.End, n)
			}
			if m.Severity < finding.SeverityNote || m.Severity > finding.SeverityError {
				t.Fatalf("%s: severity %v", m.RuleID, m.Severity)
			}
		})
	})
}
