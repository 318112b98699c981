package claudehook_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/claudehook"
)

// FuzzGuard feeds the guard arbitrary payloads (prompts, Reads of a file
// holding the canary with any window, tool inputs and outputs of any
// shape): it answers 0 or 2, writes JSON or nothing to stdout, and never
// repeats the canary.
func FuzzGuard(f *testing.F) {
	const canary = "Quorvex Blandishire"
	dir := f.TempDir()
	cfg := filepath.Join(dir, "config", "privscan")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		f.Fatal(err)
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			f.Fatal(err)
		}
	}
	write(filepath.Join(cfg, "catalog.md"), "## PER\n- category: person\n- match: identifier\n\n```values\n"+canary+"\n```\n")
	write(filepath.Join(cfg, "context-map.toml"), "[catalogs]\ndefault = \"catalog.md\"\n")
	leaky := filepath.Join(dir, "leaky.txt")
	write(leaky, "a\n"+strings.Repeat("b", 1990)+" "+canary+"\nc "+canary+"\r\nd\n")
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state")}
	for _, seed := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + leaky + `","offset":2,"limit":1}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + leaky + `","offset":"3","limit":-1}}`,
		`{"hook_event_name":"UserPromptSubmit","prompt":"hi ` + canary + `"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"mcp__x__y","tool_input":{"a":["Quorvex%20Blandishire",{"b":null}]}}`,
		`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":"` + canary + `","stderr":""}}`,
		`{"hook_event_name":"PostToolUse","tool_name":"Grep","tool_response":"QuorvexBlandishire"}`,
		`{"tool_name":"NotebookRead","tool_input":{"notebook_path":"` + leaky + `"}}`,
		`{"prompt":7}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var stdout, stderr bytes.Buffer
		code := claudehook.Main(context.Background(), []string{claudehook.GuardName}, bytes.NewReader(payload), &stdout,
			claudehook.Env{Stderr: &stderr, Getenv: func(k string) string { return env[k] }, Dir: dir})
		if code != 0 && code != 2 {
			t.Fatalf("exit %d", code)
		}
		if stdout.Len() > 0 && !bytes.HasPrefix(stdout.Bytes(), []byte(`{"hookSpecificOutput":`)) {
			t.Fatalf("stdout is not the hook's JSON: %q", stdout.String())
		}
		out := strings.ToLower(stdout.String() + stderr.String())
		for _, v := range []string{"quorvex blandishire", "quorvexblandishire", "quorvex_blandishire"} {
			if strings.Contains(out, v) {
				t.Fatalf("output repeats the canary:\n%s", out)
			}
		}
	})
}
