package action_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestBoundaryProperty: the Action finds a catalogued name planted across
// every buffer size of the git reader, in one long line and after short
// lines (LF, CRLF), at the exact line and column (SARIF, UTF-16 units: the
// text is ASCII).
func TestBoundaryProperty(t *testing.T) {
	t.Parallel()
	const value = "Jane Doe"
	type tc struct {
		name      string
		text      string
		line, col int
	}
	var cases []tc
	for _, b := range []int{4 << 10, 64 << 10, 256 << 10, 1 << 20} {
		at := b - len(value)/2
		cases = append(cases, tc{fmt.Sprintf("one line/%d", b), strings.Repeat("a", at-1) + " " + value + " z\n", 1, at + 1})
		for _, eol := range []string{"\n", "\r\n"} {
			short := strings.Repeat("b", 78) + eol
			n := at / len(short)
			rest := at - n*len(short)
			pad := ""
			if rest > 0 {
				pad = strings.Repeat("c", rest-1) + " "
			}
			cases = append(cases, tc{fmt.Sprintf("lines %q/%d", eol, b), strings.Repeat(short, n) + pad + value + " z" + eol, n + 1, len(pad) + 1})
		}
	}
	cases = append(cases, tc{"start", value + " first\n", 1, 1}, tc{"end, no newline", "first\nsecond " + value, 2, 8})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, t.TempDir())
			base := r.commit("initial", "README.md", "widgets\n")
			head := r.commit("data", "data.txt", c.text)
			res := newJob(t, r.dir, "push", map[string]any{
				"ref": "refs/heads/main", "before": base, "after": head,
				"repository": map[string]any{"full_name": "acme/widgets", "default_branch": "main"},
			}).run()
			res.checkNoValues(t)
			var log struct {
				Runs []struct {
					Results []struct {
						RuleID    string
						Locations []struct {
							PhysicalLocation struct {
								Region struct{ StartLine, StartColumn, EndColumn int }
							}
						}
					}
				}
			}
			if err := json.Unmarshal(res.sarif, &log); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range log.Runs[0].Results {
				rg := x.Locations[0].PhysicalLocation.Region
				got = append(got, fmt.Sprintf("%s %d:%d-%d", x.RuleID, rg.StartLine, rg.StartColumn, rg.EndColumn))
			}
			want := fmt.Sprintf("catalog/PER-001 %d:%d-%d", c.line, c.col, c.col+len(value))
			if len(got) != 1 || got[0] != want {
				t.Fatalf("results %v, want [%s]", got, want)
			}
		})
	}
}
