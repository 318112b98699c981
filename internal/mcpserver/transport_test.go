package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestStreamableHTTP(t *testing.T) {
	f := newFixture(t)
	stderr := &syncBuffer{}
	srv, err := New(Options{Dir: f.work, Getenv: f.getenv, Stderr: stderr, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, "127.0.0.1:0", func(u string) { urls <- u }) }()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatal(err)
	}

	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != len(ToolNames) {
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = ToolScanText
	req.Params.Arguments = map[string]any{"text": "hi " + canaryName}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("scan_text: %v %v", res, err)
	}
	c.Close()

	post := func(host, origin string) int {
		body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		r, _ := http.NewRequest("POST", url, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			r.Host = host
		}
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("evil.example:80", ""); code != http.StatusForbidden {
		t.Errorf("DNS-rebinding Host: status %d", code)
	}
	if code := post("", "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("foreign Origin: status %d", code)
	}
	if code := post("", "http://localhost:3000"); code == http.StatusForbidden {
		t.Errorf("local Origin refused")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeHTTP: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeHTTP did not stop")
	}
	if _, err := http.Get(url); err == nil {
		t.Fatal("server still listening")
	}
}

func TestStdio(t *testing.T) {
	f := newFixture(t)
	stderr := &syncBuffer{}
	srv, err := New(Options{Dir: f.work, Getenv: f.getenv, Stderr: stderr, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"scan_text","arguments":{"text":"` + canaryName + `"}}}`,
	}, "\n") + "\n"
	// Requests go in; stdin closes only once every reply came out, so a
	// slow machine cannot turn EOF into lost replies.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		served <- err
	}()
	go io.WriteString(inW, in)
	var out strings.Builder
	ids := map[float64]bool{}
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	for !(ids[1] && ids[2] && ids[3]) && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		if id, ok := msg["id"].(float64); ok {
			ids[id] = true
		}
		if strings.Contains(sc.Text(), canaryName) {
			t.Fatal("reply contains the scanned value")
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	for _, id := range []float64{1, 2, 3} {
		if !ids[id] {
			t.Errorf("no reply to request %v; stdout:\n%s", id, out.String())
		}
	}
}
