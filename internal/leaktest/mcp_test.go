package leaktest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// rpc is a JSON-RPC connection to `privscan mcp`. Every byte the server
// sends is kept for the leak check.
type rpc interface {
	// call sends a request and returns the response object, raw.
	call(t *testing.T, method string, params any) []byte
	// send writes a raw message (notifications, malformed input) and
	// returns whatever the server answered to it directly (HTTP only).
	send(t *testing.T, raw []byte) []byte
	close(t *testing.T) (stdout, stderr []byte)
}

// stdioRPC speaks newline-delimited JSON-RPC over the process's pipes.
type stdioRPC struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	out    syncBuffer
	stderr syncBuffer
	id     int
}

func startStdio(t *testing.T, cmd *exec.Cmd) *stdioRPC {
	t.Helper()
	s := &stdioRPC{cmd: cmd, lines: make(chan []byte, 64)}
	var err error
	if s.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.lines)
		br := bufio.NewReaderSize(io.TeeReader(out, &s.out), 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *stdioRPC) call(t *testing.T, method string, params any) []byte {
	t.Helper()
	s.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	s.send(t, msg)
	want := fmt.Sprint(s.id)
	deadline := time.After(120 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("mcp stdio: the server closed stdout\nstderr: %s", s.stderr.Bytes())
			}
			var r struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(line, &r) == nil && string(r.ID) == want {
				return line
			}
		case <-deadline:
			t.Fatalf("mcp stdio: no answer to %s", method)
		}
	}
}

func (s *stdioRPC) send(t *testing.T, raw []byte) []byte {
	t.Helper()
	if _, err := s.in.Write(append(raw, '\n')); err != nil {
		t.Fatalf("mcp stdio: write: %v", err)
	}
	return nil
}

func (s *stdioRPC) close(t *testing.T) ([]byte, []byte) {
	t.Helper()
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
		t.Errorf("mcp stdio: the server did not exit when stdin closed")
	}
	for range s.lines {
	}
	return s.out.Bytes(), s.stderr.Bytes()
}

// httpRPC speaks Streamable HTTP.
type httpRPC struct {
	cmd     *exec.Cmd
	url     string
	session string
	id      int
	out     syncBuffer // the process's stdout, every response body and header value
	stderr  syncBuffer
}

var listenRE = regexp.MustCompile(`listening on (http://\S+)`)

func startHTTP(t *testing.T, cmd *exec.Cmd) *httpRPC {
	t.Helper()
	h := &httpRPC{cmd: cmd}
	cmd.Stdout = &h.out
	cmd.Stderr = &h.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var m [][]byte
	if h.stderr.waitFor(60*time.Second, func(b []byte) bool { m = listenRE.FindSubmatch(b); return m != nil }) {
		h.url = string(m[1])
		return h
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	t.Fatalf("mcp http: no listening line on stderr: %s", h.stderr.Bytes())
	return nil
}

func (h *httpRPC) post(t *testing.T, body []byte) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("mcp http: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("mcp http: reading the response: %v", err)
	}
	for k, vs := range resp.Header {
		fmt.Fprintf(&h.out, "%s: %s\n", k, strings.Join(vs, ", "))
	}
	h.out.Write(append(data, '\n'))
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		h.session = s
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The last data line holds the response.
		var last []byte
		for _, l := range bytes.Split(data, []byte("\n")) {
			if d, ok := bytes.CutPrefix(l, []byte("data:")); ok {
				last = bytes.TrimSpace(d)
			}
		}
		return last
	}
	return data
}

func (h *httpRPC) call(t *testing.T, method string, params any) []byte {
	t.Helper()
	h.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.id, "method": method, "params": params})
	return h.post(t, msg)
}

func (h *httpRPC) send(t *testing.T, raw []byte) []byte { t.Helper(); return h.post(t, raw) }

func (h *httpRPC) close(t *testing.T) ([]byte, []byte) {
	t.Helper()
	_ = h.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = h.cmd.Process.Kill()
		<-done
		t.Errorf("mcp http: the server did not exit on SIGINT")
	}
	return h.out.Bytes(), h.stderr.Bytes()
}

// toolResult decodes a tools/call response: whether it is an error
// result and its error code.
func toolResult(t *testing.T, raw []byte) (isError bool, code string, rpcErr bool) {
	t.Helper()
	var r struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("mcp: response is not JSON-RPC: %v: %.300s", err, raw)
	}
	if r.Error != nil || r.Result == nil {
		return false, "", true
	}
	if r.Result.IsError && len(r.Result.Content) > 0 {
		var body struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal([]byte(r.Result.Content[0].Text), &body)
		code = body.Code
	}
	return r.Result.IsError, code, false
}

// mcpCase is one tool call and the error code it must produce ("" for a
// successful call).
type mcpCase struct {
	tool string
	args map[string]any
	code string
	path string
	// before and after run around the call (the key map is swapped for
	// config_missing and config_invalid: the server reads it per call).
	before, after func()
}

// mcpMatrix runs every tool over one transport, success and every error
// code the tools return.
func (w *world) mcpMatrix(t *testing.T, transport string) {
	c := w.c
	prText, err := os.ReadFile(filepath.Join(w.inputs, "pr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"mcp"}
	if transport == "http" {
		args = append(args, "--http", "127.0.0.1:0")
	}
	// The server runs in the test root: the repository is inside it, the
	// inputs directory is a non-repository inside it.
	cmd := w.command(w.root, map[string]string{"PRIVSCAN_AGENT": "leaktest"}, args...)
	var conn rpc
	if transport == "http" {
		conn = startHTTP(t, cmd)
	} else {
		conn = startStdio(t, cmd)
	}
	conn.call(t, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "leaktest", "version": "1"}})
	conn.send(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	conn.call(t, "tools/list", map[string]any{})

	swap := func(content string) (func(), func()) {
		saved := filepath.Join(w.inputs, "saved-map.toml")
		return func() {
				if err := os.Rename(w.mapFile, saved); err != nil {
					t.Fatal(err)
				}
				if content != "" {
					writeFile(t, w.mapFile, content)
				}
			}, func() {
				if err := os.Rename(saved, w.mapFile); err != nil {
					t.Fatal(err)
				}
			}
	}
	missBefore, missAfter := swap("")
	invBefore, invAfter := swap("[catalogs]\ndefault = " + c.persons[0] + "\n[keys]\nguide = \"" + c.email + "\n")

	big := strings.Repeat(string(prText), (1<<20)/len(prText)+1)
	var cases []mcpCase
	add := func(path, tool, code string, a map[string]any) {
		cases = append(cases, mcpCase{tool: tool, args: a, code: code, path: path})
	}
	// load_context
	add("ok", "load_context", "", map[string]any{"key": "guide", "agent_id": "leak-test"})
	add("unknown_key", "load_context", "unknown_key", map[string]any{"key": "nosuch"})
	add("unknown_key/catalog", "load_context", "unknown_key", map[string]any{"key": "default"})
	add("unknown_key/broken-catalog", "load_context", "unknown_key", map[string]any{"key": "broken-invalid-regex"})
	add("file_missing", "load_context", "file_missing", map[string]any{"key": "missing"})
	add("not_markdown", "load_context", "not_markdown", map[string]any{"key": "txt"})
	add("not_regular_file", "load_context", "not_regular_file", map[string]any{"key": "dir"})
	add("too_large", "load_context", "too_large", map[string]any{"key": "big"})
	add("config_invalid/catalog-as-context", "load_context", "config_invalid", map[string]any{"key": "catalog-as-context"})
	add("invalid_argument/missing", "load_context", "invalid_argument", map[string]any{})
	add("invalid_argument/type", "load_context", "invalid_argument", map[string]any{"key": []any{c.persons[0]}})
	add("invalid_argument/unknown", "load_context", "invalid_argument", map[string]any{"key": "guide", identSpellings(c.idents[0])[2]: c.persons[1]})
	add("invalid_argument/agent_id", "load_context", "invalid_argument", map[string]any{"key": "guide", "agent_id": c.persons[0]})
	add("input_too_large", "load_context", "input_too_large", map[string]any{"key": strings.Repeat(identSpellings(c.idents[0])[0], 40)})
	cases = append(cases,
		mcpCase{path: "config_missing", tool: "load_context", code: "config_missing", args: map[string]any{"key": "guide"}, before: missBefore, after: missAfter},
		mcpCase{path: "config_invalid", tool: "load_context", code: "config_invalid", args: map[string]any{"key": "guide"}, before: invBefore, after: invAfter},
	)
	// scan_text and redact_text
	for _, tool := range []string{"scan_text", "redact_text"} {
		add("ok", tool, "", map[string]any{"text": string(prText)})
		add("ok/catalog_key", tool, "", map[string]any{"text": string(prText), "catalog_key": "default", "agent_id": "a/b"})
		add("invalid_argument/missing", tool, "invalid_argument", map[string]any{})
		add("invalid_argument/type", tool, "invalid_argument", map[string]any{"text": map[string]any{c.persons[0]: c.email}})
		add("invalid_argument/unknown", tool, "invalid_argument", map[string]any{"text": "x", identSpellings(c.idents[1])[2]: true})
		add("input_too_large", tool, "input_too_large", map[string]any{"text": big})
		add("unknown_key", tool, "unknown_key", map[string]any{"text": string(prText), "catalog_key": "nosuch"})
		add("file_missing", tool, "file_missing", map[string]any{"text": string(prText), "catalog_key": "missing"})
		add("not_markdown", tool, "not_markdown", map[string]any{"text": string(prText), "catalog_key": "txt"})
		add("not_regular_file", tool, "not_regular_file", map[string]any{"text": string(prText), "catalog_key": "dir"})
		add("too_large", tool, "too_large", map[string]any{"text": string(prText), "catalog_key": "big"})
		for _, n := range sortedKeys(brokenCatalogs(c)) {
			add("catalog_invalid/"+n, tool, "catalog_invalid", map[string]any{"text": string(prText), "catalog_key": "broken-" + n})
		}
		cases = append(cases,
			mcpCase{path: "config_missing", tool: tool, code: "config_missing", args: map[string]any{"text": string(prText)}, before: missBefore, after: missAfter},
			mcpCase{path: "config_invalid", tool: tool, code: "config_invalid", args: map[string]any{"text": string(prText)}, before: invBefore, after: invAfter},
		)
	}
	// read_redacted and redact_file: the repository's files and copies of
	// them hold every matchable spelling of the canaries. Like redact, they
	// replace what the detectors match, so their inputs hold canaries only
	// in such spellings (not the YAML fixture's percent-encoded URLs).
	sp := c.matchable()
	fixtures := filepath.Join("repo", "internal", "users", "fixtures.go")
	writeFile(t, filepath.Join(w.inputs, "binary-"+transport+".dat"), "\x00"+strings.Join(sp, "\n")+"\n")
	add("ok", "read_redacted", "", map[string]any{"path": fixtures, "agent_id": "leak-test"})
	add("ok/window", "read_redacted", "", map[string]any{"path": fixtures, "offset": 3, "limit": 5})
	add("ok/absolute", "read_redacted", "", map[string]any{"path": filepath.Join(w.repo, "docs", "notes.md"), "catalog_key": "default"})
	add("ok/json", "read_redacted", "", map[string]any{"path": filepath.Join("repo", "data", "seed.json")})
	add("path_outside_root", "read_redacted", "path_outside_root", map[string]any{"path": "/etc/hostname"})
	add("file_missing", "read_redacted", "file_missing", map[string]any{"path": "nothing-here.txt"})
	add("not_regular_file", "read_redacted", "not_regular_file", map[string]any{"path": "inputs"})
	add("binary_file", "read_redacted", "binary_file", map[string]any{"path": filepath.Join("inputs", "binary-"+transport+".dat")})
	add("invalid_argument/offset", "read_redacted", "invalid_argument", map[string]any{"path": fixtures, "offset": c.persons[0]})
	add("invalid_argument/unknown", "read_redacted", "invalid_argument", map[string]any{"path": fixtures, identSpellings(c.idents[0])[2]: c.persons[1]})
	add("unknown_key", "read_redacted", "unknown_key", map[string]any{"path": fixtures, "catalog_key": "nosuch"})
	for _, n := range sortedKeys(brokenCatalogs(c)) {
		add("catalog_invalid/"+n, "read_redacted", "catalog_invalid", map[string]any{"path": fixtures, "catalog_key": "broken-" + n})
	}
	cases = append(cases,
		mcpCase{path: "config_missing", tool: "read_redacted", code: "config_missing", args: map[string]any{"path": fixtures}, before: missBefore, after: missAfter},
		mcpCase{path: "config_invalid", tool: "read_redacted", code: "config_invalid", args: map[string]any{"path": fixtures}, before: invBefore, after: invAfter},
	)
	// redact_file rewrites copies outside the repository (left under the
	// test root, whose files are checked at the end); each is checked
	// right after the call too.
	redactDir := filepath.Join(w.root, "redacted-"+transport)
	redactCase := func(path, code, name string, content string, a map[string]any) {
		file := filepath.Join(redactDir, name)
		a["path"] = file
		cases = append(cases, mcpCase{path: path, tool: "redact_file", code: code, args: a,
			before: func() { writeFile(t, file, content) },
			after: func() {
				got, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if code == "" {
					w.check(t, "mcp "+transport+" redact_file ["+path+"] rewritten file", map[string][]byte{name: got})
				} else if string(got) != content {
					t.Errorf("mcp %s redact_file [%s]: the file changed on error", transport, path)
				}
				if code != "" {
					os.Remove(file) // it holds canaries by design
				}
			}})
	}
	redactCase("ok", "", "fixtures.go", goFile("users", sp), map[string]any{"agent_id": "leak-test"})
	redactCase("ok/synthetic", "", "seed.json", jsonFile(sp), map[string]any{"style": "synthetic"})
	redactCase("ok/md", "", "notes.md", mdFile(sp), map[string]any{"style": "placeholder", "catalog_key": "default"})
	redactCase("invalid_argument/style", "invalid_argument", "style.md", mdFile(sp), map[string]any{"style": c.persons[0]})
	redactCase("unknown_key", "unknown_key", "key.md", mdFile(sp), map[string]any{"catalog_key": "nosuch"})
	redactCase("catalog_invalid", "catalog_invalid", "broken.md", mdFile(sp), map[string]any{"catalog_key": "broken-invalid-regex"})
	redactCase("binary_file", "binary_file", "bin.md", "\x00"+mdFile(sp), map[string]any{})
	add("path_outside_root", "redact_file", "path_outside_root", map[string]any{"path": "/etc/hostname"})
	add("not_regular_file", "redact_file", "not_regular_file", map[string]any{"path": "inputs"})
	add("file_missing", "redact_file", "file_missing", map[string]any{"path": "nothing-here.txt"})
	// The guess budget: with a budget of one, this agent (which has spent
	// more already) is refused a new text.
	budgetBefore, budgetAfter := func() {
		b, err := os.ReadFile(w.mapFile)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, w.mapFile, "[guard]\nprobe-budget = 1\n\n"+string(b))
	}, func() {
		b, err := os.ReadFile(w.mapFile)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, w.mapFile, strings.TrimPrefix(string(b), "[guard]\nprobe-budget = 1\n\n"))
	}
	for _, tool := range []string{"scan_text", "redact_text"} {
		cases = append(cases, mcpCase{path: "rate_limited", tool: tool, code: "rate_limited", args: map[string]any{"text": tool + " " + transport + "\n" + string(prText)}, before: budgetBefore, after: budgetAfter})
	}
	cases = append(cases, mcpCase{path: "rate_limited", tool: "read_redacted", code: "rate_limited", args: map[string]any{"path": fixtures, "offset": 2, "limit": 3}, before: budgetBefore, after: budgetAfter})

	// scan_diff
	repo := w.repo
	add("ok", "scan_diff", "", map[string]any{"repo": repo})
	add("ok/staged", "scan_diff", "", map[string]any{"repo": repo, "staged": true})
	add("ok/base", "scan_diff", "", map[string]any{"repo": repo, "base": "main"})
	add("ok/base-branch", "scan_diff", "", map[string]any{"repo": repo, "base": w.branch})
	add("ok/range", "scan_diff", "", map[string]any{"repo": repo, "base": "main.." + w.branch})
	add("ok/symmetric", "scan_diff", "", map[string]any{"repo": repo, "base": "main..." + w.branch})
	add("ok/two", "scan_diff", "", map[string]any{"repo": repo, "base": "main", "head": w.branch})
	add("ok/tag", "scan_diff", "", map[string]any{"repo": repo, "base": "v-" + identSpellings(c.idents[1])[0], "head": "HEAD"})
	add("ok/staged-base", "scan_diff", "", map[string]any{"repo": repo, "base": w.branch, "staged": true})
	add("ok/paths", "scan_diff", "", map[string]any{"repo": repo, "base": "HEAD~2", "paths": []any{"docs", "internal/users"}})
	add("rev_not_found", "scan_diff", "rev_not_found", map[string]any{"repo": repo, "base": c.badRev})
	add("rev_not_found/head", "scan_diff", "rev_not_found", map[string]any{"repo": repo, "base": "main", "head": c.badRev + "-" + c.rxHits[2]})
	add("rev_not_found/range", "scan_diff", "rev_not_found", map[string]any{"repo": repo, "base": identSpellings(c.idents[0])[3] + "..HEAD"})
	add("invalid_argument/head-only", "scan_diff", "invalid_argument", map[string]any{"repo": repo, "head": w.branch})
	add("invalid_argument/option", "scan_diff", "invalid_argument", map[string]any{"repo": repo, "base": "--" + identSpellings(c.idents[0])[2]})
	add("invalid_argument/control", "scan_diff", "invalid_argument", map[string]any{"repo": repo, "base": c.persons[0] + "\n"})
	add("invalid_argument/staged", "scan_diff", "invalid_argument", map[string]any{"repo": repo, "staged": c.persons[1]})
	add("invalid_argument/paths", "scan_diff", "invalid_argument", map[string]any{"repo": repo, "paths": c.persons[2]})
	add("input_too_large/paths", "scan_diff", "input_too_large", map[string]any{"repo": repo, "paths": repeatAny(c.persons[0], 101)})
	add("path_outside_root", "scan_diff", "path_outside_root", map[string]any{"repo": "/"})
	// Paths are named in messages (as finding locations are), so the
	// matrix keeps canaries out of them.
	add("path_outside_root/paths", "scan_diff", "path_outside_root", map[string]any{"repo": repo, "paths": []any{"../../outside"}})
	add("repo_not_found", "scan_diff", "repo_not_found", map[string]any{"repo": w.inputs})
	add("unknown_key", "scan_diff", "unknown_key", map[string]any{"repo": repo, "catalog_key": "nosuch"})
	add("catalog_invalid", "scan_diff", "catalog_invalid", map[string]any{"repo": repo, "catalog_key": "broken-invalid-regex"})
	add("too_large", "scan_diff", "too_large", map[string]any{"repo": repo, "catalog_key": "big"})
	cases = append(cases,
		mcpCase{path: "config_missing", tool: "scan_diff", code: "config_missing", args: map[string]any{"repo": repo}, before: missBefore, after: missAfter},
		mcpCase{path: "config_invalid", tool: "scan_diff", code: "config_invalid", args: map[string]any{"repo": repo}, before: invBefore, after: invAfter},
	)

	for _, mc := range cases {
		if mc.before != nil {
			mc.before()
		}
		raw := conn.call(t, "tools/call", map[string]any{"name": mc.tool, "arguments": mc.args})
		if mc.after != nil {
			mc.after()
		}
		w.count("mcp-"+transport, mc.tool, transport, mc.path)
		isErr, code, rpcErr := toolResult(t, raw)
		label := fmt.Sprintf("mcp %s %s [%s]", transport, mc.tool, mc.path)
		switch {
		case rpcErr:
			t.Errorf("%s: JSON-RPC error %.300s", label, raw)
		case mc.code == "" && isErr:
			t.Errorf("%s: error result %.300s", label, raw)
		case mc.code != "" && code != mc.code:
			t.Errorf("%s: code %q, want %q: %.300s", label, code, mc.code, raw)
		}
		if strings.HasPrefix(mc.path, "ok") && mc.tool != "load_context" && !bytes.Contains(raw, []byte("catalog/PER-001")) && !bytes.Contains(raw, []byte("[person:")) {
			t.Errorf("%s: the call found nothing, so it tests nothing: %.300s", label, raw)
		}
		w.check(t, label, map[string][]byte{"response": raw})
	}

	// Protocol-level mistakes carrying canaries: the server's answers and
	// its stderr are checked below with everything else it wrote.
	for _, raw := range [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":9001,"method":"tools/call","params":{"name":"scan_text","arguments":{"text":"` + c.persons[0] + `"` + c.email),
		[]byte(c.persons[1] + " " + c.rxHits[0]),
		[]byte(`{"jsonrpc":"2.0","id":9002,"method":"tools/call","params":{"name":"scan_text","arguments":"` + c.persons[2] + `"}}`),
		[]byte(`{"jsonrpc":"2.0","id":9003,"method":"tools/call","params":{"name":"scan_text","arguments":{"text":` + strings.Repeat("[", 20000) + `"` + c.persons[0] + `"}}}`),
	} {
		conn.send(t, raw)
		w.count("mcp-"+transport, "protocol", transport, "malformed")
	}
	// A request whose reply is certain after the malformed ones: stdio
	// answers in order, so everything before it has been written.
	conn.call(t, "ping", map[string]any{})

	stdout, stderr := conn.close(t)
	w.check(t, "mcp "+transport+" server", map[string][]byte{"stdout": stdout, "stderr": stderr})
}

func repeatAny(s string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", s, i)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
