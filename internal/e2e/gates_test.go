package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// anyBodyNames reports whether a request the session sent names the rule
// (hook feedback reaches the model in the tool result or beside it).
func anyBodyNames(api *apiServer, rule string) bool {
	_, bodies, _ := api.snapshot()
	for _, b := range bodies {
		if strings.Contains(string(b), rule) {
			return true
		}
	}
	return false
}

func TestLeakyWriteGetsFeedback(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	path := filepath.Join(dir, "owners.txt")
	api := s.session(t, dir, []step{{tool: "Write", input: map[string]any{
		"file_path": path, "content": "owner: " + canaryName + "\n"}}}, "--dangerously-skip-permissions")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the Write did not happen: %v", err)
	}
	if !anyBodyNames(api, "catalog/PER-001") {
		t.Errorf("no request after the leaky Write names catalog/PER-001; bodies in %s", api.logDir)
	}
}

func TestScriptCommitCaughtByPostToolUse(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	writeFile(t, filepath.Join(dir, "notes.txt"), "owner: "+canaryName+"\n")
	writeFile(t, filepath.Join(dir, "ship.sh"), "#!/bin/sh\ngit add notes.txt\ngit commit -qm notes\n")
	// The launcher records HEAD under the command's tool_use_id before it
	// runs (the command gates nothing, so privscan does not start);
	// PostToolUse compares and scans the commit the script made.
	api := s.session(t, dir, []step{bash("sh ship.sh")}, "--dangerously-skip-permissions")
	if got := s.commitCount(t, dir); got != 2 {
		t.Fatalf("the script did not commit (%d commits): the net had nothing to catch", got)
	}
	if !anyBodyNames(api, "catalog/PER-001") {
		t.Errorf("no request after the committing script names catalog/PER-001; bodies in %s", api.logDir)
	}
}

func TestPushOfLeakyCommitBlocked(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	s.git(t, dir, "init", "-q", "--bare", bare)
	s.git(t, dir, "remote", "add", "origin", bare)
	s.git(t, dir, "push", "-q", "origin", "main")
	writeFile(t, filepath.Join(dir, "notes.txt"), "owner: "+canaryName+"\n")
	s.git(t, dir, "add", "notes.txt")
	s.git(t, dir, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "notes", "--no-verify")
	remoteBefore := s.git(t, bare, "rev-parse", "main")
	api := s.session(t, dir, []step{bash("git push origin main")}, "--dangerously-skip-permissions")
	if got := s.git(t, bare, "rev-parse", "main"); got != remoteBefore {
		t.Fatalf("the leaky commit reached the bare remote")
	}
	if !anyBodyNames(api, "catalog/PER-001") {
		t.Errorf("the blocked push's feedback does not name catalog/PER-001; bodies in %s", api.logDir)
	}
}

func TestGhPRCreateBlocked(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	bin := t.TempDir()
	ran := filepath.Join(t.TempDir(), "gh-ran")
	writeFile(t, filepath.Join(bin, "gh"), "#!/bin/sh\ntouch '"+ran+"'\n")
	if err := os.Chmod(filepath.Join(bin, "gh"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	api := s.session(t, dir, []step{bash(`gh pr create --title "Fix for ` + canaryName + `" --body x`)}, "--dangerously-skip-permissions")
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("the fake gh ran: the PR text was not blocked")
	}
	if !anyBodyNames(api, "catalog/PER-001") {
		t.Errorf("the blocked gh's feedback does not name catalog/PER-001; bodies in %s", api.logDir)
	}
}

func TestReadOfCatalogDenied(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{
		"allow": []string{"mcp__plugin_privscan_privscan__*"},
		"deny":  []string{"Read(~/.config/privscan/**)", "Bash(cat ~/.config/privscan/*)"},
	}})
	api := s.session(t, dir, []step{{tool: "Read", input: map[string]any{
		"file_path": filepath.Join(s.configDir(), "privscan", "catalog.md")}}},
		// Bypass mode approves everything else, so only the deny rule can refuse.
		"--dangerously-skip-permissions", "--settings", string(settings))
	results, _, _ := api.snapshot()
	if !results[0].IsError {
		t.Errorf("the Read of the catalog was not refused: %q", redactCanaries(results[0].Content))
	}
}
