// Package launcher tests scripts/privscan-launch, the Claude Code plugin's
// launcher: how it obtains the binary (a verified release from a loopback
// server, a refused tampered one, a local build when offline) and how its
// MCP server answers while a first build is still running.
package launcher

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

const version = "1.2.3"

// repoRoot is this repository.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// skipUnlessPOSIX skips on systems without a POSIX sh or a release.
func skipUnlessPOSIX(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the launcher is POSIX sh")
	}
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		t.Skip("no release for this architecture")
	}
	return arch
}

// env is one launcher run's world: a plugin root holding the launcher,
// fetch-release, the manifest (version 1.2.3) and the tool schema
// snapshot; an empty plugin data directory; a PATH whose `go` is a fake.
type env struct {
	root, data, dir string
	fakeGo          string // the fake go's directory, first on PATH
	goLog           string // each fake go build appends a line
	vars            []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	repo := repoRoot(t)
	dir := t.TempDir()
	e := &env{
		root:   filepath.Join(dir, "plugin"),
		data:   filepath.Join(dir, "data"),
		dir:    dir,
		fakeGo: filepath.Join(dir, "fakego"),
		goLog:  filepath.Join(dir, "go.log"),
	}
	copyFile := func(from, to string, mode os.FileMode) {
		b, err := os.ReadFile(filepath.Join(repo, from))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(e.root, to), string(b), mode)
	}
	copyFile("scripts/privscan-launch", "scripts/privscan-launch", 0o755)
	copyFile("scripts/fetch-release", "scripts/fetch-release", 0o755)
	copyFile("internal/mcpserver/testdata/tools.json", "internal/mcpserver/testdata/tools.json", 0o644)
	writeFile(t, filepath.Join(e.root, ".claude-plugin/plugin.json"), "{\n  \"name\": \"privscan\",\n  \"version\": \""+version+"\"\n}\n", 0o644)
	// The fake go: `go version` answers; `go build -o OUT` logs, waits for
	// a line on $FAKE_GO_GATE when set, copies $FAKE_GO_BIN to OUT (to
	// OUT/privscan, $FAKE_GO_HOOK_BIN when set to OUT/privscan-hook and
	// $FAKE_GO_MCP_BIN when set to OUT/privscan-mcp, when OUT is a folder)
	// and writes a line to $FAKE_GO_DONE when set.
	writeFile(t, filepath.Join(e.fakeGo, "go"), `#!/bin/sh
case $1 in
version) echo "go version go0.0-fake"; exit 0 ;;
esac
out=
while [ $# -gt 0 ]; do
  [ "$1" = -o ] && out=$2
  shift
done
echo build >>"$FAKE_GO_LOG"
[ -z "${FAKE_GO_GATE:-}" ] || read -r _ <"$FAKE_GO_GATE"
if [ "${out%/}" != "$out" ]; then
  # -o DIR/ ./cmd/privscan ./cmd/privscan-hook ./cmd/privscan-mcp
  cp "$FAKE_GO_BIN" "$out/privscan" || exit 1
  [ -z "${FAKE_GO_HOOK_BIN:-}" ] || cp "$FAKE_GO_HOOK_BIN" "$out/privscan-hook" || exit 1
  [ -z "${FAKE_GO_MCP_BIN:-}" ] || cp "$FAKE_GO_MCP_BIN" "$out/privscan-mcp" || exit 1
else
  cp "$FAKE_GO_BIN" "$out" || exit 1
fi
[ -z "${FAKE_GO_DONE:-}" ] || echo built >"$FAKE_GO_DONE"
`, 0o755)
	e.vars = []string{
		"PATH=" + e.fakeGo + string(os.PathListSeparator) + "/usr/bin:/bin",
		"HOME=" + filepath.Join(dir, "home"),
		"TMPDIR=" + dir,
		"CLAUDE_PLUGIN_ROOT=" + e.root,
		"CLAUDE_PLUGIN_DATA=" + e.data,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"FAKE_GO_LOG=" + e.goLog,
		"PRIVSCAN_RELEASE_BASE_URL=" + closedURL(t),
	}
	return e
}

func (e *env) set(kv ...string) { e.vars = append(e.vars, kv...) }

func (e *env) command(args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(e.root, "scripts/privscan-launch"), args...)
	cmd.Env = e.vars
	cmd.Dir = e.dir
	return cmd
}

// builds is how many times the fake go built.
func (e *env) builds() int {
	b, _ := os.ReadFile(e.goLog)
	return strings.Count(string(b), "build\n")
}

func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// closedURL is a loopback URL where nothing listens: no network.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// standIn is a privscan stand-in that records each run in marker and
// prints who it is.
func standIn(marker, who string) string {
	return "#!/bin/sh\necho run >>'" + marker + "'\necho '" + who + "'\n"
}

// release is a snapshot release of version for this OS/arch, as
// GoReleaser lays it out: the archive and checksums.txt.
type release struct {
	archive   string
	body      []byte
	checksums string
}

// newRelease makes a release whose archive holds privscan and the
// companions given as name, content pairs (privscan-hook, privscan-mcp).
func newRelease(t *testing.T, arch, privscan string, companions ...string) *release {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	type file struct {
		name string
		data string
	}
	files := []file{{"LICENSE", "MIT\n"}, {"README.md", "readme\n"}, {"privscan", privscan}}
	for i := 0; i+1 < len(companions); i += 2 {
		files = append(files, file{companions[i], companions[i+1]})
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	r := &release{archive: fmt.Sprintf("privscan_%s_%s_%s.tar.gz", version, runtime.GOOS, arch), body: buf.Bytes()}
	sum := sha256.Sum256(r.body)
	r.checksums = hex.EncodeToString(sum[:]) + "  " + r.archive + "\n" +
		strings.Repeat("0", 64) + "  privscan_" + version + "_windows_amd64.zip\n"
	return r
}

// serve serves r on 127.0.0.1, the archive replaced by body when not nil
// (a tampered download).
func (r *release) serve(t *testing.T, body []byte) string {
	t.Helper()
	if body == nil {
		body = r.body
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/v" + version + "/checksums.txt":
			io.WriteString(w, r.checksums)
		case "/v" + version + "/" + r.archive:
			w.Write(body)
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestLauncherRelease runs the launcher against a loopback server that
// serves a snapshot release: a verified archive's binary runs without a
// build; a tampered archive is refused with a clear message and never
// runs; with no network the launcher says so and builds locally.
func TestLauncherRelease(t *testing.T) {
	arch := skipUnlessPOSIX(t)
	dir := t.TempDir()
	releaseRuns := filepath.Join(dir, "release-runs")
	builtRuns := filepath.Join(dir, "built-runs")
	rel := newRelease(t, arch, standIn(releaseRuns, "privscan from the release"))
	built := filepath.Join(dir, "built")
	writeFile(t, built, standIn(builtRuns, "privscan built locally"), 0o755)
	runs := func(marker string) int {
		b, _ := os.ReadFile(marker)
		return strings.Count(string(b), "run\n")
	}
	run := func(e *env) (int, string, string) {
		var stdout, stderr bytes.Buffer
		cmd := e.command("version")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return code, stdout.String(), stderr.String()
	}

	t.Run("verified", func(t *testing.T) {
		e := newEnv(t)
		e.set("PRIVSCAN_RELEASE_BASE_URL="+rel.serve(t, nil), "FAKE_GO_BIN="+built)
		before := runs(releaseRuns)
		code, out, stderr := run(e)
		if code != 0 || out != "privscan from the release\n" {
			t.Fatalf("exit %d, stdout %q\n%s", code, out, stderr)
		}
		if !strings.Contains(stderr, "SHA-256 verified") || e.builds() != 0 || runs(releaseRuns) != before+1 {
			t.Fatalf("builds %d, release runs %d\n%s", e.builds(), runs(releaseRuns)-before, stderr)
		}
		// The next start finds the installed binary: no download, no build.
		e.set("PRIVSCAN_RELEASE_BASE_URL=" + closedURL(t))
		if code, out, stderr := run(e); code != 0 || out != "privscan from the release\n" || stderr != "" || e.builds() != 0 {
			t.Fatalf("second start: exit %d, stdout %q, builds %d\n%s", code, out, e.builds(), stderr)
		}
	})

	t.Run("tampered", func(t *testing.T) {
		e := newEnv(t)
		evil := newRelease(t, arch, standIn(releaseRuns, "privscan, tampered"))
		e.set("PRIVSCAN_RELEASE_BASE_URL="+rel.serve(t, evil.body), "FAKE_GO_BIN="+built)
		before := runs(releaseRuns)
		code, out, stderr := run(e)
		if code != 1 || out != "" {
			t.Fatalf("exit %d, stdout %q\n%s", code, out, stderr)
		}
		for _, want := range []string{"REFUSED: " + rel.archive + " does not match checksums.txt", "does not match its release checksums: refusing to run it"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if runs(releaseRuns) != before || e.builds() != 0 {
			t.Errorf("the tampered binary ran %d times; %d builds", runs(releaseRuns)-before, e.builds())
		}
		if entries, _ := os.ReadDir(filepath.Join(e.data, "bin")); len(entries) != 0 {
			t.Errorf("something was installed: %v", entries)
		}
	})

	t.Run("offline", func(t *testing.T) {
		e := newEnv(t) // PRIVSCAN_RELEASE_BASE_URL: nothing listens there
		e.set("FAKE_GO_BIN=" + built)
		code, out, stderr := run(e)
		if code != 0 || out != "privscan built locally\n" || e.builds() != 1 {
			t.Fatalf("exit %d, stdout %q, builds %d\n%s", code, out, e.builds(), stderr)
		}
		for _, want := range []string{"no checksums.txt for v" + version + " (no release, or offline)", "building privscan " + version} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
	})
}

// TestGateWhilePreparing: while another start holds the preparation lock
// (a download or a build), a commit is blocked with the reason, and a
// command that commits nothing passes without privscan.
func TestGateWhilePreparing(t *testing.T) {
	skipUnlessPOSIX(t)
	e := newEnv(t)
	e.set("FAKE_GO_BIN=/nonexistent")
	lock := filepath.Join(e.data, "build.lock")
	writeFile(t, filepath.Join(lock, "pid"), fmt.Sprintln(os.Getpid()), 0o644)
	hook := func(command string) (int, string) {
		cmd := e.command("hook", "claude-pre-tool-use")
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + command + `"}}`)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return code, stderr.String()
	}
	code, stderr := hook("git commit -m wip")
	if code != 2 || !strings.Contains(stderr, "still being prepared") || !strings.Contains(stderr, "blocking this command") {
		t.Fatalf("commit: exit %d\n%s", code, stderr)
	}
	if code, stderr := hook("ls -la"); code != 0 || stderr != "" {
		t.Fatalf("ls: exit %d\n%s", code, stderr)
	}
	if e.builds() != 0 {
		t.Errorf("%d builds", e.builds())
	}
}

// guardHook runs the guard through the launcher with a Read payload and
// returns the running command and a reader of its stderr.
func guardHook(t *testing.T, e *env) (*exec.Cmd, *bufio.Reader, *bytes.Buffer) {
	t.Helper()
	cmd := e.command("hook", "claude-guard")
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/hostname"}}`)
	pr, pw := io.Pipe()
	var all bytes.Buffer
	cmd.Stderr = io.MultiWriter(pw, &all)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); pw.Close() }()
	return cmd, bufio.NewReader(pr), &all
}

// TestGuardWhilePreparing: on a first start the guard waits a bounded
// time for the binary another start is preparing, then fails closed
// (exit 2) rather than let a Read through unchecked; a binary that
// arrives during the wait decides.
func TestGuardWhilePreparing(t *testing.T) {
	skipUnlessPOSIX(t)
	e := newEnv(t)
	e.set("FAKE_GO_BIN=/nonexistent", "PRIVSCAN_LAUNCH_GUARD_WAIT=1")
	writeFile(t, filepath.Join(e.data, "build.lock", "pid"), fmt.Sprintln(os.Getpid()), 0o644)
	cmd, r, all := guardHook(t, e)
	_, _ = io.Copy(io.Discard, r)
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(all.String(), "still being prepared") || !strings.Contains(all.String(), "guard cannot check") {
		t.Fatalf("exit %d\n%s", code, all.String())
	}

	// The binary arrives while the guard waits: it runs.
	runs := filepath.Join(e.dir, "runs")
	e.set("PRIVSCAN_LAUNCH_GUARD_WAIT=120")
	cmd, r, all = guardHook(t, e)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, "waiting up to 120 s") {
		t.Fatalf("the guard did not wait: %q %v", line, err)
	}
	writeFile(t, filepath.Join(e.data, "bin", "privscan-"+version), standIn(runs, "privscan"), 0o755)
	_, _ = io.Copy(io.Discard, r)
	if code := cmd.ProcessState.ExitCode(); code != 0 || countRuns(runs) != 1 {
		t.Fatalf("exit %d, %d runs\n%s", code, countRuns(runs), all.String())
	}
	if e.builds() != 0 {
		t.Errorf("%d builds", e.builds())
	}
}

// client speaks line-delimited JSON-RPC to a launcher's MCP server.
type client struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	next   int
}

func startMCP(t *testing.T, e *env) *client {
	t.Helper()
	c := &client{t: t, cmd: e.command("mcp")}
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.out = bufio.NewReader(stdout)
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.in.Close()
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
	})
	return c
}

// response is a JSON-RPC response.
type response struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// send writes a message; notify writes a notification.
func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// call sends a request (in the key order Claude Code's SDK uses, the ID
// last) and returns the response to it.
func (c *client) call(method, params string) response {
	c.t.Helper()
	c.next++
	id := c.next
	msg := `{"method":"` + method + `",`
	if params != "" {
		msg += `"params":` + params + `,`
	}
	c.send(msg + `"jsonrpc":"2.0","id":` + fmt.Sprint(id) + `}`)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.cmd.Wait()
			c.t.Fatalf("%s: reading the response: %v\nstderr:\n%s", method, err, c.stderr.String())
		}
		var r response
		if err := json.Unmarshal(line, &r); err != nil {
			c.t.Fatalf("%s: not JSON-RPC: %q", method, line)
		}
		if r.ID == float64(id) {
			return r
		}
		c.t.Fatalf("%s: a response to id %v, want %d: %s", method, r.ID, id, line)
	}
}

// toolCall is a tools/call result reduced to what the tests check.
type toolCall struct {
	isError bool
	code    string // the error body's code
	text    string
}

func (c *client) callTool(name, args string) toolCall {
	c.t.Helper()
	r := c.call("tools/call", `{"name":"`+name+`","arguments":`+args+`}`)
	if r.Error != nil {
		c.t.Fatalf("tools/call %s: JSON-RPC error %+v", name, r.Error)
	}
	var res struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Content) == 0 {
		c.t.Fatalf("tools/call %s: result %s: %v", name, r.Result, err)
	}
	tc := toolCall{isError: res.IsError, text: res.Content[0].Text}
	if tc.isError {
		var body struct{ Code, Message string }
		if err := json.Unmarshal([]byte(tc.text), &body); err != nil {
			c.t.Fatalf("tools/call %s: error body %q is not {code, message}: %v", name, tc.text, err)
		}
		tc.code = body.Code
	}
	return tc
}

const initParams = `{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"launcher-test","version":"1"}}`

// realPrivscan builds privscan of version 1.2.3, and privscan-mcp beside
// it (which "privscan mcp" runs), and returns privscan's path (Go's build
// cache makes this quick after the first time).
func realPrivscan(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds privscan")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "privscan")
	cmd := exec.Command("go", "build", "-ldflags", "-X github.com/privscan/privscan/internal/cli.Version="+version, "-o", dir+string(filepath.Separator), "./cmd/privscan", "./cmd/privscan-mcp")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// mkfifo makes a named pipe: the fake go's gate and its done signal.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMCPFirstStart starts the MCP server through the launcher while the
// binary does not exist and its build (a fake go) is held: initialize,
// tools/list and ping are answered at once (the tools are privscan's real
// schemas), tools/call is a not_ready tool error; once the build is let
// go, the next message hands the session over to the real privscan, which
// answers tools/call and tools/list as the launcher did.
func TestMCPFirstStart(t *testing.T) {
	skipUnlessPOSIX(t)
	privscan := realPrivscan(t)
	e := newEnv(t)
	gate := filepath.Join(e.dir, "gate")
	done := filepath.Join(e.dir, "done")
	mkfifo(t, gate)
	mkfifo(t, done)
	// A synthetic catalog for the real binary's scan.
	catalog := filepath.Join(e.dir, "catalog.md")
	writeFile(t, catalog, "# Test catalog\n\n## PER-001\n- category: person\n- match: identifier\n\n```values\nQuillon Vantablack\n```\n", 0o644)
	e.set("FAKE_GO_BIN="+privscan, "FAKE_GO_MCP_BIN="+filepath.Join(filepath.Dir(privscan), "privscan-mcp"), "FAKE_GO_GATE="+gate, "FAKE_GO_DONE="+done, "PRIVSCAN_CATALOG_FILE="+catalog,
		// Answer not_ready at once (TestMCPCallWaits covers the wait).
		"PRIVSCAN_LAUNCH_GUARD_WAIT=0")

	c := startMCP(t, e)
	start := time.Now()
	// Claude Code first probes the stateless protocol; "method not found"
	// makes it fall back to initialize.
	c.send(`{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	if line, err := c.out.ReadString('\n'); err != nil || line != `{"jsonrpc":"2.0","id":"server-discover-probe-1","error":{"code":-32601,"message":"Method server/discover not found"}}`+"\n" {
		t.Fatalf("server/discover: %q %v", line, err)
	}
	initRes := c.call("initialize", initParams)
	t.Logf("initialize answered in %v", time.Since(start))
	c.send(`{"method":"notifications/initialized","jsonrpc":"2.0"}`)
	if r := c.call("ping", ""); string(r.Result) != "{}" {
		t.Errorf("ping: %s", r.Result)
	}
	listed := c.call("tools/list", `{}`)
	wantTools := snapshotTools(t)
	if got := toolsOf(t, listed.Result); !reflect.DeepEqual(got, wantTools) {
		t.Errorf("tools/list differs from the snapshot (%d tools)", len(got))
	}
	tc := c.callTool("scan_text", `{"text":"Reviewed by Quillon Vantablack","agent_id":"test"}`)
	if !tc.isError || tc.code != "not_ready" || !strings.Contains(tc.text, "retry") {
		t.Fatalf("tools/call while building: %+v", tc)
	}
	if r := c.call("resources/list", `{}`); r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("resources/list: %+v", r)
	}
	// Let the build finish: writing the gate returns once the fake go
	// reads it, which it does after logging the build (the build starts in
	// the background, so it is counted only then). Then wait for the fake
	// go to say it is done; the launcher installs the binary a moment
	// later, so a call may still meet the launcher once.
	if err := os.WriteFile(gate, []byte("go\n"), 0); err != nil {
		t.Fatal(err)
	}
	if e.builds() != 1 {
		t.Fatalf("not one build (builds %d)\n%s", e.builds(), c.stderr.String())
	}
	if _, err := os.ReadFile(done); err != nil {
		t.Fatal(err)
	}
	for tc = c.callTool("scan_text", `{"text":"Reviewed by Quillon Vantablack","agent_id":"test"}`); tc.code == "not_ready"; {
		tc = c.callTool("scan_text", `{"text":"Reviewed by Quillon Vantablack","agent_id":"test"}`)
	}
	if tc.isError || !strings.Contains(tc.text, "catalog/PER-001") || strings.Contains(tc.text, "Quillon") {
		t.Fatalf("tools/call after the build: %+v", tc)
	}
	if got := toolsOf(t, c.call("tools/list", `{}`).Result); !reflect.DeepEqual(got, wantTools) {
		t.Errorf("privscan's tools/list differs from the launcher's (%d tools)", len(got))
	}
	if tc := c.callTool("load_context", `{"key":"no-such-key"}`); tc.code == "not_ready" || !tc.isError {
		t.Errorf("load_context after the handover: %+v", tc)
	}
	if err := c.in.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("the launcher exited: %v\n%s", err, c.stderr.String())
	}
	if !strings.Contains(c.stderr.String(), "handing the session over") {
		t.Errorf("stderr:\n%s", c.stderr.String())
	}

	// The launcher's initialize result is privscan's own.
	direct := exec.Command(privscan, "mcp")
	direct.Env = e.vars
	direct.Stdin = strings.NewReader(`{"method":"initialize","params":` + initParams + `,"jsonrpc":"2.0","id":1}` + "\n")
	out, err := direct.Output()
	if err != nil {
		t.Fatal(err)
	}
	var real response
	if err := json.Unmarshal(out, &real); err != nil {
		t.Fatalf("privscan's initialize: %q", out)
	}
	if !jsonEqual(t, initRes.Result, real.Result) {
		t.Errorf("the launcher's initialize result differs from privscan's:\nlauncher %s\nprivscan %s", initRes.Result, real.Result)
	}
}

// TestMCPCallWaits: on a first start, a tool call that arrives while the
// binary is being prepared waits for it (a bounded time) and is answered
// by privscan, instead of not_ready.
func TestMCPCallWaits(t *testing.T) {
	skipUnlessPOSIX(t)
	privscan := realPrivscan(t)
	e := newEnv(t)
	gate := filepath.Join(e.dir, "gate")
	mkfifo(t, gate)
	catalog := filepath.Join(e.dir, "catalog.md")
	writeFile(t, catalog, "# Test catalog\n\n## PER-001\n- category: person\n- match: identifier\n\n```values\nQuillon Vantablack\n```\n", 0o644)
	e.set("FAKE_GO_BIN="+privscan, "FAKE_GO_MCP_BIN="+filepath.Join(filepath.Dir(privscan), "privscan-mcp"), "FAKE_GO_GATE="+gate,
		"PRIVSCAN_CATALOG_FILE="+catalog, "PRIVSCAN_LAUNCH_GUARD_WAIT=120")
	c := startMCP(t, e)
	c.call("initialize", initParams)
	c.send(`{"method":"notifications/initialized","jsonrpc":"2.0"}`)
	// The build is held at the gate until the call has been sent.
	c.send(`{"method":"tools/call","params":{"name":"scan_text","arguments":{"text":"Reviewed by Quillon Vantablack","agent_id":"test"}},"jsonrpc":"2.0","id":99}`)
	if err := os.WriteFile(gate, []byte("go\n"), 0); err != nil {
		t.Fatal(err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the answer: %v\n%s", err, c.stderr.String())
	}
	if !strings.Contains(line, `"id":99`) || strings.Contains(line, "isError") || strings.Contains(line, "not_ready") ||
		!strings.Contains(line, "catalog/PER-001") || strings.Contains(line, "Quillon") {
		t.Fatalf("a call during the preparation: %s\n%s", line, c.stderr.String())
	}
	if err := c.in.Close(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
}

// TestMCPPrepareFailed: a tampered release is refused in the background,
// and tools/call says so (prepare_failed) instead of not_ready forever.
func TestMCPPrepareFailed(t *testing.T) {
	arch := skipUnlessPOSIX(t)
	e := newEnv(t)
	runs := filepath.Join(e.dir, "runs")
	rel := newRelease(t, arch, standIn(runs, "privscan"))
	evil := newRelease(t, arch, standIn(runs, "privscan, tampered"))
	e.set("PRIVSCAN_RELEASE_BASE_URL="+rel.serve(t, evil.body), "FAKE_GO_BIN=/nonexistent")
	c := startMCP(t, e)
	c.call("initialize", initParams)
	// The download and the refusal take a moment: until then the call is
	// not_ready.
	deadline := time.Now().Add(2 * time.Minute)
	tc := c.callTool("scan_diff", `{}`)
	for tc.code == "not_ready" && time.Now().Before(deadline) {
		tc = c.callTool("scan_diff", `{}`)
	}
	if tc.code != "prepare_failed" || !strings.Contains(tc.text, "refusing to run it") {
		t.Fatalf("%+v\n%s", tc, c.stderr.String())
	}
	if _, err := os.Stat(runs); err == nil || e.builds() != 0 {
		t.Errorf("the tampered binary ran, or a build ran (%d)", e.builds())
	}
	c.in.Close()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, c.stderr.String())
	}
	if entries, _ := filepath.Glob(filepath.Join(e.data, "launch-*")); len(entries) != 0 {
		t.Errorf("state files left behind: %v", entries)
	}
}

// snapshotTools is internal/mcpserver/testdata/tools.json by tool name.
func snapshotTools(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "internal/mcpserver/testdata/tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []any
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) != 6 {
		t.Fatalf("the snapshot lists %d tools", len(tools))
	}
	return byName(tools)
}

// toolsOf is a tools/list result's tools by name (privscan lists them
// sorted, the snapshot in registration order).
func toolsOf(t *testing.T, result json.RawMessage) map[string]any {
	t.Helper()
	var r struct {
		Tools []any `json:"tools"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("tools/list result %s: %v", result, err)
	}
	return byName(r.Tools)
}

func byName(tools []any) map[string]any {
	m := map[string]any{}
	for _, tl := range tools {
		name, _ := tl.(map[string]any)["name"].(string)
		m[name] = tl
	}
	return m
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// hookStandIn is a privscan-hook stand-in: it records its arguments and
// the payload it reads in marker, says who it is on stderr and blocks.
func hookStandIn(marker string) string {
	return "#!/bin/sh\nprintf 'args %s\\n' \"$*\" >>'" + marker + "'\ncat >>'" + marker + "'\necho 'privscan-hook ran' >&2\nexit 2\n"
}

// TestHookBinary: the launcher runs the hooks with privscan-hook when it
// is installed beside privscan (built from source or from a release), with
// the arguments after "hook" and the payload on stdin, and keeps privscan
// for everything else; without privscan-hook, the hooks run privscan.
func TestHookBinary(t *testing.T) {
	arch := skipUnlessPOSIX(t)
	dir := t.TempDir()
	mainRuns, hookLog := filepath.Join(dir, "main-runs"), filepath.Join(dir, "hook-log")
	mainBin, hookBin := filepath.Join(dir, "privscan"), filepath.Join(dir, "privscan-hook")
	writeFile(t, mainBin, standIn(mainRuns, "privscan"), 0o755)
	writeFile(t, hookBin, hookStandIn(hookLog), 0o755)
	edit := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"` + dir + `/a.go"},"tool_use_id":"toolu_9"}`
	hook := func(t *testing.T, e *env) (int, string) {
		t.Helper()
		os.Remove(hookLog)
		var stderr bytes.Buffer
		cmd := e.command("hook", "claude-post-tool-use", "--fail-on", "error")
		cmd.Stdin, cmd.Stderr = strings.NewReader(edit+"\n"), &stderr
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return code, stderr.String()
	}
	check := func(t *testing.T, e *env) {
		t.Helper()
		before := countRuns(mainRuns)
		code, stderr := hook(t, e)
		log, _ := os.ReadFile(hookLog)
		if code != 2 || !strings.Contains(stderr, "privscan-hook ran") || string(log) != "args claude-post-tool-use --fail-on error\n"+edit+"\n" {
			t.Fatalf("hook: exit %d\nstderr %s\nlog %q", code, stderr, log)
		}
		if countRuns(mainRuns) != before {
			t.Fatal("privscan ran for a hook")
		}
		out, err := e.command("version").Output()
		if err != nil || string(out) != "privscan\n" || countRuns(mainRuns) != before+1 {
			t.Fatalf("version: %q %v", out, err)
		}
	}

	t.Run("built", func(t *testing.T) {
		e := newEnv(t)
		e.set("FAKE_GO_BIN="+mainBin, "FAKE_GO_HOOK_BIN="+hookBin, "PRIVSCAN_LAUNCH_FOREGROUND=1")
		if out, err := e.command("--prewarm").CombinedOutput(); err != nil {
			t.Fatalf("prewarm: %v\n%s", err, out)
		}
		for _, name := range []string{"privscan-" + version, "privscan-hook-" + version} {
			if fi, err := os.Stat(filepath.Join(e.data, "bin", name)); err != nil || fi.Mode()&0o100 == 0 {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if e.builds() != 1 {
			t.Fatalf("%d builds, want 1 for both binaries", e.builds())
		}
		if entries, _ := filepath.Glob(filepath.Join(e.data, "bin", ".build.*")); len(entries) != 0 {
			t.Fatalf("leftovers: %v", entries)
		}
		check(t, e)
	})

	t.Run("release", func(t *testing.T) {
		e := newEnv(t)
		rel := newRelease(t, arch, standIn(mainRuns, "privscan"), "privscan-hook", hookStandIn(hookLog))
		e.set("PRIVSCAN_RELEASE_BASE_URL="+rel.serve(t, nil), "FAKE_GO_BIN=/nonexistent")
		if out, err := e.command("version").CombinedOutput(); err != nil {
			t.Fatalf("first start: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(e.data, "bin", "privscan-hook-"+version)); err != nil || e.builds() != 0 {
			t.Fatalf("privscan-hook not installed from the release: %v (builds %d)", err, e.builds())
		}
		check(t, e)
	})

	t.Run("without", func(t *testing.T) {
		e := newEnv(t)
		e.set("FAKE_GO_BIN=" + mainBin) // an older build: privscan alone
		before := countRuns(mainRuns)
		if code, stderr := hook(t, e); code != 0 || countRuns(mainRuns) != before+1 {
			t.Fatalf("exit %d, privscan runs %d\n%s", code, countRuns(mainRuns)-before, stderr)
		}
		if _, err := os.Stat(hookLog); err == nil {
			t.Fatal("privscan-hook ran")
		}
	})
}

// mcpStandIn is a privscan-mcp stand-in: it records its arguments and the
// first line of its stdin in marker, and says who it is on stdout.
func mcpStandIn(marker string) string {
	return "#!/bin/sh\nprintf 'args %s\\n' \"$*\" >>'" + marker + "'\nIFS= read -r line; printf '%s\\n' \"$line\" >>'" + marker + "'\necho 'privscan-mcp ran'\n"
}

// TestMCPBinary: the launcher's mcp mode runs privscan-mcp directly when
// it is installed beside privscan (built from source or from a release),
// with the arguments after "mcp" and the protocol on stdin; without it,
// privscan mcp (an older build, which serves itself).
func TestMCPBinary(t *testing.T) {
	arch := skipUnlessPOSIX(t)
	dir := t.TempDir()
	mainRuns, mcpLog := filepath.Join(dir, "main-runs"), filepath.Join(dir, "mcp-log")
	mainBin, mcpBin := filepath.Join(dir, "privscan"), filepath.Join(dir, "privscan-mcp")
	writeFile(t, mainBin, standIn(mainRuns, "privscan"), 0o755)
	writeFile(t, mcpBin, mcpStandIn(mcpLog), 0o755)
	const msg = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	serve := func(t *testing.T, e *env) (string, error) {
		t.Helper()
		os.Remove(mcpLog)
		cmd := e.command("mcp", "--root", dir)
		cmd.Stdin = strings.NewReader(msg + "\n")
		out, err := cmd.Output()
		return string(out), err
	}
	check := func(t *testing.T, e *env) {
		t.Helper()
		before := countRuns(mainRuns)
		out, err := serve(t, e)
		log, _ := os.ReadFile(mcpLog)
		if err != nil || out != "privscan-mcp ran\n" || string(log) != "args --root "+dir+"\n"+msg+"\n" {
			t.Fatalf("mcp: %v\nstdout %q\nlog %q", err, out, log)
		}
		if countRuns(mainRuns) != before {
			t.Fatal("privscan ran for mcp")
		}
	}

	t.Run("built", func(t *testing.T) {
		e := newEnv(t)
		e.set("FAKE_GO_BIN="+mainBin, "FAKE_GO_MCP_BIN="+mcpBin, "PRIVSCAN_LAUNCH_FOREGROUND=1")
		if out, err := e.command("--prewarm").CombinedOutput(); err != nil {
			t.Fatalf("prewarm: %v\n%s", err, out)
		}
		if fi, err := os.Stat(filepath.Join(e.data, "bin", "privscan-mcp-"+version)); err != nil || fi.Mode()&0o100 == 0 || e.builds() != 1 {
			t.Fatalf("privscan-mcp not built with privscan: %v (builds %d)", err, e.builds())
		}
		check(t, e)
	})

	t.Run("release", func(t *testing.T) {
		e := newEnv(t)
		rel := newRelease(t, arch, standIn(mainRuns, "privscan"), "privscan-mcp", mcpStandIn(mcpLog))
		e.set("PRIVSCAN_RELEASE_BASE_URL="+rel.serve(t, nil), "FAKE_GO_BIN=/nonexistent")
		if out, err := e.command("version").CombinedOutput(); err != nil {
			t.Fatalf("first start: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(e.data, "bin", "privscan-mcp-"+version)); err != nil || e.builds() != 0 {
			t.Fatalf("privscan-mcp not installed from the release: %v (builds %d)", err, e.builds())
		}
		check(t, e)
	})

	t.Run("without", func(t *testing.T) {
		e := newEnv(t)
		e.set("FAKE_GO_BIN="+mainBin, "PRIVSCAN_LAUNCH_FOREGROUND=1") // an older build: privscan alone
		if out, err := e.command("--prewarm").CombinedOutput(); err != nil {
			t.Fatalf("prewarm: %v\n%s", err, out)
		}
		before := countRuns(mainRuns)
		if out, err := serve(t, e); err != nil || out != "privscan\n" || countRuns(mainRuns) != before+1 {
			t.Fatalf("mcp: %v, stdout %q, privscan runs %d", err, out, countRuns(mainRuns)-before)
		}
		if _, err := os.Stat(mcpLog); err == nil {
			t.Fatal("privscan-mcp ran")
		}
	})
}

func countRuns(marker string) int {
	b, _ := os.ReadFile(marker)
	return strings.Count(string(b), "run\n")
}
