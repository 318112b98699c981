package gitsrc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// fixture drives the git binary to build test repositories.
type fixture struct {
	t    testing.TB
	dir  string
	home string
	tick int
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	needGit(t)
	base := t.TempDir()
	f := &fixture{t: t, dir: filepath.Join(base, "repo"), home: filepath.Join(base, "home")}
	for _, d := range []string{f.dir, f.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.git("init", "-q", "-b", "main")
	return f
}

func (f *fixture) env() []string {
	env := gitEnv(f.home)
	d := fmt.Sprintf("2020-01-01T00:%02d:%02d +0000", f.tick/60, f.tick%60)
	return append(env, "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
}

// gitIn runs git in dir and returns its standard output.
func (f *fixture) gitIn(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.quotePath=false", "-c", "color.ui=never", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = f.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	return f.gitIn(f.dir, args...)
}

func (f *fixture) write(path, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) remove(path string) {
	f.t.Helper()
	if err := os.Remove(filepath.Join(f.dir, filepath.FromSlash(path))); err != nil {
		f.t.Fatal(err)
	}
}

// commit stages everything and commits with the next fixed date.
func (f *fixture) commit(msg string) string {
	f.t.Helper()
	f.tick++
	f.git("add", "-A")
	f.git("commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(f.git("rev-parse", "HEAD"))
}

// gitAdded runs a git diff/log command (with its patch options added) in
// dir and parses its added lines.
func (f *fixture) gitAdded(dir string, args ...string) []addedLine {
	f.t.Helper()
	cmd := args[0]
	full := []string{cmd, "--no-ext-diff", "--no-color", "--src-prefix=a/", "--dst-prefix=b/"}
	prefix := ""
	if cmd == "log" {
		full = append(full, "-p", "--format=commit %H")
		prefix = "commit "
	}
	full = append(full, args[1:]...)
	return parseGitPatch(f.t, []byte(f.gitIn(dir, full...)), prefix)
}

// collect runs a source and splits its fragments into added lines,
// skipped fragments and messages.
type collected struct {
	lines    []addedLine
	skipped  map[string]finding.Skip // path -> why
	skipAt   map[[2]string]bool      // {commit, path} of skipped fragments
	messages []*scanner.Fragment
	frags    []*scanner.Fragment
}

func collect(t testing.TB, src scanner.Source) *collected {
	t.Helper()
	c := &collected{skipped: map[string]finding.Skip{}, skipAt: map[[2]string]bool{}}
	err := src.Fragments(context.Background(), func(fr *scanner.Fragment) error {
		c.frags = append(c.frags, fr)
		switch {
		case fr.Kind == finding.KindCommitMessage:
			c.messages = append(c.messages, fr)
		case fr.Skipped != finding.SkipNone:
			if len(fr.Lines) != 0 {
				t.Errorf("%s: skipped fragment with lines", fr.Path)
			}
			c.skipped[fr.Path] = fr.Skipped
			c.skipAt[[2]string{fr.Commit, fr.Path}] = true
		default:
			if len(fr.Lines) == 0 {
				t.Errorf("%s: fragment without lines", fr.Path)
			}
			for _, l := range fr.Lines {
				c.lines = append(c.lines, addedLine{Commit: fr.Commit, Path: fr.Path, Line: l.Number, Text: string(l.Text)})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Fragments: %v", err)
	}
	return c
}

// withoutSkipped drops git's lines of the files we skipped on purpose (in
// the same commit, when git's lines name one).
func withoutSkipped(ls []addedLine, c *collected) []addedLine {
	var out []addedLine
	for _, l := range ls {
		if l.Commit != "" && c.skipAt[[2]string{l.Commit, l.Path}] {
			continue
		}
		if _, ok := c.skipped[l.Path]; ok && l.Commit == "" {
			continue
		}
		out = append(out, l)
	}
	return out
}

func withCommit(ls []addedLine, c string) []addedLine {
	out := make([]addedLine, len(ls))
	for i, l := range ls {
		l.Commit = c
		out[i] = l
	}
	return out
}
