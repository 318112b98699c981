package gitsrc

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/privscan/privscan/scanner"
)

// TestFragmentContext: a diff fragment carries, before each run of added
// lines, the lines of the new file since the previous added line, at
// most scanner.ContextLines of them, with their numbers and text; never an
// added line, and none before a run that starts the file.
func TestFragmentContext(t *testing.T) {
	lines := func(n int, edit map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := edit[i]; ok {
				b.WriteString(s)
			} else {
				fmt.Fprintf(&b, "line %d\n", i)
			}
		}
		return b.String()
	}
	seq := func(from, to int) []int {
		var out []int
		for i := from; i <= to; i++ {
			out = append(out, i)
		}
		return out
	}
	f := newFixture(t)
	f.write("a.txt", lines(50, nil))
	f.write("b.txt", lines(3, nil))
	base := f.commit("base")
	// a.txt: lines 45 and 48 edited, 51 and 52 appended; b.txt: line 1
	// edited; c.txt: new.
	f.write("a.txt", lines(52, map[int]string{45: "forty-five\n", 48: "forty-eight\n"}))
	f.write("b.txt", lines(3, map[int]string{1: "one\n"}))
	f.write("c.txt", "new\n")
	head := f.commit("change")
	r := open(t, f.dir)
	c := diffSrc(t, r, DiffOptions{Revs: []string{base, head}, NoMessages: true})
	got := map[string][]int{}
	for _, fr := range c.frags {
		var nums []int
		for _, l := range fr.Context {
			nums = append(nums, l.Number)
			if want := fmt.Sprintf("line %d", l.Number); string(l.Text) != want {
				t.Errorf("%s: context line %d is %q, want %q", fr.Path, l.Number, l.Text, want)
			}
		}
		got[fr.Path] = nums
	}
	want := map[string][]int{
		// 13-44 before 45 (32), 46-47 before 48, 49-50 before 51.
		"a.txt": append(seq(13, 44), 46, 47, 49, 50),
		"b.txt": nil,
		"c.txt": nil,
	}
	if scanner.ContextLines != 32 {
		t.Fatalf("ContextLines is %d; the expectations assume 32", scanner.ContextLines)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("context line numbers: got %v, want %v", got, want)
	}
}
