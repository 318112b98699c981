package secrets

import (
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/regexp"

	"github.com/privscan/privscan/scanner"
)

func lines(ss ...string) []scanner.Line {
	var ls []scanner.Line
	for i, s := range ss {
		ls = append(ls, scanner.Line{Number: i + 1, Text: []byte(s)})
	}
	return ls
}

// TestGitleaksColumnQuirk pins the gitleaks v8.30.1 behaviour locateMatch's
// fast path relies on: 0-based lines, and columns that are 1-based on the
// first line but one too high on later ones (gitleaks issue #1424). If an
// upgrade changes it, locateMatch still finds the match (by search), but
// the arithmetic should be revisited.
func TestGitleaksColumnQuirk(t *testing.T) {
	gl := ruleDetector(t, "aws-access-token")
	raw := "ab " + awsKey + "\nabcd " + awsKey
	//lint:ignore SA1019 the API the adapter uses
	fs := gl.Detect(detect.Fragment{Raw: raw})
	got := map[[2]int]bool{}
	for _, f := range fs {
		got[[2]int{f.StartLine, f.StartColumn}] = true
	}
	// Line 0: byte 3 -> column 4. Line 1: byte 5 -> column 6, reported 7.
	want := map[[2]int]bool{{0, 4}: true, {1, 7}: true}
	if len(fs) != 2 || !got[[2]int{0, 4}] || !got[[2]int{1, 7}] {
		t.Fatalf("gitleaks reported (line, column) %v, want %v", got, want)
	}
}

// ruleDetector returns the lazily built gitleaks detector for rule id.
func ruleDetector(t *testing.T, id string) *detect.Detector {
	t.Helper()
	d := newDetector(t)
	for _, r := range d.t.rules {
		if r.id == id {
			gl, _, err := r.detector(d.t)
			if err != nil {
				t.Fatal(err)
			}
			return gl
		}
	}
	t.Fatalf("no rule %s", id)
	return nil
}

func TestLocateMatch(t *testing.T) {
	tx := newText(lines("k1 = v", "", "k1 = v", "xx k1 = v"))
	// starts: 0, 7, 8, 15
	tests := []struct {
		name      string
		line, col int
		want      int
	}{
		{"first line", 0, 1, 0},
		{"third line, gitleaks column", 2, 2, 8},
		{"fourth line, gitleaks column", 3, 5, 18},
		{"hint on the joining newline", 1, 1, 8},
		{"wrong hint: nearest occurrence", 0, 12, 8},
		{"hint past the end", 3, 99, 18},
		{"line out of range", 9, 1, 0},
	}
	for _, tc := range tests {
		if got := tx.locateMatch(tc.line, tc.col, "k1 = v"); got != tc.want {
			t.Errorf("%s: locateMatch(%d, %d) = %d, want %d", tc.name, tc.line, tc.col, got, tc.want)
		}
	}
	if got := tx.locateMatch(0, 1, "absent"); got != -1 {
		t.Errorf("absent match located at %d", got)
	}
}

func TestSecretInMatch(t *testing.T) {
	rule := func(re string, group int) config.Rule {
		return config.Rule{Regex: regexp.MustCompile(re), SecretGroup: group}
	}
	tests := []struct {
		name          string
		rule          config.Rule
		match, secret string
		off, n        int
	}{
		{"no group", rule(`tok_[a-z]+`, 0), "tok_abc", "tok_abc", 0, 7},
		{"first non-empty group", rule(`(x)?key=([a-z]+)`, 0), "key=abc", "abc", 4, 3},
		{"secret group", rule(`(key)=([a-z]+)`, 2), "key=abc", "abc", 4, 3},
		// The value repeats the key name: the group, not the first
		// occurrence of the text, locates it.
		{"value equal to key name", rule(`([a-z]+)=([a-z]+)`, 2), "key=key", "key", 4, 3},
		{"secret not from the regex: search", rule(`zzz`, 0), "a=bc", "bc", 2, 2},
		{"secret absent: whole match", rule(`zzz`, 0), "a=bc", "qq", 0, 4},
		{"empty secret: whole match", rule(`(a)?=bc`, 0), "a=bc", "", 0, 4},
	}
	for _, tc := range tests {
		off, n := secretInMatch(tc.rule, tc.match, tc.secret)
		if off != tc.off || n != tc.n {
			t.Errorf("%s: got (%d, %d), want (%d, %d)", tc.name, off, n, tc.off, tc.n)
		}
	}
}

func TestLineSpan(t *testing.T) {
	tx := newText(lines("abc", "defgh", "", "ij"))
	// starts: 0, 4, 10, 11
	tests := []struct {
		start, end int
		line, s, e int
		name       string
	}{
		{0, 3, 0, 0, 3, "whole first line"},
		{5, 7, 1, 1, 3, "inside a line"},
		{6, 12, 1, 2, 5, "spanning lines: clipped to the first"},
		{11, 13, 3, 0, 2, "last line"},
		{10, 10, 2, 0, 0, "empty line"},
	}
	for _, tc := range tests {
		l, s, e := tx.lineSpan(tc.start, tc.end)
		if l != tc.line || s != tc.s || e != tc.e {
			t.Errorf("%s: lineSpan(%d, %d) = (%d, %d, %d), want (%d, %d, %d)",
				tc.name, tc.start, tc.end, l, s, e, tc.line, tc.s, tc.e)
		}
	}
}

func TestNewTextSkipsLongLines(t *testing.T) {
	long := make([]byte, MaxLineBytes+1)
	tx := newText([]scanner.Line{{Number: 1, Text: []byte("ab")}, {Number: 2, Text: long}, {Number: 3, Text: []byte("cd")}})
	if tx.s != "ab\n\ncd" {
		t.Fatalf("text %q", tx.s)
	}
	if want := []int{0, 3, 4}; tx.starts[0] != want[0] || tx.starts[1] != want[1] || tx.starts[2] != want[2] {
		t.Fatalf("starts %v, want %v", tx.starts, want)
	}
}
