package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzArgs: argument checking never panics, and its messages never repeat
// more than a short prefix of a caller's string.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{"key":"k"}`, `{"text":"abc","agent_id":"a b"}`, `{"paths":["a",1,""]}`, `[]`, `null`,
		`{"staged":"yes","base":"-x"}`, `{"unknown":{"deep":[1,2]}}`, `{"agent_id":"` + strings.Repeat("x", 80) + `"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var raw any
		if json.Unmarshal([]byte(s), &raw) != nil {
			return
		}
		a, te := readArgs(raw, "key", "text", "agent_id", "paths", "staged", "base")
		if te != nil {
			checkMessage(t, te, s)
			return
		}
		for _, fn := range []func() *toolError{
			func() *toolError { _, e := a.str("key", true, 16); return e },
			func() *toolError { _, e := a.str("text", false, 1<<10); return e },
			func() *toolError { _, e := a.agentID(); return e },
			func() *toolError { _, e := a.strList("paths", 4, 32); return e },
			func() *toolError { _, e := a.boolean("staged"); return e },
			func() *toolError { _, e := rev(a, "base"); return e },
		} {
			if e := fn(); e != nil {
				checkMessage(t, e, s)
			}
		}
	})
}

func checkMessage(t *testing.T, e *toolError, input string) {
	t.Helper()
	if e.Code == "" || e.Message == "" {
		t.Fatalf("empty error %+v", e)
	}
	if len(e.Message) > 400 {
		t.Fatalf("message of %d bytes for input %q", len(e.Message), input)
	}
}

// FuzzScanPath: a path accepted for scan_diff always lies inside the
// repository directory, whatever dots, slashes, globs or symlinks it uses.
func FuzzScanPath(f *testing.F) {
	root := f.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	repo := filepath.Join(root, "repo")
	os.MkdirAll(filepath.Join(repo, "sub", "deep"), 0o700)
	os.MkdirAll(filepath.Join(root, "outside"), 0o700)
	os.Symlink(filepath.Join(root, "outside"), filepath.Join(repo, "out"))
	os.Symlink("sub", filepath.Join(repo, "in"))
	rs, err := newRoots([]string{repo})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"a.go", "sub/../a", "../x", "/etc/passwd", "out/x", "in/deep/*.go", "*", "sub/[a", "./././", "sub//deep/../../.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if p == "" || strings.ContainsRune(p, 0) {
			return
		}
		rel, te := rs.scanPath(repo, p)
		if te != nil {
			if te.Code != CodePathOutsideRoot {
				t.Fatalf("code %s", te.Code)
			}
			return
		}
		full := filepath.Join(repo, filepath.FromSlash(rel))
		if !within(full, repo) || strings.HasPrefix(rel, "../") || rel == ".." || filepath.IsAbs(rel) {
			t.Fatalf("scanPath(%q) = %q escapes the repository", p, rel)
		}
		if real, ok := resolveExisting(full); ok && !within(real, repo) {
			t.Fatalf("scanPath(%q) = %q resolves outside: %s", p, rel, real)
		}
	})
}

// FuzzFilePath: a path accepted for read_redacted and redact_file always
// resolves, symlinks followed, inside a root, whatever dots, slashes or
// symlinks it uses; a refusal is one of the documented codes.
func FuzzFilePath(f *testing.F) {
	root := f.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	work := filepath.Join(root, "work")
	os.MkdirAll(filepath.Join(work, "sub", "deep"), 0o700)
	os.MkdirAll(filepath.Join(root, "outside"), 0o700)
	os.WriteFile(filepath.Join(work, "sub", "a.txt"), []byte("a\n"), 0o600)
	os.WriteFile(filepath.Join(root, "outside", "b.txt"), []byte("b\n"), 0o600)
	os.Symlink(filepath.Join(root, "outside"), filepath.Join(work, "out"))
	os.Symlink(filepath.Join(root, "outside", "b.txt"), filepath.Join(work, "b-link"))
	os.Symlink("sub/a.txt", filepath.Join(work, "a-link"))
	os.Symlink("loop", filepath.Join(work, "loop"))
	rs, err := newRoots([]string{work})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"sub/a.txt", "a-link", "b-link", "out/b.txt", "../outside/b.txt", "/etc/passwd", "loop", "sub/../../work/sub/a.txt", "./", "sub//deep/../a.txt/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if p == "" || strings.ContainsRune(p, 0) {
			return
		}
		real, te := rs.filePath(p)
		if te != nil {
			switch te.Code {
			case CodePathOutsideRoot, "file_missing":
			default:
				t.Fatalf("filePath(%q): code %s", p, te.Code)
			}
			return
		}
		if !rs.contains(real) {
			t.Fatalf("filePath(%q) = %s, outside the roots", p, real)
		}
		if again, err := filepath.EvalSymlinks(real); err != nil || again != real {
			t.Fatalf("filePath(%q) = %s is not fully resolved (%s, %v)", p, real, again, err)
		}
	})
}
