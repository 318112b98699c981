package leaktest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/mcpcmd"
)

// world is one run of the matrix: the fixture, the leak detector and the
// tally of what was checked.
type world struct {
	*fixture
	det *detector

	mu      sync.Mutex
	cases   map[string]int // group -> cases run
	dims    map[string]map[string]map[string]bool
	outputs int
	bytes   int
	nextOut int
	huge    string // a catalog over 64 MiB, built once
}

func newWorld(t *testing.T) *world {
	t.Helper()
	s := seed(t)
	t.Logf("canary seed %d (replay with PRIVSCAN_LEAKTEST_SEED=%d)", s, s)
	c := newCanaries(s)
	f := newFixture(t, c)
	return &world{fixture: f, det: newDetector(c.secrets()), cases: map[string]int{}, dims: map[string]map[string]map[string]bool{}}
}

// count tallies one case of group with its dimensions (verb, format, path).
func (w *world) count(group, verb, format, path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cases[group]++
	if w.dims[group] == nil {
		w.dims[group] = map[string]map[string]bool{"verb": {}, "format": {}, "path": {}}
	}
	w.dims[group]["verb"][verb] = true
	w.dims[group]["format"][format] = true
	w.dims[group]["path"][path] = true
}

// reporter is the part of testing.TB that check uses.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// check asserts that no canary occurs in any of outputs.
func (w *world) check(t *testing.T, label string, outputs map[string][]byte) {
	t.Helper()
	w.checkWith(t, label, outputs)
}

// checkWith is check reporting to any reporter (the self-test passes a
// fake one to prove that a leak fails the test).
func (w *world) checkWith(t reporter, label string, outputs map[string][]byte) {
	t.Helper()
	names := make([]string, 0, len(outputs))
	for n := range outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data := outputs[n]
		w.mu.Lock()
		w.outputs++
		w.bytes += len(data)
		w.mu.Unlock()
		for _, l := range w.det.find(n, data) {
			t.Errorf("LEAK in %s: %s\n--- %s ---\n%s", label, l, n, excerpt(data, l))
		}
	}
}

func excerpt(data []byte, l leak) string {
	if len(data) > 2000 {
		return string(data[:2000]) + "…"
	}
	return string(data)
}

// outDir returns a fresh directory for a case's written files.
func (w *world) outDir(t *testing.T) string {
	w.mu.Lock()
	w.nextOut++
	n := w.nextOut
	w.mu.Unlock()
	d := filepath.Join(w.root, "out", fmt.Sprint(n))
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// readTree returns every regular file under dir, by path relative to
// label, skipping the paths in skip.
func readTree(t *testing.T, dir string, skip map[string]bool) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if skip[p] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cliCase is one in-process command run.
type cliCase struct {
	group  string // tally group: "scan", "other", "action", "hook"
	verb   string
	format string // "" for commands without --format
	path   string // the path taken: "ok:…" or "err:…"
	args   []string
	env    map[string]string // over the fixture's; "" deletes
	stdin  []byte
	dir    string          // default: the repository
	cancel string          // "", "before", "during" (after the first stdin read), "timed"
	codes  []int           // allowed exit codes; nil: any
	want   []string        // substrings stderr must contain
	files  func() []string // extra files to check (besides the out dir)
	touch  []string        // empty files to create in the out dir first (as a runner does)
	found  string          // a substring stdout or a written file must hold: the run did find something
}

// cancelReader returns data, cancelling ctx once the first read is done.
type cancelReader struct {
	data   []byte
	cancel context.CancelFunc
	n      int
}

func (r *cancelReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		r.cancel()
	}
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data[:min(len(r.data), 4096)])
	r.data = r.data[n:]
	r.n++
	return n, nil
}

// runCLI runs one case in-process and checks its outputs.
func (w *world) runCLI(t *testing.T, cs cliCase) {
	t.Helper()
	out := w.outDir(t)
	env := w.env()
	for k, v := range cs.env {
		env[k] = strings.ReplaceAll(v, "{out}", out)
	}
	args := make([]string, len(cs.args))
	for i, a := range cs.args {
		args[i] = strings.ReplaceAll(a, "{out}", out)
	}
	if cs.format != "" {
		// Right after the verb: a case's own --format comes later and wins.
		args = append([]string{args[0], "--format", cs.format}, args[1:]...)
	}
	for _, name := range cs.touch {
		writeFile(t, filepath.Join(out, name), "")
	}
	dir := cs.dir
	if dir == "" {
		dir = w.repo
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdin io.Reader = bytes.NewReader(cs.stdin)
	switch cs.cancel {
	case "before":
		cancel()
	case "during":
		stdin = &cancelReader{data: cs.stdin, cancel: cancel}
	case "timed":
		ctx, cancel = context.WithTimeout(ctx, 3*time.Millisecond)
		defer cancel()
	}
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: args, Stdin: stdin, Stdout: &stdout, Stderr: &stderr, Dir: dir,
		Getenv: func(k string) string { return env[k] }, ServeMCP: mcpcmd.Serve}
	code := cli.Report(&stderr, cli.Run(ctx, e))

	label := fmt.Sprintf("%s %s [%s] (privscan %s)", cs.verb, cs.format, cs.path, strings.Join(args, " "))
	w.count(cs.group, cs.verb, cs.format, cs.path)
	if cs.codes != nil && !containsInt(cs.codes, code) {
		t.Errorf("%s: exit code %d, want one of %v\nstderr: %s", label, code, cs.codes, stderr.String())
	}
	for _, s := range cs.want {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("%s: stderr lacks %q (the case does not take the path it tests)\nstderr: %s", label, s, stderr.String())
		}
	}
	outputs := readTree(t, out, nil)
	outputs["stdout"] = stdout.Bytes()
	outputs["stderr"] = stderr.Bytes()
	if cs.found != "" {
		hit := false
		for n, b := range outputs {
			hit = hit || n != "stderr" && bytes.Contains(b, []byte(cs.found))
		}
		if !hit {
			t.Errorf("%s: no output holds %q: the run found nothing, so it tests nothing\nstdout: %.500s\nstderr: %s", label, cs.found, stdout.Bytes(), stderr.Bytes())
		}
	}
	if cs.files != nil {
		for _, p := range cs.files() {
			if b, err := os.ReadFile(p); err == nil {
				outputs[p] = b
			}
		}
	}
	w.check(t, label, outputs)
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestLeakMatrix is the canary leak matrix.
func TestLeakMatrix(t *testing.T) {
	w := newWorld(t)
	start := time.Now()
	t.Run("cli", func(t *testing.T) { w.cliMatrix(t) })
	t.Run("action", func(t *testing.T) { w.actionMatrix(t) })
	t.Run("hook", func(t *testing.T) { w.hookMatrix(t) })
	t.Run("guard", func(t *testing.T) { w.guardMatrix(t) })
	t.Run("process", func(t *testing.T) { w.processMatrix(t) })
	t.Run("mcp-stdio", func(t *testing.T) { w.mcpMatrix(t, "stdio") })
	t.Run("mcp-http", func(t *testing.T) { w.mcpMatrix(t, "http") })
	t.Run("panic", func(t *testing.T) { w.panicMatrix(t) })

	// Everything privscan wrote anywhere under the test's root: the audit
	// log and its key, init's files, reports, summaries. Skipped: the
	// test's own inputs (catalogs, map, payloads) and the repository's
	// tracked and untracked fixture files.
	skip := map[string]bool{w.inputs: true, filepath.Join(w.config, "privscan"): true, filepath.Join(w.root, "githome"): true}
	files := readTree(t, w.root, skip)
	repoFiles := readTree(t, w.repo, nil)
	for p := range repoFiles {
		delete(files, p) // the repository's own content holds canaries by design
	}
	w.checkRepoUntouched(t)
	w.check(t, "files left under the test root", files)

	var b strings.Builder
	total := 0
	groups := make([]string, 0, len(w.cases))
	for g := range w.cases {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		d := w.dims[g]
		fmt.Fprintf(&b, "\n  %-10s %4d cases: %d verbs × %d formats × %d paths", g, w.cases[g], len(d["verb"]), len(d["format"]), len(d["path"]))
		total += w.cases[g]
	}
	t.Logf("leak matrix: %d cases, %d outputs (%d KiB) checked for %d needles of %d canaries in %v:%s",
		total, w.outputs, w.bytes>>10, len(w.det.needles), len(w.det.canaries), time.Since(start).Round(time.Millisecond), b.String())
}

// checkRepoUntouched asserts privscan wrote nothing into the repository:
// `git status` lists exactly the fixture's own changes.
func (w *world) checkRepoUntouched(t *testing.T) {
	t.Helper()
	got := w.git.run("status", "--porcelain", "--ignored", "-uall")
	if want := w.status; got != want {
		t.Errorf("the repository changed during the matrix:\n%s\nwant:\n%s", got, want)
	}
}
