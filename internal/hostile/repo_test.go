package hostile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fastImport feeds a fast-import stream to git in dir.
func fastImport(t *testing.T, dir string, write func(w *bufio.Writer)) {
	t.Helper()
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = gitEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(in, 1<<20)
	write(w)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
}

// commitHeader writes a fast-import commit header on refs/heads/main; a
// later commit continues the branch (and its tree) by default.
func commitHeader(w *bufio.Writer, msg string) {
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Dev <dev@example.com> 1767225600 +0000\ndata %d\n%s\n", len(msg), msg)
}

func inline(w *bufio.Writer, path, content string) {
	fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
}

// TestManyFiles: one commit adding 100k files (5k by default), built with
// git fast-import. diff and history scan every file and find every planted
// value; the time is logged.
func TestManyFiles(t *testing.T) {
	n := scaled(2_000, 100_000)
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo)
	planted := 0
	fastImport(t, repo, func(w *bufio.Writer) {
		commitHeader(w, "first")
		inline(w, "README", "hello\n")
		commitHeader(w, "many files")
		for i := 0; i < n; i++ {
			body := fmt.Sprintf("package p%d\n\nconst x = %d\n", i, i)
			if i%1000 == 7 {
				body += "// owner: " + canaryName + "\n"
				planted++
			}
			inline(w, fmt.Sprintf("pkg/d%03d/f%06d.go", i%500, i), body)
		}
	})
	env := newEnv(t)
	for _, args := range [][]string{{"diff", "HEAD~1..HEAD"}, {"history"}} {
		start := time.Now()
		r := run(t, repo, env, nil, scaled(5*time.Minute, 30*time.Minute), append(args, "--format", "json")...)
		d := time.Since(start)
		noLeak(t, args[0], r.stdout+r.stderr)
		rep := decode(t, r)
		files := n
		if args[0] == "history" {
			files++ // README in the first commit
		}
		if rep.Summary.FilesScanned != files || countRule(rep, "catalog/PER-001") != planted {
			t.Fatalf("%s: %d files, %d findings; want %d files, %d findings", args[0], rep.Summary.FilesScanned, countRule(rep, "catalog/PER-001"), files, planted)
		}
		// The peer: git producing the same patch (its own floor, no scanning).
		gargs := []string{"-C", repo, "diff", "HEAD~1..HEAD"}
		if args[0] == "history" {
			gargs = []string{"-C", repo, "log", "-p", "HEAD"}
		}
		gs := time.Now()
		cmd := exec.Command("git", gargs...)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			t.Fatalf("git %v: %v", gargs[2:], err)
		}
		gd := time.Since(gs)
		t.Logf("%s of a commit with %d files: %s (git %s: %s, ratio %.1f)", args[0], n, d.Round(time.Millisecond),
			strings.Join(gargs[2:], " "), gd.Round(time.Millisecond), float64(d)/float64(gd))
	}
}

// TestDeepPaths: a file 200 directories deep, both committed (built with
// fast-import, with a path longer than PATH_MAX that no checkout could
// write) and in a working tree.
func TestDeepPaths(t *testing.T) {
	env := newEnv(t)
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo)
	long := strings.Repeat(strings.Repeat("d", 40)+"/", 200) + "deep.txt" // 8 KB path
	fastImport(t, repo, func(w *bufio.Writer) {
		commitHeader(w, "first")
		inline(w, "README", "hello\n")
		commitHeader(w, "deep")
		inline(w, long, "x "+canaryName+"\n")
	})
	for _, args := range [][]string{{"diff", "HEAD~1..HEAD"}, {"history"}} {
		r := run(t, repo, env, nil, time.Minute, append(args, "--format", "json")...)
		noLeak(t, args[0], r.stdout+r.stderr)
		if got := decode(t, r).located(); !reflect.DeepEqual(got, []string{"catalog/PER-001@" + long + ":1:3-21"}) {
			t.Fatalf("%s: findings %.300v", args[0], got)
		}
	}

	// In a working tree: 200 levels of a short name.
	wt := filepath.Join(t.TempDir(), "wt")
	gitRepo(t, wt)
	writeFile(t, filepath.Join(wt, "README"), []byte("hello\n"))
	commitAll(t, wt, "first")
	rel := strings.Repeat("d/", 200) + "deep.txt"
	writeFile(t, filepath.Join(wt, filepath.FromSlash(rel)), []byte("x "+canaryName+"\n"))
	want := []string{"catalog/PER-001@" + rel + ":1:3-21"}
	for _, args := range [][]string{{"diff"}, {"scan"}} {
		r := run(t, wt, env, nil, time.Minute, append(args, "--format", "json")...)
		if got := decode(t, r).located(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s (untracked): findings %v", args[0], got)
		}
	}
	commitAll(t, wt, "deep")
	r := run(t, wt, env, nil, time.Minute, "diff", "HEAD~1", "--format", "json")
	if got := decode(t, r).located(); !reflect.DeepEqual(got, want) {
		t.Fatalf("diff HEAD~1: findings %v", got)
	}
}

// TestRepoShapes: an empty repository, a shallow clone, a detached HEAD, a
// submodule and Git LFS pointers each give a correct result or a clear
// error with a hint.
func TestRepoShapes(t *testing.T) {
	env := newEnv(t)
	base := t.TempDir()

	t.Run("empty repository", func(t *testing.T) {
		repo := filepath.Join(base, "empty")
		gitRepo(t, repo)
		writeFile(t, filepath.Join(repo, "new.txt"), []byte(canaryName+"\n"))
		for _, tc := range []struct {
			args     []string
			code     int
			findings int
			stderr   string
		}{
			{[]string{"diff"}, 1, 1, ""},
			{[]string{"diff", "--staged"}, 0, 0, ""},
			{[]string{"diff", "--no-untracked"}, 0, 0, ""},
			{[]string{"scan"}, 1, 1, ""},
			{[]string{"history"}, 0, 0, ""},
			{[]string{"diff", "HEAD"}, 2, 0, "unknown revision"},
			{[]string{"diff", "HEAD~1..HEAD"}, 2, 0, "unknown revision"},
		} {
			r := run(t, repo, env, nil, time.Minute, append(tc.args, "--format", "json")...)
			noLeak(t, "output", r.stdout+r.stderr)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d, %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
				continue
			}
			if tc.code != 2 {
				if got := decode(t, r).Summary.Findings; got != tc.findings {
					t.Errorf("%v: %d findings, want %d", tc.args, got, tc.findings)
				}
			}
		}
		git(t, repo, "add", "new.txt")
		r := run(t, repo, env, nil, time.Minute, "diff", "--staged", "--format", "json")
		if got := decode(t, r).Summary.Findings; got != 1 {
			t.Errorf("diff --staged with a staged file and no commit: %d findings, want 1", got)
		}
	})

	src := filepath.Join(base, "src")
	gitRepo(t, src)
	for i := 1; i <= 3; i++ {
		f, err := os.OpenFile(filepath.Join(src, "f.txt"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "line %d QZX-00000%d\n", i, i)
		f.Close()
		commitAll(t, src, fmt.Sprintf("commit %d for %s", i, canaryName))
	}

	t.Run("shallow clone", func(t *testing.T) {
		shallow := filepath.Join(base, "shallow")
		git(t, base, "clone", "-q", "--depth", "1", "file://"+src, shallow)
		for _, args := range [][]string{{"diff", "HEAD~1"}, {"diff", "HEAD~1..HEAD"}, {"history", "HEAD~2..HEAD"}} {
			r := run(t, shallow, env, nil, time.Minute, args...)
			noLeak(t, "output", r.stdout+r.stderr)
			if r.code != 2 || !strings.Contains(r.stderr, "shallow clone") || !strings.Contains(r.stderr, "privscan: hint: ") {
				t.Errorf("%v: exit %d, stderr %q; want a shallow-clone error with a hint", args, r.code, r.stderr)
			}
		}
		// What the clone holds is scanned: its one commit, as a root.
		r := run(t, shallow, env, nil, time.Minute, "history", "--format", "json")
		rep := decode(t, r)
		if rep.Summary.CommitsScanned != 1 || countRule(rep, "catalog/EMP-ID") != 3 || countRule(rep, "catalog/PER-001") != 1 {
			t.Errorf("history of a depth-1 clone: %+v %v", rep.Summary, rep.located())
		}
	})

	t.Run("detached HEAD", func(t *testing.T) {
		det := filepath.Join(base, "detached")
		git(t, base, "clone", "-q", "file://"+src, det)
		git(t, det, "checkout", "-q", "--detach", "HEAD~1")
		r := run(t, det, env, nil, time.Minute, "diff", "HEAD~1", "--format", "json")
		if got := decode(t, r).located(); !reflect.DeepEqual(got, []string{"catalog/EMP-ID@f.txt:2:8-18"}) {
			t.Errorf("diff HEAD~1: %v", got)
		}
		r = run(t, det, env, nil, time.Minute, "history", "--format", "json")
		if rep := decode(t, r); rep.Summary.CommitsScanned != 2 || countRule(rep, "catalog/PER-001") != 2 {
			t.Errorf("history: %+v", rep.Summary)
		}
		r = run(t, det, env, nil, time.Minute, "diff", "--format", "json")
		if r.code != 0 {
			t.Errorf("clean detached worktree: exit %d %s", r.code, r.stderr)
		}
	})

	t.Run("submodule and LFS pointers", func(t *testing.T) {
		sm := filepath.Join(base, "super")
		gitRepo(t, sm)
		writeFile(t, filepath.Join(sm, "README"), []byte("hello\n"))
		commitAll(t, sm, "first")
		git(t, sm, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "file://"+src, "sub")
		pointer := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
		writeFile(t, filepath.Join(sm, "assets", "big.bin"), []byte(pointer))
		writeFile(t, filepath.Join(sm, ".gitattributes"), []byte("*.bin filter=lfs diff=lfs merge=lfs -text\n"))
		writeFile(t, filepath.Join(sm, "notes.txt"), []byte("ask "+canaryName+"\n"))
		commitAll(t, sm, "add submodule and LFS")
		for _, args := range [][]string{{"diff", "HEAD~1..HEAD"}, {"diff", "HEAD~1"}, {"history"}, {"scan"}} {
			r := run(t, sm, env, nil, time.Minute, append(args, "--format", "json")...)
			noLeak(t, "output", r.stdout+r.stderr)
			rep := decode(t, r)
			if got := rep.located(); !reflect.DeepEqual(got, []string{"catalog/PER-001@notes.txt:1:5-23"}) {
				t.Errorf("%v: findings %v", args, got)
			}
			if rep.Summary.Skipped["lfs"] != 1 || rep.Summary.Skipped["submodule"] != 1 {
				t.Errorf("%v: skipped %v, want 1 lfs and 1 submodule", args, rep.Summary.Skipped)
			}
		}
	})
}
