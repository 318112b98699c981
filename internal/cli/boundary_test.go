package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/mcpcmd"
)

// boundaryBig runs the cases at 16 and 64 MiB too (a few seconds each
// door); .ci/run sets it.
var boundaryBig = os.Getenv("PRIVSCAN_BOUNDARY_BIG") == "1"

// boundaryCase is a text holding the catalog value once, at a known line
// and column (1-based, code points: the text is ASCII).
type boundaryCase struct {
	name      string
	text      string
	line, col int
}

// boundaryCases plant the value across every buffer size the text and git
// readers use (bufio's 4 KiB default, the 64 KiB line reader, the 256 KiB
// fragment batch, 1 MiB, and with boundaryBig 16 MiB, the former line cut,
// and just under the 64 MiB line cap), in one long line and after short
// lines (LF and CRLF), and at the start and end of the text, with and
// without a final newline.
func boundaryCases() []boundaryCase {
	sizes := []int{4 << 10, 64 << 10, 256 << 10, 1 << 20}
	if boundaryBig {
		sizes = append(sizes, 16<<20, 64<<20-64)
	}
	var cs []boundaryCase
	for _, b := range sizes {
		at := b - len(value)/2 // the value straddles byte b
		if at+len(value) >= 64<<20 {
			at = 64<<20 - len(value) - 8
		}
		cs = append(cs, boundaryCase{fmt.Sprintf("one line/%d", b), strings.Repeat("a", at-1) + " " + value + " z\n", 1, at + 1})
		for _, eol := range []string{"\n", "\r\n"} {
			short := strings.Repeat("b", 78) + eol
			n := at / len(short)
			rest := at - n*len(short)
			pad := ""
			if rest > 0 {
				pad = strings.Repeat("c", rest-1) + " "
			}
			name := map[string]string{"\n": "lines", "\r\n": "crlf lines"}[eol]
			cs = append(cs, boundaryCase{fmt.Sprintf("%s/%d", name, b), strings.Repeat(short, n) + pad + value + " z" + eol + "last" + eol, n + 1, len(pad) + 1})
		}
	}
	cs = append(cs,
		boundaryCase{"start of text", value + " first\nsecond\n", 1, 1},
		boundaryCase{"end, no final newline", "first\nsecond " + value, 2, 8},
		boundaryCase{"end, final newline", "first\nsecond " + value + "\n", 2, 8},
		boundaryCase{"end, crlf", "first\r\nsecond " + value + "\r\n", 2, 8},
	)
	return cs
}

type position struct {
	Line, Column, EndColumn int
	Path, RuleID            string
}

func findings(t *testing.T, out string) []position {
	t.Helper()
	var rep struct{ Findings []position }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v (%.200s)", err, out)
	}
	return rep.Findings
}

// TestBoundaryProperty: every door that reads text finds the value at its
// exact line and column wherever it sits relative to a buffer boundary,
// and redact never lets it through.
func TestBoundaryProperty(t *testing.T) {
	for _, c := range boundaryCases() {
		t.Run(c.name, func(t *testing.T) {
			want := position{Line: c.line, Column: c.col, EndColumn: c.col + len(value), RuleID: "catalog/PEOPLE"}
			check := func(door string, got []position, path string) {
				t.Helper()
				w := want
				w.Path = path
				if len(got) != 1 || got[0] != w {
					t.Errorf("%s: findings %+v, want exactly %+v", door, got, w)
				}
			}
			// text and redact: the text reader.
			code, out, errOut := runWithInput(t, strings.NewReader(c.text), "text", "-", "--format", "json")
			if code != 1 {
				t.Fatalf("text: exit %d %s", code, errOut)
			}
			check("text", findings(t, out), "")
			code, out, errOut = runWithInput(t, strings.NewReader(c.text), "redact", "-")
			if code != 0 || strings.Contains(out, value) || !strings.Contains(out, "[person:1]") {
				t.Errorf("redact: exit %d, value present %v, %s", code, strings.Contains(out, value), errOut)
			}
			if got, want := len(out)-len("[person:1]"), len(c.text)-len(value); got != want {
				t.Errorf("redact: %d other bytes, want %d (byte for byte)", got, want)
			}

			// MCP scan_text and redact_text, within their caps.
			if len(c.text) <= 1<<20 {
				got, redacted := mcpText(t, c.text, len(c.text) <= 32<<10)
				check("mcp scan_text", got, "")
				if len(c.text) <= 32<<10 && (strings.Contains(redacted, value) || !strings.Contains(redacted, "[person:1]")) {
					t.Errorf("mcp redact_text: value present or no placeholder")
				}
			}

			// scan, diff (untracked), diff (a commit range) and history:
			// the git path.
			dir := t.TempDir()
			cat := filepath.Join(dir, "catalog.md")
			if err := os.WriteFile(cat, []byte(policyCatalog), 0o600); err != nil {
				t.Fatal(err)
			}
			repo := filepath.Join(dir, "repo")
			gitRun := func(args ...string) {
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
					"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, b)
				}
			}
			os.MkdirAll(repo, 0o700)
			gitRun("init", "-q", "-b", "main")
			gitRun("commit", "-q", "--allow-empty", "-m", "init")
			if err := os.WriteFile(filepath.Join(repo, "data.txt"), []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"HOME": dir, "PRIVSCAN_CATALOG_FILE": cat}
			scan := func(args ...string) []position {
				var stdout, stderr bytes.Buffer
				e := &cli.Env{Args: append(args, "--format", "json"), Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
					Getenv: func(k string) string { return env[k] }, Dir: repo}
				if code := cli.Report(&stderr, cli.Run(context.Background(), e)); code != 1 {
					t.Fatalf("%v: exit %d %s", args, code, stderr.String())
				}
				return findings(t, stdout.String())
			}
			check("scan", scan("scan"), "data.txt")
			check("diff (untracked)", scan("diff"), "data.txt")
			gitRun("add", "data.txt")
			gitRun("commit", "-q", "-m", "data")
			check("diff HEAD~1..HEAD", scan("diff", "HEAD~1..HEAD", "--no-messages"), "data.txt")
			check("history", scan("history"), "data.txt")
		})
	}
}

// mcpText calls scan_text (and redact_text when redact is set) through
// `privscan mcp` on stdio.
func mcpText(t *testing.T, text string, redact bool) ([]position, string) {
	t.Helper()
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog.md")
	if err := os.WriteFile(cat, []byte(policyCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir, "PRIVSCAN_CATALOG_FILE": cat}
	call := func(id int, tool string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": map[string]any{"text": text}}})
		return string(b)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + call(2, "scan_text") + "\n"
	if redact {
		in += call(3, "redact_text") + "\n"
	}
	// Requests go in; stdin closes only once every reply came out (at EOF
	// the server cancels calls still running).
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		e := &cli.Env{Args: []string{"mcp"}, Stdin: inR, Stdout: outW, Stderr: &stderr,
			Getenv: func(k string) string { return env[k] }, Dir: dir, ServeMCP: mcpcmd.Serve}
		code := cli.Report(&stderr, cli.Run(context.Background(), e))
		outW.Close()
		done <- code
	}()
	go io.WriteString(inW, in)
	want := 2
	if redact {
		want = 3
	}
	var got []position
	redacted := ""
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 8<<20)
	seen := 0
	for seen < want && sc.Scan() {
		l := sc.Text()
		var msg struct {
			ID     int
			Result struct {
				Content []struct{ Text string }
				IsError bool
			}
		}
		if json.Unmarshal([]byte(l), &msg) != nil || msg.ID == 0 {
			continue
		}
		seen++
		if msg.ID == 1 {
			continue
		}
		if msg.Result.IsError || len(msg.Result.Content) == 0 {
			t.Fatalf("call %d failed: %.300s", msg.ID, l)
		}
		body := msg.Result.Content[0].Text
		switch msg.ID {
		case 2:
			var r struct{ Findings []position }
			if err := json.Unmarshal([]byte(body), &r); err != nil {
				t.Fatalf("scan_text: %v %.300s", err, body)
			}
			got = r.Findings
		case 3:
			var r struct{ Text string }
			if err := json.Unmarshal([]byte(body), &r); err != nil {
				// redact_text may reply with the text itself.
				r.Text = body
			}
			redacted = r.Text
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if code := <-done; code != 0 {
		t.Fatalf("mcp: exit %d %s", code, stderr.String())
	}
	return got, redacted
}

// TestBoundaryPropertyHook: the commit gate reports the value at its exact
// line and column (the block message's path:line:col-end) wherever it sits.
func TestBoundaryPropertyHook(t *testing.T) {
	for _, c := range boundaryCases() {
		if len(c.text) > 2<<20 {
			continue // the big cases: the git path above covers them
		}
		t.Run(c.name, func(t *testing.T) {
			r := newHookRepo(t)
			text := strings.ReplaceAll(c.text, value, hookCanary)
			r.write(t, "data.txt", text)
			code, stderr := runHook(t, r.env, payload(r.dir, "Bash", "git add data.txt && git commit -m data"))
			want := fmt.Sprintf("  data.txt:%d:%d-%d catalog/PER-001 ", c.line, c.col, c.col+len(hookCanary))
			if code != 2 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, want %q in:\n%s", code, want, stderr)
			}
			assertNoCanary(t, stderr)
		})
	}
}
