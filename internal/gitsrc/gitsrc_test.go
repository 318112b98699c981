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
	"time"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %02d with some padding text to make it longer\n", prefix, i)
	}
	return b.String()
}

// edit replaces the lines whose 1-based numbers are listed.
func edit(text string, nums ...int) string {
	lines := strings.SplitAfter(text, "\n")
	for _, n := range nums {
		lines[n-1] = fmt.Sprintf("edited %02d: a different line entirely\n", n)
	}
	return strings.Join(lines, "")
}

type history struct {
	f                      *fixture
	c1, c2, c3, f1, m, c4  string
	s1, s2                 string
	expectSkippedC1C2      map[string]finding.Skip
	unicodePath, spacePath string
}

// buildHistory creates a repository with every case the ground truth
// covers, then dirties its working tree and index.
func buildHistory(t *testing.T) *history {
	f := newFixture(t)
	h := &history{f: f, unicodePath: "ünïcödé/файл.txt", spacePath: "path with spaces/file name.txt"}

	f.write("mod.txt", numbered("mod", 30))
	f.write("del.txt", numbered("del", 5))
	f.write("ren_edit.txt", numbered("renedit", 20))
	f.write("pure_ren.txt", numbered("pure", 12))
	f.write("copy_src.txt", numbered("copy", 10))
	f.write("crlf.txt", strings.ReplaceAll(numbered("crlf", 6), "\n", "\r\n"))
	f.write("nofinal.txt", strings.TrimSuffix(numbered("nofinal", 4), "\n"))
	f.write("mode.sh", "#!/bin/sh\necho hi\n")
	f.write("old_bin.dat", "text for now\n")
	late := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz\n", 250) // 9250 bytes
	f.write("bin_late.txt", late)
	f.write("blocks.go", "package x\n\nfunc a() {\n\treturn\n}\n")
	if err := os.Symlink("mod.txt", filepath.Join(f.dir, "link")); err != nil {
		t.Fatal(err)
	}
	h.c1 = f.commit("first commit\n\nwith a body line\n")

	f.write("mod.txt", edit(numbered("mod", 30), 3, 17)+"appended line\n")
	f.write("added.txt", "a brand new file\nwith two lines\n")
	f.remove("del.txt")
	f.remove("ren_edit.txt")
	f.write("renamed_edit.txt", edit(numbered("renedit", 20), 2, 5, 7, 9, 13, 15, 16, 19, 20))
	f.remove("pure_ren.txt")
	f.write("dir/pure_renamed.txt", numbered("pure", 12))
	f.remove("copy_src.txt")
	f.write("copy_dst1.txt", numbered("copy", 10))
	f.write("copy_dst2.txt", numbered("copy", 10))
	f.write("bin.dat", "abc\x00def\nmore\n")
	f.write("old_bin.dat", "now binary\x00\n")
	f.write("bin_late.txt", late+"after the probe \x00 nul\nlast text line\n")
	f.write("empty.txt", "")
	if err := os.Chmod(filepath.Join(f.dir, "mode.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.write("crlf.txt", strings.ReplaceAll(edit(numbered("crlf", 6), 4)+"new crlf line\n", "\n", "\r\n"))
	f.write("nofinal.txt", strings.TrimSuffix(edit(numbered("nofinal", 4), 4), "\n"))
	f.write(h.spacePath, "spaced content\n")
	f.write(h.unicodePath, "юникод строка\nsecond\n")
	f.write("lfs.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
	f.write("blocks.go", "package x\n\nfunc a() {\n\treturn\n}\n\nfunc b() {\n\treturn\n}\n")
	f.remove("link")
	if err := os.Symlink("added.txt", filepath.Join(f.dir, "link")); err != nil {
		t.Fatal(err)
	}
	f.git("add", "-A")
	f.git("update-index", "--add", "--cacheinfo", "160000,"+h.c1+",sub")
	// An empty directory is an unpopulated submodule: add -A keeps it.
	if err := os.Mkdir(filepath.Join(f.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.tick++
	f.git("commit", "-q", "-m", "second commit")
	h.c2 = strings.TrimSpace(f.git("rev-parse", "HEAD"))
	h.expectSkippedC1C2 = map[string]finding.Skip{
		"bin.dat": finding.SkipBinary, "old_bin.dat": finding.SkipBinary,
		"lfs.bin": finding.SkipLFS, "sub": finding.SkipSubmodule,
	}

	// A side branch with a merge back, and another left unmerged.
	f.git("checkout", "-q", "-b", "feature")
	f.write("feature.txt", "feature work\n")
	h.f1 = f.commit("feature commit")
	f.git("checkout", "-q", "main")
	f.write("mod.txt", edit(numbered("mod", 30), 3, 17, 25)+"appended line\n")
	h.c3 = f.commit("third commit")
	f.tick++
	f.git("merge", "-q", "--no-ff", "-m", "merge feature\n\nmerge body", "feature")
	h.m = strings.TrimSpace(f.git("rev-parse", "HEAD"))
	f.write("after.txt", "after the merge\n")
	h.c4 = f.commit("fourth commit")
	f.git("checkout", "-q", "-b", "side", h.c2)
	f.write("side.txt", "side one\n")
	h.s1 = f.commit("side one")
	f.write("side.txt", "side one\nside two\n")
	h.s2 = f.commit("side two")
	f.git("checkout", "-q", "main")

	// Dirty the index and the working tree.
	f.write(".gitignore", "*.log\nignored_dir/\n")
	f.git("add", ".gitignore")
	f.write("added.txt", "a brand new file\nstaged line\nwith two lines\n")
	f.git("add", "added.txt")
	f.write("mod.txt", edit(numbered("mod", 30), 3, 17, 25, 29)+"appended line\nworktree line\n")
	f.write("staged_new.txt", "staged new file\n")
	f.git("add", "staged_new.txt")
	f.write("untracked.txt", "untracked content\n")
	f.write("sub2/untracked2.txt", "nested untracked\n")
	f.write("ignored.log", "ignored\n")
	f.write("ignored_dir/x.txt", "ignored too\n")
	f.write("sub2/.gitignore", "local.txt\n")
	f.write("sub2/local.txt", "ignored by a nested rule\n")
	f.remove("after.txt")
	return h
}

func open(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func diffSrc(t *testing.T, r *Repo, opts DiffOptions) *collected {
	t.Helper()
	src, err := r.Diff(opts)
	if err != nil {
		t.Fatalf("Diff(%+v): %v", opts, err)
	}
	return collect(t, src)
}

func TestGroundTruthDiff(t *testing.T) {
	h := buildHistory(t)
	f := h.f
	r := open(t, f.dir)

	t.Run("two commits", func(t *testing.T) {
		for _, revs := range [][]string{{h.c1, h.c2}, {h.c1 + ".." + h.c2}} {
			got := diffSrc(t, r, DiffOptions{Revs: revs})
			if !reflect.DeepEqual(got.skipped, h.expectSkippedC1C2) {
				t.Errorf("skipped = %v, want %v", got.skipped, h.expectSkippedC1C2)
			}
			for _, l := range got.lines {
				if l.Commit != h.c2 {
					t.Fatalf("fragment commit %q, want %s", l.Commit, h.c2)
				}
			}
			want := withoutSkipped(f.gitAdded(f.dir, "diff", h.c1, h.c2), got)
			compareAdded(t, "git diff A B", withCommit(got.lines, ""), want)
			// Spot checks that make the comparison meaningful.
			paths := map[string]int{}
			for _, l := range got.lines {
				paths[l.Path]++
			}
			for p, n := range map[string]int{"renamed_edit.txt": 9, "mod.txt": 3, "copy_dst2.txt": 10,
				"bin_late.txt": 2, "crlf.txt": 2, "nofinal.txt": 1, h.spacePath: 1, h.unicodePath: 2, "blocks.go": 4, "link": 1} {
				if paths[p] != n {
					t.Errorf("%s: %d added lines, want %d", p, paths[p], n)
				}
			}
			for _, p := range []string{"dir/pure_renamed.txt", "copy_dst1.txt", "mode.sh", "empty.txt", "del.txt"} {
				if paths[p] != 0 {
					t.Errorf("%s: %d added lines, want none", p, paths[p])
				}
			}
			if len(got.messages) != 1 || got.messages[0].Commit != h.c2 {
				t.Errorf("messages = %d, want the one of c2", len(got.messages))
			}
		}
	})

	t.Run("no messages", func(t *testing.T) {
		got := diffSrc(t, r, DiffOptions{Revs: []string{h.c1, h.c4}, NoMessages: true})
		if len(got.messages) != 0 {
			t.Errorf("messages with NoMessages: %d", len(got.messages))
		}
		got = diffSrc(t, r, DiffOptions{Revs: []string{h.c1 + ".." + h.c4}})
		var ids []string
		for _, m := range got.messages {
			ids = append(ids, m.Commit)
		}
		want := strings.Fields(f.git("log", "--format=%H", h.c1+".."+h.c4))
		if !reflect.DeepEqual(ids, want) {
			t.Errorf("message commits = %v, want %v", ids, want)
		}
	})

	t.Run("commit vs worktree", func(t *testing.T) {
		got := diffSrc(t, r, DiffOptions{Revs: []string{h.c1}, NoUntracked: true})
		want := withoutSkipped(f.gitAdded(f.dir, "diff", h.c1), got)
		compareAdded(t, "git diff A", got.lines, want)
		if len(got.messages) != 0 {
			t.Errorf("worktree diff yielded messages")
		}
		// The default adds the untracked, non-ignored files, wholly.
		all := diffSrc(t, r, DiffOptions{Revs: []string{h.c1}})
		extra := []addedLine{
			{Path: "sub2/.gitignore", Line: 1, Text: "local.txt"},
			{Path: "sub2/untracked2.txt", Line: 1, Text: "nested untracked"},
			{Path: "untracked.txt", Line: 1, Text: "untracked content"},
		}
		compareAdded(t, "git diff A + untracked", all.lines, append(want, extra...))
	})

	t.Run("staged", func(t *testing.T) {
		got := diffSrc(t, r, DiffOptions{Staged: true})
		want := withoutSkipped(f.gitAdded(f.dir, "diff", "--cached"), got)
		compareAdded(t, "git diff --cached", got.lines, want)
		if len(want) == 0 {
			t.Fatal("nothing staged")
		}
		got = diffSrc(t, r, DiffOptions{Staged: true, Revs: []string{h.c1}})
		want = withoutSkipped(f.gitAdded(f.dir, "diff", "--cached", h.c1), got)
		compareAdded(t, "git diff --cached A", got.lines, want)
	})

	t.Run("worktree vs index", func(t *testing.T) {
		got := diffSrc(t, r, DiffOptions{NoUntracked: true})
		want := f.gitAdded(f.dir, "diff")
		compareAdded(t, "git diff", got.lines, want)
		if len(want) == 0 {
			t.Fatal("clean working tree")
		}
	})

	t.Run("merge base", func(t *testing.T) {
		got := diffSrc(t, r, DiffOptions{Revs: []string{"main...side"}})
		want := f.gitAdded(f.dir, "diff", "main...side")
		compareAdded(t, "git diff A...B", withCommit(got.lines, ""), want)
		if len(want) == 0 {
			t.Fatal("empty merge-base diff")
		}
		var ids []string
		for _, m := range got.messages {
			ids = append(ids, m.Commit)
		}
		if !reflect.DeepEqual(ids, []string{h.s2, h.s1}) {
			t.Errorf("messages of main...side = %v, want side's two commits", ids)
		}
	})

	t.Run("paths", func(t *testing.T) {
		for _, ps := range [][]string{{"dir"}, {"mod.txt", "ünïcödé"}, {"*.txt"}, {"path with spaces/"}} {
			got := diffSrc(t, r, DiffOptions{Revs: []string{h.c1, h.c2}, Paths: ps})
			want := withoutSkipped(f.gitAdded(f.dir, append([]string{"diff", h.c1, h.c2, "--"}, ps...)...), got)
			compareAdded(t, fmt.Sprintf("git diff -- %q", ps), withCommit(got.lines, ""), want)
			got = diffSrc(t, r, DiffOptions{Revs: []string{h.c1}, Paths: ps, NoUntracked: true})
			want = withoutSkipped(f.gitAdded(f.dir, append([]string{"diff", h.c1, "--"}, ps...)...), got)
			compareAdded(t, fmt.Sprintf("git diff A -- %q", ps), got.lines, want)
		}
		// Relative to a subdirectory, like git.
		sub := open(t, filepath.Join(f.dir, "dir"))
		got := diffSrc(t, sub, DiffOptions{Revs: []string{h.c1, h.c2}, Paths: []string{"."}})
		want := f.gitAdded(filepath.Join(f.dir, "dir"), "diff", h.c1, h.c2, "--", ".")
		compareAdded(t, "git diff -- . (in dir)", withCommit(got.lines, ""), want)
		if _, err := sub.Diff(DiffOptions{Paths: []string{"../../x"}}); err == nil {
			t.Error("a path outside the repository was accepted")
		}
	})
}

func TestGroundTruthHistory(t *testing.T) {
	h := buildHistory(t)
	f := h.f
	r := open(t, f.dir)
	r.SetWorkers(2)

	check := func(t *testing.T, r *Repo, dir, rng string, paths []string) {
		src, err := r.History(rng, paths)
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, src)
		args := []string{"log"}
		if rng != "" {
			args = append(args, rng)
		}
		if len(paths) > 0 {
			args = append(append(args, "--"), paths...)
		}
		want := withoutSkipped(f.gitAdded(dir, args...), got)
		compareAdded(t, "git "+strings.Join(args, " "), got.lines, want)

		// Messages: every commit in log order, merges included.
		logArgs := []string{"log", "--format=%H"}
		if rng != "" {
			logArgs = append(logArgs, rng)
		}
		if len(paths) > 0 {
			logArgs = append(append(logArgs, "--"), paths...)
		}
		var ids []string
		for _, m := range got.messages {
			ids = append(ids, m.Commit)
		}
		if wantIDs := strings.Fields(f.gitIn(dir, logArgs...)); !reflect.DeepEqual(ids, wantIDs) {
			t.Errorf("message order = %v\nwant %v", ids, wantIDs)
		}
		// The fragments of each commit follow its message.
		cur := ""
		for _, fr := range got.frags {
			if fr.Kind == finding.KindCommitMessage {
				cur = fr.Commit
			} else if fr.Commit != cur {
				t.Errorf("%s: fragment of commit %s after the message of %s", fr.Path, fr.Commit, cur)
			}
		}
	}
	t.Run("all", func(t *testing.T) { check(t, r, f.dir, "", nil) })
	t.Run("range", func(t *testing.T) { check(t, r, f.dir, h.c1+".."+h.c4, nil) })
	t.Run("rev", func(t *testing.T) { check(t, r, f.dir, "side", nil) })
	t.Run("symmetric", func(t *testing.T) { check(t, r, f.dir, "main...side", nil) })
	t.Run("paths", func(t *testing.T) { check(t, r, f.dir, "", []string{"mod.txt", "dir"}) })

	t.Run("message text", func(t *testing.T) {
		src, err := r.History(h.c1+".."+h.m, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, src)
		for _, m := range got.messages {
			var lines []string
			for _, l := range m.Lines {
				lines = append(lines, string(l.Text))
			}
			want := strings.TrimRight(f.git("log", "-1", "--format=%B", m.Commit), "\n")
			if strings.Join(lines, "\n") != want {
				t.Errorf("message of %s = %q, want %q", m.Commit, lines, want)
			}
		}
	})

	t.Run("bare clone", func(t *testing.T) {
		bare := filepath.Join(filepath.Dir(f.dir), "bare.git")
		f.gitIn(filepath.Dir(f.dir), "clone", "-q", "--bare", f.dir, bare)
		br := open(t, bare)
		if br.Root() != "" {
			t.Errorf("bare Root() = %q", br.Root())
		}
		check(t, br, bare, "", nil)
		if _, err := br.Diff(DiffOptions{}); !errors.Is(err, ErrBare) {
			t.Errorf("worktree diff in a bare repository: %v", err)
		}
		if _, err := br.Files(nil); !errors.Is(err, ErrBare) {
			t.Errorf("Files in a bare repository: %v", err)
		}
	})
}

func TestOpenLocations(t *testing.T) {
	h := buildHistory(t)
	f := h.f

	t.Run("subdirectory", func(t *testing.T) {
		r := open(t, filepath.Join(f.dir, "dir"))
		if r.Root() != f.dir {
			t.Errorf("Root() = %q, want %q", r.Root(), f.dir)
		}
		got := diffSrc(t, r, DiffOptions{NoUntracked: true})
		compareAdded(t, "git diff from a subdirectory", got.lines, f.gitAdded(f.dir, "diff"))
	})

	t.Run("linked worktree", func(t *testing.T) {
		wt := filepath.Join(filepath.Dir(f.dir), "linked")
		f.git("worktree", "add", "-q", wt, "side")
		if err := os.WriteFile(filepath.Join(wt, "side.txt"), []byte("side one\nlinked edit\nside two\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(wt, "wt_untracked.txt"), []byte("only here\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := open(t, wt)
		if r.Root() != wt {
			t.Errorf("Root() = %q, want %q", r.Root(), wt)
		}
		got := diffSrc(t, r, DiffOptions{Revs: []string{"HEAD~1"}, NoUntracked: true})
		compareAdded(t, "git diff HEAD~1 in a linked worktree", got.lines, f.gitAdded(wt, "diff", "HEAD~1"))
		all := diffSrc(t, r, DiffOptions{})
		if all.lines[len(all.lines)-1].Path != "wt_untracked.txt" {
			t.Errorf("untracked file of the linked worktree missing: %v", all.lines)
		}
		src, err := r.History("", nil)
		if err != nil {
			t.Fatal(err)
		}
		hist := collect(t, src)
		compareAdded(t, "git log -p in a linked worktree", hist.lines, withoutSkipped(f.gitAdded(wt, "log"), hist))
	})

	t.Run("not a repository", func(t *testing.T) {
		if _, err := Open(t.TempDir()); !errors.Is(err, ErrNotRepo) {
			t.Errorf("Open(empty dir) error = %v, want ErrNotRepo", err)
		}
	})
}

func TestShallowClone(t *testing.T) {
	h := buildHistory(t)
	f := h.f
	shallow := filepath.Join(filepath.Dir(f.dir), "shallow")
	f.gitIn(filepath.Dir(f.dir), "clone", "-q", "--depth", "1", "file://"+f.dir, shallow)
	r := open(t, shallow)
	if !r.IsShallow() {
		t.Fatal("IsShallow() = false for a depth-1 clone")
	}
	_, err := r.Diff(DiffOptions{Revs: []string{"HEAD~1"}})
	var re *RevError
	if !errors.As(err, &re) || !re.Shallow || re.Rev != "HEAD~1" || !errors.Is(err, ErrRevNotFound) {
		t.Fatalf("Diff(HEAD~1) on a shallow clone: %v, want a shallow *RevError", err)
	}
	// The boundary commit is walked as a root, like git log -p does.
	src, err := r.History("", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, src)
	compareAdded(t, "git log -p (shallow)", got.lines, withoutSkipped(f.gitAdded(shallow, "log"), got))

	full := open(t, f.dir)
	if full.IsShallow() {
		t.Error("IsShallow() = true for a full repository")
	}
	_, err = full.Diff(DiffOptions{Revs: []string{"no-such-branch"}})
	if !errors.As(err, &re) || re.Shallow || !errors.Is(err, ErrRevNotFound) {
		t.Errorf("unknown revision: %v", err)
	}
	// A revision name can hold a catalogued name: the message never
	// repeats it (RevError.Rev keeps it for the caller).
	if err != nil && (strings.Contains(err.Error(), "no-such-branch") || re.Rev != "no-such-branch") {
		t.Errorf("RevError %q: Rev %q; the message must not repeat the revision", err, re.Rev)
	}
	f.git("tag", "-a", "-m", "tag message", "v1", h.c2)
	for _, rev := range []string{"HEAD~1", "main~1^2", "main", "feature", h.c2[:8], "v1", "HEAD~2"} {
		if _, err := full.Diff(DiffOptions{Revs: []string{rev}, NoUntracked: true}); err != nil {
			t.Errorf("Diff(%q): %v", rev, err)
		}
	}
	tagDiff := diffSrc(t, full, DiffOptions{Revs: []string{"v1", "HEAD"}})
	if len(tagDiff.lines) == 0 || tagDiff.lines[0].Commit != h.c4 {
		t.Errorf("annotated tag diff: %v", tagDiff.lines)
	}
}

func TestEmptyRepository(t *testing.T) {
	f := newFixture(t)
	f.write("new.txt", "first line\n")
	r := open(t, f.dir)
	got := diffSrc(t, r, DiffOptions{})
	compareAdded(t, "untracked in an empty repo", got.lines, []addedLine{{Path: "new.txt", Line: 1, Text: "first line"}})
	src, err := r.History("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := collect(t, src); len(h.frags) != 0 {
		t.Errorf("history of an empty repository: %d fragments", len(h.frags))
	}
	f.git("add", "new.txt")
	got = diffSrc(t, r, DiffOptions{Staged: true})
	compareAdded(t, "staged in an empty repo", got.lines, []addedLine{{Path: "new.txt", Line: 1, Text: "first line"}})
	if _, err := r.Diff(DiffOptions{Revs: []string{"HEAD"}}); !errors.Is(err, ErrRevNotFound) {
		t.Errorf("Diff(HEAD) in an empty repository: %v", err)
	}
}

func TestFileBecomesDirectory(t *testing.T) {
	f := newFixture(t)
	f.write("x", "was a file\n")
	f.write("keep.txt", "kept\n")
	f.commit("one")
	f.remove("x")
	f.write("x/inner.txt", "now a directory\n")
	r := open(t, f.dir)
	got := diffSrc(t, r, DiffOptions{NoUntracked: true})
	compareAdded(t, "git diff (file became a directory)", got.lines, f.gitAdded(f.dir, "diff"))
	got = diffSrc(t, r, DiffOptions{})
	compareAdded(t, "untracked under a former file", got.lines, []addedLine{{Path: "x/inner.txt", Line: 1, Text: "now a directory"}})
}

func TestDetachedHead(t *testing.T) {
	h := buildHistory(t)
	h.f.git("stash", "-u", "-q")
	h.f.git("checkout", "-q", "--detach", h.c3)
	r := open(t, h.f.dir)
	src, err := r.History("", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, src)
	compareAdded(t, "git log -p (detached)", got.lines, withoutSkipped(h.f.gitAdded(h.f.dir, "log"), got))
	if len(got.messages) != 3 {
		t.Errorf("detached at c3: %d messages, want 3", len(got.messages))
	}
}

func TestFiles(t *testing.T) {
	h := buildHistory(t)
	f := h.f
	r := open(t, f.dir)
	src, err := r.Files(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, src)
	var paths []string
	for _, fr := range got.frags {
		paths = append(paths, fr.Path)
		if fr.Kind != finding.KindFile {
			t.Errorf("%s: kind %s", fr.Path, fr.Kind)
		}
	}
	// Ground truth: tracked files plus untracked non-ignored ones.
	want := strings.Split(strings.TrimRight(f.git("ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00")
	var wantPaths []string
	for _, p := range want {
		fi, err := os.Lstat(filepath.Join(f.dir, p))
		if p == "sub" || (err == nil && fi.Mode().IsRegular() && fi.Size() > 0) {
			wantPaths = append(wantPaths, p)
		}
	}
	sortStrings(wantPaths)
	if !reflect.DeepEqual(paths, dedupe(wantPaths)) {
		t.Errorf("Files paths =\n%q\nwant\n%q", paths, dedupe(wantPaths))
	}
	wantSkip := map[string]finding.Skip{"bin.dat": finding.SkipBinary, "old_bin.dat": finding.SkipBinary, "lfs.bin": finding.SkipLFS, "sub": finding.SkipSubmodule}
	if !reflect.DeepEqual(got.skipped, wantSkip) {
		t.Errorf("skipped = %v, want %v", got.skipped, wantSkip)
	}
	for _, l := range got.lines {
		if l.Path == "crlf.txt" && strings.HasSuffix(l.Text, "\r") {
			t.Errorf("CR kept in %q", l.Text)
		}
	}
	src, err = r.Files([]string{"sub2"})
	if err != nil {
		t.Fatal(err)
	}
	got = collect(t, src)
	if len(got.frags) != 2 || got.frags[0].Path != "sub2/.gitignore" || got.frags[1].Path != "sub2/untracked2.txt" {
		t.Errorf("Files(sub2) = %d fragments", len(got.frags))
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func TestCancellation(t *testing.T) {
	h := buildHistory(t)
	r := open(t, h.f.dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, mk := range map[string]func() (scanner.Source, error){
		"history": func() (scanner.Source, error) { return r.History("", nil) },
		"diff":    func() (scanner.Source, error) { return r.Diff(DiffOptions{Revs: []string{h.c1}}) },
		"files":   func() (scanner.Source, error) { return r.Files(nil) },
	} {
		src, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = src.Fragments(ctx, func(*scanner.Fragment) error { n++; return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled context gave %v after %d fragments", name, err, n)
		}
	}
	// Cancelling mid-walk stops it; a yield error is returned as is.
	src, err := r.History("", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	n := 0
	err = src.Fragments(ctx, func(*scanner.Fragment) error {
		n++
		if n == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("mid-walk cancel: %v", err)
	}
	stop := errors.New("stop")
	err = src.Fragments(context.Background(), func(*scanner.Fragment) error { return stop })
	if err != stop {
		t.Errorf("yield error: got %v", err)
	}
}

func TestAuthorTime(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "a\n")
	f.tick = 125 // the commit's date is 2020-01-01T00:02:06Z
	id := f.commit("one")
	r := open(t, f.dir)
	got, err := r.AuthorTime(id)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2020, 1, 1, 0, 2, 6, 0, time.UTC); !got.Equal(want) {
		t.Errorf("AuthorTime = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "HEAD", "zz" + id[2:], strings.Repeat("0", 40), strings.Repeat("1", 40)} {
		if _, err := r.AuthorTime(bad); err == nil {
			t.Errorf("AuthorTime(%q) succeeded", bad)
		}
	}
}

// CountCommits agrees with git rev-list --count, and with the commits the
// history source yields.
func TestCountCommits(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 4; i++ {
		f.write("a.txt", numbered("a", i+1))
		f.commit(fmt.Sprintf("c%d", i))
	}
	f.git("checkout", "-q", "-b", "side", "HEAD~2")
	f.write("b.txt", "b\n")
	f.commit("side")
	f.git("checkout", "-q", "main")
	f.git("merge", "-q", "--no-edit", "side")
	r := open(t, f.dir)
	for _, rng := range []string{"", "HEAD~1", "main~3..main", "side...main", "side..main"} {
		args := []string{"rev-list", "--count"}
		if rng == "" {
			args = append(args, "HEAD")
		} else {
			args = append(args, rng)
		}
		want := strings.TrimSpace(f.git(args...))
		got, err := r.CountCommits(context.Background(), rng)
		if err != nil {
			t.Fatalf("%q: %v", rng, err)
		}
		if fmt.Sprint(got) != want {
			t.Errorf("CountCommits(%q) = %d, git rev-list --count says %s", rng, got, want)
		}
	}
	if _, err := r.CountCommits(context.Background(), "nosuch"); err == nil {
		t.Error("CountCommits of an unknown revision succeeded")
	}
}

// Files reports how many files it is about to read before the first one.
func TestFilesOnTotal(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "a\n")
	f.write("d/b.txt", "b\n")
	f.commit("one")
	f.write("untracked.txt", "u\n")
	r := open(t, f.dir)
	src, err := r.Files(nil)
	if err != nil {
		t.Fatal(err)
	}
	total, seen := -1, 0
	src.(interface{ OnTotal(func(int)) }).OnTotal(func(n int) { total = n })
	err = src.Fragments(context.Background(), func(*scanner.Fragment) error {
		if total < 0 {
			t.Fatal("a fragment before the total")
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || seen != 3 {
		t.Errorf("total %d, %d fragments; want 3 and 3", total, seen)
	}
}
