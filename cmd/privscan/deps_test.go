package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStartupDeps: the privscan binary links neither the MCP server
// (privscan-mcp serves it) nor a JSON Schema library (the SARIF validator
// is for tests and CI): each adds milliseconds of package initialisation
// to every command, the commit hook's included.
func TestStartupDeps(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/santhosh-tekuri/jsonschema", "github.com/mark3labs/mcp-go/server", "github.com/privscan/privscan/internal/sarifcheck"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("privscan links %s", dep)
			}
		}
	}
}
