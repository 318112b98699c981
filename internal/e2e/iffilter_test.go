package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ifProbes are spellings of gated commands (and two that gate nothing)
// given to a probe plugin whose PreToolUse handlers carry Claude Code's
// `if` filter, with which handlers Claude Code 2.1.329 started for each
// (the handler without `if` always runs). docs/design/hook-if-filter.md
// explains why hooks/hooks.json does not use `if`: Bash(git *) misses
// spellings the PreToolUse parser gates, and one handler has one `if`.
var ifProbes = []struct {
	cmd                    string
	git, gh, anyGit, anyGh bool // Bash(git *), Bash(gh *), Bash(*git*), Bash(*gh *)
}{
	{"git commit -m probe", true, false, true, false},
	{"cd sub && git commit -m probe", true, false, true, false},
	{"git -C sub commit -m probe", true, false, true, false},
	{"FOO=1 git commit -m probe", true, false, true, false},
	{"(cd sub && git commit -m probe)", true, false, true, false},
	{"if git commit -m probe; then :; fi", true, false, true, false},
	{"true; git commit -m probe", true, false, true, false},
	{"echo a\ngit commit -m probe", true, false, true, false},
	{"bash -c 'git commit -m probe'", false, false, true, false},
	{"sh -c \"git commit -m probe\"", false, false, true, false},
	{"env git commit -m probe", false, false, true, false},
	{"command git commit -m probe", false, false, true, false},
	{"/usr/bin/git commit -m probe", false, false, true, false},
	{"nice git commit -m probe", false, false, true, false},
	{"time git commit -m probe", false, false, true, false},
	{"timeout 5 git commit -m probe", false, false, true, false},
	{"nohup git commit -m probe", false, false, true, false},
	// The command inside a substitution is matched too (and, oddly, so is
	// Bash(*gh *)).
	{"echo \"$(git commit -m probe)\"", true, false, true, true},
	{"git add -A && gh pr create --title probe --body probe", true, true, true, true},
	{"ls -la", false, false, false, false},
	{"echo commit", false, false, false, false},
}

// TestHookIfFilter records which Bash commands start a hook handler with
// an `if` filter, against one without, and fails when that changes.
func TestHookIfFilter(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	plugin := t.TempDir()
	logDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(plugin, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(plugin, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(plugin, ".claude-plugin", "plugin.json"), `{"name":"ifprobe","version":"0.0.1","description":"probe"}`)
	writeFile(t, filepath.Join(plugin, "log.sh"), "#!/bin/sh\ncat > \"$(mktemp '"+logDir+"'/\"$1\".XXXXXX)\"\n")
	handler := func(label, cond string) map[string]any {
		h := map[string]any{"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/log.sh\" " + label}
		if cond != "" {
			h["if"] = cond
		}
		return h
	}
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash",
		"hooks": []any{handler("git", "Bash(git *)"), handler("gh", "Bash(gh *)"), handler("all", ""),
			handler("anygit", "Bash(*git*)"), handler("anygh", "Bash(*gh *)")},
	}}}})
	writeFile(t, filepath.Join(plugin, "hooks", "hooks.json"), string(hooks))

	var script []step
	for _, p := range ifProbes {
		script = append(script, bash(p.cmd))
	}
	probe := &suite{claude: s.claude, root: plugin, home: s.home, goEnv: s.goEnv}
	probe.session(t, dir, script, "--dangerously-skip-permissions")

	files, err := os.ReadDir(logDir)
	if err != nil || len(files) == 0 {
		t.Fatalf("no handler ran: %v", err)
	}
	hits := map[string]map[string]bool{}
	for _, f := range files {
		label, _, _ := strings.Cut(f.Name(), ".")
		data, err := os.ReadFile(filepath.Join(logDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			t.Errorf("payload not JSON: %v", err)
			continue
		}
		cmd := p.ToolInput.Command
		if hits[cmd] == nil {
			hits[cmd] = map[string]bool{}
		}
		hits[cmd][label] = true
	}
	for _, p := range ifProbes {
		h := hits[p.cmd]
		t.Logf("all=%-5v git=%-5v gh=%-5v anygit=%-5v anygh=%-5v %q", h["all"], h["git"], h["gh"], h["anygit"], h["anygh"], p.cmd)
		if !h["all"] {
			t.Errorf("the handler without `if` did not run for %q", p.cmd)
		}
		if h["git"] != p.git || h["gh"] != p.gh || h["anygit"] != p.anyGit || h["anygh"] != p.anyGh {
			t.Errorf("Claude Code's `if` filter changed for %q: Bash(git *)=%v Bash(gh *)=%v Bash(*git*)=%v Bash(*gh *)=%v, was %v %v %v %v; revisit docs/design/hook-if-filter.md and hooks/hooks.json",
				p.cmd, h["git"], h["gh"], h["anygit"], h["anygh"], p.git, p.gh, p.anyGit, p.anyGh)
		}
	}
}
