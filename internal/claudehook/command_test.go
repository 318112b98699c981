package claudehook_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/claudehook"
)

// TestMainArguments: privscan-hook's argument errors exit 2 with a
// privscan-shaped error and hint and never quote what they refuse; help
// goes to stdout; an unreadable payload lets the tool call through.
func TestMainArguments(t *testing.T) {
	const canary = "Zorblax Quintavius"
	for _, tc := range []struct {
		args       []string
		stdin      string
		code       int
		out, inErr string
	}{
		{nil, "", 2, "", "want claude-pre-tool-use, claude-post-tool-use or claude-guard"},
		{[]string{canary}, "", 2, "", "want claude-pre-tool-use, claude-post-tool-use or claude-guard"},
		{[]string{"--help"}, "", 0, "usage: privscan-hook", ""},
		{[]string{"claude-pre-tool-use", "-h"}, "", 0, "usage: privscan-hook", ""},
		{[]string{"claude-pre-tool-use", "--" + canary}, "", 2, "", "takes --fail-on LEVEL and --catalog-key KEY only"},
		{[]string{"claude-post-tool-use", canary}, "", 2, "", "takes --fail-on LEVEL and --catalog-key KEY only"},
		{[]string{"claude-pre-tool-use", "--fail-on", canary}, "", 2, "", "unknown --fail-on level (value withheld)"},
		{[]string{"claude-pre-tool-use", "--fail-on=" + canary}, "", 2, "", "unknown --fail-on level (value withheld)"},
		{[]string{"claude-pre-tool-use"}, "{not json " + canary, 0, "", "could not read the hook payload"},
		{[]string{"claude-post-tool-use", "--fail-on", "error"}, "", 0, "", "could not read the hook payload"},
		// The guard cannot tell what it would let through: it denies.
		{[]string{"claude-guard"}, "{not json " + canary, 2, "", "could not read the hook payload"},
	} {
		var out, errb bytes.Buffer
		env := claudehook.Env{Stderr: &errb, Getenv: func(string) string { return "" }, Dir: t.TempDir()}
		code := claudehook.Main(context.Background(), tc.args, strings.NewReader(tc.stdin), &out, env)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errb.String(), tc.inErr) {
			t.Errorf("%q: exit %d\nstdout %s\nstderr %s", tc.args, code, out.String(), errb.String())
		}
		for _, s := range []string{out.String(), errb.String()} {
			if strings.Contains(s, canary) || strings.Contains(s, "Zorblax") {
				t.Errorf("%q: output quotes the argument: %s", tc.args, s)
			}
		}
		if tc.code == 2 && !strings.HasPrefix(errb.String(), "privscan: error: ") {
			t.Errorf("%q: stderr %q", tc.args, errb.String())
		}
	}
}
