package org_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/org"
	"github.com/privscan/privscan/internal/sarifcheck"
)

// Synthetic values only: a catalogued name, a git token and a password
// planted in a repos file's URL. None may appear in any output.
const (
	catName     = "Quillon Vandermeer"
	gitToken    = "canary-gittoken-5d1f0b7a9c3e"
	urlPassword = "canary-urlpass-8e2c4a6b0d1f"
	apiToken    = "canary-apitoken-3b7d9f1e5a2c"
	wrongToken  = "canary-wrongtoken-7a1c5e9b3d0f"
)

// TestMain lets the test binary run as privscan (shard processes).
func TestMain(m *testing.M) {
	if os.Getenv("PRIVSCAN_ORG_TEST_MAIN") == "1" {
		os.Exit(cli.Main(context.Background()))
	}
	os.Exit(m.Run())
}

func gitCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// makeRepo makes a repository of commits; leaky ones add the catalogued
// name (in a file, in a message).
func makeRepo(t testing.TB, dir string, i int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, dir, "init", "-q", "-b", "main")
	for c := 0; c < 3+i%3; c++ {
		body := fmt.Sprintf("line %d of repo %d\n", c, i)
		msg := fmt.Sprintf("commit %d", c)
		if (i+c)%3 == 0 {
			body += "owner: " + catName + "\n"
		}
		if i%4 == 1 && c == 1 {
			msg += " for " + catName
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", c)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, dir, "add", ".")
		gitCmd(t, dir, "commit", "-q", "-m", msg)
	}
}

// gitServer serves the bare repositories under root over git's smart
// HTTP (git http-backend behind net/http/cgi), requiring token as the
// basic-auth password.
func gitServer(t testing.TB, root, token string) *httptest.Server {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git binary")
	}
	h := &cgi.Handler{Path: gitBin, Args: []string{"http-backend"}, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}, Stderr: io.Discard}
	return serveLocal(t, func(w http.ResponseWriter, r *http.Request) {
		if _, pw, ok := r.BasicAuth(); !ok || pw != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "auth", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// serveLocal serves h on 127.0.0.1 (never another interface) until the
// test ends.
func serveLocal(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

type fixture struct {
	dir      string
	env      []string
	work     map[string]string // repository name → working copy
	reposTxt string
	http     *httptest.Server
}

// newOrg makes an organisation of n repositories: the first half served
// over file URLs, the rest over smart HTTP with a token, listed in a
// repos file (one URL carrying a password to be stripped).
func newOrg(t *testing.T, n int) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), work: map[string]string{}}
	serve := filepath.Join(f.dir, "served")
	f.http = gitServer(t, serve, gitToken)
	var lines []string
	for i := range n {
		name := fmt.Sprintf("r%02d", i)
		work := filepath.Join(f.dir, "work", name)
		makeRepo(t, work, i)
		if i < n/2 {
			f.work["work/"+name] = work
			lines = append(lines, "file://"+filepath.ToSlash(work))
			continue
		}
		bare := filepath.Join(serve, "acme", name+".git")
		gitCmd(t, f.dir, "clone", "-q", "--bare", work, bare)
		f.work["acme/"+name] = work
		u := f.http.URL + "/acme/" + name + ".git"
		if i == n-1 {
			u = strings.Replace(u, "http://", "http://someone:"+urlPassword+"@", 1)
		}
		lines = append(lines, u+fmt.Sprintf(" %d", 10+i))
	}
	f.reposTxt = filepath.Join(f.dir, "repos.txt")
	if err := os.WriteFile(f.reposTxt, []byte("# the organisation\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := filepath.Join(f.dir, "catalog.md")
	if err := os.WriteFile(cat, []byte("## PEOPLE\n- category: person\n\n```values\n"+catName+"\n```\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(f.dir, "config")
	os.MkdirAll(filepath.Join(cfg, "privscan"), 0o700)
	f.env = []string{"XDG_CONFIG_HOME=" + cfg, "XDG_STATE_HOME=" + filepath.Join(f.dir, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(f.dir, "cache"), "HOME=" + f.dir, "PRIVSCAN_CATALOG_FILE=" + cat,
		"PRIVSCAN_CATALOG_CACHE=off", "PRIVSCAN_GIT_TOKEN=" + gitToken, "TMPDIR=" + filepath.Join(f.dir, "tmp")}
	os.MkdirAll(filepath.Join(f.dir, "tmp"), 0o700)
	return f
}

func (f *fixture) getenv(extra ...string) func(string) string {
	m := map[string]string{}
	for _, kv := range append(append([]string{}, f.env...), extra...) {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// run runs privscan in-process; it returns stdout, stderr and the exit code.
func (f *fixture) run(t *testing.T, dir string, extraEnv []string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := cli.Run(context.Background(), &cli.Env{Args: args, Dir: dir, Stdin: strings.NewReader(""),
		Stdout: &out, Stderr: &errb, Getenv: f.getenv(extraEnv...)})
	code := 0
	if err != nil {
		code = cli.Report(&errb, err)
	}
	f.noLeak(t, "output of privscan "+args[0], out.String()+errb.String())
	return out.String(), errb.String(), code
}

// proc starts privscan as a separate process.
func (f *fixture) proc(t *testing.T, extraEnv []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = f.dir
	cmd.Env = append(append(append([]string{}, os.Environ()...), f.env...), extraEnv...)
	cmd.Env = append(cmd.Env, "PRIVSCAN_ORG_TEST_MAIN=1")
	return cmd
}

func (f *fixture) noLeak(t *testing.T, what, s string) {
	t.Helper()
	for _, c := range []string{catName, "Quillon", "Vandermeer", gitToken, urlPassword, apiToken, wrongToken} {
		if strings.Contains(s, c) {
			t.Errorf("%s holds a planted secret or catalog value", what)
		}
	}
}

// noLeakTree checks every file under dir.
func (f *fixture) noLeakTree(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f.noLeak(t, p, string(b))
		return nil
	})
}

type mergedDoc struct {
	Repositories []org.RepoResult  `json:"repositories"`
	Missing      []string          `json:"missing"`
	Findings     []org.RepoFinding `json:"findings"`
}

func key(repo string, fd any) string {
	b, _ := json.Marshal(fd)
	return repo + " " + string(b)
}

// historyKeys is what `privscan history --format json` finds in each
// working copy.
func (f *fixture) historyKeys(t *testing.T) map[string]int {
	keys := map[string]int{}
	for name, work := range f.work {
		out, _, code := f.run(t, work, nil, "history", "--format", "json", "--fail-on", "never")
		if code != 0 {
			t.Fatalf("history of %s: exit %d", name, code)
		}
		var rep struct {
			Findings []json.RawMessage `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, fd := range rep.Findings {
			var v any
			json.Unmarshal(fd, &v)
			keys[key(name, v)]++
		}
	}
	return keys
}

func mergedKeys(t *testing.T, doc mergedDoc) map[string]int {
	keys := map[string]int{}
	for _, fd := range doc.Findings {
		b, _ := json.Marshal(fd.Finding)
		var v any
		json.Unmarshal(b, &v)
		keys[key(fd.Repository, v)]++
	}
	return keys
}

func (f *fixture) merge(t *testing.T, dirs ...string) (mergedDoc, string) {
	t.Helper()
	out, errOut, code := f.run(t, f.dir, nil, append([]string{"org", "merge", "--format", "json"}, dirs...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	var doc mergedDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc, errOut
}

func equalKeys(t *testing.T, got, want map[string]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("merged %d distinct findings, history %d", len(got), len(want))
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("finding %s: merged %d times, history %d", k[:min(len(k), 80)], got[k], n)
		}
	}
	for k := range got {
		if want[k] == 0 {
			t.Errorf("merged finding not in history: %s", k[:min(len(k), 80)])
		}
	}
}

// TestOrgEndToEnd: a local organisation of 12 repositories (file and
// token-protected smart HTTP), planned in 3 shards run as 3 parallel
// processes (one told its shard by JOB_COMPLETION_INDEX only), merged:
// finding for finding what privscan history finds in each; runs twice
// without double counting; a new leaky commit found once; a missing shard
// named; no planted secret anywhere.
func TestOrgEndToEnd(t *testing.T) {
	f := newOrg(t, 12)
	plan := filepath.Join(f.dir, "plan.json")
	if _, errOut, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "--shards", "3", "-o", plan); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errOut)
	}
	pb, _ := os.ReadFile(plan)
	f.noLeak(t, "plan", string(pb))
	if strings.Contains(string(pb), "someone") {
		t.Error("the plan kept a URL's userinfo")
	}
	p, err := org.LoadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Repos) != 12 || p.Shards != 3 {
		t.Fatalf("plan: %d repositories, %d shards", len(p.Repos), p.Shards)
	}

	outs := []string{filepath.Join(f.dir, "out0"), filepath.Join(f.dir, "out1"), filepath.Join(f.dir, "out2")}
	runShards := func() {
		var wg sync.WaitGroup
		errs := make([]string, 3)
		for i := range 3 {
			args := []string{"org", "scan", "--plan", plan, "--out", outs[i]}
			var env []string
			if i == 2 {
				env = []string{"JOB_COMPLETION_INDEX=2"}
			} else {
				args = append(args, "--shard", fmt.Sprint(i))
			}
			cmd := f.proc(t, env, args...)
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := cmd.CombinedOutput()
				if err != nil {
					errs[i] = fmt.Sprintf("shard %d: %v: %s", i, err, out)
				}
				f.noLeak(t, "shard output", string(out))
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				t.Fatal(e)
			}
		}
	}
	runShards()
	want := f.historyKeys(t)
	if len(want) == 0 {
		t.Fatal("the organisation has no finding to compare")
	}
	doc, _ := f.merge(t, outs...)
	equalKeys(t, mergedKeys(t, doc), want)
	if len(doc.Missing) != 0 {
		t.Errorf("missing: %v", doc.Missing)
	}
	for _, r := range doc.Repositories {
		if r.Status != org.StatusDone {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Reason)
		}
	}
	// Idempotent: a folder twice.
	doc2, _ := f.merge(t, append(outs, outs[0])...)
	equalKeys(t, mergedKeys(t, doc2), want)

	// A second run scans nothing new and counts nothing twice.
	runShards()
	doc, _ = f.merge(t, outs...)
	equalKeys(t, mergedKeys(t, doc), want)

	// A new leaky commit in an HTTP repository and in a file one: found
	// once each, with no finding counted twice.
	for _, name := range []string{"acme/r11", "work/r00"} {
		work := f.work[name]
		os.WriteFile(filepath.Join(work, "new.txt"), []byte("contact "+catName+"\n"), 0o644)
		gitCmd(t, work, "add", ".")
		gitCmd(t, work, "commit", "-q", "-m", "a new leak")
		if strings.HasPrefix(name, "acme/") {
			gitCmd(t, work, "push", "-q", filepath.Join(f.dir, "served", name+".git"), "main")
		}
	}
	runShards()
	// The increment scanned only oldtip..newtip: a second report pair
	// whose range starts at the first run's tip.
	for _, out := range outs {
		m, err := org.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"acme/r11", "work/r00"} {
			d := m.Units[name]
			if d == nil {
				continue
			}
			if len(d.Reports) != 2 || d.Reports[1].From != d.Reports[0].To || d.Tip != d.Reports[1].To {
				t.Errorf("%s: reports %+v, tip %s", name, d.Reports, d.Tip)
			}
		}
		for name, d := range m.Units {
			if name != "acme/r11" && name != "work/r00" && len(d.Reports) != 1 {
				t.Errorf("%s: scanned again (%d reports)", name, len(d.Reports))
			}
		}
	}
	doc, _ = f.merge(t, outs...)
	want2 := f.historyKeys(t)
	if len(want2) != len(want)+2 {
		t.Errorf("history: %d findings after two new leaks, want %d", len(want2), len(want)+2)
	}
	equalKeys(t, mergedKeys(t, doc), want2)

	// Without one shard: its repositories are named as missing.
	doc, errOut := f.merge(t, outs[0], outs[1])
	missing := map[string]bool{}
	for _, n := range doc.Missing {
		missing[n] = true
	}
	for _, u := range p.ShardUnits(2) {
		if !missing[u.Repo] {
			t.Errorf("merge without shard 2 does not name %s", u.Repo)
		}
		if !strings.Contains(errOut, u.Repo) {
			t.Errorf("merge's warning does not name %s", u.Repo)
		}
	}

	// SARIF: one run per repository, valid, distinct categories.
	sarifOut, _, code := f.run(t, f.dir, nil, append([]string{"org", "merge", "--format", "sarif"}, outs...)...)
	if code != 0 {
		t.Fatalf("merge sarif: exit %d", code)
	}
	// Each run, as a log of its own, is valid against the SARIF 2.1.0
	// schema and GitHub's rules (sarifcheck; GitHub takes at most 20
	// runs a file, so the whole log is checked run by run).
	var whole struct {
		Schema  string            `json:"$schema"`
		Version string            `json:"version"`
		Runs    []json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarifOut), &whole); err != nil {
		t.Fatal(err)
	}
	v, err := sarifcheck.NewValidator("../../testdata/schemas/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range whole.Runs {
		one, _ := json.Marshal(map[string]any{"$schema": whole.Schema, "version": whole.Version, "runs": []json.RawMessage{run}})
		if err := v.Validate(one); err != nil {
			t.Errorf("merged SARIF run %d: %v", i, err)
		}
	}
	var log struct {
		Runs []struct {
			AutomationDetails struct {
				ID string `json:"id"`
			} `json:"automationDetails"`
			Results []any `json:"results"`
		} `json:"runs"`
	}
	json.Unmarshal([]byte(sarifOut), &log)
	ids := map[string]bool{}
	results := 0
	for _, r := range log.Runs {
		if ids[r.AutomationDetails.ID] || r.AutomationDetails.ID == "" {
			t.Errorf("run category %q repeated or empty", r.AutomationDetails.ID)
		}
		ids[r.AutomationDetails.ID] = true
		results += len(r.Results)
	}
	if len(log.Runs) != 12 || results != len(want2) {
		t.Errorf("SARIF: %d runs, %d results; want 12 and %d", len(log.Runs), results, len(want2))
	}
	md, _, _ := f.run(t, f.dir, nil, append([]string{"org", "merge", "--format", "markdown"}, outs...)...)
	if !strings.Contains(md, "| acme/r11 | done |") {
		t.Errorf("markdown lacks a repository row:\n%s", md)
	}

	for _, d := range outs {
		f.noLeakTree(t, d)
	}
	// The clones' temporary folders are gone.
	if ents, _ := os.ReadDir(filepath.Join(f.dir, "tmp")); len(ents) != 0 {
		t.Errorf("temporary folders left: %d", len(ents))
	}
}

// TestOrgFailures: a repository that is gone, one whose token is wrong
// and one over the size cap are recorded as failed with fixed reasons;
// the shard goes on and scans the rest.
func TestOrgFailures(t *testing.T) {
	f := newOrg(t, 4)
	repos, _ := os.ReadFile(f.reposTxt)
	extra := "file://" + filepath.ToSlash(filepath.Join(f.dir, "gone")) + "\n" + f.http.URL + "/acme/nothere.git\n"
	os.WriteFile(f.reposTxt, append(repos, extra...), 0o644)
	plan := filepath.Join(f.dir, "plan.json")
	if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "-o", plan); code != 0 {
		t.Fatal(e)
	}
	out := filepath.Join(f.dir, "out")
	// Wrong token: the HTTP repositories fail on auth.
	_, e, code := f.run(t, f.dir, []string{"PRIVSCAN_GIT_TOKEN=" + wrongToken}, "org", "scan", "--plan", plan, "--out", out)
	if code != 0 {
		t.Fatalf("scan: exit %d: %s", code, e)
	}
	m, err := org.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, d := range m.Units {
		reasons[d.Repo] = d.Status + ": " + d.Reason
	}
	want := map[string]string{
		"work/r00": "done: ",
		"work/r01": "done: ",
		"acme/r02": "failed: " + org.ReasonAuth,
		"acme/r03": "failed: " + org.ReasonAuth,
		org.NameFromURL("file://" + filepath.ToSlash(filepath.Join(f.dir, "gone"))): "failed: " + org.ReasonNotFound,
		"acme/nothere": "failed: " + org.ReasonAuth,
	}
	for k, v := range want {
		if reasons[k] != v {
			t.Errorf("%s: %q, want %q", k, reasons[k], v)
		}
	}
	// With the token, a run again finishes what failed.
	if _, e, code := f.run(t, f.dir, nil, "org", "scan", "--plan", plan, "--out", out, "--max-repo-size", "1"); code != 0 {
		t.Fatal(e)
	}
	m, _ = org.ReadManifest(out)
	if d := m.Units["acme/r02"]; d.Status != org.StatusDone {
		t.Errorf("acme/r02 after a run with the token: %s %s", d.Status, d.Reason)
	}
	if d := m.Units["acme/nothere"]; d.Reason != org.ReasonNotFound {
		t.Errorf("acme/nothere with the token: %q", d.Reason)
	}
	md, _, _ := f.run(t, f.dir, nil, "org", "merge", out)
	if !strings.Contains(md, "### Failed") || !strings.Contains(md, "gone: "+org.ReasonNotFound) {
		t.Errorf("markdown lacks the failures:\n%s", md)
	}
	f.noLeakTree(t, out)
}

// TestOrgSizeCap: a clone whose pack exceeds the cap fails with the
// fixed reason and leaves no temporary folder.
func TestOrgSizeCap(t *testing.T) {
	f := newOrg(t, 2)
	big := filepath.Join(f.dir, "big")
	os.MkdirAll(big, 0o755)
	gitCmd(t, big, "init", "-q", "-b", "main")
	var blob []byte
	for i := range 3 {
		rnd := make([]byte, 1<<20)
		x := uint64(i + 1)
		for j := range rnd {
			// xorshift: incompressible, reproducible.
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			rnd[j] = byte(x)
		}
		blob = rnd
		os.WriteFile(filepath.Join(big, fmt.Sprintf("b%d.bin", i)), blob, 0o644)
		gitCmd(t, big, "add", ".")
		gitCmd(t, big, "commit", "-q", "-m", "blob")
	}
	gitCmd(t, f.dir, "clone", "-q", "--bare", big, filepath.Join(f.dir, "served", "acme", "big.git"))
	os.WriteFile(f.reposTxt, []byte(f.http.URL+"/acme/big.git\nfile://"+filepath.ToSlash(big)+"\n"), 0o644)
	plan := filepath.Join(f.dir, "plan.json")
	if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "-o", plan); code != 0 {
		t.Fatal(e)
	}
	out := filepath.Join(f.dir, "out")
	if _, e, code := f.run(t, f.dir, nil, "org", "scan", "--plan", plan, "--out", out, "--max-repo-size", "1"); code != 0 {
		t.Fatal(e)
	}
	m, _ := org.ReadManifest(out)
	var got []string
	for _, d := range m.Units {
		got = append(got, d.Status+": "+d.Reason)
	}
	sort.Strings(got)
	if len(got) != 2 || got[0] != "failed: "+org.ReasonTooLarge || got[1] != "failed: "+org.ReasonTooLarge {
		t.Errorf("size cap: %v", got)
	}
	if ents, _ := os.ReadDir(filepath.Join(f.dir, "tmp")); len(ents) != 0 {
		t.Errorf("temporary folders left: %d", len(ents))
	}
}

// TestMergeManyRunsWarns: a merged SARIF log of more repositories than
// GitHub takes runs in one file says so and points to the per-repository
// reports; up to the limit it says nothing.
func TestMergeManyRunsWarns(t *testing.T) {
	f := newOrg(t, 0)
	seed := filepath.Join(f.dir, "seed")
	makeRepo(t, seed, 0)
	var lines []string
	for i := range sarifcheck.MaxRuns + 1 {
		dir := filepath.Join(f.dir, "work", fmt.Sprintf("c%02d", i))
		gitCmd(t, f.dir, "clone", "-q", seed, dir)
		lines = append(lines, "file://"+filepath.ToSlash(dir))
	}
	plan := filepath.Join(f.dir, "plan.json")
	out := filepath.Join(f.dir, "out")
	for _, n := range []int{sarifcheck.MaxRuns, sarifcheck.MaxRuns + 1} {
		os.WriteFile(f.reposTxt, []byte(strings.Join(lines[:n], "\n")+"\n"), 0o644)
		if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "-o", plan); code != 0 {
			t.Fatal(e)
		}
		if _, e, code := f.run(t, f.dir, nil, "org", "scan", "--plan", plan, "--out", out); code != 0 {
			t.Fatal(e)
		}
		o, e, code := f.run(t, f.dir, nil, "org", "merge", "--format", "sarif", out)
		var log struct{ Runs []json.RawMessage }
		if code != 0 || json.Unmarshal([]byte(o), &log) != nil || len(log.Runs) != n {
			t.Fatalf("%d repositories: exit %d, %d runs: %s", n, code, len(log.Runs), e)
		}
		if warned := strings.Contains(e, "GitHub code scanning takes at most 20") && strings.Contains(e, "reports/<name>/*.sarif"); warned != (n > sarifcheck.MaxRuns) {
			t.Errorf("%d repositories: warned %v: %q", n, warned, e)
		}
	}
}
