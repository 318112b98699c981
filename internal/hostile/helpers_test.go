package hostile

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/mcpcmd"
)

// Canaries: catalog values that must never appear in an output unless the
// output is a copy of input that legitimately holds them.
const (
	canaryName  = "Zorblax Quintavius"
	canaryHost  = "vault-7.canaryzone.internal"
	canaryRegex = `QZX-\d{6}`
	canaryID    = "QZX-314159"
	fpKey       = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

var canaries = []string{canaryName, canaryHost, canaryRegex, canaryID, fpKey}

// testCatalog has a literal, an identifier and a regex rule.
var testCatalog = "# Hostile test catalog\n\n- fingerprint-key: " + fpKey + "\n\n" +
	"## PER-001\n- category: person\n- match: identifier\n\n```values\n" + canaryName + "\n```\n\n" +
	"## HOST\n- category: internal-host\n- severity: warning\n\n```values\n" + canaryHost + "\n```\n\n" +
	"## EMP-ID\n- category: employee-id\n- match: regex\n\n```values\n" + canaryRegex + "\n```\n"

// catalogOnly is a .privscan.toml that turns the built-in detectors off, so
// that a test measures privscan's own machinery, not gitleaks' rules.
const catalogOnly = "[detectors]\nemail = false\nphone = false\ncredit-card = false\niban = false\nus-ssn = false\nip-address = false\nsecrets = false\n"

// childEnv marks the test binary's re-execution as privscan itself.
const childEnv = "PRIVSCAN_HOSTILE_CHILD"

// TestMain runs the test binary as privscan when childEnv is set, as
// cmd/privscan's main does ("mcp" served in this process, as the
// privscan-mcp that privscan runs for it does).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		_ = hash.RegisterHash(crypto.SHA1, sha1.New)
		heap := startHeapSampler()
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := mcpcmd.MainLinked(ctx)
		stop()
		if p := os.Getenv(heapFileEnv); p != "" {
			_ = os.WriteFile(p, []byte(strconv.FormatUint(heap(), 10)), 0o600)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// heapFileEnv names a file where a child writes its peak Go heap.
const heapFileEnv = "PRIVSCAN_HOSTILE_HEAP_FILE"

// startHeapSampler samples the bytes of heap objects every 5 ms and returns
// a function that reports the peak. Unlike RSS, it is not inflated by the
// race detector's shadow memory.
func startHeapSampler() func() uint64 {
	var mu sync.Mutex
	var peak uint64
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			mu.Lock()
			peak = max(peak, sample[0].Value.Uint64())
			mu.Unlock()
		}
	}
	go func() {
		for {
			read()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return func() uint64 {
		read()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// big reports whether the full-size cases run (PRIVSCAN_HOSTILE_BIG=1).
func big() bool { return os.Getenv("PRIVSCAN_HOSTILE_BIG") == "1" }

// scaled returns full when the full-size cases run, else small.
func scaled[T any](small, full T) T {
	if big() {
		return full
	}
	return small
}

// env is a private environment: a fresh HOME and XDG directories, and the
// test catalog in PRIVSCAN_CATALOG.
func newEnv(t *testing.T) map[string]string {
	t.Helper()
	root := t.TempDir()
	return map[string]string{
		"HOME":             filepath.Join(root, "home"),
		"XDG_CONFIG_HOME":  filepath.Join(root, "config"),
		"XDG_STATE_HOME":   filepath.Join(root, "state"),
		"PRIVSCAN_CATALOG": testCatalog,
		"NO_COLOR":         "1",
	}
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs a privscan command in-process in dir, failing the test when it
// does not finish within timeout or panics.
func run(t *testing.T, dir string, env map[string]string, stdin io.Reader, timeout time.Duration, args ...string) result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	type outcome struct {
		err   error
		panic any
		stack []byte
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{panic: r, stack: debug.Stack()}
			}
		}()
		err := cli.Run(ctx, &cli.Env{
			Args: args, Stdin: stdin, Stdout: &stdout, Stderr: &stderr, Dir: dir,
			Getenv: func(k string) string { return env[k] }, ServeMCP: mcpcmd.Serve,
		})
		done <- outcome{err: err}
	}()
	select {
	case o := <-done:
		if o.panic != nil {
			t.Fatalf("privscan %s panicked: %v\n%s", strings.Join(args, " "), o.panic, o.stack)
		}
		code := cli.Report(&stderr, o.err)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	case <-time.After(timeout):
		cancel()
		t.Fatalf("privscan %s did not finish within %s", strings.Join(args, " "), timeout)
	}
	return result{}
}

// childResult is a privscan process's outcome.
type childResult struct {
	code   int
	stderr string
	maxRSS int64 // peak RSS in bytes, sampled every 10 ms (Linux only)
	heap   int64 // peak bytes of Go heap objects, sampled every 5 ms
	wall   time.Duration
}

// runChild runs privscan (this test binary re-executed) as a process, with
// stdin and stdout streamed, and reports its peak RSS.
func runChild(t *testing.T, dir string, env map[string]string, stdin io.Reader, stdout io.Writer, timeout time.Duration, args ...string) childResult {
	t.Helper()
	var stderr bytes.Buffer
	res := startChild(t, dir, env, stdin, stdout, &stderr, timeout, nil, args...)
	res.stderr = stderr.String()
	if strings.Contains(res.stderr, "panic:") || strings.Contains(res.stderr, "goroutine ") {
		t.Errorf("privscan %s crashed:\n%s", strings.Join(args, " "), res.stderr)
	}
	return res
}

// startChild runs privscan as a process; started, when not nil, is called
// with the running command (to signal it). It must not call t.Fatal from
// a goroutine other than the test's: failures are reported with t.Errorf.
func startChild(t *testing.T, dir string, env map[string]string, stdin io.Reader, stdout, stderr io.Writer, timeout time.Duration, started func(*exec.Cmd), args ...string) childResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Error(err)
		return childResult{code: -1}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	heapFile := filepath.Join(t.TempDir(), "heap")
	cmd.Env = []string{childEnv + "=1", "PATH=" + os.Getenv("PATH"), heapFileEnv + "=" + heapFile}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = stdin
	if stdout == nil {
		stdout = io.Discard
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return childResult{code: -1}
	}
	if started != nil {
		started(cmd)
	}
	peak := make(chan int64, 1)
	stop := make(chan struct{})
	go func() { peak <- pollHWM(cmd.Process.Pid, stop) }()
	err = cmd.Wait()
	close(stop)
	res := childResult{wall: time.Since(start), maxRSS: <-peak}
	if ctx.Err() != nil {
		t.Errorf("privscan %s did not finish within %s", strings.Join(args, " "), timeout)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Errorf("running privscan: %v", err)
	}
	if b, err := os.ReadFile(heapFile); err == nil {
		res.heap, _ = strconv.ParseInt(string(b), 10, 64)
	}
	return res
}

// pollHWM samples the process's peak RSS (VmHWM) until stop is closed and
// returns the last value seen, in bytes. getrusage's ru_maxrss cannot be
// used: Linux carries the parent's peak over a fork and exec into the
// child's figure, and this test process is large.
func pollHWM(pid int, stop <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var hwm int64
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
					var kb int64
					if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb); err == nil && kb*1024 > hwm {
						hwm = kb * 1024
					}
				}
			}
		}
		select {
		case <-stop:
			return hwm
		case <-tick.C:
		}
	}
}

// noLeak fails when s holds a canary, as is or case-folded.
func noLeak(t *testing.T, where, s string) {
	t.Helper()
	low := strings.ToLower(s)
	for _, c := range canaries {
		if strings.Contains(s, c) || strings.Contains(low, strings.ToLower(c)) {
			t.Fatalf("%s holds a catalog value: %.500s", where, s)
		}
	}
}

// report is the --format json report.
type report struct {
	Findings []struct {
		RuleID    string `json:"ruleId"`
		Kind      string `json:"kind"`
		Path      string `json:"path"`
		Commit    string `json:"commit"`
		Line      int    `json:"line"`
		Column    int    `json:"column"`
		EndColumn int    `json:"endColumn"`
	} `json:"findings"`
	Summary struct {
		Findings       int            `json:"findings"`
		FilesScanned   int            `json:"filesScanned"`
		LinesScanned   int            `json:"linesScanned"`
		CommitsScanned int            `json:"commitsScanned"`
		Skipped        map[string]int `json:"skipped"`
	} `json:"summary"`
}

func decode(t *testing.T, r result) *report {
	t.Helper()
	var rep report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report (exit %d, stderr %q): %v", r.code, r.stderr, err)
	}
	return &rep
}

// located lists findings as "rule@line:col-end" (path-less), sorted as
// reported.
func (r *report) located() []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%s@%s:%d:%d-%d", f.RuleID, f.Path, f.Line, f.Column, f.EndColumn))
	}
	return out
}

// gitRepo creates a repository with a fixed identity.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
}

// gitEnv isolates git from the user's configuration.
func gitEnv() []string {
	return append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
		"GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	)
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitAll commits the working tree.
func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
}
