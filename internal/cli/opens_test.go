package cli_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/gitsrc"
)

// TestHistoryOpensRepositoryOnce checks that history, with the text
// report's commit dates, the progress bar's commit count and path filters,
// reads the repository the engine opened and opens none of its own, and
// that the text report is the same as with a repository of its own.
func TestHistoryOpensRepositoryOnce(t *testing.T) {
	dir := historyRepo(t, 4)
	dated := regexp.MustCompile(`(?m)^f\d{3}\.txt:[23]:\d+  error    catalog/PEOPLE  Customer names  [0-9a-f]{7} 2026-02-03$`)
	tests := []struct {
		name     string
		args     []string
		tty      bool
		findings int    // finding lines with a commit and its date
		warn     string // a path filter warning on stderr
	}{
		{"piped", []string{"history"}, false, 8, ""},
		{"terminal: bar and commit count", []string{"history"}, true, 8, ""},
		{"path filters", []string{"history", "--", "f001.txt", "no-such.txt"}, true, 2, `path filter "no-such.txt" matched no file`},
		{"diff with a path filter", []string{"diff", "HEAD~1", "HEAD", "--", "nope.txt"}, false, 0, `path filter "nope.txt" matched no file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opens atomic.Int32
			var stdout, stderr bytes.Buffer
			env := &cli.Env{
				Args: tt.args, Dir: dir, Stdin: strings.NewReader(""),
				Stdout: &stdout, Stderr: &stderr, StderrTTY: tt.tty,
				Getenv: func(k string) string {
					if k == "PRIVSCAN_CATALOG" {
						return ptyCatalog
					}
					return ""
				},
				OpenRepo: func(d string) (*gitsrc.Repo, error) {
					opens.Add(1)
					return gitsrc.Open(d)
				},
			}
			err := cli.Run(context.Background(), env)
			if code := cli.ExitCode(err); code != cli.ExitFindings && code != cli.ExitClean {
				t.Fatalf("exit %d: %v\n%s", code, err, stderr.String())
			}
			if n := opens.Load(); n != 1 {
				t.Errorf("the repository was opened %d times, want once", n)
			}
			if n := len(dated.FindAllString(stdout.String(), -1)); n != tt.findings {
				t.Errorf("%d finding lines with their commit's date, want %d:\n%s", n, tt.findings, stdout.String())
			}
			if tt.warn != "" && !strings.Contains(stderr.String(), tt.warn) {
				t.Errorf("no warning %q on stderr:\n%s", tt.warn, stderr.String())
			}
			if tt.warn == "" && strings.Contains(stderr.String(), "warning") {
				t.Errorf("unexpected warning:\n%s", stderr.String())
			}
		})
	}
}
