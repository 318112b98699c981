package gitsrc

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// renamePairs returns the renames detectRenames makes between commits a
// and b, as "from -> to", sorted; and go-git's in *oldPairs unless nil.
func renamePairs(t *testing.T, r *Repo, f *fixture, a, b string, oldPairs *string) []string {
	t.Helper()
	tree := func(c string) plumbing.Hash {
		return plumbing.NewHash(strings.TrimSpace(f.git("rev-parse", c+"^{tree}")))
	}
	p := newProcessor(r.store, newBlobCache(r.limits.blob, 0), r.limits.tree)
	var changes []change
	if err := p.trees.diffTrees(context.Background(), tree(a), tree(b), "", nil, &changes); err != nil {
		t.Fatal(err)
	}
	if oldPairs != nil {
		*oldPairs = goGitPairs(t, p, slices.Clone(changes))
	}
	changes, err := p.detectRenames(changes)
	if err != nil {
		t.Fatal(err)
	}
	if s := joinPairs(changes); s != "" {
		return strings.Split(s, ", ")
	}
	return nil
}

// gitRenamePairs returns the renames of git diff -M --name-status a b.
func gitRenamePairs(f *fixture, a, b string) []string {
	var out []string
	for _, l := range strings.Split(f.git("diff", "-M", "--name-status", a, b), "\n") {
		fs := strings.Split(l, "\t")
		if len(fs) == 3 && strings.HasPrefix(fs[0], "R") {
			out = append(out, fs[1]+" -> "+fs[2])
		}
	}
	sort.Strings(out)
	return out
}

// TestRenameTiesLikeGit: when several pairings are equally good, the one
// made is git's (git diff -M, diffcore-rename.c) and the same on every run.
// Exact renames follow git's rule (destinations in path order, each taking
// the first unused source of its blob with the same basename, else the
// first); content renames with equal scores go as git's score_compare and
// its candidate slots order them (a same basename first, the destination
// first in path order, then, for one destination, the source in the order
// its candidate slots hold them: usually, not always, path order). Each
// case is checked against git itself.
func TestRenameTiesLikeGit(t *testing.T) {
	base := numbered("tie", 20)
	head := edit(base, 1, 2, 3, 4, 5, 6, 7, 8)         // 12 of 20 lines kept
	tail := edit(base, 13, 14, 15, 16, 17, 18, 19, 20) // the other 12
	other := numbered("other", 20)
	exact := numbered("exact", 10)
	type file struct{ path, content string }
	for _, c := range []struct {
		name     string
		old, new []file
		exec     []string // new files made executable
		links    []file   // new symbolic links: path, target
		want     []string // git's pairing, checked against git too
	}{
		{
			name: "content tie, two destinations of different blobs",
			old:  []file{{"d/f.txt", base}},
			new:  []file{{"e1/f.txt", head}, {"e2/f.txt", tail}},
			want: []string{"d/f.txt -> e1/f.txt"},
		},
		{
			name: "content tie, two destinations of one blob",
			old:  []file{{"d/f.txt", base}},
			new:  []file{{"e1/f.txt", head}, {"e2/f.txt", head}},
			want: []string{"d/f.txt -> e1/f.txt"},
		},
		{
			name: "content tie, two sources of different blobs",
			old:  []file{{"d1/f.txt", head}, {"d2/f.txt", tail}},
			new:  []file{{"e/f.txt", base}},
			want: []string{"d1/f.txt -> e/f.txt"},
		},
		{
			name: "content tie, two deletions of one blob",
			old:  []file{{"d1/f.txt", head}, {"d2/f.txt", head}},
			new:  []file{{"e/f.txt", base}},
			want: []string{"d1/f.txt -> e/f.txt"},
		},
		{
			name: "content ties, several pairs",
			old:  []file{{"d1/f.txt", base}, {"d2/g.txt", other}},
			new: []file{{"e1/f.txt", head}, {"e2/f.txt", tail},
				{"e3/g.txt", edit(other, 1, 2, 3, 4, 5, 6, 7, 8)}, {"e4/g.txt", edit(other, 13, 14, 15, 16, 17, 18, 19, 20)}},
			want: []string{"d1/f.txt -> e1/f.txt", "d2/g.txt -> e3/g.txt"},
		},
		{
			// go-git's 1 % of path similarity favours d2/, but the
			// contents are equal: git takes the first destination.
			name: "content tie, path similarity does not break it",
			old:  []file{{"d/f.txt", base}},
			new:  []file{{"a/f.txt", head}, {"d2/f.txt", head}},
			want: []string{"d/f.txt -> a/f.txt"},
		},
		{
			name: "content, same basename before path order",
			old:  []file{{"d/f.txt", base}},
			new:  []file{{"a/zz.txt", head}, {"z/f.txt", head}},
			want: []string{"d/f.txt -> z/f.txt"},
		},
		{
			// git pairs a basename unique on both sides first, at 75 %,
			// before the more similar file of another name.
			name: "content, unique basename paired first",
			old:  []file{{"d/f.txt", base}},
			new:  []file{{"e/f.txt", edit(base, 1, 2, 3, 4)}, {"e/g.txt", edit(base, 1)}},
			want: []string{"d/f.txt -> e/f.txt"},
		},
		{
			name: "content, basename not unique: the most similar",
			old:  []file{{"d/f.txt", base}, {"d2/f.txt", other}},
			new:  []file{{"e/f.txt", edit(base, 1, 2, 3, 4)}, {"e/g.txt", edit(base, 1)}},
			want: []string{"d/f.txt -> e/g.txt"},
		},
		{
			name: "exact, one deletion, two additions, basename first",
			old:  []file{{"a/f.txt", exact}},
			new:  []file{{"b/f.txt", exact}, {"c/g.txt", exact}},
			want: []string{"a/f.txt -> b/f.txt"},
		},
		{
			name: "exact, the first destination takes it without the basename",
			old:  []file{{"a/f.txt", exact}},
			new:  []file{{"a2/g.txt", exact}, {"z/f.txt", exact}},
			want: []string{"a/f.txt -> a2/g.txt"},
		},
		{
			name: "exact, two deletions, basename before directory",
			old:  []file{{"x/y/f.txt", exact}, {"c/g.txt", exact}},
			new:  []file{{"c/f.txt", exact}},
			want: []string{"x/y/f.txt -> c/f.txt"},
		},
		{
			name: "exact, two deletions, two additions",
			old:  []file{{"a/f.txt", exact}, {"b/f.txt", exact}},
			new:  []file{{"c/f.txt", exact}, {"d/f.txt", exact}},
			want: []string{"a/f.txt -> c/f.txt", "b/f.txt -> d/f.txt"},
		},
		{
			name: "exact, two deletions, none with the basename",
			old:  []file{{"b/g.txt", exact}, {"a/h.txt", exact}},
			new:  []file{{"c/f.txt", exact}},
			want: []string{"a/h.txt -> c/f.txt"},
		},
		{
			// go-git dropped this addition: its exact pass picked one of
			// the two deletions by path similarity, found the modes
			// different and kept the link neither as a rename nor as new.
			name:  "exact, a symbolic link is not a rename of a file of its target's bytes",
			old:   []file{{"a.txt", "target"}, {"b.txt", "target"}},
			links: []file{{"dir/zz", "target"}},
			want:  nil,
		},
		{
			name: "exact, executable bit added",
			old:  []file{{"a.sh", exact}},
			new:  []file{{"b.sh", exact}},
			exec: []string{"b.sh"},
			want: []string{"a.sh -> b.sh"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("keep.txt", "unchanged\n")
			for _, x := range c.old {
				f.write(x.path, x.content)
			}
			a := f.commit("old")
			for _, x := range c.old {
				f.remove(x.path)
			}
			for _, x := range c.new {
				f.write(x.path, x.content)
			}
			for _, l := range c.links {
				if err := os.MkdirAll(filepath.Join(f.dir, filepath.Dir(l.path)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(l.content, filepath.Join(f.dir, l.path)); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range c.exec {
				if err := os.Chmod(filepath.Join(f.dir, p), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			b := f.commit("new")
			want := gitRenamePairs(f, a, b)
			if strings.Join(want, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("git diff -M pairs %q, the table says %q", want, c.want)
			}
			r := open(t, f.dir)
			for i := range 20 {
				if got := renamePairs(t, r, f, a, b, nil); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("run %d: pairs %q, git %q", i, got, want)
				}
			}
			got := diffSrc(t, r, DiffOptions{Revs: []string{a, b}, NoMessages: true})
			compareAdded(t, "git diff -M A B", withCommit(got.lines, ""), withoutSkipped(f.gitAdded(f.dir, "diff", "-M", a, b), got))
		})
	}
}

// FuzzRenamesMatchGit: deletions and additions built from a few shared
// lines (long ones cut in 64-byte spans, CRLF, a last line without its
// newline, some executable) are paired as git diff -M pairs them, the
// same way on every run.
func FuzzRenamesMatchGit(f *testing.F) {
	f.Add([]byte{1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{3, 3, 7, 1, 9, 200, 13, 40, 77, 5, 120, 33, 8, 91, 64})
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice over"))
	f.Add([]byte{2, 1, 4, 0, 0, 9, 1, 1, 2, 3, 2, 0, 5, 5, 5, 5, 6, 7})
	f.Add([]byte("basenames unique on both sides pair first at 75 percent"))
	f.Add([]byte{0, 3, 17, 2, 2, 250, 4, 4, 4, 4, 11, 12, 13, 0, 1, 99, 98})
	lines := []string{
		"alpha beta gamma\n", "delta epsilon\n", "zeta eta theta iota kappa\n", "lambda\n",
		"mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega and a tail long enough to be cut in two spans\n",
		"\n", "crlf line\r\n", "x := y + z\n", "return nil\n", "}\n", "func f() {\n", "// a comment\n",
		"no newline at the end",
	}
	dirs := []string{"", "a/", "b/", "a/b/"}
	bases := []string{"f.txt", "g.txt", "ff.txt"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		k := 0
		next := func() int { k++; return int(data[k%len(data)]) }
		type file struct {
			path, content string
			exec          bool
		}
		seen := map[string]bool{}
		contents := map[string]bool{}
		gen := func(prefix string) (file, bool) {
			path := prefix + dirs[next()%len(dirs)] + bases[next()%len(bases)]
			var b strings.Builder
			for range 2 + next()%12 {
				b.WriteString(lines[next()%len(lines)])
			}
			if seen[path] || contents[b.String()] {
				return file{}, false
			}
			seen[path], contents[b.String()] = true, true
			return file{path, b.String(), next()%5 == 0}, true
		}
		var old, new []file
		for range 1 + int(data[0])%4 {
			x, ok := gen("old/")
			if !ok {
				return
			}
			old = append(old, x)
		}
		for range 1 + int(data[1])%4 {
			x, ok := gen("new/")
			if !ok {
				return
			}
			new = append(new, x)
		}
		fx := newFixture(t)
		fx.write("keep.txt", "unchanged\n")
		write := func(x file) {
			fx.write(x.path, x.content)
			if x.exec {
				if err := os.Chmod(filepath.Join(fx.dir, x.path), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, x := range old {
			write(x)
		}
		a := fx.commit("old")
		for _, x := range old {
			fx.remove(x.path)
		}
		for _, x := range new {
			write(x)
		}
		b := fx.commit("new")
		want := strings.Join(gitRenamePairs(fx, a, b), ", ")
		r := open(t, fx.dir)
		for i := range 2 {
			if got := strings.Join(renamePairs(t, r, fx, a, b, nil), ", "); got != want {
				t.Fatalf("run %d: pairs %q, git %q", i, got, want)
			}
		}
	})
}

// TestRenamesLikeGitOnRepo compares the renames of every non-merge commit
// of the repository named by PRIVSCAN_RENAME_REPO (a clone, bare or not)
// with git log -M's, and logs the commits where they differ (commit and
// paths only). It fails when a commit is paired otherwise than git pairs
// it, or a run differs from the first; it also counts the commits go-git's
// DetectRenames pairs otherwise.
func TestRenamesLikeGitOnRepo(t *testing.T) {
	dir := os.Getenv("PRIVSCAN_RENAME_REPO")
	if dir == "" {
		t.Skip("PRIVSCAN_RENAME_REPO not set")
	}
	f := &fixture{t: t, dir: dir, home: t.TempDir()}
	want := map[string][]string{}
	var commits []string
	var cur string
	for _, l := range strings.Split(f.git("log", "-M", "--no-merges", "--name-status", "--format=commit %H %P"), "\n") {
		if rest, ok := strings.CutPrefix(l, "commit "); ok {
			fs := strings.Fields(rest)
			cur = ""
			if len(fs) == 2 { // root commits have no parent to compare with
				cur = fs[0]
				commits = append(commits, cur)
			}
			continue
		}
		fs := strings.Split(l, "\t")
		if cur != "" && len(fs) == 3 && strings.HasPrefix(fs[0], "R") {
			want[cur] = append(want[cur], fs[1]+" -> "+fs[2])
		}
	}
	r := open(t, dir)
	differ, changed := 0, 0
	for _, c := range commits {
		var old0, old1, old2 string
		got := strings.Join(renamePairs(t, r, f, c+"^", c, &old0), ", ")
		again := strings.Join(renamePairs(t, r, f, c+"^", c, &old1), ", ")
		if again != got {
			t.Errorf("%s: pairs differ between runs", c)
		}
		renamePairs(t, r, f, c+"^", c, &old2)
		w := want[c]
		sort.Strings(w)
		if got != strings.Join(w, ", ") {
			differ++
			t.Errorf("%s differs from git log -M:\n  ours: %s\n  git:  %s", c, got, strings.Join(w, ", "))
		}
		if old0 != got || old1 != got || old2 != got {
			changed++
			t.Logf("%s: go-git paired otherwise (3 runs):\n  ours:   %s\n  go-git: %s\n  go-git: %s\n  go-git: %s", c, got, old0, old1, old2)
		}
	}
	t.Logf("%d commits, %d with renames in git, %d paired differently from git, %d from go-git's DetectRenames", len(commits), len(want), differ, changed)
}

// joinPairs lists the renames among changes, sorted, as "from -> to, …".
func joinPairs(cs []change) string {
	var out []string
	for _, c := range cs {
		if c.hasFrom && c.hasTo && c.from.path != c.to.path {
			out = append(out, c.from.path+" -> "+c.to.path)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// goGitPairs returns the renames go-git's object.DetectRenames makes, as
// detectRenames called it before it paired files itself (git's limit on
// every addition and deletion, exact renames only beyond it).
func goGitPairs(t *testing.T, p *processor, changes []change) string {
	t.Helper()
	var adds, dels int
	for _, c := range changes {
		switch {
		case c.hasTo && !c.hasFrom:
			adds++
		case c.hasFrom && !c.hasTo:
			dels++
		}
	}
	if adds == 0 || dels == 0 {
		return ""
	}
	empty := plumbing.ComputeHash(plumbing.TreeObject, nil)
	p.ov.mem[empty] = memObject{plumbing.TreeObject, []byte{}}
	anchor, err := object.GetTree(p.ov, empty)
	if err != nil {
		t.Fatal(err)
	}
	ce := func(e entry) object.ChangeEntry {
		return object.ChangeEntry{Name: e.path, Tree: anchor, TreeEntry: object.TreeEntry{Name: basename(e.path), Mode: e.mode, Hash: e.hash}}
	}
	var oc object.Changes
	for _, c := range changes {
		var x object.Change
		if c.hasFrom {
			x.From = ce(c.from)
		}
		if c.hasTo {
			x.To = ce(c.to)
		}
		oc = append(oc, &x)
	}
	res, err := object.DetectRenames(oc, &object.DiffTreeOptions{DetectRenames: true, RenameScore: renameScore, OnlyExactRenames: tooManyRenames(adds, dels)})
	if err != nil {
		t.Fatal(err)
	}
	var out []change
	for _, x := range res {
		var c change
		if x.From.Name != "" {
			c.from, c.hasFrom = entry{x.From.Name, x.From.TreeEntry.Mode, x.From.TreeEntry.Hash}, true
		}
		if x.To.Name != "" {
			c.to, c.hasTo = entry{x.To.Name, x.To.TreeEntry.Mode, x.To.TreeEntry.Hash}, true
		}
		out = append(out, c)
	}
	return joinPairs(out)
}
