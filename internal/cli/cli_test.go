package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/mcpcmd"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"privscan": func() { os.Exit(cli.Main(context.Background())) },
		// What "privscan mcp" runs (found on PATH in scripts).
		"privscan-mcp": func() { os.Exit(mcpcmd.Main(context.Background())) },
	})
}

// TestScripts runs the testscript files in testdata/script: every verb's
// flags, exit codes, stderr wording and output shapes.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			work := env.Getenv("WORK")
			env.Setenv("HOME", work+"/home")
			env.Setenv("XDG_CONFIG_HOME", work+"/home/.config")
			env.Setenv("XDG_STATE_HOME", work+"/home/.state")
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_NAME", "Test")
			env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Test")
			env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			env.Setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
			env.Setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
			env.Setenv("NO_COLOR", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exitcode N prog args...: run prog and require exit status N.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N program [args...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("running %s: %v", args[1], err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
				}
			},
			// envfile VAR FILE: set VAR to FILE's content (a catalog held
			// in an environment variable, as from a CI secret).
			"envfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: envfile VAR file")
				}
				ts.Setenv(args[0], ts.ReadFile(args[1]))
			},
			// pushevent DIR OUT: write a GitHub push event for DIR's HEAD
			// (before: HEAD~1) to OUT, as the runner would.
			"pushevent": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: pushevent repo-dir out-file")
				}
				rev := func(r string) string {
					out, err := exec.Command("git", "-C", ts.MkAbs(args[0]), "rev-parse", r).Output()
					ts.Check(err)
					return strings.TrimSpace(string(out))
				}
				ev, err := json.Marshal(map[string]any{
					"ref": "refs/heads/main", "before": rev("HEAD~1"), "after": rev("HEAD"),
					"repository": map[string]any{"full_name": "acme/widgets", "default_branch": "main"},
				})
				ts.Check(err)
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), ev, 0o644))
				ts.Setenv("GITHUB_SHA", rev("HEAD"))
			},
		},
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}
