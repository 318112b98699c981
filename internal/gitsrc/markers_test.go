package gitsrc

import (
	"reflect"
	"testing"
)

func TestHunkRemoved(t *testing.T) {
	all := func(int) bool { return true }
	cases := []struct {
		name           string
		removed, added []bool
		want           map[int][]int
	}{
		{"pure add", []bool{false, false}, []bool{false, true, false}, map[int][]int{1: {}}},
		{"replace one", []bool{false, true, false}, []bool{false, true, false}, map[int][]int{1: {1}}},
		{"replace two by one", []bool{true, true, false}, []bool{true, false}, map[int][]int{0: {0, 1}}},
		{"two hunks", []bool{true, false, true}, []bool{true, true, false, true}, map[int][]int{0: {0}, 1: {0}, 3: {2}}},
		{"delete only", []bool{false, true}, []bool{false}, nil},
		{"new file", nil, []bool{true, true}, map[int][]int{0: {}, 1: {}}},
	}
	for _, c := range cases {
		got := hunkRemoved(c.removed, c.added, len(c.removed), all)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// TestBaseMarkers: a marker on an added line is on the base side only when
// the same hunk removed a line that carries one.
func TestBaseMarkers(t *testing.T) {
	f := newFixture(t)
	f.write("a.go", "one\ntwo // privscan:allow pii/email\nthree\nfour\nfive\nsix\nseven\n")
	base := f.commit("base")
	// Line 2 keeps its marker (edited), line 6 gains one, line 8 is new.
	f.write("a.go", "one\nTWO // privscan:allow pii/email\nthree\nfour\nfive\nsix // privscan:allow\nseven\neight // privscan:allow\n")
	f.write("b.go", "new // privscan:allow\n")
	f.git("add", "-A")
	head := f.commit("change")
	r := open(t, f.dir)
	c := diffSrc(t, r, DiffOptions{Revs: []string{base, head}, NoMessages: true})
	got := map[string]map[int]int{} // path -> line number -> base lines
	for _, fr := range c.frags {
		m := map[int]int{}
		for i, l := range fr.Lines {
			m[l.Number] = len(fr.BaseMarkers[i])
		}
		got[fr.Path] = m
	}
	want := map[string]map[int]int{
		"a.go": {2: 1, 6: 0, 8: 0},
		"b.go": {1: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("base marker lines per added line: got %v, want %v", got, want)
	}
}
