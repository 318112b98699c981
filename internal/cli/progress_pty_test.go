//go:build linux || darwin

package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/privscan/privscan/internal/cli"
)

const ptyCatalog = "## PEOPLE\n- category: person\n- description: Customer names\n\n```values\nObadiah Fenwick\n```\n"

// historyRepo makes a repository of n commits, each adding a file with
// two catalogued names and mentioning one in its message.
func historyRepo(t *testing.T, n int) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_AUTHOR_DATE=2026-02-03T04:05:06Z", "GIT_COMMITTER_DATE=2026-02-03T04:05:06Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("f%03d.txt", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("a\nObadiah Fenwick\nb Obadiah Fenwick\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", name)
		git("commit", "-q", "-m", "add "+name+" for Obadiah Fenwick")
	}
	return dir
}

var (
	sgr         = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	findingLine = regexp.MustCompile(`^(f\d{3}\.txt:[23]:\d+  error    catalog/PEOPLE  Customer names  [0-9a-f]{7} 2026-02-03|commit [0-9a-f]{7} message:1:\d+  error    catalog/PEOPLE  Customer names  2026-02-03)$`)
)

func runHistory(t *testing.T, dir string, stdout, stderr io.Writer, tty bool) error {
	t.Helper()
	env := &cli.Env{
		Args: []string{"history"}, Dir: dir, Stdin: strings.NewReader(""),
		Stdout: stdout, Stderr: stderr, StdoutTTY: tty, StderrTTY: tty,
		Getenv: func(k string) string {
			if k == "PRIVSCAN_CATALOG" {
				return ptyCatalog
			}
			return ""
		},
	}
	return cli.Run(context.Background(), env)
}

// TestProgressPTY runs history with stdout and stderr on one terminal: the
// bar is drawn and erased, and every finding line is whole (the bar never
// shares a line with one). The same run piped has no escape code and no
// carriage return at all.
func TestProgressPTY(t *testing.T) {
	const commits = 30
	dir := historyRepo(t, commits)

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	var got bytes.Buffer
	read := make(chan struct{})
	go func() {
		io.Copy(&got, ptmx) // ends with EIO when the tty side closes
		close(read)
	}()
	runErr := runHistory(t, dir, tty, tty, true)
	tty.Close()
	<-read
	if cli.ExitCode(runErr) != cli.ExitFindings {
		t.Fatalf("history on a terminal: %v", runErr)
	}
	out := got.String()
	if !strings.Contains(out, "\rprivscan history ") {
		t.Errorf("no progress bar drawn:\n%q", head(out))
	}
	if !regexp.MustCompile(`privscan history \[[= ]*\] \d+/`+fmt.Sprint(commits)+` commits`).MatchString(out) &&
		!regexp.MustCompile(`privscan history \d+ commits?`).MatchString(out) {
		t.Errorf("the bar shows no commit count:\n%q", head(out))
	}
	// Every bar drawn is erased (or redrawn) before anything else is
	// written; once the draws and erasures are removed, no bar text is left
	// anywhere, and every line is a finding, the table or the summary.
	plain := strings.ReplaceAll(sgr.ReplaceAllString(out, ""), "\r\n", "\n")
	draw := regexp.MustCompile(`\rprivscan history [^\r\n\x1b]*\x1b\[K`)
	for _, m := range draw.FindAllStringIndex(plain, -1) {
		if !strings.HasPrefix(plain[m[1]:], "\r") {
			t.Errorf("a bar drawn at byte %d is followed by output before it is erased: %q", m[0], plain[m[0]:min(len(plain), m[1]+60)])
		}
	}
	plain = draw.ReplaceAllString(plain, "")
	plain = strings.ReplaceAll(plain, "\r\x1b[K", "")
	if strings.ContainsAny(plain, "\r\x1b") {
		t.Errorf("bar residue or a half-erased line in the output:\n%q", head(plain))
	}
	var findings int
	for _, l := range strings.Split(strings.TrimSuffix(plain, "\n"), "\n") {
		switch {
		case findingLine.MatchString(l):
			findings++
		case l == "", strings.HasPrefix(l, "findings  severity"), regexp.MustCompile(`^ +\d+  error +catalog/PEOPLE$`).MatchString(l),
			strings.HasPrefix(l, "privscan: "+fmt.Sprint(3*commits)+" findings"):
		default:
			t.Errorf("a line that is neither a whole finding nor the summary: %q", l)
		}
	}
	if findings != 3*commits {
		t.Errorf("%d whole finding lines, want %d:\n%s", findings, 3*commits, head(plain))
	}
	// The bar was erased last: the output ends with the summary line.
	if !strings.HasSuffix(plain, "scanned in "+fmt.Sprint(commits)+" commits\n") {
		t.Errorf("the output does not end with the summary:\n%q", out[max(0, len(out)-300):])
	}

	// Piped: no bar, no escape code, nothing on stderr but errors.
	var stdout, stderr bytes.Buffer
	if err := runHistory(t, dir, &stdout, &stderr, false); cli.ExitCode(err) != cli.ExitFindings {
		t.Fatalf("history piped: %v", err)
	}
	if strings.ContainsAny(stdout.String()+stderr.String(), "\r\x1b") {
		t.Errorf("escape codes or carriage returns in piped output:\n%q\n%q", stdout.String(), stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr of a piped run: %q", stderr.String())
	}
	if n := len(regexp.MustCompile(`(?m)^(f\d{3}\.txt|commit )`).FindAllString(stdout.String(), -1)); n != 3*commits {
		t.Errorf("piped run printed %d findings, want %d", n, 3*commits)
	}
}

// head keeps failure messages short.
func head(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}
