package catalog

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
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
		{`(?:INC|TKT)-[0-9]{5,7}`, false, []string{"INC-", "TKT-"}},
		{`(?i:INC|TKT)-[0-9]{5,7}`, false, []string{"inc", "tkt"}}, // case modes differ: not joined
		{`(?:INC|TKT)-[0-9]{5,7}`, true, []string{"inc-", "tkt-"}},
		{`(INC|TKT)(-x|_y)[0-9]+`, false, []string{"INC-x", "INC_y", "TKT-x", "TKT_y"}},
		{`x(?:ab|cd)yz\d(?:efghij)`, false, []string{"efghij"}},
		// 5*4 joined strings are too many: the run restarts at (?:ff|...).
		{`(?:aa|bb|cc|dd|ee)(?:ff|gg|hh|ii)(?:jj|kk)\d`, false,
			[]string{"ffjj", "ffkk", "ggjj", "ggkk", "hhjj", "hhkk", "iijj", "iikk"}},
		{`ab(?:cd|ef)?gh\d`, false, nil}, // an optional part ends a run
		{`Jürgen-\d`, false, []string{"Jürgen-"}},
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

// TestTriggersContained checks the prefilter's premise: every match of a
// pattern contains one of its triggers.
func TestTriggersContained(t *testing.T) {
	lines := []string{
		"INC-1234567 TKT-12345 tkt-55555 Inc-123456 INC_x9 TKT_y1 INC-x2",
		"CASE#12345678 case#87654321 EMP-123456 emp-654321 EMP_123456",
		"xabyz1efghij xcdyz9efghij XABYZ1EFGHIJ",
		"aaffjj1 eeiikk2 bbggkk3 AAFFJJ4 ccxxjj5",
		"abgh1 abcdgh2 abefgh3 ABGH4",
		"Jürgen-5 JÜRGEN-6 jürgen-7",
		"\u212aey-1 \u017fec-2", // Kelvin sign and long s
	}
	for _, pat := range []string{
		`EMP-\d{6}`, `(?i)EMP-\d{6}`, `(?:INC|TKT)-[0-9]{5,7}`, `(?i:INC|TKT)-[0-9]{5,7}`,
		`(?i)(?:INC|TKT)-[0-9]{5,7}`, `(INC|TKT)(-x|_y)[0-9]+`, `CASE#[0-9]{8}`, `(?i)CASE#[0-9]{8}`,
		`x(?:ab|cd)yz\d(?:efghij)`, `(?i)x(?:ab|cd)yz\d(?:efghij)`,
		`(?:aa|bb|cc|dd|ee)(?:ff|gg|hh|ii)(?:jj|kk)\d`, `ab(?:cd|ef)?gh\d`,
		`Jürgen-\d`, `(?i)key-\d`, `(?i)sec-\d`, `(?i)(?:key|sec)-\d`,
	} {
		re := regexp.MustCompile(pat)
		st, err := syntax.Parse(pat, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		ts, ok := requiredLiterals(st.Simplify())
		if !ok {
			continue
		}
		found := 0
		for _, l := range lines {
			for _, m := range re.FindAllString(l, -1) {
				found++
				if !slices.ContainsFunc(ts, func(tg trigger) bool { return tg.in([]byte(m)) }) &&
					!strings.ContainsAny(m, "\u212a\u017f") {
					t.Errorf("%s: match %q contains none of its triggers", pat, m)
				}
			}
		}
		if found == 0 {
			t.Errorf("%s: no match in the corpus", pat)
		}
	}
}
