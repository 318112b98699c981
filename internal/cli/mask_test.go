package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

func TestWindow(t *testing.T) {
	long := strings.Repeat("x", 200) + "[person:1]" + strings.Repeat("y", 200)
	tests := []struct {
		name string
		line scanner.MaskedLine
		col  int
		want string
	}{
		{"short, indented", scanner.MaskedLine{Text: "\t  name := \"[person:1]\"", Marks: []scanner.Mark{{Column: 13, Start: 12}}}, 13, `name := "[person:1]"`},
		{"control and bidi characters", scanner.MaskedLine{Text: "a\x1b[31mb\u202e[email:1]\rc", Marks: []scanner.Mark{{Column: 9, Start: 11}}}, 9, "a?[31mb?[email:1]?c"},
		{"long line cut around the match", scanner.MaskedLine{Text: long, Marks: []scanner.Mark{{Column: 201, Start: 200}}}, 201,
			"…" + strings.Repeat("x", 40) + "[person:1]" + strings.Repeat("y", 70) + "…"},
	}
	for _, tt := range tests {
		got := window(tt.line, tt.col)
		if got != tt.want {
			t.Errorf("%s: window = %q, want %q", tt.name, got, tt.want)
		}
		if n := utf8.RuneCountInString(strings.Trim(got, "…")); n > contextWidth {
			t.Errorf("%s: %d code points, more than %d", tt.name, n, contextWidth)
		}
	}
}

// context hands out the masked line of each finding in source order and
// drops the entries before it; a finding without an entry gets none and
// drops nothing.
func TestMaskerContext(t *testing.T) {
	m := &masker{}
	for _, p := range []string{"a", "b", "b", "c"} {
		e := maskEntry{kind: finding.KindFile, path: p, lines: map[int]scanner.MaskedLine{}}
		e.lines[len(m.entries)+1] = scanner.MaskedLine{Text: p + "-[person:1]", Marks: []scanner.Mark{{Column: 3, Start: 2}}}
		m.entries = append(m.entries, e)
	}
	if _, ok := m.context(&finding.Finding{Kind: finding.KindFile, Path: "zz", Line: 1}); ok || len(m.entries) != 4 {
		t.Fatalf("an unknown finding got context or dropped entries (%d left)", len(m.entries))
	}
	// "b" is split in two fragments (lines 2 and 3): the second one's line.
	got, ok := m.context(&finding.Finding{Kind: finding.KindFile, Path: "b", Line: 3, Column: 3})
	if !ok || got != "b-[person:1]" || len(m.entries) != 2 {
		t.Fatalf("context = %q, %v; %d entries left, want 2", got, ok, len(m.entries))
	}
	if _, ok := m.context(&finding.Finding{Kind: finding.KindFile, Path: "a", Line: 1}); ok {
		t.Error("an entry before the last finding's was still there")
	}
}
