package catalog

import (
	"regexp/syntax"
	"slices"
	"testing"
)

func TestRequiredLiterals(t *testing.T) {
	cases := []struct {
		pat  string
		fold bool
		want []string // nil: no prefilter
	}{
		{`EMP-\d{6}`, true, []string{"emp-"}},
		{`EMP-\d{6}`, false, []string{"EMP-"}},
		{`(?:INC|TKT)-[0-9]{5,7}`, false, []string{"INC", "TKT"}},
		{`CASE#[0-9]{8}`, false, []string{"CASE#"}},
		{`[A-Z]{3}\d+`, false, nil},
		{`x*abc`, false, []string{"abc"}},
		{`(abc)+def?`, false, []string{"abc"}},
		{`(?:abc)?xyz`, false, []string{"xyz"}},
		{`(?:abc)?`, false, nil},
		{`Jürgen\d`, true, nil}, // folded non-ASCII: no prefilter
		{`Jürgen\d`, false, []string{"Jürgen"}},
	}
	for _, tc := range cases {
		flags := syntax.Perl
		if tc.fold {
			flags |= syntax.FoldCase
		}
		re, err := syntax.Parse(tc.pat, flags)
		if err != nil {
			t.Fatal(err)
		}
		ts, ok := requiredLiterals(re.Simplify())
		var got []string
		if ok && minTriggerLen(ts) >= minTrigger {
			for _, x := range ts {
				got = append(got, string(x.lit))
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s (fold %v): triggers %q, want %q", tc.pat, tc.fold, got, tc.want)
		}
	}
}

func TestTriggerIn(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		line string
		want bool
	}{
		{"emp-", "id: EMP-123", true},
		{"emp-", "id: Emp-123", true},
		{"emp-", "id: EMP_123 em- mp-", false},
		{"zebra", "x ZEBRA12", true},
		{"zebra", "x zebr", false},
		{"zebra", "zebra", true},
		{"zebra", "ebra z", false},
	} {
		tg := trigger{lit: []byte(tc.lit), fold: true}
		tg.setAnchor()
		if got := tg.in([]byte(tc.line)); got != tc.want {
			t.Errorf("%q in %q = %v, want %v (anchor %d)", tc.lit, tc.line, got, tc.want, tg.anchor)
		}
	}
}
