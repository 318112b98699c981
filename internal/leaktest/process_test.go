package leaktest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader,
// which can wait for what the writer writes.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed and replaced on every write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != nil {
		close(s.written)
		s.written = nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

// waitFor blocks until ok holds for the buffer's bytes or timeout passes,
// re-checking after every write (no polling).
func (s *syncBuffer) waitFor(timeout time.Duration, ok func([]byte) bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if ok(s.b.Bytes()) {
			s.mu.Unlock()
			return true
		}
		if s.written == nil {
			s.written = make(chan struct{})
		}
		ch := s.written
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

// command returns the test binary set up to run as `privscan args...`
// in dir with the fixture's environment (plus extra).
func (w *world) command(dir string, extra map[string]string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	env := w.env()
	for k, v := range extra {
		env[k] = v
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	cmd.Env = []string{asPrivscan + "=1", "PATH=" + os.Getenv("PATH")}
	for _, k := range keys {
		if env[k] != "" {
			cmd.Env = append(cmd.Env, k+"="+env[k])
		}
	}
	return cmd
}

// processMatrix runs commands as a real process: whatever the runtime or
// a library prints to the process's streams is captured too, and an
// interrupt is a real SIGINT.
func (w *world) processMatrix(t *testing.T) {
	c := w.c
	prText, err := os.ReadFile(filepath.Join(w.inputs, "pr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	type pc struct {
		path  string
		args  []string
		env   map[string]string
		stdin []byte
		code  int
	}
	cases := []pc{
		{"ok:diff-range", []string{"diff", "main.." + w.branch, "--format", "sarif"}, nil, nil, 1},
		{"ok:diff-worktree", []string{"diff", "HEAD~2", "--format", "github"}, nil, nil, 1},
		{"ok:history", []string{"history", "--format", "markdown"}, nil, nil, 1},
		{"ok:text", []string{"text", "-", "--format", "json"}, nil, prText, 1},
		{"ok:redact", []string{"redact"}, nil, prText, 0},
		{"ok:catalog-check", []string{"catalog", "check"}, nil, nil, 0},
		{"err:catalog_invalid", []string{"catalog", "check", "--catalog-key", "broken-invalid-regex"}, nil, nil, 2},
		{"err:catalog_invalid/env", []string{"text", "-"}, map[string]string{"PRIVSCAN_CATALOG": brokenCatalogs(c)["short-literal"]}, prText, 2},
		{"err:config_invalid", []string{"diff"}, map[string]string{"XDG_CONFIG_HOME": filepath.Join(w.inputs, "cfg-invalid-toml")}, nil, 2},
		{"err:bad-rev", []string{"diff", c.badRev, "--format", "json"}, nil, nil, 2},
		{"err:bad-format", []string{"scan", "--format", c.persons[0]}, nil, nil, 2},
	}
	for _, p := range cases {
		out := w.outDir(t)
		cmd := w.command(w.repo, p.env, p.args...)
		cmd.Stdin = bytes.NewReader(p.stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		label := fmt.Sprintf("process privscan %s [%s]", strings.Join(p.args, " "), p.path)
		w.count("process", p.args[0], "", p.path)
		if err != nil && code < 0 {
			t.Errorf("%s: %v", label, err)
		}
		if code != p.code {
			t.Errorf("%s: exit code %d, want %d\nstderr: %s", label, code, p.code, stderr.String())
		}
		outputs := readTree(t, out, nil)
		outputs["stdout"], outputs["stderr"] = stdout.Bytes(), stderr.Bytes()
		w.check(t, label, outputs)
	}

	// A real SIGINT while `text -` and `redact` wait on an idle stdin: the
	// child reports on fd 3 once its signal handler is installed, so the
	// interrupt never arrives before the handler (which would kill the
	// process with the default action instead of testing privscan's).
	for _, verb := range []string{"text", "redact"} {
		cmd := w.command(w.repo, nil, verb, "-")
		cmd.Env = append(cmd.Env, readyFDEnv+"=3")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		readyR, readyW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.ExtraFiles = []*os.File{readyW}
		var stdout, stderr syncBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		readyW.Close()
		// Some input, then stdin stays open and idle.
		if _, err := stdin.Write(prText); err != nil {
			t.Fatal(err)
		}
		ready := make(chan error, 1)
		go func() {
			_, err := readyR.Read(make([]byte, 1))
			ready <- err
		}()
		select {
		case err := <-ready:
			if err != nil {
				t.Fatalf("privscan %s -: no readiness signal: %v\nstderr: %s", verb, err, stderr.Bytes())
			}
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("privscan %s -: no readiness signal after 60 s", verb)
		}
		readyR.Close()
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("privscan %s -: no exit 30 s after SIGINT", verb)
		}
		stdin.Close()
		label := "process privscan " + verb + " - [err:sigint]"
		w.count("process", verb, "", "err:sigint")
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(stderr.Bytes()), "interrupted") {
			t.Errorf("%s: exit code %d, want 2 with \"interrupted\"\nstderr: %s", label, code, stderr.Bytes())
		}
		w.check(t, label, map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()})
	}
}
