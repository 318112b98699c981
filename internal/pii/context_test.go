package pii

import (
	"reflect"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// TestDetectReadsContext: a diff fragment's context lines (lines of the new
// file the change did not add) are read in their place, so an added line
// is judged as it would be had the lines above it come in the same change;
// nothing is reported on a context line, and matches keep the index of
// their added line. Synthetic names and hosts only.
func TestDetectReadsContext(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	// numbered builds lines from "N:text" items.
	numbered := func(items ...string) []scanner.Line {
		var out []scanner.Line
		for _, it := range items {
			n, text, _ := strings.Cut(it, ":")
			num := 0
			for _, c := range n {
				num = num*10 + int(c-'0')
			}
			out = append(out, scanner.Line{Number: num, Text: []byte(text)})
		}
		return out
	}
	type hit struct {
		Line     int
		Severity string
	}
	cases := []struct {
		name           string
		path           string
		context, lines []scanner.Line
		want           []hit
	}{
		{
			name: "item appended to a contributors list whose key is context",
			path: "demo/graph.py",
			context: numbered(`1:__contributors__ = [`, `2:    "Ada Example <ada.example@mailhost.io>",`,
				`3:    "Bo Sample <bo.sample@mailhost.io>",`),
			lines: numbered(`4:    "Cy Demo <cy.demo@mailhost.io>",`, `5:]`),
			want:  []hit{{0, "note"}},
		},
		{
			name:  "the same item without its context",
			path:  "demo/graph.py",
			lines: numbered(`4:    "Cy Demo <cy.demo@mailhost.io>",`, `5:]`),
			want:  []hit{{0, "warning"}},
		},
		{
			name: "the list's key not among the context lines",
			path: "demo/graph.py",
			context: numbered(`3:    "Ada Example <ada.example@mailhost.io>",`, `4:    "Ada Example <ada.example@mailhost.io>",`,
				`5:    "Ada Example <ada.example@mailhost.io>",`, `6:    "Ada Example <ada.example@mailhost.io>",`,
				`7:    "Ada Example <ada.example@mailhost.io>",`, `8:    "Ada Example <ada.example@mailhost.io>",`,
				`9:    "Ada Example <ada.example@mailhost.io>",`, `10:    "Ada Example <ada.example@mailhost.io>",`),
			lines: numbered(`11:    "Cy Demo <cy.demo@mailhost.io>",`),
			want:  []hit{{0, "warning"}},
		},
		{
			name:    "an address wrapped under an @author tag that is context",
			path:    "src/main/kotlin/demo/Reader.kt",
			context: numbered(`1:/**`, `2: * @author Ada Example`),
			lines:   numbered(`3: *   ada.example@mailhost.io`, `4: */`),
			want:    []hit{{0, "note"}},
		},
		{
			name:    "context in a fixture still keeps the warning",
			path:    "tests/fixtures/graph.py",
			context: numbered(`1:__contributors__ = [`),
			lines:   numbered(`2:    "Cy Demo <cy.demo@mailhost.io>",`),
			want:    []hit{{0, "warning"}},
		},
		{
			name:    "lines and context interleaved: indices are the added lines'",
			path:    "src/app/config.go",
			context: numbered(`1:// settings`, `3:x := 1`, `4:y := 2`),
			lines:   numbered(`2:owner := "cy.demo@mailhost.io"`, `5:admin := "bo.sample@mailhost.io"`),
			want:    []hit{{0, "warning"}, {1, "warning"}},
		},
		{
			name:    "an address on a context line is never reported",
			path:    "src/app/config.go",
			context: numbered(`1:owner := "cy.demo@mailhost.io"`),
			lines:   numbered(`2:x := 1`),
			want:    nil,
		},
	}
	for _, c := range cases {
		f := &scanner.Fragment{Kind: finding.KindDiff, Path: c.path, Lines: c.lines, Context: c.context}
		var got []hit
		d.Detect(f, func(m scanner.Match) {
			if m.Category != "email" {
				return
			}
			got = append(got, hit{m.Line, m.Severity.String()})
			if m.Line < 0 || m.Line >= len(f.Lines) || m.End > len(f.Lines[m.Line].Text) {
				t.Errorf("%s: match %+v outside the added lines", c.name, m)
			}
		})
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
