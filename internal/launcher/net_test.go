package launcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetRecords: the launcher keeps the PostToolUse net's record for a
// Bash command it answers alone (root and HEAD under the tool_use_id),
// and after a command that did not move HEAD, or that has no record, it
// removes the record and does not start privscan; after one that moved
// HEAD, privscan runs (and reads the record).
func TestNetRecords(t *testing.T) {
	skipUnlessPOSIX(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := newEnv(t)
	marker := filepath.Join(e.dir, "privscan-ran")
	writeFile(t, filepath.Join(e.data, "bin", "privscan-"+version), standIn(marker, "stand-in"), 0o755)
	repo := filepath.Join(e.dir, "repo")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(e.vars, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("commit", "-q", "--allow-empty", "-m", "init")
	root := git("rev-parse", "--show-toplevel")
	records := filepath.Join(e.dir, "state", "privscan", "tool-use")
	printed := false
	hook := func(verb, id string) {
		t.Helper()
		cmd := e.command("hook", verb)
		event := map[string]string{"claude-pre-tool-use": "PreToolUse", "claude-post-tool-use": "PostToolUse"}[verb]
		response := ""
		if event == "PostToolUse" && printed {
			response = `,"tool_response":{"stdout":"done","stderr":"","interrupted":false,"isImage":false}`
		} else if event == "PostToolUse" {
			// As Claude Code sends it: compact JSON; a command that printed
			// nothing (the fast path needs both).
			response = `,"tool_response":{"stdout":"","stderr":"","interrupted":false,"isImage":false}`
		}
		cmd.Stdin = strings.NewReader(`{"session_id":"s","cwd":"` + repo + `","hook_event_name":"` + event +
			`","tool_name":"Bash","tool_input":{"command":"sh ship.sh","description":"Run it"},"tool_use_id":"` + id + `"` + response + `}`)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", verb, id, err, out)
		}
	}
	ran := func() bool {
		_, err := os.Stat(marker)
		os.Remove(marker)
		return err == nil
	}

	hook("claude-pre-tool-use", "toolu_1")
	rec, err := os.ReadFile(filepath.Join(records, "toolu_1"))
	if err != nil || string(rec) != root+"\n"+git("rev-parse", "HEAD")+"\n" {
		t.Fatalf("record %q, %v", rec, err)
	}
	if ran() {
		t.Fatal("PreToolUse of a command that gates nothing started privscan")
	}
	hook("claude-post-tool-use", "toolu_1")
	if ran() {
		t.Fatal("PostToolUse after a command that did not move HEAD started privscan")
	}
	if _, err := os.Stat(filepath.Join(records, "toolu_1")); !os.IsNotExist(err) {
		t.Fatalf("the record was kept: %v", err)
	}

	hook("claude-post-tool-use", "toolu_none")
	if ran() {
		t.Fatal("PostToolUse without a record started privscan")
	}

	// A command that printed something: the guard checks its output
	// after the fact, so privscan starts even though HEAD did not move.
	printed = true
	hook("claude-pre-tool-use", "toolu_p")
	hook("claude-post-tool-use", "toolu_p")
	if !ran() {
		t.Fatal("PostToolUse after a command that printed did not start privscan")
	}
	printed = false

	hook("claude-pre-tool-use", "toolu_2")
	git("commit", "-q", "--allow-empty", "-m", "by a script")
	hook("claude-post-tool-use", "toolu_2")
	if !ran() {
		t.Fatal("PostToolUse after a command that committed did not start privscan")
	}
}

// TestPayloadFields: the launcher reads tool_use_id, cwd and tool_name out
// of a payload with shell builtins (json_str, payload_fields): the last
// occurrence of each key, a value taken as it is, and nothing for a value
// that needs unescaping or is not a plain token. Quoted keys inside a
// command are escaped in JSON, so they never count.
func TestPayloadFields(t *testing.T) {
	skipUnlessPOSIX(t)
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "privscan-launch"))
	if err != nil {
		t.Fatal(err)
	}
	// The two functions, without the launcher's top-level code.
	src := string(script)
	start := strings.Index(src, "json_str() {")
	end := strings.Index(src, "# state_dir sets state")
	if start < 0 || end < start {
		t.Fatal("json_str and payload_fields not found in the launcher")
	}
	funcs := src[start:end]
	long := strings.Repeat("a", 128)
	for _, tc := range []struct{ payload, want string }{
		{`{"session_id":"s","cwd":"/home/u/repo","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_01ABC"}`, "toolu_01ABC|/home/u/repo|Bash"},
		{`{"session_id": "s", "cwd" : "/a b/c", "tool_name": "Edit", "tool_input": {"file_path": "/x"}, "tool_use_id": "toolu-x_9"}`, "toolu-x_9|/a b/c|Edit"},
		{`{"cwd":"/a\\b","tool_name":"Bash","tool_use_id":"bad id"}`, "||Bash"},
		{`{"cwd":"/a\"b","tool_name":"Bash","tool_use_id":"ok"}`, "ok||Bash"},
		{`{"tool_name":"Bash","tool_input":{"command":"echo \"cwd\": \"/evil\""},"cwd":"/good","tool_use_id":"t1"}`, "t1|/good|Bash"},
		{`{"cwd":"/good","tool_input":{"command":"x \"tool_use_id\":\"zz\""},"tool_use_id":"t2"}`, "t2|/good|"},
		{`{"cwd":"","tool_name":"","tool_use_id":""}`, "||"},
		{`{"nothing":1}`, "||"},
		{`{"tool_use_id":"` + long + `"}`, long + "||"},
		{`{"tool_use_id":"` + long + `a"}`, "||"},
		{`{"tool_use_id":123,"cwd":null}`, "||"},
		{`{"cwd":"/first","tool_input":{"cwd":"/second"},"tool_use_id":"x1","tool_use_id":"x2"}`, "x2|/second|"},
		{`{"cwd":"/é/ü","tool_name":"Write","tool_use_id":"t3","tool_input":{"content":"\"cwd\"x"}}`, "t3|/é/ü|Write"},
	} {
		cmd := exec.Command("/bin/sh", "-c", funcs+"\npayload_fields\nprintf '%s|%s|%s' \"$id\" \"$cwd\" \"$tool\"")
		cmd.Env = []string{"payload=" + tc.payload, "PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err != nil || string(out) != tc.want {
			t.Errorf("%s\n got %q (%v), want %q", tc.payload, out, err, tc.want)
		}
	}
}
