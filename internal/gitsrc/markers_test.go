package gitsrc

import (
	"errors"
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

func TestReadFileAtAndPolicyBase(t *testing.T) {
	f := newFixture(t)
	f.write(".privscan.toml", "fail-on = \"error\"\n")
	f.write("dir/x.txt", "x\n")
	a := f.commit("a")
	f.write(".privscan.toml", "exclude = [\"**\"]\n")
	b := f.commit("b")
	r := open(t, f.dir)

	got, err := r.ReadFileAt(a, ".privscan.toml", 1<<20)
	if err != nil || string(got) != "fail-on = \"error\"\n" {
		t.Fatalf("ReadFileAt(a): %q, %v", got, err)
	}
	if _, err := r.ReadFileAt(a, ".privscanignore", 1<<20); !errors.Is(err, ErrFileNotInCommit) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := r.ReadFileAt(a, "dir", 1<<20); !errors.Is(err, ErrFileNotInCommit) {
		t.Fatalf("directory: %v", err)
	}
	if _, err := r.ReadFileAt(a, ".privscan.toml", 3); err == nil {
		t.Fatal("over max: no error")
	}

	type policyBase interface{ PolicyBase() string }
	for _, c := range []struct {
		revs []string
		want string
	}{
		{[]string{a + ".." + b}, a},
		{[]string{a, b}, a},
		{[]string{a + "..." + b}, a},
		{[]string{a}, ""}, // a vs the working tree
		{nil, ""},
	} {
		src, err := r.Diff(DiffOptions{Revs: c.revs})
		if err != nil {
			t.Fatal(err)
		}
		if got := src.(policyBase).PolicyBase(); got != c.want {
			t.Errorf("Diff(%v).PolicyBase() = %q, want %q", c.revs, got, c.want)
		}
	}
	for _, c := range []struct{ rng, want string }{{a + ".." + b, a}, {a + "..." + b, a}, {"", ""}, {b, ""}} {
		src, err := r.History(c.rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := src.(policyBase).PolicyBase(); got != c.want {
			t.Errorf("History(%q).PolicyBase() = %q, want %q", c.rng, got, c.want)
		}
	}
}
