package catalog

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestLintSpecExampleClean(t *testing.T) {
	if ws := Lint(mustParse(t, specExample)); len(ws) != 0 {
		t.Errorf("warnings: %v", ws)
	}
	if Lint(nil) != nil {
		t.Error("Lint(nil) != nil")
	}
}

func TestLint(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // "line|rule|reason substring", in order
	}{
		{"duplicate in rule",
			"## A\n- category: x\n```values\nZorblax Inc\nOther Corp\nZorblax Inc\n```\n",
			[]string{"6|A|duplicate value: same as the value on line 4"}},
		{"duplicate ignoring case and spaces",
			"## A\n- category: x\n```values\nZorblax Inc\nzorblax   INC\n```\n",
			[]string{"5|A|duplicate value (ignoring case): same as the value on line 4"}},
		{"case-sensitive rule keeps case variants",
			"## A\n- category: x\n- case: sensitive\n```values\nZorblax Inc\nzorblax inc\n```\n",
			nil},
		{"duplicate across rules",
			"## A\n- category: x\n```values\nZorblax Inc\n```\n## B\n- category: y\n```values\nZorblax Inc\n```\n",
			[]string{"9|B|duplicate value: same as the value on line 4 (rule A)"}},
		{"sensitive value covered by an earlier insensitive rule",
			"## A\n- category: x\n```values\nZorblax Inc\n```\n## B\n- category: y\n- case: sensitive\n```values\nZORBLAX INC\n```\n",
			[]string{"10|B|duplicate value (ignoring case): same as the value on line 4 (rule A)"}},
		{"insensitive value covering an earlier sensitive one",
			"## A\n- category: x\n- case: sensitive\n```values\nZorblax Inc\n```\n## B\n- category: y\n```values\nZORBLAX INC\n```\n",
			[]string{"10|B|duplicate value (ignoring case): same as the value on line 5 (rule A)"}},
		{"NFC-equivalent duplicate",
			"## A\n- category: x\n```values\nMüller AG\nMu\u0308ller AG\n```\n",
			[]string{"5|A|duplicate value: same as the value on line 4"}},
		{"duplicate regex",
			"## A\n- category: x\n- match: regex\n```values\nZB-\\d{4}\nZB-\\d{4}\n```\n",
			[]string{"6|A|duplicate value: same as the value on line 5"}},
		{"common words",
			"## A\n- category: x\n```values\nThe\nADMIN\nZorblax\n```\n",
			[]string{"4|A|common English word", "5|A|common English word"}},
		{"common word as identifier",
			"## A\n- category: x\n- match: identifier\n```values\npassword\n```\n",
			[]string{"5|A|common English word"}},
		{"regex single character",
			"## A\n- category: x\n- match: regex\n```values\n[a-z]\n\\w+\nab|c\nx?y\n(?i)z\n\\bq\\b\nab\n\\d{2,}\n```\n",
			[]string{"5|A|single character", "6|A|single character", "7|A|single character", "8|A|single character",
				"9|A|single character", "10|A|single character"}},
		{"regex never matches",
			"## A\n- category: x\n- match: regex\n```values\n[^\\x00-\\x{10FFFF}]\nab[^\\x00-\\x{10FFFF}]\n```\n",
			[]string{"5|A|can never match", "6|A|can never match"}},
		{"short literal without boundary",
			"## A\n- category: x\n- boundary: none\n```values\nZorb\nZorbl\nZ  rb\n```\n",
			[]string{"5|A|shorter than 5 characters and the rule has boundary: none", "7|A|shorter than 5 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := Lint(mustParse(t, tt.src))
			if len(ws) != len(tt.want) {
				t.Fatalf("got %d warnings %v, want %d", len(ws), ws, len(tt.want))
			}
			for i, w := range ws {
				parts := strings.SplitN(tt.want[i], "|", 3)
				if fmt.Sprint(w.Line) != parts[0] || w.RuleID != parts[1] || !strings.Contains(w.Reason, parts[2]) {
					t.Errorf("warning %d = %+v, want %s", i, w, tt.want[i])
				}
				assertNoLeak(t, w.String(), tt.src)
			}
		})
	}
}

// TestLintHandBuilt covers catalogs not made by Parse: invalid values and a
// leaking description are reported, without the value.
func TestLintHandBuilt(t *testing.T) {
	c := &Catalog{Rules: []Rule{{
		ID: "H", Category: "x", Severity: SeverityWarning, Description: "about Zorblax Inc",
		Values: []Value{NewValue("Zorblax Inc"), NewValue("Zb")}, ValueLines: []int32{8, 9}, Line: 3,
	}, {
		ID: "R", Category: "x", Severity: SeverityNote, Match: MatchRegex,
		Values: []Value{NewValue("Zorb(lax"), NewValue("a*")}, Line: 12, // no ValueLines: the heading line is used
	}}}
	ws := Lint(c)
	want := []string{
		"catalog line 3: rule H: description contains the value on line 8 (descriptions are shown in findings)",
		"catalog line 9: rule H: value is shorter than 3 characters",
		"catalog line 12: rule R: invalid regex: missing closing )",
		"catalog line 12: rule R: regex can match the empty string",
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, g := range got {
		for _, s := range []string{"Zorb", "Zb", "a*"} {
			if strings.Contains(g, s) {
				t.Errorf("%q leaks %q", g, s)
			}
		}
	}
}

func TestCommonWordsEmbedded(t *testing.T) {
	words := commonWords()
	if len(words) < 300 {
		t.Errorf("only %d common words", len(words))
	}
	for w := range words {
		if w != strings.ToLower(w) || strings.ContainsAny(w, " #") {
			t.Errorf("bad word entry %q", w)
		}
	}
}

func TestCounts(t *testing.T) {
	src := "## A\n- category: person\n```values\nAlice Smith\nBob Jones\n```\n" +
		"## B\n- category: host\n- severity: note\n```values\nzorb.example\n```\n" +
		"## C\n- category: person\n- severity: warning\n```values\nCarol King\n```\n"
	got := mustParse(t, src).Counts()
	want := Counts{
		Rules: 3, Values: 4,
		Categories: []CategoryCount{{"host", 1, 1}, {"person", 2, 3}},
		Severities: []SeverityCount{{SeverityError, 1, 2}, {SeverityWarning, 1, 1}, {SeverityNote, 1, 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Counts() = %+v, want %+v", got, want)
	}
	if got := (*Catalog)(nil).Counts(); !reflect.DeepEqual(got, Counts{}) {
		t.Errorf("nil Counts() = %+v", got)
	}
	only := mustParse(t, "## A\n- category: x\n- severity: note\n```values\nZorblax\n```\n").Counts()
	if len(only.Severities) != 1 || only.Severities[0].Severity != SeverityNote {
		t.Errorf("Severities = %+v", only.Severities)
	}
}
