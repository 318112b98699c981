// Package e2e runs the real Claude Code CLI with this repository as a
// plugin (--plugin-dir) in headless sessions (-p) against a scripted
// Messages API on 127.0.0.1, and checks what the plugin's hooks did to real
// repositories. It runs only when PRIVSCAN_E2E_CLAUDE names the claude
// executable (scripts/ci-e2e installs the pinned version and sets it).
package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The catalog's canary values, assembled so this file does not hold them
// whole.
var (
	canaryName = "Zorblax" + " " + "Quintavius"
	canaryHost = "vault-7" + ".canaryzone.internal"
)

// suite is the state the scenarios share: one HOME, so the plugin's
// launcher builds privscan once.
type suite struct {
	claude string
	root   string // this repository, the plugin directory
	home   string
	goEnv  []string
}

var shared *suite

func TestMain(m *testing.M) {
	if record := os.Getenv(standinEnv); record != "" {
		// This process is the stand-in MCP server of a scenario.
		if err := serveStandin(os.Stdin, os.Stdout, record); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	claude := os.Getenv("PRIVSCAN_E2E_CLAUDE")
	if claude == "" {
		fmt.Println("e2e: PRIVSCAN_E2E_CLAUDE is not set; skipping the Claude Code end-to-end suite")
		os.Exit(m.Run())
	}
	home, err := os.MkdirTemp("", "privscan-e2e-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	var goEnv []string
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err == nil {
			goEnv = append(goEnv, k+"="+strings.TrimSpace(string(out)))
		}
	}
	shared = &suite{claude: claude, root: root, home: home, goEnv: goEnv}
	if err := shared.writeCatalog(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	if err := shared.prepareBinary(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	code := m.Run()
	_ = os.RemoveAll(home)
	os.Exit(code)
}

func (s *suite) configDir() string { return filepath.Join(s.home, ".config") }

// pluginData is the data directory Claude Code gives a plugin loaded with
// --plugin-dir (CLAUDE_PLUGIN_DATA): ~/.claude/plugins/data/<name>-inline.
func (s *suite) pluginData() string {
	return filepath.Join(s.home, ".claude", "plugins", "data", "privscan-inline")
}

// prepareBinary builds privscan where the launcher looks for it, before
// any session: a first session would otherwise race its hooks and its
// subagent against the build (the launcher's first start has its own
// tests in internal/launcher). A session whose data directory is not this
// one fails the scenario (see session) instead of building again unnoticed.
func (s *suite) prepareBinary() error {
	cmd := exec.Command(filepath.Join(s.root, "scripts", "privscan-launch"), "--prewarm")
	cmd.Env = append(s.env(), "CLAUDE_PLUGIN_ROOT="+s.root, "CLAUDE_PLUGIN_DATA="+s.pluginData(),
		"PRIVSCAN_LAUNCH_FOREGROUND=1", "PRIVSCAN_RELEASE_BASE_URL=http://127.0.0.1:1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("privscan-launch --prewarm: %v\n%s", err, out)
	}
	// privscan, privscan-hook, which the hooks of every scenario run, and
	// privscan-mcp, the MCP server of every subagent scenario.
	for _, pattern := range []string{"privscan-[0-9]*", "privscan-hook-[0-9]*", "privscan-mcp-[0-9]*"} {
		if bins, _ := filepath.Glob(filepath.Join(s.pluginData(), "bin", pattern)); len(bins) == 0 {
			return fmt.Errorf("privscan-launch --prewarm left no %s in %s", pattern, s.pluginData())
		}
	}
	return nil
}

func (s *suite) writeCatalog() error {
	dir := filepath.Join(s.configDir(), "privscan")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	catalog := "# E2E catalog\n\n## PER-001\n- category: person\n- description: Customer names\n- match: identifier\n\n```values\n" +
		canaryName + "\n```\n\n## HOST\n- category: internal-host\n- severity: warning\n\n```values\n" + canaryHost + "\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "catalog.md"), []byte(catalog), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "privacy-guide.md"), []byte("# Privacy guide\n\nUse synthetic names.\n"), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "context-map.toml"),
		[]byte("[keys]\nprivacy-guide = \"privacy-guide.md\"\n\n[catalogs]\ndefault = \"catalog.md\"\n"), 0o600)
}

func needSuite(t *testing.T) *suite {
	t.Helper()
	if shared == nil {
		t.Skip("PRIVSCAN_E2E_CLAUDE is not set (scripts/ci-e2e sets it)")
	}
	return shared
}

// project makes a git repository with one clean commit.
func (s *suite) project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s.git(t, dir, "init", "-q", "-b", "main")
	s.git(t, dir, "config", "user.email", "e2e@example.com")
	s.git(t, dir, "config", "user.name", "E2E")
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n")
	s.git(t, dir, "add", "main.go")
	s.git(t, dir, "commit", "-qm", "init")
	return dir
}

func (s *suite) env() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.home,
		"XDG_CONFIG_HOME=" + s.configDir(),
		"XDG_STATE_HOME=" + filepath.Join(s.home, ".local", "state"),
		"GIT_CONFIG_NOSYSTEM=1",
	}
	return append(env, s.goEnv...)
}

func (s *suite) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *suite) commitCount(t *testing.T, dir string) int {
	t.Helper()
	var n int
	fmt.Sscan(s.git(t, dir, "rev-list", "--count", "HEAD"), &n)
	return n
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// session runs one headless Claude Code session in dir against a scripted
// API and returns the server with what it saw. extra are further CLI flags.
func (s *suite) session(t *testing.T, dir string, script []step, extra ...string) *apiServer {
	t.Helper()
	return s.sessionWith(t, dir, script, sessionOpts{}, extra...)
}

// sessionOpts vary a session.
type sessionOpts struct {
	// prompt is the user's prompt ("": "Do the scripted task.").
	prompt string
	// leaks says a catalog value is expected to reach the model (what a
	// Bash command printed, which no hook can stop before it runs): the
	// request bodies are not searched for it.
	leaks bool
	// blocked says the prompt is expected never to reach the model, so
	// the script gets no turn.
	blocked bool
	// stdout and stderr, when set, receive claude's output.
	stdout, stderr *bytes.Buffer
}

// sessionWith is session with options.
func (s *suite) sessionWith(t *testing.T, dir string, script []step, o sessionOpts, extra ...string) *apiServer {
	t.Helper()
	api := newAPIServer(t, script)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	prompt := o.prompt
	if prompt == "" {
		prompt = "Do the scripted task."
	}
	args := append([]string{"-p", prompt, "--plugin-dir", s.root, "--output-format", "json"}, extra...)
	cmd := exec.CommandContext(ctx, s.claude, args...)
	cmd.Dir = dir
	cmd.Env = append(s.env(),
		"ANTHROPIC_BASE_URL="+api.url,
		"ANTHROPIC_API_KEY=e2e-not-a-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"IS_SANDBOX=1", // --dangerously-skip-permissions as root in CI containers
		"MCP_TIMEOUT=300000",
		// The scenarios call privscan's tools at once: the launcher waits
		// for its first build instead of answering not_ready meanwhile.
		"PRIVSCAN_LAUNCH_WAIT=1",
		"CI=true",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	results, bodies, unknown := api.snapshot()
	// Other plugins a scenario loads have their own directories.
	if dirs, _ := filepath.Glob(filepath.Join(s.home, ".claude", "plugins", "data", "privscan*")); len(dirs) != 1 || dirs[0] != s.pluginData() {
		t.Errorf("Claude Code gave the plugin the data directories %v, not %s (did an upgrade change CLAUDE_PLUGIN_DATA?): the binary the suite prepared is not the one used", dirs, s.pluginData())
	}
	if len(unknown) > 0 {
		t.Errorf("Claude Code sent requests this suite does not know (did an upgrade change the API it uses?): %v; bodies logged in %s", unknown, api.logDir)
	}
	if ctx.Err() != nil {
		t.Fatalf("claude did not finish within the timeout; %d requests, bodies in %s", len(bodies), api.logDir)
	}
	if err != nil {
		t.Logf("claude exited: %v", err)
	}
	if o.stdout != nil {
		o.stdout.Write(stdout.Bytes())
	}
	if o.stderr != nil {
		o.stderr.Write(stderr.Bytes())
	}
	if !o.blocked && len(results) < len(script) {
		t.Fatalf("the session returned %d of %d tool results (did an upgrade change the request shape or tool names?); stderr: %s; bodies in %s",
			len(results), len(script), redactCanaries(stderr.String()), api.logDir)
	}
	// The scripted model's own tool inputs come back in the history (and in
	// claude's JSON output); the search covers everything else.
	if !o.leaks {
		checkNoLeak(t, withoutAssistant(bodies), api.logDir)
	}
	var inputs []byte
	for _, st := range script {
		in, _ := json.Marshal(st.input)
		inputs = append(inputs, in...)
	}
	// claude's JSON output repeats the model's tool inputs, in any form
	// they took.
	if !o.leaks && !containsNeedle(inputs) && !strings.Contains(prompt, canaryName) {
		checkNoLeak(t, [][]byte{stdout.Bytes(), stderr.Bytes()}, "claude's stdout/stderr")
	}
	return api
}

// withoutAssistant drops the assistant turns from each request body.
func withoutAssistant(bodies [][]byte) [][]byte {
	out := make([][]byte, 0, len(bodies))
	for _, b := range bodies {
		var req map[string]any
		if json.Unmarshal(b, &req) != nil {
			out = append(out, b)
			continue
		}
		if msgs, ok := req["messages"].([]any); ok {
			kept := msgs[:0]
			for _, m := range msgs {
				if mm, ok := m.(map[string]any); ok && mm["role"] == "assistant" {
					continue
				}
				kept = append(kept, m)
			}
			req["messages"] = kept
		}
		nb, _ := json.Marshal(req)
		out = append(out, nb)
	}
	return out
}

// needles are the forms a canary could take in a request body.
func needles() []string {
	var out []string
	for _, v := range []string{canaryName, canaryHost} {
		out = append(out, strings.ToLower(v), strings.ToLower(url.QueryEscape(v)), strings.ToLower(url.PathEscape(v)),
			base64.StdEncoding.EncodeToString([]byte(v)), base64.URLEncoding.EncodeToString([]byte(v)),
			strings.ToLower(strings.ReplaceAll(v, " ", "")), strings.ToLower(strings.ReplaceAll(v, " ", `\u0020`)))
	}
	return out
}

// containsNeedle reports whether b holds a canary in any needle form.
func containsNeedle(b []byte) bool {
	low := strings.ToLower(string(b))
	for _, n := range needles() {
		if strings.Contains(low, n) || strings.Contains(string(b), n) {
			return true
		}
	}
	return false
}

func checkNoLeak(t *testing.T, bodies [][]byte, where string) {
	t.Helper()
	for i, b := range bodies {
		low := strings.ToLower(string(b))
		for j, n := range needles() {
			if strings.Contains(low, n) || strings.Contains(string(b), n) {
				t.Errorf("%s: body %d holds a catalog value (needle form %d)", where, i, j)
			}
		}
	}
}

func redactCanaries(s string) string {
	for _, v := range []string{canaryName, canaryHost} {
		s = strings.ReplaceAll(s, v, "[canary]")
	}
	return s
}
