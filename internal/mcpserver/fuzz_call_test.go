package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzToolCall sends arbitrary tools/call messages (any tool name, any
// arguments, malformed JSON included) through the server's JSON-RPC entry
// point, as a transport does. The server never panics, always answers a
// request with a JSON-RPC response, answers tool failures with an
// isError {"code","message"} body, and never lets a catalog value or the
// context key it was not given reach a reply or the audit log.
func FuzzToolCall(f *testing.F) {
	seeds := []struct {
		tool uint8
		args string
	}{
		{0, `{"key":"privacy-guide"}`},
		{0, `{"key":"default"}`},
		{0, `{"key":7}`},
		{1, `{"text":"call Zorblax Quintavius at vault-7.canaryzone.internal, QZX-314159"}`},
		{1, `{"text":"ZorblaxQuintavius zorblax_quintavius\r\nQZX-000001\u0000\ud800"}`},
		{1, `{"text":null,"catalog_key":"missing"}`},
		{2, `{"text":"Zorblax Quintavius, zq.canary@mailbox.org","agent_id":"a/b"}`},
		{2, `{"text":"x","agent_id":"Zorblax Quintavius"}`},
		{2, `{"text":["a"]}`},
		{3, `{"repo":"../..","paths":["/etc","a"],"base":"-x"}`},
		{3, `{"base":"HEAD~1","head":"HEAD","staged":true}`},
		{4, `{}`},
		{1, `not json`},
		{2, `[1,2]`},
		{1, `{"text":"a","text":"b"}`},
		{5, `{"path":"notes.txt","offset":2,"limit":1}`},
		{5, `{"path":"../../etc/passwd","offset":-1}`},
		{5, `{"path":"notes.txt","offset":1.5,"limit":"3"}`},
		{6, `{"path":"notes.txt","style":"synthetic"}`},
		{6, `{"path":"/","style":"placeholder"}`},
	}
	for _, s := range seeds {
		f.Add(s.tool, []byte(s.args))
	}
	srv, fx, stderr := fuzzServer(f)
	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		fuzzToolCall(t, srv, fx, stderr, tool, args)
	})
}

// fuzzServer is one server shared by every input (gitleaks' rules compile
// once), with the fixture of newFixture.
func fuzzServer(f *testing.F) (*Server, *fixture, *syncBuffer) {
	root, err := os.MkdirTemp("", "privscan-fuzz-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(root) })
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	fx := &fixture{
		root:   root,
		cfgDir: filepath.Join(root, "xdg-config", "privscan"),
		state:  filepath.Join(root, "xdg-state"),
		work:   filepath.Join(root, "work"),
		env: map[string]string{
			"HOME":            filepath.Join(root, "home"),
			"XDG_CONFIG_HOME": filepath.Join(root, "xdg-config"),
			"XDG_STATE_HOME":  filepath.Join(root, "xdg-state"),
		},
	}
	files := map[string]string{
		"catalog.md": testCatalog,
		"guide.md":   guideText,
		// The largest guess budget: every input is a distinct probe, and a
		// long run must not be refused (the budget has its own tests).
		"context-map.toml": "[guard]\nprobe-budget = 100000000\n[keys]\nprivacy-guide = \"guide.md\"\n" + canaryKey + " = \"guide.md\"\n[catalogs]\ndefault = \"catalog.md\"\n",
	}
	for _, d := range []string{fx.cfgDir, fx.state, fx.work, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			f.Fatal(err)
		}
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(fx.cfgDir, name), []byte(content), 0o600); err != nil {
			f.Fatal(err)
		}
	}
	// A file for read_redacted and redact_file (which rewrites it once).
	if err := os.WriteFile(filepath.Join(fx.work, "notes.txt"), []byte("a\nowner "+canaryName+" at "+canaryHost+"\nid "+canaryID+"\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	stderr := &syncBuffer{}
	srv, err := New(Options{Dir: fx.work, Getenv: fx.getenv, Stderr: stderr, Version: "test"})
	if err != nil {
		f.Fatal(err)
	}
	srv.Prewarm()
	return srv, fx, stderr
}

var fuzzToolNames = []string{ToolLoadContext, ToolScanText, ToolRedactText, ToolScanDiff, "no_such_tool", ToolReadRedacted, ToolRedactFile}

func fuzzToolCall(t *testing.T, srv *Server, fx *fixture, stderr *syncBuffer, tool uint8, args []byte) {
	t.Helper()
	if len(args) > 64<<10 {
		return
	}
	// Only this input's audit lines and stderr are checked.
	auditStart := int64(0)
	if fi, err := os.Stat(fx.auditPath()); err == nil {
		auditStart = fi.Size()
	}
	stderrStart := len(stderr.String())
	name := fuzzToolNames[int(tool)%len(fuzzToolNames)]
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":`)
	msg = append(msg, args...)
	msg = append(msg, "}}"...)

	resp := srv.MCPServer().HandleMessage(context.Background(), json.RawMessage(msg))
	if resp == nil {
		t.Fatalf("no response to a request")
	}
	out, err := json.Marshal(resp)
	if err != nil {
		t.Fatalf("response does not encode: %v", err)
	}
	var env struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("response is not JSON-RPC: %v", err)
	}
	if (env.Result == nil) == (env.Error == nil) {
		t.Fatalf("response has neither or both of result and error: %s", out)
	}
	if env.Result != nil && env.Result.IsError {
		if len(env.Result.Content) != 1 {
			t.Fatalf("error result has %d content items", len(env.Result.Content))
		}
		var body map[string]string
		if err := json.Unmarshal([]byte(env.Result.Content[0].Text), &body); err != nil || body["code"] == "" || body["message"] == "" {
			t.Fatalf("error body %q is not {code,message}", env.Result.Content[0].Text)
		}
	}
	// A well-formed text call succeeds.
	var only map[string]any
	if (name == ToolScanText || name == ToolRedactText) && json.Unmarshal(args, &only) == nil && len(only) == 1 {
		if txt, ok := only["text"].(string); ok && len(txt) <= 8<<10 && utf8.ValidString(txt) && !bytes.Contains(args, []byte(`\u0000`)) {
			if env.Result == nil || env.Result.IsError {
				t.Fatalf("%s failed on a well-formed call: %s", name, out)
			}
		}
	}
	audit, _ := os.ReadFile(fx.auditPath())
	audit = audit[min(auditStart, int64(len(audit))):]
	for _, where := range []struct {
		name string
		b    []byte
	}{{"reply", out}, {"audit log", audit}, {"stderr", []byte(stderr.String()[stderrStart:])}} {
		for _, c := range []string{canaryName, canaryHost, canaryID, canaryKey, "QZX-"} {
			if bytes.Contains(bytes.ToLower(args), bytes.ToLower([]byte(c))) {
				continue // the caller's own text may come back (e.g. unmatched in redact_text)
			}
			if bytes.Contains(bytes.ToLower(where.b), bytes.ToLower([]byte(c))) {
				t.Fatalf("%s holds a value the caller did not send: %.400s", where.name, where.b)
			}
		}
	}
	if strings.Contains(string(audit), `"text"`) {
		t.Fatalf("audit log records an argument: %s", audit)
	}
}
