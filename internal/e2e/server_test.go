package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// step is one model turn: the tool call the scripted model makes once the
// previous call's result has arrived.
type step struct {
	tool  string         // tool name, e.g. "Bash"
	input map[string]any // tool input
}

// apiServer is a scripted Messages API: the main conversation (the request
// that offers tools) gets the script's tool calls one by one, then a final
// text; any other request (titles, summaries) gets a short text.
type apiServer struct {
	t      *testing.T
	script []step
	url    string
	logDir string

	mu      sync.Mutex
	bodies  [][]byte
	results []toolResult // tool results the main conversation sent back, in order
	unknown []string     // request shapes this suite does not know
}

type toolResult struct {
	ID      string
	Content string
	IsError bool
}

func newAPIServer(t *testing.T, script []step) *apiServer {
	t.Helper()
	s := &apiServer{t: t, script: script, logDir: t.TempDir()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: s}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	s.url = "http://" + ln.Addr().String()
	return s
}

type apiRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type block struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (s *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	_ = os.WriteFile(filepath.Join(s.logDir, fmt.Sprintf("req-%03d.json", n)), body, 0o600)

	if r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens" {
		// Read asks how many tokens a file's content is before it returns
		// it: about four bytes a token, as the real API counts English.
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		s.unknownShape(fmt.Sprintf("%s %s", r.Method, r.URL.Path))
		http.NotFound(w, r)
		return
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.unknownShape("a /v1/messages body that is not JSON")
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if !req.Stream {
		s.unknownShape("a non-streamed /v1/messages request")
		http.Error(w, "stream only", http.StatusBadRequest)
		return
	}
	if !offers(req, "Bash") && offers(req, scanDiffTool) {
		s.subagent(w, req)
		return
	}
	if !offers(req, "Bash") {
		// A side request (title, summary, classifier): answer briefly.
		writeSSE(w, req.Model, "", nil, "end_turn", "ok")
		return
	}
	done := 0
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		var blocks []block
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string turn
		}
		for _, b := range blocks {
			if b.Type != "tool_result" || !strings.HasPrefix(b.ToolUseID, "toolu_e2e_") {
				continue
			}
			done++
			s.recordResult(b)
		}
	}
	if done < len(s.script) {
		st := s.script[done]
		if !offers(req, st.tool) {
			s.unknownShape(fmt.Sprintf("the main conversation no longer offers the tool %q", st.tool))
		}
		writeSSE(w, req.Model, fmt.Sprintf("toolu_e2e_%02d", done), &st, "tool_use", "")
		return
	}
	writeSSE(w, req.Model, "", nil, "end_turn", "E2E-DONE")
}

func offers(req apiRequest, tool string) bool {
	for _, t := range req.Tools {
		if t.Name == tool {
			return true
		}
	}
	return false
}

func (s *apiServer) recordResult(b block) {
	var text string
	if json.Unmarshal(b.Content, &text) != nil {
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(b.Content, &parts)
		for _, p := range parts {
			text += p.Text
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.results {
		if r.ID == b.ToolUseID {
			return
		}
	}
	s.results = append(s.results, toolResult{ID: b.ToolUseID, Content: text, IsError: b.IsError})
}

func (s *apiServer) unknownShape(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unknown = append(s.unknown, what)
}

// snapshot returns the tool results, the request bodies and the unknown
// request shapes seen so far.
func (s *apiServer) snapshot() ([]toolResult, [][]byte, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]toolResult(nil), s.results...), append([][]byte(nil), s.bodies...), append([]string(nil), s.unknown...)
}

// writeSSE streams one assistant message: a tool_use block (when st is not
// nil) or a text block.
func writeSSE(w http.ResponseWriter, model, id string, st *step, stop, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	ev := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_e2e", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
	}})
	if st != nil {
		in, _ := json.Marshal(st.input)
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": id, "name": st.tool, "input": map[string]any{}}})
		// Two deltas, as the real API splits the JSON.
		half := len(in) / 2
		for _, part := range []string{string(in[:half]), string(in[half:])} {
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
	} else {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text}})
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

const scanDiffTool = "mcp__plugin_privscan_privscan__scan_diff"

// subagent scripts the privacy-scanner: one scan_diff call, then a report
// that is the tool's reply.
func (s *apiServer) subagent(w http.ResponseWriter, req apiRequest) {
	for _, m := range req.Messages {
		var blocks []block
		if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.ToolUseID == "toolu_sub_00" {
				var text string
				if json.Unmarshal(b.Content, &text) != nil {
					var parts []struct {
						Text string `json:"text"`
					}
					_ = json.Unmarshal(b.Content, &parts)
					for _, p := range parts {
						text += p.Text
					}
				}
				writeSSE(w, req.Model, "", nil, "end_turn", "REPORT "+text)
				return
			}
		}
	}
	writeSSE(w, req.Model, "toolu_sub_00", &step{tool: scanDiffTool, input: map[string]any{
		"agent_id": "privacy-scanner", "catalog_key": "default"}}, "tool_use", "")
}
