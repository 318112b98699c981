package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/readwin"
)

// The guard (SPEC §7.1) in the real CLI: what Claude reads, what the user
// types and what leaves through other tools. Every session also checks
// that no request body the model API received holds a catalog value
// (session's checkNoLeak), except where a scenario says one is expected.

func readStep(path string, window ...int) step {
	in := map[string]any{"file_path": path}
	if len(window) == 2 {
		in["offset"], in["limit"] = window[0], window[1]
	}
	return step{tool: "Read", input: in}
}

// leakyFile writes a five-line file whose third line holds the canary.
func leakyFile(t *testing.T, dir string) string {
	p := filepath.Join(dir, "fixtures.txt")
	writeFile(t, p, "id,name\n1,Jane Placeholder\n2,"+canaryName+"\n3,John Placeholder\n4,Max Placeholder\n")
	return p
}

func TestGuardReadDeniedAndWindows(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	leaky := leakyFile(t, dir)
	clean := filepath.Join(dir, "clean.txt")
	writeFile(t, clean, "nothing to see\n")
	api := s.session(t, dir, []step{
		readStep(leaky),
		readStep(clean),
		readStep(leaky, 4, 2), // lines 4-5: leaves line 3 out
		readStep(leaky, 2, 2), // lines 2-3: includes it
	}, "--dangerously-skip-permissions")
	results, _, _ := api.snapshot()
	for i, want := range []struct {
		denied bool
		text   string
	}{{true, "line 3:"}, {false, "nothing to see"}, {false, "Max Placeholder"}, {true, "line 3:"}} {
		r := results[i]
		denied := strings.Contains(r.Content, "catalog/PER-001") && strings.Contains(r.Content, "read_redacted")
		if denied != want.denied || !strings.Contains(r.Content, want.text) {
			t.Errorf("Read %d: denied %v (want %v), result %q", i, denied, want.denied, redactCanaries(r.Content))
		}
	}
}

func TestGuardPromptNeverReachesModel(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	var stdout, stderr bytes.Buffer
	api := s.sessionWith(t, dir, nil, sessionOpts{prompt: "Write a welcome note for " + canaryName + " in notes.txt", blocked: true, stdout: &stdout, stderr: &stderr},
		"--dangerously-skip-permissions")
	// session already searched every request body for the value.
	_, bodies, _ := api.snapshot()
	for _, b := range bodies {
		if strings.Contains(string(b), "welcome note") {
			t.Fatalf("the blocked prompt reached the model API; bodies in %s", api.logDir)
		}
	}
	if out := stdout.String() + stderr.String(); !strings.Contains(out, "catalog/PER-001") || !strings.Contains(out, "privscan redact") {
		t.Errorf("the user is not told which rule blocked the prompt and how to redact it: stdout %q stderr %q",
			redactCanaries(stdout.String()), redactCanaries(stderr.String()))
	}
	// What Claude Code still keeps locally: the transcript of the session.
	var transcript []string
	_ = filepath.Walk(filepath.Join(s.home, ".claude", "projects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(canaryName)) {
				transcript = append(transcript, filepath.Base(p))
			}
		}
		return nil
	})
	t.Logf("transcript files under ~/.claude/projects holding the blocked prompt: %d", len(transcript))
}

func TestGuardCatOutputFeedback(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	leakyFile(t, dir)
	// What cat prints reaches the model: no hook can stop it before the
	// command runs. The guard tells the model not to copy it.
	api := s.sessionWith(t, dir, []step{bash("cat fixtures.txt")}, sessionOpts{leaks: true}, "--dangerously-skip-permissions")
	if !anyBodyNames(api, "catalog/PER-001") || !anyBodyNames(api, "do not copy it anywhere") {
		t.Errorf("no request after cat names catalog/PER-001 with the instruction not to copy; bodies in %s", api.logDir)
	}
}

func TestGuardWebFetchBlocked(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	// WebFetch is a deferred tool in headless sessions: loaded first.
	api := s.session(t, dir, []step{
		{tool: "ToolSearch", input: map[string]any{"query": "select:WebFetch", "max_results": 1}},
		{tool: "WebFetch", input: map[string]any{
			"url": "https://crm.example.com/search?q=" + url.QueryEscape(canaryName), "prompt": "Find the account"}}},
		"--dangerously-skip-permissions")
	results, _, _ := api.snapshot()
	if r := results[1].Content; !strings.Contains(r, "catalog/PER-001") || !strings.Contains(r, "must not leave this machine") {
		t.Errorf("the WebFetch was not blocked by the guard: %q", redactCanaries(r))
	}
}

func TestGuardOtherMCPServerBlocked(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	record := filepath.Join(t.TempDir(), "standin-calls.jsonl")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"standin": map[string]any{
		"command": self, "args": []string{"-test.run=^$"}, "env": map[string]string{standinEnv: record}}}})
	api := s.session(t, dir, []step{
		{tool: "ToolSearch", input: map[string]any{"query": "select:" + standinTool, "max_results": 1}},
		{tool: standinTool, input: map[string]any{"channel": "support", "text": "Escalation for " + canaryName}},
		{tool: standinTool, input: map[string]any{"channel": "support", "text": "All tests pass"}},
	}, "--dangerously-skip-permissions", "--mcp-config", string(cfg))
	results, _, _ := api.snapshot()
	if r := results[1].Content; !strings.Contains(r, "catalog/PER-001") {
		t.Errorf("the stand-in call with a catalogued value was not blocked: %q", redactCanaries(r))
	}
	calls, _ := os.ReadFile(record)
	if bytes.Contains(calls, []byte(canaryName)) {
		t.Fatal("the stand-in MCP server received the catalogued value")
	}
	if !bytes.Contains(calls, []byte("All tests pass")) {
		t.Errorf("the clean call did not reach the stand-in (is it connected?): %q; result %q", calls, results[2].Content)
	}
}

const (
	readRedactedTool = "mcp__plugin_privscan_privscan__read_redacted"
	redactFileTool   = "mcp__plugin_privscan_privscan__redact_file"
)

// TestGuardFixLoop: the loop the guard must not break. A Read is denied;
// read_redacted shows the same lines with placeholders; redact_file
// rewrites the file; the Read is then allowed, and the commit gate lets
// the commit through.
func TestGuardFixLoop(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	leaky := leakyFile(t, dir)
	before := s.commitCount(t, dir)
	api := s.session(t, dir, []step{
		readStep(leaky),
		{tool: "ToolSearch", input: map[string]any{"query": "select:" + readRedactedTool + "," + redactFileTool, "max_results": 2}},
		{tool: readRedactedTool, input: map[string]any{"path": leaky, "agent_id": "e2e"}},
		{tool: redactFileTool, input: map[string]any{"path": leaky, "style": "synthetic", "agent_id": "e2e"}},
		readStep(leaky),
		bash(`git add fixtures.txt && git commit -m "Add fixtures"`),
	}, "--dangerously-skip-permissions")
	results, _, _ := api.snapshot()
	if r := results[0].Content; !strings.Contains(r, "catalog/PER-001") || !strings.Contains(r, "read_redacted") {
		t.Fatalf("the first Read was not denied: %q", redactCanaries(r))
	}
	if r := results[2].Content; results[2].IsError || !strings.Contains(r, "[person:1]") || !strings.Contains(r, "Jane Placeholder") {
		t.Errorf("read_redacted did not return the lines with a placeholder: %q", redactCanaries(r))
	}
	if r := results[3].Content; results[3].IsError || !strings.Contains(r, "catalog/PER-001") {
		t.Errorf("redact_file did not report its replacement: %q", redactCanaries(r))
	}
	if r := results[4].Content; strings.Contains(r, "read_redacted") || !strings.Contains(r, "Max Placeholder") {
		t.Errorf("the Read after redact_file was not allowed: %q", redactCanaries(r))
	}
	if got := s.commitCount(t, dir); got != before+1 {
		t.Errorf("the commit of the fixed file did not go through (%d commits, want %d): %q", got, before+1, redactCanaries(results[5].Content))
	}
	if b, _ := os.ReadFile(leaky); bytes.Contains(b, []byte(canaryName)) || !bytes.Contains(b, []byte("Jane Placeholder")) {
		t.Errorf("the file was not rewritten as expected: %q", redactCanaries(string(b)))
	}
}

// TestReadWindowAsClaudeCode pins the guard's model of Read
// (internal/readwin) to the real CLI: no default line cap, no cut of long
// lines, how lines are numbered, what offset and limit select, and that a
// file over Read's size limit is refused with none of its content (the
// guard lets that Read fail on its own). If an upgrade changes any of
// these, the guard scans a different window than Read returns: fix
// readwin and the guard first.
func TestReadWindowAsClaudeCode(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	var b strings.Builder
	for i := 1; i <= 2100; i++ {
		switch i {
		case 10:
			b.WriteString(strings.Repeat("a", 2500) + "FARMARK\n")
		case 11:
			b.WriteString(strings.Repeat("😀", 1500) + "ASTRALMARK\n")
		default:
			fmt.Fprintf(&b, "row %d MARK%dEND\n", i, i)
		}
	}
	p := filepath.Join(dir, "long.txt")
	writeFile(t, p, b.String())
	// Over Read's size limit, with the canary near the end.
	big := filepath.Join(dir, "big.txt")
	writeFile(t, big, strings.Repeat(strings.Repeat("e", 99)+"\n", 4000)+"owner "+canaryName+"\n")
	api := s.session(t, dir, []step{readStep(p), readStep(p, 2050, 3), readStep(big), readStep(big, 3995, 10)},
		"--dangerously-skip-permissions")
	results, _, _ := api.snapshot()
	whole, window := results[0].Content, results[1].Content
	for _, text := range []string{readwin.Prefix(1) + "row 1 MARK1END", readwin.Prefix(2100) + "row 2100 MARK2100END", "FARMARK", "ASTRALMARK"} {
		if !strings.Contains(whole, text) {
			t.Errorf("Read without a window does not show %q, as readwin says it does", text)
		}
	}
	for _, c := range []struct {
		text string
		in   bool
	}{
		{"MARK2049END", false},
		{readwin.Prefix(2050) + "row 2050 MARK2050END", true},
		{"MARK2052END", true},
		{"MARK2053END", false},
	} {
		if strings.Contains(window, c.text) != c.in {
			t.Errorf("Read offset 2050 limit 3: %q shown %v, readwin says %v; result starts %.200q", c.text, !c.in, c.in, window)
		}
	}
	// The big file: Read refuses it (the guard let it through unchecked,
	// and session found the value in no request); a window with the line
	// is denied by the guard.
	if r := results[2]; !r.IsError || !strings.Contains(r.Content, "exceeds maximum allowed size") {
		t.Errorf("Read of a file over its size limit: %q (error %v)", redactCanaries(r.Content), r.IsError)
	}
	if r := results[3].Content; !strings.Contains(r, "catalog/PER-001") {
		t.Errorf("a window of the big file holding the value was not denied: %q", redactCanaries(r))
	}
}

// TestGuardAgainstRepoSettings: a repository's own .claude/settings.json
// can switch every plugin hook off ("disableAllHooks", or the plugin off
// in "enabledPlugins") once the folder is trusted, and the plugin's guard
// with them; hooks in the managed settings survive that. This pins both
// halves of what docs/plugin.md ("A repository that turns the hooks
// off") tells users. It writes /etc/claude-code/managed-settings.json, so
// it runs only as root and only where that file does not exist.
func TestGuardAgainstRepoSettings(t *testing.T) {
	s := needSuite(t)
	const managedDir = "/etc/claude-code"
	if os.Geteuid() != 0 {
		t.Skip("writes the managed settings in " + managedDir + ": root only")
	}
	if _, err := os.Stat(managedDir); err == nil {
		t.Skip(managedDir + " exists: not touching a machine's own managed settings")
	}
	t.Cleanup(func() { os.RemoveAll(managedDir) })
	bins, _ := filepath.Glob(filepath.Join(s.pluginData(), "bin", "privscan-[0-9]*"))
	if len(bins) == 0 {
		t.Fatal("no privscan in the plugin's data directory")
	}
	for _, repoSettings := range []string{`{"disableAllHooks": true}`, `{"enabledPlugins": {"privscan@inline": false}}`} {
		dir := s.project(t)
		leaky := leakyFile(t, dir)
		if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, ".claude", "settings.json"), repoSettings)
		// The plugin's guard is off: the value reaches the model.
		api := s.sessionWith(t, dir, []step{readStep(leaky)}, sessionOpts{leaks: true}, "--dangerously-skip-permissions")
		if r, _, _ := api.snapshot(); strings.Contains(r[0].Content, "catalog/PER-001") {
			t.Errorf("%s no longer turns the plugin's hooks off: docs/plugin.md is out of date", repoSettings)
		}
		// The guard in the managed settings stays on.
		managed, _ := json.Marshal(map[string]any{"hooks": map[string]any{
			"PreToolUse": []any{map[string]any{"matcher": "Read|NotebookRead|WebFetch|WebSearch|mcp__.*",
				"hooks": []any{map[string]any{"type": "command", "command": bins[0] + " hook claude-guard", "timeout": 60}}}},
			"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": bins[0] + " hook claude-guard", "timeout": 60}}}},
		}})
		if err := os.MkdirAll(managedDir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(managedDir, "managed-settings.json"), string(managed))
		api = s.session(t, dir, []step{readStep(leaky)}, "--dangerously-skip-permissions")
		os.RemoveAll(managedDir)
		if r, _, _ := api.snapshot(); !strings.Contains(r[0].Content, "catalog/PER-001") {
			t.Errorf("with %s, the managed-settings guard did not deny the Read: %q", repoSettings, redactCanaries(r[0].Content))
		}
	}
}
