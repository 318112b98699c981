package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	if m := median([]float64{1, 2, 9}); m != 2 {
		t.Errorf("odd: %v", m)
	}
	if m := median([]float64{1, 2, 4, 9}); m != 3 {
		t.Errorf("even: %v", m)
	}
}

func TestPayload(t *testing.T) {
	var p map[string]any
	if err := json.Unmarshal(payload("PostToolUse", "Edit", "/r", map[string]any{"file_path": "/r/a.go"}, "toolu_x"), &p); err != nil {
		t.Fatal(err)
	}
	if p["hook_event_name"] != "PostToolUse" || p["tool_use_id"] != "toolu_x" || p["tool_response"] == nil {
		t.Errorf("payload: %v", p)
	}
}

func TestLayout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	env := baseEnv(dir, filepath.Join(dir, "catalog.md"))
	repo, err := layout(dir, env)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(repo, "pkg", "big.go"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n < 195 || n > 205 {
		t.Errorf("big.go has %d lines, want about 200", n)
	}
	cmd := exec.Command("git", "rev-list", "--count", "origin/main..main")
	cmd.Dir, cmd.Env = repo, env
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "3" {
		t.Errorf("commits ahead of the remote: %q, %v", out, err)
	}
	cmd = exec.Command("git", "status", "--porcelain")
	cmd.Dir, cmd.Env = repo, env
	out, _ = cmd.Output()
	for _, want := range []string{" M pkg/big.go", "?? pkg/new0.go", "?? docs/"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("git status lacks %q:\n%s", want, out)
		}
	}
}
