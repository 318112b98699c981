package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

func bash(cmd string) step {
	return step{tool: "Bash", input: map[string]any{"command": cmd, "description": "scripted step"}}
}

// commitBlocked runs a session whose one Bash call commits a staged or
// unstaged leaky file, and checks that no commit was made and that the
// result names the rule.
func commitBlocked(t *testing.T, prepare func(s *suite, dir string), command string) {
	s := needSuite(t)
	dir := s.project(t)
	writeFile(t, filepath.Join(dir, "notes.txt"), "owner: "+canaryName+"\n")
	if prepare != nil {
		prepare(s, dir)
	}
	before := s.commitCount(t, dir)
	api := s.session(t, dir, []step{bash(command)}, "--dangerously-skip-permissions")
	results, _, _ := api.snapshot()
	if got := s.commitCount(t, dir); got != before {
		t.Fatalf("the commit went through: %d commits, want %d", got, before)
	}
	if !strings.Contains(results[0].Content, "catalog/PER-001") {
		t.Errorf("the blocked command's result does not name catalog/PER-001: %q", redactCanaries(results[0].Content))
	}
}

func TestCommitAddAllBlocked(t *testing.T) {
	commitBlocked(t, nil, `git add -A && git commit -m "add notes"`)
}

func TestCommitAddPathBlocked(t *testing.T) {
	commitBlocked(t, nil, `git add notes.txt && git commit -m "add notes"`)
}

func TestCommitAllFlagBlocked(t *testing.T) {
	commitBlocked(t, func(s *suite, dir string) {
		writeFile(t, filepath.Join(dir, "main.go"), "package main\n\n// owner: "+canaryName+"\n")
	}, `git commit -am "edit main"`)
}

func TestCleanCommitGoesThrough(t *testing.T) {
	s := needSuite(t)
	dir := s.project(t)
	writeFile(t, filepath.Join(dir, "notes.txt"), "owner: Jane Placeholder\n")
	before := s.commitCount(t, dir)
	s.session(t, dir, []step{bash(`git add -A && git commit -m "add notes"`)}, "--dangerously-skip-permissions")
	if got := s.commitCount(t, dir); got != before+1 {
		t.Fatalf("the clean commit was not made: %d commits, want %d", got, before+1)
	}
}
