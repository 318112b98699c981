package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/privscan/privscan/internal/claudehook"
	"github.com/privscan/privscan/internal/cli"
)

// guardEnv is a HOME with a key map whose default catalog is hookCatalog,
// and a project folder.
type guardEnv struct {
	home, proj string
	env        map[string]string
}

func newGuardEnv(t *testing.T, guardTOML string) *guardEnv {
	t.Helper()
	root := t.TempDir()
	g := &guardEnv{home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	cfg := filepath.Join(g.home, ".config", "privscan")
	for _, d := range []string{cfg, g.proj} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, filepath.Join(cfg, "catalog.md"), hookCatalog)
	writeTestFile(t, filepath.Join(cfg, "context-map.toml"), "[catalogs]\ndefault = \"catalog.md\"\n"+guardTOML)
	g.env = map[string]string{"HOME": g.home}
	return g
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (g *guardEnv) file(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(g.proj, name)
	writeTestFile(t, p, content)
	return p
}

// guardPayload builds a hook payload of event for tool with input (and,
// for PostToolUse, response).
func (g *guardEnv) payload(event, tool string, input map[string]any, response any) string {
	p := map[string]any{"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": g.proj,
		"permission_mode": "default", "hook_event_name": event, "tool_use_id": "toolu_g"}
	if tool != "" {
		p["tool_name"] = tool
		p["tool_input"] = input
	}
	if response != nil {
		p["tool_response"] = response
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// runGuard runs "privscan hook claude-guard" in process and checks that
// privscan-hook answers the same; it returns the exit code, stdout and
// stderr.
func runGuard(t *testing.T, env map[string]string, stdin string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: []string{"hook", claudehook.GuardName}, Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return env[k] }, Dir: t.TempDir()}
	code := cli.Report(&stderr, cli.Run(context.Background(), e))
	var out2, err2 bytes.Buffer
	code2 := claudehook.Main(context.Background(), []string{claudehook.GuardName}, strings.NewReader(stdin), &out2,
		claudehook.Env{Stderr: &err2, Getenv: e.Getenv, Dir: e.Dir})
	if code2 != code || err2.String() != stderr.String() || out2.String() != stdout.String() {
		t.Errorf("privscan-hook: exit %d, stdout %q, stderr\n%s\nwant exit %d, stdout %q, stderr\n%s", code2, out2.String(), err2.String(), code, stdout.String(), stderr.String())
	}
	assertNoCanary(t, stdout.String()+stderr.String())
	return code, stdout.String(), stderr.String()
}

func read(path string, window ...int) map[string]any {
	in := map[string]any{"file_path": path}
	if len(window) > 0 {
		in["offset"] = window[0]
	}
	if len(window) > 1 {
		in["limit"] = window[1]
	}
	return in
}

func TestGuardRead(t *testing.T) {
	g := newGuardEnv(t, "")
	leaky := g.file(t, "leaky.txt", "line one\nowner: "+hookCanary+"\nthree\nfour\n")
	clean := g.file(t, "clean.txt", "nothing here\n")
	crlf := g.file(t, "crlf.txt", "a\r\nb "+hookCanary+"\r\n")
	marked := g.file(t, "marked.go", "// "+hookCanary+" privscan:allow\n")
	host := g.file(t, "host.txt", "db: "+hookHost+"\n") // a warning-level rule
	email := g.file(t, "email.txt", "contact: someone.real@gmail.com\n")
	empty := g.file(t, "empty.txt", "")
	nb := g.file(t, "n.ipynb", `{"cells":[{"cell_type":"code","source":["x = 1\n","name = \"Zorblax\u0020Quintavius\"\n"],"outputs":[]}],"nbformat":4}`)
	nbClean := g.file(t, "c.ipynb", `{"cells":[{"cell_type":"markdown","source":["# Notes\n"]}],"nbformat":4}`)
	img := g.file(t, "shot.png", "\x89PNG\r\n\x1a\n")
	pdf := g.file(t, "doc.PDF", "%PDF-1.4\n")
	if err := os.Mkdir(filepath.Join(g.proj, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(g.proj, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		tool  string
		input map[string]any
		code  int
		want  []string // in stderr
	}{
		{"leaky whole file", "Read", read(leaky), 2, []string{"line 2:8-26 catalog/PER-001", "read_redacted", "redact_file", "privscan: hint:"}},
		{"window excludes the line", "Read", read(leaky, 3, 2), 0, nil},
		{"window before the line", "Read", read(leaky, 1, 1), 0, nil},
		{"window starts at the line", "Read", read(leaky, 2, 1), 2, []string{"line 2:"}},
		{"window ends at the line", "Read", read(leaky, 1, 2), 2, []string{"line 2:"}},
		{"offset only", "Read", read(leaky, 2), 2, nil},
		{"offset past the end", "Read", read(leaky, 50), 0, nil},
		{"window as strings", "Read", map[string]any{"file_path": leaky, "offset": "3", "limit": "1"}, 0, nil},
		{"unreadable window checks the whole file", "Read", map[string]any{"file_path": leaky, "offset": "x", "limit": 1}, 2, nil},
		{"relative path", "Read", read("leaky.txt"), 2, nil},
		{"clean", "Read", read(clean), 0, nil},
		{"empty", "Read", read(empty), 0, nil},
		{"crlf", "Read", read(crlf), 2, []string{"line 2:3-21"}},
		{"markers in the file do not count", "Read", read(marked), 2, nil},
		{"warning below the default level", "Read", read(host), 0, nil},
		{"PII below the default level", "Read", read(email), 0, nil},
		{"notebook", "Read", read(nb), 2, []string{"catalog/PER-001", "notebook"}},
		{"notebook read", "NotebookRead", map[string]any{"notebook_path": nb}, 2, nil},
		{"clean notebook", "Read", read(nbClean), 0, nil},
		{"image", "Read", read(img), 2, []string{"an image"}},
		{"pdf", "Read", read(pdf), 2, []string{"a PDF"}},
		{"missing file", "Read", read(filepath.Join(g.proj, "nope")), 0, nil},
		{"directory", "Read", read(filepath.Join(g.proj, "dir")), 0, nil},
		{"fifo", "Read", read(fifo), 2, []string{"not a regular file"}},
		{"no path", "Read", map[string]any{}, 0, nil},
		{"other tool", "Glob", map[string]any{"pattern": hookCanary}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runGuard(t, g.env, g.payload("PreToolUse", tc.tool, tc.input, nil))
			if code != tc.code || stdout != "" {
				t.Fatalf("exit %d (want %d), stdout %q, stderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestGuardReadBoundaries plants the value at each edge of the window and
// of the reader's buffers, and far into a long line (Read cuts none).
func TestGuardReadBoundaries(t *testing.T) {
	g := newGuardEnv(t, "")
	lines := func(n, at int, line string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if i == at {
				b.WriteString(line + "\n")
			} else {
				fmt.Fprintf(&b, "filler %d\n", i)
			}
		}
		return b.String()
	}
	v := "x " + hookCanary
	for _, tc := range []struct {
		name   string
		text   string
		window []int
		code   int
	}{
		{"no default line cap", lines(3000, 2500, v), nil, 2},
		{"first line of the window", lines(100, 40, v), []int{40, 10}, 2},
		{"last line of the window", lines(100, 49, v), []int{40, 10}, 2},
		{"line before the window", lines(100, 39, v), []int{40, 10}, 0},
		{"line after the window", lines(100, 50, v), []int{40, 10}, 0},
		{"offset without limit reads to the end", lines(3000, 2999, v), []int{2000, 0}, 2},
		{"no line is cut", strings.Repeat("a", 10000) + " " + hookCanary + "\n", nil, 2},
		{"astral characters before it", strings.Repeat("😀", 3000) + " " + hookCanary + "\n", nil, 2},
		{"past the reader's buffer, in a later line", strings.Repeat("b", 70<<10) + "\n" + v + "\n", nil, 2},
		{"across fragment batches", strings.Repeat(strings.Repeat("c", 1000)+"\n", 300) + v + "\n", nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := g.file(t, "f.txt", tc.text)
			code, _, stderr := runGuard(t, g.env, g.payload("PreToolUse", "Read", read(p, tc.window...), nil))
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
		})
	}
}

// TestGuardReadSizeLimit: without a window, Read refuses a file over its
// size limit and shows none of it, so the guard lets that Read fail on its
// own; with allow_large, or a window, the lines are checked.
func TestGuardReadSizeLimit(t *testing.T) {
	g := newGuardEnv(t, "")
	big := g.file(t, "big.txt", strings.Repeat(strings.Repeat("e", 99)+"\n", 4000)+"x "+hookCanary+"\n")
	for _, tc := range []struct {
		name  string
		input map[string]any
		code  int
	}{
		{"whole file: Read refuses it", read(big), 0},
		{"allow_large", map[string]any{"file_path": big, "allow_large": true}, 2},
		{"window with the line", read(big, 3990, 20), 2},
		{"window without it", read(big, 1, 20), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runGuard(t, g.env, g.payload("PreToolUse", "Read", tc.input, nil))
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
		})
	}
	// Just under the margin above Read's limit, the file is checked.
	small := g.file(t, "small.txt", strings.Repeat(strings.Repeat("f", 99)+"\n", 2600)+"x "+hookCanary+"\n")
	if code, _, stderr := runGuard(t, g.env, g.payload("PreToolUse", "Read", read(small), nil)); code != 2 {
		t.Fatalf("a file near Read's limit: exit %d\n%s", code, stderr)
	}
}

func TestGuardReadTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 33 MiB")
	}
	g := newGuardEnv(t, "")
	// 33 lines of 1 MiB, read with allow_large: past the budget.
	big := strings.Repeat(strings.Repeat("d", 1<<20-1)+"\n", 33)
	p := g.file(t, "big.txt", big+"x "+hookCanary+"\n")
	code, _, stderr := runGuard(t, g.env, g.payload("PreToolUse", "Read", map[string]any{"file_path": p, "allow_large": true}, nil))
	if code != 2 || !strings.Contains(stderr, "too large to check") {
		t.Fatalf("whole file: exit %d\n%s", code, stderr)
	}
	// A window near the start reads only that far.
	if code, _, stderr := runGuard(t, g.env, g.payload("PreToolUse", "Read", read(p, 1, 10), nil)); code != 0 {
		t.Fatalf("first 10 lines: exit %d\n%s", code, stderr)
	}
}

func TestGuardPromptAndOutbound(t *testing.T) {
	g := newGuardEnv(t, "")
	tests := []struct {
		name, event, tool string
		input             map[string]any
		prompt            string
		code              int
		want              []string
	}{
		{"leaky prompt", "UserPromptSubmit", "", nil, "please email " + strings.ToLower(hookCanary) + " today", 2, []string{"prompt was not sent", "line 1:14-32 catalog/PER-001", "privscan redact"}},
		{"clean prompt", "UserPromptSubmit", "", nil, "fix the tests", 0, nil},
		{"empty prompt", "UserPromptSubmit", "", nil, "", 0, nil},
		{"web fetch url escaped", "PreToolUse", "WebFetch", map[string]any{"url": "https://example.com/?q=Zorblax%20Quintavius", "prompt": "summarise"}, "", 2, []string{"must not leave this machine", "catalog/PER-001"}},
		{"web fetch plus", "PreToolUse", "WebFetch", map[string]any{"url": "https://example.com/search?q=Zorblax+Quintavius", "prompt": "x"}, "", 2, nil},
		{"web fetch clean", "PreToolUse", "WebFetch", map[string]any{"url": "https://example.com/", "prompt": "x"}, "", 0, nil},
		{"web search", "PreToolUse", "WebSearch", map[string]any{"query": "who is " + hookCanary}, "", 2, nil},
		{"other mcp server", "PreToolUse", "mcp__tracker__create_issue", map[string]any{"title": "bug", "fields": map[string]any{"reporter": []any{"ZorblaxQuintavius"}}}, "", 2, []string{"this MCP tool"}},
		{"other mcp server key", "PreToolUse", "mcp__tracker__create_issue", map[string]any{hookCanary: 1}, "", 2, nil},
		{"privscan's own tool", "PreToolUse", "mcp__plugin_privscan_privscan__scan_text", map[string]any{"text": hookCanary}, "", 0, nil},
		{"secret in a url", "PreToolUse", "WebFetch", map[string]any{"url": "https://example.com/?key=" + "AKIA" + "QYLPMN5HFIQR7XYZ", "prompt": "x"}, "", 2, []string{"secret/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := g.payload(tc.event, tc.tool, tc.input, nil)
			if tc.event == "UserPromptSubmit" {
				var m map[string]any
				_ = json.Unmarshal([]byte(p), &m)
				m["prompt"] = tc.prompt
				b, _ := json.Marshal(m)
				p = string(b)
			}
			code, _, stderr := runGuard(t, g.env, p)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestGuardOutput(t *testing.T) {
	g := newGuardEnv(t, "")
	for _, tc := range []struct {
		name, tool string
		response   any
		code       int
	}{
		{"bash", "Bash", map[string]any{"stdout": "owner: " + hookCanary, "stderr": "", "interrupted": false, "isImage": false}, 2},
		{"bash stderr", "Bash", map[string]any{"stdout": "", "stderr": "no such user " + hookCanary, "interrupted": false}, 2},
		{"bash empty", "Bash", map[string]any{"stdout": "", "stderr": "", "interrupted": false}, 0},
		{"bash clean", "Bash", map[string]any{"stdout": "ok", "stderr": ""}, 0},
		{"grep content", "Grep", map[string]any{"mode": "content", "content": "a.txt:2:owner: " + hookCanary, "numLines": 1}, 2},
		{"grep file names", "Grep", map[string]any{"mode": "files_with_matches", "filenames": []any{"customers/ZorblaxQuintavius.txt"}, "numFiles": 1}, 2},
		{"read after the fact in block mode", "Read", map[string]any{"file": map[string]any{"content": hookCanary}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdin string
			if tc.tool == "Bash" {
				// Bash output is checked by claude-post-tool-use too.
				stdin = g.payload("PostToolUse", tc.tool, map[string]any{"command": "cat a.txt"}, tc.response)
			} else {
				stdin = g.payload("PostToolUse", tc.tool, map[string]any{"pattern": "owner"}, tc.response)
			}
			code, _, stderr := runGuard(t, g.env, stdin)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if code == 2 && (!strings.Contains(stderr, "do not copy it anywhere") || !strings.Contains(stderr, "catalog/PER-001")) {
				t.Errorf("stderr:\n%s", stderr)
			}
			if tc.tool == "Bash" {
				pcode, pstderr := runHookArgs(t, g.env, stdin, "claude-post-tool-use")
				if pcode != tc.code {
					t.Fatalf("claude-post-tool-use: exit %d, want %d; stderr:\n%s", pcode, tc.code, pstderr)
				}
			}
		})
	}
	log, err := os.ReadFile(filepath.Join(g.home, ".local", "state", "privscan", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	assertNoCanary(t, string(log))
	if !strings.Contains(string(log), `"outcome":"flagged"`) || !strings.Contains(string(log), `"rules":["catalog/PER-001"]`) {
		t.Fatalf("audit log lacks the flagged records:\n%s", log)
	}
}

// runHookArgs runs "privscan hook <name>" in process.
func runHookArgs(t *testing.T, env map[string]string, stdin, name string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: []string{"hook", name}, Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return env[k] }, Dir: t.TempDir()}
	code := cli.Report(&stderr, cli.Run(context.Background(), e))
	assertNoCanary(t, stdout.String()+stderr.String())
	return code, stderr.String()
}

func TestGuardSettings(t *testing.T) {
	leak := "owner: " + hookCanary + "\n"
	for _, tc := range []struct {
		name, toml string
		event      string
		code       int
		stdout     string // substring; "" for none
	}{
		{"read warn", "[guard]\nread = \"warn\"\n", "read", 0, `"additionalContext":"privscan: the file this Read would return holds 1 finding`},
		{"read off", "[guard]\nread = \"off\"\n", "read", 0, ""},
		{"prompt warn", "[guard]\nprompt = \"warn\"\n", "prompt", 0, `"hookEventName":"UserPromptSubmit"`},
		{"prompt off", "[guard]\nprompt = \"off\"\n", "prompt", 0, ""},
		{"outbound off", "[guard]\noutbound = \"off\"\n", "web", 0, ""},
		{"level warning adds PII", "[guard]\nlevel = \"warning\"\n", "email", 2, ""},
		{"level warning adds warning rules", "[guard]\nlevel = \"warning\"\n", "host", 2, ""},
		{"invalid guard fails closed", "[guard]\nread = \"maybe\"\n", "read", 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGuardEnv(t, tc.toml)
			var stdin string
			switch tc.event {
			case "read":
				stdin = g.payload("PreToolUse", "Read", read(g.file(t, "a.txt", leak)), nil)
			case "email":
				stdin = g.payload("PreToolUse", "Read", read(g.file(t, "a.txt", "contact: someone.real@gmail.com\n")), nil)
			case "host":
				stdin = g.payload("PreToolUse", "Read", read(g.file(t, "a.txt", "db: "+hookHost+"\n")), nil)
			case "web":
				stdin = g.payload("PreToolUse", "WebSearch", map[string]any{"query": hookCanary}, nil)
			case "prompt":
				b, _ := json.Marshal(map[string]any{"hook_event_name": "UserPromptSubmit", "cwd": g.proj, "prompt": leak})
				stdin = string(b)
			}
			code, stdout, stderr := runGuard(t, g.env, stdin)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if tc.stdout == "" && stdout != "" || !strings.Contains(stdout, tc.stdout) {
				t.Fatalf("stdout %q, want %q", stdout, tc.stdout)
			}
		})
	}
}

// TestGuardFailsClosed: what the guard cannot check is not let through.
func TestGuardFailsClosed(t *testing.T) {
	g := newGuardEnv(t, "")
	p := g.file(t, "a.txt", "clean\n")
	// A broken catalog.
	writeTestFile(t, filepath.Join(g.home, ".config", "privscan", "catalog.md"), "## bad id!\n")
	for _, stdin := range []string{
		g.payload("PreToolUse", "Read", read(p), nil),
		g.payload("PreToolUse", "WebFetch", map[string]any{"url": "https://example.com/"}, nil),
		`{"hook_event_name":"UserPromptSubmit","prompt":"hello"}`,
		`{"hook_event_name":`, // not JSON
	} {
		code, _, stderr := runGuard(t, g.env, stdin)
		if code != 2 || !strings.Contains(stderr, "could not") {
			t.Errorf("%.40s: exit %d\n%s", stdin, code, stderr)
		}
	}
	// After the fact, a problem is only a note.
	if code, _, stderr := runGuard(t, g.env, g.payload("PostToolUse", "Grep", map[string]any{"pattern": "x"}, map[string]any{"content": "x"})); code != 0 {
		t.Errorf("output check with a broken catalog: exit %d\n%s", code, stderr)
	}
	// Without any key map, PII and secrets are still guarded.
	bare := map[string]string{"HOME": t.TempDir()}
	card := g.file(t, "card.txt", "card 4556 7375 8689 9855\n")
	if code, _, stderr := runGuard(t, bare, g.payload("PreToolUse", "Read", read(card), nil)); code != 2 || !strings.Contains(stderr, "pii/credit-card") {
		t.Errorf("no key map: exit %d\n%s", code, stderr)
	}
}
