package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The parent delegates a scan to the plugin's privacy-scanner subagent;
// README's allow rule lets the MCP call run without a prompt, and the rule
// ID and location reach the parent.
func TestSubagentScanThroughAllowRule(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	writeFile(t, filepath.Join(dir, "notes.txt"), "owner: "+canaryName+"\n")
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{
		"allow": []string{"mcp__plugin_privscan_privscan__*"},
		"deny":  []string{"Read(~/.config/privscan/**)", "Bash(cat ~/.config/privscan/*)"},
	}})
	// Loading a deferred MCP tool first waits for the plugin's server to
	// connect; an Agent spawned before that gets no tools.
	api := s.session(t, dir, []step{{tool: "ToolSearch", input: map[string]any{"query": "select:" + scanDiffTool, "max_results": 1}}, {tool: "Agent", input: map[string]any{
		"subagent_type": "privscan:privacy-scanner", "description": "privacy scan",
		"prompt": "Scan the uncommitted work in " + dir, "run_in_background": false}}}, "--settings", string(settings))
	results, _, _ := api.snapshot()
	r := results[1].Content
	if !strings.Contains(r, "catalog/PER-001") || !strings.Contains(r, "notes.txt") {
		t.Errorf("the subagent's report does not reach the parent with the rule ID and location: %q", redactCanaries(r))
	}
}
