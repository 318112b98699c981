package cli

import (
	"path/filepath"
	"testing"
)

func TestMCPBeside(t *testing.T) {
	dir := filepath.Join("opt", "bin")
	for self, want := range map[string]string{
		"privscan":        "privscan-mcp",
		"privscan.exe":    "privscan-mcp.exe",
		"privscan-1.2.3":  "privscan-mcp-1.2.3",
		"privscan-v0.9.0": "privscan-mcp-v0.9.0",
		"privscanner":     "",
		"cli.test":        "",
		"privscan-mcp":    "privscan-mcp-mcp",
		"my-privscan":     "",
		"privscan-hook-1": "privscan-mcp-hook-1",
		"PRIVSCAN":        "",
	} {
		got := mcpBeside(filepath.Join(dir, self))
		if want != "" {
			want = filepath.Join(dir, want)
		}
		if got != want {
			t.Errorf("mcpBeside(%q) = %q, want %q", self, got, want)
		}
	}
}
