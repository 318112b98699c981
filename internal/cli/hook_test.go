package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/privscan/privscan/internal/claudehook"
	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/mcpcmd"
)

const (
	hookCanary = "Zorblax Quintavius"
	hookHost   = "vault-7.canaryzone.internal"
)

var hookCatalog = "## PER-001\n- category: person\n- description: Customer names\n- match: identifier\n\n```values\n" + hookCanary + "\n```\n\n" +
	"## HOST\n- category: internal-host\n- severity: warning\n\n```values\n" + hookHost + "\n```\n"

// hookRepo is a repository with one commit and a catalog file outside it.
type hookRepo struct {
	dir, catalog string
	env          map[string]string
}

func newHookRepo(t testing.TB) *hookRepo {
	t.Helper()
	root := t.TempDir()
	r := &hookRepo{dir: filepath.Join(root, "repo"), catalog: filepath.Join(root, "catalog.md")}
	if err := os.WriteFile(r.catalog, []byte(hookCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	r.env = map[string]string{"HOME": filepath.Join(root, "home"), "PRIVSCAN_CATALOG_FILE": r.catalog}
	os.MkdirAll(r.dir, 0o700)
	r.git(t, "init", "-q", "-b", "main")
	r.write(t, "main.go", "package main\n")
	r.git(t, "add", ".")
	r.git(t, "commit", "-qm", "init")
	return r
}

func (r *hookRepo) git(t testing.TB, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (r *hookRepo) write(t testing.TB, name, content string) {
	t.Helper()
	p := filepath.Join(r.dir, name)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func payload(cwd, tool, command string) string {
	b, _ := json.Marshal(map[string]any{
		"session_id": "abc", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
		"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
		"tool_input":  map[string]any{"command": command, "description": "Commit the change"},
		"tool_use_id": "toolu_01",
	})
	return string(b)
}

// runHook runs the hook in-process and returns the exit code and stderr.
func runHook(t testing.TB, env map[string]string, stdin string, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &cli.Env{
		Args:   append([]string{"hook", "claude-pre-tool-use"}, args...),
		Stdin:  strings.NewReader(stdin),
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: func(k string) string { return env[k] },
		Dir:    t.TempDir(),
	}
	code := cli.Report(&stderr, cli.Run(context.Background(), e))
	if stdout.Len() > 0 {
		t.Errorf("hook wrote to stdout: %q", stdout.String())
	}
	sameAsHookBinary(t, e, stdin, code, stderr.String())
	return code, stderr.String()
}

// sameAsHookBinary checks that privscan-hook (claudehook.Main) answers the
// payload as "privscan hook" did: the same exit code and stderr.
func sameAsHookBinary(t testing.TB, e *cli.Env, stdin string, code int, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	got := claudehook.Main(context.Background(), e.Args[1:], strings.NewReader(stdin), &out,
		claudehook.Env{Stderr: &errb, Getenv: e.Getenv, Dir: e.Dir})
	if strings.HasPrefix(stderr, "privscan: error: unknown --fail-on level") {
		// The CLI names a mistyped level when it is a plain word; the
		// hook binary, which has no such heuristics, never does.
		stderr = "privscan: error: unknown --fail-on level (value withheld)\nprivscan: hint: want error, warning, note or never\n"
	}
	if got != code || errb.String() != stderr || out.Len() > 0 {
		t.Errorf("privscan-hook %v: exit %d, stderr\n%s\nwant exit %d, stderr\n%s", e.Args[1:], got, errb.String(), code, stderr)
	}
}

func TestHookBlocksStagedCatalogedName(t *testing.T) {
	r := newHookRepo(t)
	r.write(t, "users_test.go", "package main\n\nvar name = \"ZorblaxQuintavius\"\n")
	r.git(t, "add", "users_test.go")
	code, stderr := runHook(t, r.env, payload(r.dir, "Bash", `git add . && git commit -m "Add fixtures"`))
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"blocked git commit", "users_test.go:3:13", "catalog/PER-001", "person", "Customer names", "privscan: hint:"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	assertNoCanary(t, stderr)
}

func TestHookCommitMessage(t *testing.T) {
	r := newHookRepo(t)
	cmd := "git commit --allow-empty -m \"$(cat <<'EOF'\nDeploy to " + hookHost + "\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\""
	code, stderr := runHook(t, r.env, payload(r.dir, "Bash", cmd))
	if code != 2 || !strings.Contains(stderr, "commit message:1:11") || !strings.Contains(stderr, "catalog/HOST") {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	assertNoCanary(t, stderr)
	// --fail-on error lets a warning through.
	if code, stderr := runHook(t, r.env, payload(r.dir, "Bash", cmd), "--fail-on", "error"); code != 0 {
		t.Fatalf("--fail-on error: exit %d\n%s", code, stderr)
	}
}

func TestHookWhatWouldBeCommitted(t *testing.T) {
	r := newHookRepo(t)
	// An unstaged change is not committed by a plain commit, but is by -a.
	r.write(t, "main.go", "package main\n\n// "+hookCanary+"\n")
	if code, stderr := runHook(t, r.env, payload(r.dir, "Bash", "git commit -m x")); code != 0 {
		t.Fatalf("plain commit blocked on an unstaged change: %d\n%s", code, stderr)
	}
	for _, cmd := range []string{"git commit -am x", "git commit -a -m x", "git commit main.go -m x", "cd .. && git -C ../repo commit -qam x", "FOO=1 git commit --all -m x"} {
		dir := r.dir
		if strings.HasPrefix(cmd, "cd ..") {
			dir = filepath.Join(r.dir, "sub")
		}
		if code, stderr := runHook(t, r.env, payload(dir, "Bash", cmd)); code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s", cmd, code, stderr)
		}
	}
	// A marker that the commit itself adds does not let it through.
	r.write(t, "main.go", "package main\n\n// "+hookCanary+" privscan:allow\n")
	code, stderr := runHook(t, r.env, payload(r.dir, "Bash", "git commit -am x"))
	if code != 2 || !strings.Contains(stderr, "marker this change adds does not count") || !strings.Contains(stderr, "outside the agent") {
		t.Fatalf("marker added by the commit: exit %d\n%s", code, stderr)
	}
	assertNoCanary(t, stderr)
}

// TestHookPolicyFromHEAD: a commit that relaxes the policy (or adds a
// marker) in the same change is judged by HEAD's policy; HEAD's own
// policy and markers already committed keep applying.
func TestHookPolicyFromHEAD(t *testing.T) {
	r := newHookRepo(t)
	r.write(t, "a.go", "package main\n\n// "+hookCanary+"\n")
	r.write(t, ".privscan.toml", "exclude = [\"**\"]\n")
	r.git(t, "add", "-A")
	if code, stderr := runHook(t, r.env, payload(r.dir, "Bash", "git commit -m x")); code != 2 {
		t.Fatalf("policy relaxed by the commit itself: exit %d\n%s", code, stderr)
	}
	// Once the exclusion is committed (by the user), it applies.
	r.git(t, "add", ".privscan.toml")
	r.git(t, "commit", "-qm", "policy")
	r.git(t, "add", "a.go")
	if code, stderr := runHook(t, r.env, payload(r.dir, "Bash", "git commit -m x")); code != 0 {
		t.Fatalf("HEAD's policy: exit %d\n%s", code, stderr)
	}
}

func TestHookLetsOtherCommandsThroughFast(t *testing.T) {
	r := newHookRepo(t)
	r.write(t, "a.go", hookCanary)
	r.git(t, "add", ".")
	// The catalog is broken: a command that loads it (the slow path: broker,
	// parse, compile, repository) would print a note, so an empty stderr
	// shows the fast path was taken. Its time is BenchmarkHookNonGit's.
	env := map[string]string{"HOME": r.env["HOME"], "PRIVSCAN_CATALOG_FILE": filepath.Join(r.dir, "missing.md")}
	for _, cmd := range []string{"ls -la", "git status", "git log --grep commit", "echo 'git commit'"} {
		code, stderr := runHook(t, env, payload(r.dir, "Bash", cmd))
		if code != 0 || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q", cmd, code, stderr)
		}
	}
	if code, stderr := runHook(t, env, payload(r.dir, "Write", "git commit")); code != 0 || stderr != "" {
		t.Errorf("other tool: %d %q", code, stderr)
	}
}

func TestHookNeverBlocksOnItsOwnProblems(t *testing.T) {
	r := newHookRepo(t)
	r.write(t, "a.go", hookCanary)
	r.git(t, "add", ".")
	for _, tc := range []struct {
		name, stdin, note string
		env               map[string]string
	}{
		{"malformed payload", `{"tool_name": "Bash", "tool_input": ` + hookCanary, "could not read the hook payload", r.env},
		{"not JSON", "git commit", "could not read the hook payload", r.env},
		{"no catalog", payload(r.dir, "Bash", "git commit"), "not gating git commit", map[string]string{"HOME": t.TempDir()}},
		{"not a repository", payload(t.TempDir(), "Bash", "git commit"), "", r.env},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runHook(t, tc.env, tc.stdin)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if tc.note != "" && !strings.Contains(stderr, tc.note) {
				t.Fatalf("stderr %q lacks %q", stderr, tc.note)
			}
			assertNoCanary(t, stderr)
		})
	}
	if code, _ := runHook(t, r.env, "", "--fail-on", "sometimes"); code != 2 {
		t.Fatalf("bad flag: exit %d", code)
	}
}

func assertNoCanary(t *testing.T, s string) {
	t.Helper()
	low := strings.ToLower(s)
	for _, c := range []string{hookCanary, "zorblaxquintavius", hookHost} {
		if strings.Contains(low, strings.ToLower(c)) {
			t.Fatalf("output contains a catalog value:\n%s", s)
		}
	}
}

func TestMCPCommandUsage(t *testing.T) {
	for _, args := range [][]string{{"mcp", "--http", "0.0.0.0:1"}, {"mcp", "extra"}, {"mcp", "--root", "/nonexistent/dir"}} {
		var stdout, stderr bytes.Buffer
		e := &cli.Env{Args: args, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: t.TempDir(), ServeMCP: mcpcmd.Serve}
		if code := cli.Report(&stderr, cli.Run(context.Background(), e)); code != 2 || stdout.Len() > 0 {
			t.Errorf("%v: exit %d stdout %q", args, code, stdout.String())
		}
	}
	// stdio with no input: serves nothing and exits cleanly.
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: []string{"mcp"}, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: t.TempDir(), ServeMCP: mcpcmd.Serve}
	if err := cli.Run(context.Background(), e); err != nil || stdout.Len() > 0 {
		t.Fatalf("mcp on empty stdin: %v, stdout %q", err, stdout.String())
	}
}

// BenchmarkHookNonGit: the PreToolUse hook on a command that cannot commit
// (in-process; the launcher's shell fast path skips even this).
func BenchmarkHookNonGit(b *testing.B) {
	r := newHookRepo(b)
	env := map[string]string{"HOME": r.env["HOME"]}
	in := payload(r.dir, "Bash", "ls -la")
	for b.Loop() {
		if code, stderr := runHook(b, env, in); code != 0 || stderr != "" {
			b.Fatalf("exit %d, stderr %q", code, stderr)
		}
	}
}

// TestHookModelsGitAdd: the PreToolUse hook runs before the whole command,
// so the `git add` in `git add … && git commit` has not run yet: the gate
// applies it to what it scans (untracked files included).
func TestHookModelsGitAdd(t *testing.T) {
	leak := "package main\n\n// " + hookCanary + "\n"
	for _, tc := range []struct {
		name, cmd string
		block     bool
	}{
		{"add -A", `git add -A && git commit -m "Add fixtures"`, true},
		{"add .", "git add . && git commit -m x", true},
		{"add the path", "git add fixtures/users.go && git commit -m x", true},
		{"add a glob", "git add 'fixtures/*.go' && git commit -m x", true},
		{"add the directory from a subdirectory", "cd fixtures && git add . && git commit -m x", true},
		{"git -C", "git -C fixtures add users.go && git commit -m x", true},
		{"add another path", "git add main.go && git commit -m x", false},
		{"add -u leaves untracked files", "git add -u && git commit -m x", false},
		{"add after the commit", "git commit --allow-empty -m x && git add -A", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newHookRepo(t)
			r.write(t, "fixtures/users.go", leak) // untracked
			code, stderr := runHook(t, r.env, payload(r.dir, "Bash", tc.cmd))
			if (code == 2) != tc.block {
				t.Fatalf("exit %d, want blocked=%v\n%s", code, tc.block, stderr)
			}
			if tc.block && !strings.Contains(stderr, "fixtures/users.go:3:4") {
				t.Errorf("stderr lacks the location:\n%s", stderr)
			}
			assertNoCanary(t, stderr)
		})
	}
}

// TestHookPushGate: git push of a commit with a catalogued name is blocked
// before it leaves; a push of clean commits, or of commits the remote
// already has, goes through.
func TestHookPushGate(t *testing.T) {
	r := newHookRepo(t)
	remote := filepath.Join(filepath.Dir(r.dir), "remote.git")
	r.git(t, "init", "-q", "--bare", remote)
	r.git(t, "remote", "add", "origin", remote)
	r.git(t, "push", "-q", "origin", "main")
	for _, cmd := range []string{"git push", "git push origin main", "git push -u origin HEAD:main", "cd . && git push --force-with-lease"} {
		if code, stderr := runHook(t, r.env, payload(r.dir, "Bash", cmd)); code != 0 {
			t.Fatalf("%q with nothing outgoing: exit %d\n%s", cmd, code, stderr)
		}
	}
	r.write(t, "users.go", "package main\n\nvar name = \""+hookCanary+"\"\n")
	r.git(t, "add", ".")
	r.git(t, "commit", "-qm", "add users")
	r.git(t, "checkout", "-qb", "feature")
	for _, cmd := range []string{"git push", "git push origin main", "git push -u origin feature", "git push origin HEAD:refs/heads/new"} {
		code, stderr := runHook(t, r.env, payload(r.dir, "Bash", cmd))
		if code != 2 || !strings.Contains(stderr, "blocked git push") || !strings.Contains(stderr, "users.go in commit ") {
			t.Errorf("%q: exit %d\n%s", cmd, code, stderr)
		}
		assertNoCanary(t, stderr)
	}
}

// TestHookGHTextGate: a pull request or issue whose title or body names a
// catalogued value is blocked before gh publishes it.
func TestHookGHTextGate(t *testing.T) {
	r := newHookRepo(t)
	if err := os.WriteFile(filepath.Join(r.dir, "body.md"), []byte("Thanks to "+hookCanary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd   string
		block bool
	}{
		{`gh pr create --title "Fix for ` + hookCanary + `" --body "x"`, true},
		{`gh pr create -t Fix -b "Reported by ` + hookCanary + `"`, true},
		{`gh pr edit 3 --body=` + "'" + hookCanary + "'", true},
		{`gh issue create --title Bug --body-file body.md`, true},
		{`gh issue comment 5 -b "cc ` + hookCanary + `"`, true},
		{`gh pr create --title Fix --body "All clean"`, false},
		{`gh pr view 3`, false},
		{`gh pr create --title Fix --body-file -`, false},
	} {
		code, stderr := runHook(t, r.env, payload(r.dir, "Bash", tc.cmd))
		if (code == 2) != tc.block {
			t.Errorf("%s: exit %d\n%s", tc.cmd, code, stderr)
		}
		if tc.block && !strings.Contains(stderr, "blocked gh") {
			t.Errorf("%s: stderr %s", tc.cmd, stderr)
		}
		assertNoCanary(t, stderr)
	}
}

// postPayload is a PostToolUse payload.
func postPayload(cwd, tool string, input map[string]any) string {
	b, _ := json.Marshal(map[string]any{
		"session_id": "abc", "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": tool,
		"tool_input": input, "tool_response": map[string]any{"success": true}, "tool_use_id": "toolu_02",
	})
	return string(b)
}

// TestPostToolUseEdit: a Write or Edit that adds a catalogued name gets it
// fed back (exit 2, location and rule, no value); lines already in HEAD do
// not count; files outside a repository are scanned whole.
func TestPostToolUseEdit(t *testing.T) {
	r := newHookRepo(t)
	r.write(t, "old.go", "package main\n\n// "+hookCanary+"\n")
	r.git(t, "add", ".")
	r.git(t, "commit", "-qm", "already there")
	run := func(tool string, input map[string]any) (int, string) {
		var stdout, stderr bytes.Buffer
		p := postPayload(r.dir, tool, input)
		e := &cli.Env{Args: []string{"hook", "claude-post-tool-use"}, Stdin: strings.NewReader(p),
			Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return r.env[k] }, Dir: r.dir}
		code := cli.Report(&stderr, cli.Run(context.Background(), e))
		if stdout.Len() > 0 {
			t.Errorf("stdout: %q", stdout.String())
		}
		assertNoCanary(t, stderr.String())
		sameAsHookBinary(t, e, p, code, stderr.String())
		return code, stderr.String()
	}
	r.write(t, "new.go", "package main\n\nvar n = \""+hookCanary+"\"\n")
	if code, stderr := run("Write", map[string]any{"file_path": filepath.Join(r.dir, "new.go"), "content": "…"}); code != 2 || !strings.Contains(stderr, "new.go:3:10-") || !strings.Contains(stderr, "catalog/PER-001") {
		t.Fatalf("Write: exit %d\n%s", code, stderr)
	}
	// An edit elsewhere in a file whose catalogued line is in HEAD.
	r.write(t, "old.go", "package main\n\n// "+hookCanary+"\nfunc f() {}\n")
	if code, stderr := run("Edit", map[string]any{"file_path": filepath.Join(r.dir, "old.go")}); code != 0 {
		t.Fatalf("Edit of other lines: exit %d\n%s", code, stderr)
	}
	outside := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(outside, []byte("Call "+hookCanary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run("Write", map[string]any{"file_path": outside}); code != 2 || !strings.Contains(stderr, "notes.md:1:6-") {
		t.Fatalf("Write outside a repository: exit %d\n%s", code, stderr)
	}
	if code, _ := run("Read", map[string]any{"file_path": outside}); code != 0 {
		t.Fatalf("Read: exit %d", code)
	}
}

// TestPostToolUseBashNet: commits a command made in a way the PreToolUse
// parser cannot see (a script) are reported after the fact: PreToolUse
// records HEAD under the tool_use_id, PostToolUse compares and removes the
// record.
func TestPostToolUseBashNet(t *testing.T) {
	r := newHookRepo(t)
	hook := func(event, id string) (int, string) {
		b, _ := json.Marshal(map[string]any{
			"session_id": "abc", "cwd": r.dir, "hook_event_name": event, "tool_name": "Bash",
			"tool_input": map[string]any{"command": "./release.sh"}, "tool_use_id": id,
		})
		var stdout, stderr bytes.Buffer
		verb := map[string]string{"PreToolUse": "claude-pre-tool-use", "PostToolUse": "claude-post-tool-use"}[event]
		e := &cli.Env{Args: []string{"hook", verb}, Stdin: bytes.NewReader(b),
			Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return r.env[k] }, Dir: r.dir}
		code := cli.Report(&stderr, cli.Run(context.Background(), e))
		assertNoCanary(t, stderr.String())
		return code, stderr.String()
	}
	state := filepath.Join(r.env["HOME"], ".local", "state", "privscan", "tool-use")
	records := func() int {
		entries, _ := os.ReadDir(state)
		return len(entries)
	}

	// A clean commit made by a script.
	if code, stderr := hook("PreToolUse", "toolu_A"); code != 0 || stderr != "" {
		t.Fatalf("pre A: exit %d %s", code, stderr)
	}
	if records() != 1 {
		t.Fatalf("PreToolUse kept %d records, want 1", records())
	}
	r.write(t, "clean.go", "package main\n")
	r.git(t, "add", ".")
	r.git(t, "commit", "-qm", "clean")
	if code, stderr := hook("PostToolUse", "toolu_A"); code != 0 || stderr != "" {
		t.Fatalf("clean commit: exit %d %s", code, stderr)
	}

	// Two leaky commits (a file and a message) by another command.
	if code, stderr := hook("PreToolUse", "toolu_B"); code != 0 {
		t.Fatalf("pre B: exit %d %s", code, stderr)
	}
	r.write(t, "users.go", "package main\n\nvar n = \""+hookCanary+"\"\n")
	r.git(t, "add", ".")
	r.git(t, "commit", "-qm", "users")
	r.git(t, "commit", "-q", "--allow-empty", "-m", "deploy to "+hookHost)
	code, stderr := hook("PostToolUse", "toolu_B")
	if code != 2 || !strings.Contains(stderr, "users.go in commit ") || !strings.Contains(stderr, "catalog/HOST") || !strings.Contains(stderr, "git commit --amend") {
		t.Fatalf("leaky commits: exit %d\n%s", code, stderr)
	}
	// Reported once, and no record is left behind.
	if code, stderr := hook("PostToolUse", "toolu_B"); code != 0 || stderr != "" {
		t.Fatalf("again: exit %d %s", code, stderr)
	}
	if n := records(); n != 0 {
		t.Fatalf("%d records left after PostToolUse", n)
	}

	// Commits made between two commands (by the user, outside Claude) are
	// not the next command's: only what happens between its Pre and Post.
	r.write(t, "user.go", "package main\n\n// "+hookCanary+"\n")
	r.git(t, "add", ".")
	r.git(t, "commit", "-qm", "the user's own commit")
	hook("PreToolUse", "toolu_C")
	if code, stderr := hook("PostToolUse", "toolu_C"); code != 0 || stderr != "" {
		t.Fatalf("a command that did not commit: exit %d %s", code, stderr)
	}

	// A command whose PostToolUse never comes (refused, interrupted)
	// leaves a record that a later PreToolUse removes after a day.
	hook("PreToolUse", "toolu_D")
	old := time.Now().Add(-25 * time.Hour)
	if err := os.Chtimes(filepath.Join(state, "toolu_D"), old, old); err != nil {
		t.Fatal(err)
	}
	hook("PreToolUse", "toolu_E")
	if _, err := os.Stat(filepath.Join(state, "toolu_D")); !os.IsNotExist(err) {
		t.Fatalf("a day-old record was kept: %v", err)
	}
	hook("PostToolUse", "toolu_E")
	if n := records(); n != 0 {
		t.Fatalf("%d records left", n)
	}
}

// TestPostToolUseNetFirstCommit: a repository with no commit yet; the
// command's first commits are judged by the defaults, not by the
// .privscan.toml they add.
func TestPostToolUseNetFirstCommit(t *testing.T) {
	root := t.TempDir()
	r := &hookRepo{dir: filepath.Join(root, "repo"), catalog: filepath.Join(root, "catalog.md")}
	if err := os.WriteFile(r.catalog, []byte(hookCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	r.env = map[string]string{"HOME": filepath.Join(root, "home"), "PRIVSCAN_CATALOG_FILE": r.catalog}
	os.MkdirAll(r.dir, 0o700)
	r.git(t, "init", "-q", "-b", "main")
	run := func(verb string) (int, string) {
		b, _ := json.Marshal(map[string]any{"cwd": r.dir, "tool_name": "Bash",
			"tool_input": map[string]any{"command": "make init"}, "tool_use_id": "toolu_F"})
		var stdout, stderr bytes.Buffer
		e := &cli.Env{Args: []string{"hook", verb}, Stdin: bytes.NewReader(b),
			Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return r.env[k] }, Dir: r.dir}
		return cli.Report(&stderr, cli.Run(context.Background(), e)), stderr.String()
	}
	run("claude-pre-tool-use")
	r.write(t, ".privscan.toml", "fail-on = \"never\"\n")
	r.write(t, "a.go", "package main\n\n// "+hookCanary+"\n")
	r.git(t, "add", ".")
	r.git(t, "commit", "-qm", "init")
	if code, stderr := run("claude-post-tool-use"); code != 2 || !strings.Contains(stderr, "a.go in commit ") {
		t.Fatalf("first commit: exit %d\n%s", code, stderr)
	}
}

// TestHookResolvesGitAliases: `git ci` with alias.ci = commit in the
// repository's config is gated like git commit.
func TestHookResolvesGitAliases(t *testing.T) {
	r := newHookRepo(t)
	r.git(t, "config", "alias.ci", "commit")
	r.write(t, "users.go", "package main\n\nvar n = \""+hookCanary+"\"\n")
	r.git(t, "add", "users.go")
	code, stderr := runHook(t, r.env, payload(r.dir, "Bash", `git ci -m "Add users"`))
	if code != 2 || !strings.Contains(stderr, "users.go:3:10-") || !strings.Contains(stderr, "catalog/PER-001") {
		t.Fatalf("git ci: exit %d\n%s", code, stderr)
	}
	assertNoCanary(t, stderr)
}
