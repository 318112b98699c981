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
	f := newFixture(t)
	f.write("a.txt", lines(20, nil))
	f.write("b.txt", lines(3, nil))
	base := f.commit("base")
	// a.txt: lines 12 and 15 edited, 21 and 22 appended; b.txt: line 1
	// edited; c.txt: new.
	f.write("a.txt", lines(22, map[int]string{12: "twelve\n", 15: "fifteen\n"}))
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
		// 4-11 before 12 (eight), 13-14 before 15, 16-20 before 21.
		"a.txt": {4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 16, 17, 18, 19, 20},
		"b.txt": nil,
		"c.txt": nil,
	}
	if scanner.ContextLines != 8 {
		t.Fatalf("ContextLines is %d; the expectations assume 8", scanner.ContextLines)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("context line numbers: got %v, want %v", got, want)
	}
}
