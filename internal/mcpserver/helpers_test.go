package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Canaries: catalog values and scanned text that must never appear in any
// reply, error, stderr line or audit record.
const (
	canaryName  = "Zorblax Quintavius"
	canaryHost  = "vault-7.canaryzone.internal"
	canaryRegex = `QZX-\d{6}`
	canaryID    = "QZX-314159"
	canaryEmail = "zq.canary@mailbox.org"
	canaryKey   = "ctx-canary-key-77"
	guideText   = "# Guide\n\nUse synthetic data such as Jane Roe.\n"
)

// testCatalog has one rule per kind of match.
var testCatalog = "# Test catalog\n\n- fingerprint-key: " + strings.Repeat("ab", 32) + "\n\n" +
	"## PER-001\n- category: person\n- severity: error\n- match: identifier\n- description: Customer names\n\n```values\n" + canaryName + "\n```\n\n" +
	"## HOST\n- category: internal-host\n- severity: warning\n\n```values\n" + canaryHost + "\n```\n\n" +
	"## EMP-ID\n- category: employee-id\n- severity: error\n- match: regex\n\n```values\n" + canaryRegex + "\n```\n"

// fixture is a private configuration (key map, catalog, context file) and
// a state directory, with the environment seen by the server.
type fixture struct {
	root, cfgDir, state, work string
	env                       map[string]string
	mu                        sync.Mutex
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	f := &fixture{
		root:   root,
		cfgDir: filepath.Join(root, "xdg-config", "privscan"),
		state:  filepath.Join(root, "xdg-state"),
		work:   filepath.Join(root, "work"),
	}
	for _, d := range []string{f.cfgDir, f.state, f.work, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.env = map[string]string{
		"HOME":            filepath.Join(root, "home"),
		"XDG_CONFIG_HOME": filepath.Join(root, "xdg-config"),
		"XDG_STATE_HOME":  f.state,
	}
	f.write(t, filepath.Join(f.cfgDir, "catalog.md"), testCatalog)
	f.write(t, filepath.Join(f.cfgDir, "guide.md"), guideText)
	f.writeMap(t, "[keys]\nprivacy-guide = \"guide.md\"\n"+canaryKey+" = \"guide.md\"\n[catalogs]\ndefault = \"catalog.md\"\nother = \"other.md\"\n")
	return f
}

func (f *fixture) getenv(k string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.env[k]
}

func (f *fixture) setenv(k, v string) {
	f.mu.Lock()
	f.env[k] = v
	f.mu.Unlock()
}

func (f *fixture) write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) writeMap(t *testing.T, toml string) {
	f.write(t, filepath.Join(f.cfgDir, "context-map.toml"), toml)
}

func (f *fixture) auditPath() string { return filepath.Join(f.state, "privscan", "audit.jsonl") }

// syncBuffer is a goroutine-safe stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is a server and an initialized in-process client.
type harness struct {
	f      *fixture
	srv    *Server
	c      *client.Client
	stderr *syncBuffer
	// replies records every reply's wire JSON, for the no-leak test.
	mu      sync.Mutex
	replies []string
}

func (f *fixture) start(t *testing.T, roots ...string) *harness {
	t.Helper()
	return f.startWith(t, Options{Roots: roots})
}

// startWith starts a server with o, its directory, environment, stderr
// and version set by the fixture.
func (f *fixture) startWith(t *testing.T, o Options) *harness {
	t.Helper()
	h := &harness{f: f, stderr: &syncBuffer{}}
	o.Dir, o.Getenv, o.Stderr, o.Version = f.work, f.getenv, h.stderr, "test"
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	c, err := client.NewInProcessClient(srv.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	h.c = c
	return h
}

// call calls a tool; a protocol-level error fails the test.
func (h *harness) call(t *testing.T, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	if args != nil {
		req.Params.Arguments = args
	}
	res, err := h.c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	b, _ := json.Marshal(res)
	h.mu.Lock()
	h.replies = append(h.replies, string(b))
	h.mu.Unlock()
	return res
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content has %d items", len(res.Content))
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T", res.Content[0])
	}
	return tc.Text
}

// wantError checks an error result and returns its message.
func wantError(t *testing.T, res *mcp.CallToolResult, code string) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want error %s, got success: %.300s", code, text(t, res))
	}
	var body map[string]string
	if err := json.Unmarshal([]byte(text(t, res)), &body); err != nil {
		t.Fatalf("error body is not JSON: %v", err)
	}
	if len(body) != 2 || body["message"] == "" {
		t.Fatalf("error body %v: want exactly code and a message", body)
	}
	if body["code"] != code {
		t.Fatalf("code = %s (%s), want %s", body["code"], body["message"], code)
	}
	return body["message"]
}

// scanResult decodes a successful scan reply, checking that the text and
// structured content agree.
func scanResult(t *testing.T, res *mcp.CallToolResult) *ScanResult {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error: %s", text(t, res))
	}
	var fromText, fromStruct ScanResult
	if err := json.Unmarshal([]byte(text(t, res)), &fromText); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fromStruct); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromText)
	c, _ := json.Marshal(fromStruct)
	if !bytes.Equal(a, c) {
		t.Fatalf("text and structured content differ:\n%s\n%s", a, c)
	}
	return &fromText
}

// gitRepo creates a repository at dir with the git binary.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "config", "user.email", "dev@example.com")
	git(t, dir, "config", "user.name", "Dev")
	git(t, dir, "config", "commit.gpgsign", "false")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ruleCounts maps rule IDs to finding counts.
func ruleCounts(r *ScanResult) map[string]int {
	m := map[string]int{}
	for _, f := range r.Findings {
		m[f.RuleID]++
	}
	return m
}
