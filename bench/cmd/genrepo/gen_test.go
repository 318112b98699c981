package main

import (
	"bytes"
	"crypto/sha256"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func small(seed int64) Options {
	return Options{Seed: seed, Commits: 60, SizeMB: 0.5, CatalogSeed: 1, CatalogN: 1000, Plant: 50, Branch: "main"}
}

func TestGenerateDeterministic(t *testing.T) {
	var a, b, c bytes.Buffer
	sa, err := Generate(&a, small(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(&b, small(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(&c, small(2)); err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(a.Bytes()) != sha256.Sum256(b.Bytes()) {
		t.Error("same seed, different streams")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("different seeds, same stream")
	}
	if sa.Commits != 60 || sa.AddedBytes < 400<<10 || sa.AddedBytes > 700<<10 {
		t.Errorf("stats %+v: want 60 commits and about 0.5 MiB added", sa)
	}
	if sa.CatalogLines == 0 || sa.PIILines == 0 || sa.LastCommitAdd == 0 {
		t.Errorf("stats %+v: nothing planted", sa)
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, o := range []Options{{Commits: 1, SizeMB: 1}, {Commits: 10, SizeMB: 0}} {
		if _, err := Generate(&bytes.Buffer{}, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestFastImport feeds a stream to git fast-import and checks the history.
func TestFastImport(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	gitc := func(stdin *bytes.Buffer, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if stdin != nil {
			cmd.Stdin = stdin
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitc(nil, "init", "-q", "-b", "main", dir)
	o := small(3)
	o.Commits = 200 // reaches the binary and rename branches
	var stream bytes.Buffer
	st, err := Generate(&stream, o)
	if err != nil {
		t.Fatal(err)
	}
	gitc(&stream, "-C", dir, "fast-import", "--quiet")
	if n := strings.TrimSpace(gitc(nil, "-C", dir, "rev-list", "--count", "HEAD")); n != "200" {
		t.Errorf("%s commits, want 200", n)
	}
	files := strings.Count(gitc(nil, "-C", dir, "ls-tree", "-r", "--name-only", "HEAD"), "\n")
	if files != st.FilesAtHead {
		t.Errorf("%d files at HEAD, stats say %d", files, st.FilesAtHead)
	}
	if st.Binaries == 0 || st.Renames == 0 {
		t.Errorf("stats %+v: want binaries and renames", st)
	}
}
