package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/privscan/privscan/internal/mcpserver"
)

// mcpFixture is a private configuration for the MCP server: a key map
// with a context key and the test catalog, and a repository to scan in the
// working directory.
type mcpFixture struct {
	env  map[string]string
	work string
}

const guideKey = "guide-key-5b1f"

func newMCPFixture(t *testing.T) *mcpFixture {
	t.Helper()
	env := newEnv(t)
	delete(env, "PRIVSCAN_CATALOG")
	cfg := filepath.Join(env["XDG_CONFIG_HOME"], "privscan")
	writeFile(t, filepath.Join(cfg, "catalog.md"), []byte(testCatalog))
	writeFile(t, filepath.Join(cfg, "guide.md"), []byte("# Guide\n\nUse synthetic names.\n"))
	writeFile(t, filepath.Join(cfg, "context-map.toml"), []byte("[keys]\n"+guideKey+" = \"guide.md\"\n[catalogs]\ndefault = \"catalog.md\"\n"))
	work := filepath.Join(t.TempDir(), "work")
	gitRepo(t, work)
	writeFile(t, filepath.Join(work, "a.txt"), []byte("hello\n"))
	commitAll(t, work, "first")
	writeFile(t, filepath.Join(work, "a.txt"), []byte("hello\nowner "+canaryName+"\n"))
	return &mcpFixture{env: env, work: work}
}

// loadCalls are the tools/call params of a mixed load, with what each
// reply must show.
func loadCall(i int) (params string, want string) {
	switch i % 5 {
	case 0:
		return `{"name":"scan_text","arguments":{"text":"call ` + canaryName + ` about ` + canaryID + `","agent_id":"load"}}`, `"findings":2`
	case 1:
		return `{"name":"redact_text","arguments":{"text":"host ` + canaryHost + ` ok"}}`, `[internal-host:1]`
	case 2:
		return `{"name":"load_context","arguments":{"key":"` + guideKey + `"}}`, `synthetic names`
	case 3:
		return `{"name":"scan_diff","arguments":{}}`, `"findings":1`
	}
	return `{"name":"load_context","arguments":{"key":"no-such-key"}}`, `unknown_key`
}

// hostileMessages are malformed JSON-RPC messages; each must get an error
// response (or none, for a notification), never a crash.
var hostileMessages = []string{
	"\x00\xff\xfe garbage",
	"{",
	`[]`,
	`[1,2,3]`,
	`"just a string"`,
	`{"jsonrpc":"2.0","id":901}`,
	`{"jsonrpc":"2.0","id":902,"method":7}`,
	`{"jsonrpc":"2.0","id":903,"method":"no/such/method"}`,
	`{"jsonrpc":"2.0","id":904,"method":"tools/call","params":"not an object"}`,
	`{"jsonrpc":"2.0","id":905,"method":"tools/call","params":{"name":7}}`,
	`{"jsonrpc":"2.0","id":906,"method":"tools/call","params":{"name":"scan_text","arguments":{"text":["` + canaryName + `"]}}}`,
	`{"jsonrpc":"2.0","id":907,"method":"tools/call","params":{"name":"scan_text","arguments":"` + canaryName + `"}}`,
	`{"jsonrpc":"2.0","id":908,"method":"tools/call","params":{"name":"scan_diff","arguments":{"repo":"/","base":"--output=/tmp/x"}}}`,
	`{"jsonrpc":"2.0","id":909,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":{"nested":true},"method":"ping"}`,
	`{"jsonrpc":"1.0","id":910,"method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/unknown"}`,
}

// bigArgument is a tools/call with a 10 MiB text: over every cap. Under
// -race, decoding it takes ~20 s, so it is 3 MiB there (still over the
// 1 MiB cap) unless PRIVSCAN_HOSTILE_BIG is set.
func bigArgument(id int) string {
	size := 10 << 20
	if raceEnabled && !big() {
		size = 3 << 20
	}
	return `{"jsonrpc":"2.0","id":` + fmt.Sprint(id) + `,"method":"tools/call","params":{"name":"scan_text","arguments":{"text":"` +
		strings.Repeat(canaryName+" ", size/(len(canaryName)+1)) + `"}}}`
}

// stdioClient speaks newline-delimited JSON-RPC to a server.
type stdioClient struct {
	w       io.Writer
	wmu     sync.Mutex
	mu      sync.Mutex
	pending map[string]chan json.RawMessage
	other   chan json.RawMessage // responses with a null or unknown id
	all     bytes.Buffer         // every byte the server wrote
	done    chan struct{}
}

func newStdioClient(w io.Writer, r io.Reader) *stdioClient {
	c := &stdioClient{w: w, pending: map[string]chan json.RawMessage{}, other: make(chan json.RawMessage, 1000), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		br := bufio.NewReaderSize(r, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				c.mu.Lock()
				c.all.Write(line)
				c.mu.Unlock()
				var msg struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal(line, &msg)
				c.mu.Lock()
				ch, ok := c.pending[string(msg.ID)]
				delete(c.pending, string(msg.ID))
				c.mu.Unlock()
				if ok {
					ch <- json.RawMessage(line)
				} else {
					select {
					case c.other <- json.RawMessage(line):
					default:
					}
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *stdioClient) send(msg string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := io.WriteString(c.w, msg+"\n")
	return err
}

// call sends a request with a numeric id and waits for its response.
func (c *stdioClient) call(t *testing.T, id int, method, params string) json.RawMessage {
	t.Helper()
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.pending[fmt.Sprint(id)] = ch
	c.mu.Unlock()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, id, method)
	if params != "" {
		msg += `,"params":` + params
	}
	if err := c.send(msg + "}"); err != nil {
		t.Errorf("send %d: %v", id, err)
		return nil
	}
	select {
	case r := <-ch:
		return r
	case <-time.After(2 * time.Minute):
		t.Errorf("no response to request %d (%s)", id, method)
		return nil
	}
}

func (c *stdioClient) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all.String()
}

const initParams = `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}`

// exercise runs the load against a connected client: initialize, 100
// concurrent mixed calls, the malformed messages and the 10 MiB argument,
// each followed by a ping that must still be answered.
func exercise(t *testing.T, call func(id int, method, params string) json.RawMessage, sendRaw func(string) error) {
	t.Helper()
	if r := call(1, "initialize", initParams); !bytes.Contains(r, []byte(`"serverInfo"`)) {
		t.Fatalf("initialize: %s", r)
	}
	if err := sendRaw(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	phase := time.Now()
	defer func() { t.Logf("load phases done in %s", time.Since(phase).Round(time.Millisecond)) }()
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			params, want := loadCall(i)
			r := call(100+i, "tools/call", params)
			if !bytes.Contains(r, []byte(want)) && !bytes.Contains(r, []byte(strings.ReplaceAll(want, `"`, `\"`))) {
				t.Errorf("call %d: reply lacks %s: %.300s", i, want, r)
			}
		}(i)
	}
	wg.Wait()
	t.Logf("100 concurrent calls: %s", time.Since(phase).Round(time.Millisecond))
	for i, m := range hostileMessages {
		if err := sendRaw(m); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if r := call(2000+i, "ping", ""); !bytes.Contains(r, []byte(`"result"`)) {
			t.Fatalf("no ping reply after malformed message %d: %s", i, r)
		}
	}
	t.Logf("malformed messages: %s", time.Since(phase).Round(time.Millisecond))
	if r := call(3000, "tools/call", `{"name":"scan_text","arguments":{"text":"`+strings.Repeat("y", 1<<20+1)+`"}}`); !bytes.Contains(r, []byte("input_too_large")) {
		t.Errorf("text one byte over the cap: %.300s", r)
	}
	t.Logf("text over the cap: %s", time.Since(phase).Round(time.Millisecond))
	_ = sendRaw(bigArgument(3001))
	if r := call(3002, "ping", ""); !bytes.Contains(r, []byte(`"result"`)) {
		t.Fatalf("no ping reply after a 10 MiB argument: %s", r)
	}
}

// settleGoroutines waits for the goroutine count to fall to at most n.
func settleGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		runtime.GC()
		got := runtime.NumGoroutine()
		if got <= n {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, %d before: leak\n%s", got, n, buf)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func newServer(t *testing.T, fx *mcpFixture, stderr io.Writer) *mcpserver.Server {
	t.Helper()
	srv, err := mcpserver.New(mcpserver.Options{Dir: fx.work, Getenv: func(k string) string { return fx.env[k] }, Stderr: stderr, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestMCPStdioLoad: the in-process server over stdio pipes.
func TestMCPStdioLoad(t *testing.T) {
	fx := newMCPFixture(t)
	before := runtime.NumGoroutine()
	var stderr syncBuffer
	srv := newServer(t, fx, &stderr)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	c := newStdioClient(inW, outR)
	exercise(t, func(id int, m, p string) json.RawMessage { return c.call(t, id, m, p) }, c.send)

	// A client that disconnects with calls in flight.
	for i := 0; i < 10; i++ {
		params, _ := loadCall(i)
		_ = c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, 5000+i, params))
	}
	inW.Close()
	outR.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Logf("ServeStdio after disconnect: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ServeStdio did not return after the client disconnected")
	}
	<-c.done
	t.Logf("disconnected")
	noLeak(t, "stdout", c.output())
	noLeak(t, "stderr", stderr.String())
	settleGoroutines(t, before)
}

// httpClient speaks Streamable HTTP to a server, one POST per message.
type httpClient struct {
	url     string
	session string
	hc      *http.Client
	mu      sync.Mutex
	all     bytes.Buffer
}

func (c *httpClient) post(ctx context.Context, body string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" && c.session == "" {
		c.session = s
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	c.mu.Lock()
	c.all.Write(b)
	c.mu.Unlock()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var data []byte
		for _, l := range bytes.Split(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
				data = append(data, d...)
			}
		}
		b = data
	}
	return resp.StatusCode, b, err
}

func (c *httpClient) call(t *testing.T, id int, method, params string) json.RawMessage {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, id, method)
	if params != "" {
		msg += `,"params":` + params
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, b, err := c.post(ctx, msg+"}")
	if err != nil {
		t.Errorf("request %d: %v", id, err)
	}
	return b
}

// TestMCPHTTPLoad: the in-process server over Streamable HTTP, with
// clients that send garbage, oversized bodies, and disconnect mid-call.
func TestMCPHTTPLoad(t *testing.T) {
	fx := newMCPFixture(t)
	before := runtime.NumGoroutine()
	var stderr syncBuffer
	srv := newServer(t, fx, &stderr)
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- srv.ServeHTTP(ctx, "127.0.0.1:0", func(u string) { urls <- u }) }()
	var url string
	select {
	case url = <-urls:
	case err := <-served:
		t.Fatal(err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 100}
	c := &httpClient{url: url, hc: &http.Client{Transport: tr}}
	exercise(t, func(id int, m, p string) json.RawMessage { return c.call(t, id, m, p) },
		func(m string) error {
			code, _, err := c.post(context.Background(), m)
			if err == nil && code >= 500 {
				return fmt.Errorf("status %d", code)
			}
			return err
		})

	// Clients that disconnect mid-call: cancelled requests, and a raw
	// connection that sends half a body and hangs up.
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			rctx, rcancel := context.WithTimeout(context.Background(), time.Duration(i)*time.Millisecond)
			defer rcancel()
			params, _ := loadCall(i)
			_, _, _ = c.post(rctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, 6000+i, params))
		}(i)
	}
	wg.Wait()
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/mcp"), "http://")
	for i := 0; i < 5; i++ {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,", host, c.session)
		conn.Close()
	}
	if r := c.call(t, 7000, "ping", ""); !bytes.Contains(r, []byte(`"result"`)) {
		t.Fatalf("no ping reply after disconnecting clients: %s", r)
	}

	tr.CloseIdleConnections()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("ServeHTTP: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ServeHTTP did not return after cancel")
	}
	noLeak(t, "replies", c.all.String())
	noLeak(t, "stderr", stderr.String())
	settleGoroutines(t, before)
}

// TestMCPProcessMemory: privscan mcp as a process (this test binary
// re-executed) under the stdio load; its peak RSS is logged and bounded.
func TestMCPProcessMemory(t *testing.T) {
	fx := newMCPFixture(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := newStdioClient(inW, outR)
	var res childResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		res = runChild(t, fx.work, fx.env, inR, outW, 10*time.Minute, "mcp")
		outW.Close()
		inR.Close()
	}()
	exercise(t, func(id int, m, p string) json.RawMessage { return c.call(t, id, m, p) }, c.send)
	inW.Close()
	<-done
	noLeak(t, "stdout", c.output())
	noLeak(t, "stderr", res.stderr)
	t.Logf("privscan mcp (stdio), 100 concurrent calls, malformed messages, a 10 MiB argument: peak RSS %d MiB", res.maxRSS>>20)
	if res.maxRSS > 1<<30 {
		t.Fatalf("peak RSS %d MiB", res.maxRSS>>20)
	}

	// The same load over HTTP.
	env := map[string]string{}
	for k, v := range fx.env {
		env[k] = v
	}
	stderrR, stderrW := io.Pipe()
	procs := make(chan *os.Process, 1)
	hdone := make(chan childResult, 1)
	go func() {
		hdone <- startChild(t, fx.work, env, nil, nil, stderrW, 10*time.Minute, func(c *exec.Cmd) { procs <- c.Process }, "mcp", "--http", "127.0.0.1:0")
		stderrW.Close()
	}()
	proc := <-procs
	br := bufio.NewReader(stderrR)
	var url string
	for url == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("no listening line from privscan mcp --http")
		}
		if i := strings.Index(line, "listening on "); i >= 0 {
			url = strings.TrimSpace(line[i+len("listening on "):])
		}
	}
	go io.Copy(io.Discard, br)
	hc := &httpClient{url: url, hc: &http.Client{}}
	exercise(t, func(id int, m, p string) json.RawMessage { return hc.call(t, id, m, p) },
		func(m string) error { _, _, err := hc.post(context.Background(), m); return err })
	noLeak(t, "replies", hc.all.String())
	if err := proc.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	hres := <-hdone
	if hres.code != 0 {
		t.Errorf("privscan mcp --http exited with %d after an interrupt", hres.code)
	}
	t.Logf("privscan mcp --http, the same load: peak RSS %d MiB", hres.maxRSS>>20)
	if hres.maxRSS > 1<<30 {
		t.Fatalf("peak RSS %d MiB", hres.maxRSS>>20)
	}
}

// syncBuffer is a goroutine-safe buffer.
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
