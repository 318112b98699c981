package secrets

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

func parse(t testing.TB, p string) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

func TestRegexMeasures(t *testing.T) {
	tests := []struct {
		re          string
		nl, max     int
		min         int
		exact       []string // nil: not exact
		truncatedOK bool     // truncate leaves re whole
	}{
		{re: `abc`, nl: 0, max: 3, min: 3, exact: []string{"abc"}, truncatedOK: true},
		{re: `(?i)AkIa`, nl: 0, max: 6, min: 4, exact: []string{"akia"}, truncatedOK: true}, // k folds to K (3 bytes)
		{re: `A(?:KIA|SIA)[0-9]`, nl: 0, max: 5, min: 5, truncatedOK: true},
		{re: `x[\s'"]{0,3}y`, nl: 3, max: 5, min: 2, truncatedOK: true},
		{re: `(?s:.){0,4}`, nl: 4, max: 16, min: 0, truncatedOK: true},
		{re: `a\s*b`, nl: -1, max: -1, min: 2, truncatedOK: true},
		{re: `a[\w]{10,150}b`, nl: 0, max: 152, min: 12, truncatedOK: false},
		{re: `ab?`, nl: 0, max: 2, min: 1, exact: []string{"a", "ab"}, truncatedOK: true},
		{re: `\bkey\b`, nl: 0, max: 3, min: 3, truncatedOK: true},
	}
	for _, tc := range tests {
		re := parse(t, tc.re)
		if got := newlines(re); got != tc.nl {
			t.Errorf("newlines(%s) = %d, want %d", tc.re, got, tc.nl)
		}
		if got := minLen(re); got != tc.min {
			t.Errorf("minLen(%s) = %d, want %d", tc.re, got, tc.min)
		}
		if got := maxLen(re); got != tc.max {
			t.Errorf("maxLen(%s) = %d, want %d", tc.re, got, tc.max)
		}
		if tc.exact != nil {
			got, ok := exactSet(re)
			slices.Sort(got)
			if !ok || !slices.Equal(got, tc.exact) {
				t.Errorf("exactSet(%s) = %q, %v; want %q", tc.re, got, ok, tc.exact)
			}
		}
		if _, ok := truncate(re); ok != tc.truncatedOK {
			t.Errorf("truncate(%s) complete = %v, want %v", tc.re, ok, tc.truncatedOK)
		}
	}
	if _, ok := exactSet(parse(t, `\bkey`)); ok {
		t.Error("exactSet accepted an assertion")
	}
	if _, ok := exactSet(parse(t, `[a-z]{3}`)); ok {
		t.Error("exactSet of 26^3 strings accepted")
	}
}

// TestTruncateIsPrefix checks truncate's contract on samples: every match
// of re begins with a match of truncate(re).
func TestTruncateIsPrefix(t *testing.T) {
	d := newDetector(t)
	ref := newReference(t)
	g := &sampler{rng: newRand(3), nl: 0.1}
	for _, r := range d.t.rules {
		re := parse(t, ref.vc.Rules[r.vcIndex].Regex)
		tr, _ := truncate(re)
		full := regexp.MustCompile(`^(?:` + re.String() + `)$`)
		prefix := regexp.MustCompile(`^(?:` + tr.String() + `)`)
		for range 10 {
			var b strings.Builder
			g.generate(re, &b)
			if s := b.String(); full.MatchString(s) && !prefix.MatchString(s) {
				t.Errorf("%s: truncated regex does not match a prefix of a match", r.id)
			}
		}
	}
}

func TestStartsWithKeyword(t *testing.T) {
	tests := []struct {
		re   string
		kws  []string
		want bool
	}{
		{`(?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24}))`, []string{"hvs.", "s."}, true},
		{`xox[pe](?:-[0-9]{10,13}){3}`, []string{"xoxp-", "xoxe-"}, true},
		{`(?i)xoxe.xox[bp]-`, []string{"xoxe.xoxb-", "xoxe.xoxp-"}, false}, // . matches any byte
		{`(?:https?://)?hooks\.slack\.com/`, []string{"hooks.slack.com"}, false},
		{`(?i)(?:SECRET|token)=`, []string{"secret", "token"}, true},
		{`(?:key)?x`, []string{"key"}, false},
	}
	for _, tc := range tests {
		if got := startsWithKeyword(parse(t, tc.re), tc.kws); got != tc.want {
			t.Errorf("startsWithKeyword(%s, %q) = %v, want %v", tc.re, tc.kws, got, tc.want)
		}
	}
}

func TestNewPlan(t *testing.T) {
	tests := []struct {
		re                string
		kws               []string
		whole             bool
		branches, nlAfter int
	}{
		{`\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`, []string{"a3t", "akia", "asia", "abia", "acca"}, false, 1, 0},
		{`(?i)[\w.-]{0,50}?(?:key|token)[ \t]{0,3}[\s'"]{0,2}=([\w]{10,})(?:\s|$)`, []string{"key", "token"}, false, 1, 3},
		{`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY-----[\s\S-]{64,}?KEY-----`, []string{"-----begin"}, false, 1, -1},
		{`\b(pat[[:alnum:]]{14}\.[a-f0-9]{64})\b`, []string{"airtable"}, true, 0, 0}, // keyword not in the regex
		{`(?i)x(?:key)=(\w+)|\b(tok_\w{8})`, []string{"key", "tok_"}, true, 0, 0},
		{`(?i)[\w]{0,9}?key=(\w+)|\b(tok_\w{8})`, []string{"key", "tok_"}, false, 2, 0},
	}
	for _, tc := range tests {
		p := newPlan(tc.re, tc.kws, 0, 0)
		if p.wholeRun != tc.whole || len(p.branches) != tc.branches {
			t.Errorf("%s: wholeRun %v with %d branches, want %v with %d", tc.re, p.wholeRun, len(p.branches), tc.whole, tc.branches)
			continue
		}
		if len(p.branches) > 0 && p.branches[0].nlAfter != tc.nlAfter {
			t.Errorf("%s: nlAfter %d, want %d", tc.re, p.branches[0].nlAfter, tc.nlAfter)
		}
	}
}

func TestSecretFilter(t *testing.T) {
	re := parse(t, `(?i)key\s*=\s*([a-z0-9]{10,})`)
	f := newSecretFilter(re, 3.5, 0)
	if f.minDistinct != 12 {
		t.Fatalf("minDistinct %d, want 12 (log2(12) > 3.5 >= log2(11))", f.minDistinct)
	}
	tests := []struct {
		s    string
		want bool
	}{
		{"key = aaaaaaaaaaaaaaaaaaaa", false},
		{"key = abcdefghijk", false},                   // 11 distinct
		{"key = abcdefghijkl", true},                   // 12 distinct
		{"key = abcdef-ghijkl", false},                 // split by '-'
		{"key = abcdefghijkl\nx", true},                // run ends at a newline
		{"KEY = ABCDEFGHIJKL", true},                   // (?i) class
		{"key = abcdéfghijk", true},                    // non-ASCII in a folded class: no bound
		{"Kelvin: " + strings.Repeat("ab", 20), false}, // 2 distinct
		{"", false},
	}
	for _, tc := range tests {
		if got := f.possible(tc.s); got != tc.want {
			t.Errorf("possible(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
	if (newSecretFilter(re, 0, 0) != secretFilter{}) {
		t.Error("filter without an entropy threshold")
	}
	// The secret group decides the class: group 2 holds digits only.
	f = newSecretFilter(parse(t, `([a-z]+)=([0-9]{5,})`), 3, 2)
	if f.possible("abcdefghijklmnop=1234567") || !f.possible("x=123456789") {
		t.Error("secret group class not used")
	}
}

// FuzzPrefixDFA checks the DFA against Go's regexp: equal answers for
// regexes without assertions, a superset with them.
func FuzzPrefixDFA(f *testing.F) {
	f.Add(`(?i)(?:key|token)[ \t\w.-]{0,20}[\s'"]{0,3}(?:=|:)`, "Token_x = 'v'")
	f.Add(`ey[a-zA-Z0-9]{17}`, "eyJhbGciOiJIUzI1NiIsInR5")
	f.Add(`\bcurl\b.*-u`, "curl -s -u me")
	f.Add(`(?s)a.{0,3}b$`, "a\n\nbb")
	f.Add(`[\x{212a}k]ey`, "\u212aey")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := syntax.Parse(pattern, syntax.Perl)
		if err != nil || len(pattern) > 200 {
			return
		}
		want, err := regexp.Compile(`^(?:` + pattern + `)`)
		if err != nil {
			return
		}
		d, ok := newPrefixDFA(re)
		if !ok {
			return
		}
		got, ok := d.match(s)
		if !ok {
			return // state limit
		}
		w := want.MatchString(s)
		if w && !got {
			t.Fatalf("DFA rejects a text the regexp matches")
		}
		if got != w && !hasAssertion(re) {
			t.Fatalf("DFA %v, regexp %v", got, w)
		}
	})
}

func hasAssertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return slices.ContainsFunc(re.Sub, hasAssertion)
}

// TestPlanRegexpsCompile checks that the regexps plans compile lazily do
// compile for every default rule (a plan would otherwise assume a match).
func TestPlanRegexpsCompile(t *testing.T) {
	d := newDetector(t)
	for _, r := range d.t.rules {
		for _, b := range r.getPlan(d.t).plan.branches {
			if b.fre.get() == nil || (b.es != nil && b.es.get() == nil) {
				t.Errorf("rule %s: a plan regexp does not compile", r.id)
			}
		}
	}
}
