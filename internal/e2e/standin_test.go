package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// standinEnv names the file where the stand-in MCP server records every
// tools/call it receives; when it is set, the test binary is that server
// (see TestMain).
const standinEnv = "PRIVSCAN_E2E_STANDIN"

// standinTool is the stand-in's one tool, as Claude Code names it when the
// server is registered as "standin".
const standinTool = "mcp__standin__post_message"

// serveStandin is a minimal MCP server on stdio (line-delimited JSON-RPC),
// a stand-in for a chat or ticket-tracker server: a door out of the
// machine. It appends the arguments of every tools/call to record.
func serveStandin(in io.Reader, out io.Writer, record string) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
			continue // a notification
		}
		var result any
		switch msg.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			result = map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "standin", "version": "1.0.0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{
				"name": "post_message", "description": "Posts a message to a team channel.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"channel": map[string]any{"type": "string"}, "text": map[string]any{"type": "string"}}, "required": []string{"text"}},
			}}}
		case "tools/call":
			f, err := os.OpenFile(record, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err == nil {
				fmt.Fprintf(f, "%s\n", msg.Params)
				f.Close()
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "posted"}}}
		case "ping":
			result = map[string]any{}
		default:
			if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}}); err != nil {
				return err
			}
			continue
		}
		if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result}); err != nil {
			return err
		}
	}
	return sc.Err()
}
