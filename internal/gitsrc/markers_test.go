package gitsrc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/privscan/privscan/scanner"
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

func TestTooManyRenames(t *testing.T) {
	for _, c := range []struct {
		adds, dels int
		want       bool
	}{
		{1, 1, false}, {200, 200, false}, {1000, 1000, false}, {1001, 1000, true},
		{1500, 10, false}, {10, 1500, false}, {1001, 1001, true}, {100000, 10, false}, {100001, 10, true},
	} {
		if got := tooManyRenames(c.adds, c.dels); got != c.want {
			t.Errorf("tooManyRenames(%d, %d) = %v, want %v", c.adds, c.dels, got, c.want)
		}
	}
}

// TestManyRenamesLikeGit: 300 files renamed and edited in one commit (past
// go-git's and this package's former limit of 200): the added lines are
// git diff -M's, not every line of every renamed file.
func TestManyRenamesLikeGit(t *testing.T) {
	f := newFixture(t)
	const n = 300
	for i := range n {
		f.write(fmt.Sprintf("old/f%03d.txt", i), numbered(fmt.Sprintf("file%03d", i), 12))
	}
	a := f.commit("files")
	f.git("mv", "old", "new")
	for i := range n {
		f.write(fmt.Sprintf("new/f%03d.txt", i), edit(numbered(fmt.Sprintf("file%03d", i), 12), 5))
	}
	f.git("add", "-A")
	b := f.commit("rename and edit")
	got := diffSrc(t, open(t, f.dir), DiffOptions{Revs: []string{a, b}, NoMessages: true})
	want := withoutSkipped(f.gitAdded(f.dir, "diff", "-M", a, b), got)
	if len(want) != n {
		t.Fatalf("git diff -M shows %d added lines, want %d (one per file)", len(want), n)
	}
	compareAdded(t, "git diff -M A B", withCommit(got.lines, ""), want)
}

// TestMissingObjectNamed: a blob missing from the object store (a partial
// clone, a broken repository) stops history with an error that names the
// object and the commit.
func TestMissingObjectNamed(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", numbered("alpha", 20))
	f.commit("a")
	f.git("mv", "a.txt", "b.txt")
	f.write("b.txt", edit(numbered("alpha", 20), 3))
	f.write("c.txt", numbered("gamma", 20))
	f.git("add", "-A")
	c := strings.TrimSpace(f.commit("rename"))
	blob := strings.TrimSpace(f.git("rev-parse", c+":b.txt"))
	if err := os.Remove(filepath.Join(f.dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	src, err := open(t, f.dir).History("", nil)
	if err != nil {
		t.Fatal(err)
	}
	err = src.Fragments(context.Background(), func(*scanner.Fragment) error { return nil })
	if err == nil || !strings.Contains(err.Error(), blob) || !strings.Contains(err.Error(), c) {
		t.Fatalf("error %v: want the object %s and the commit %s named", err, blob, c)
	}
}
