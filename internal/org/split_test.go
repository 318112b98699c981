package org_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/org"
)

// TestSplitHistory: one large history (with a merge) split into 3 commit
// ranges over 3 shards is scanned exactly once in all: the merge equals
// privscan history finding for finding; a later commit goes to the last
// part only.
func TestSplitHistory(t *testing.T) {
	f := newOrg(t, 0)
	work := filepath.Join(f.dir, "work", "big")
	makeRepo(t, work, 0)
	gitCmd(t, work, "checkout", "-q", "-b", "side")
	for c := range 3 {
		os.WriteFile(filepath.Join(work, fmt.Sprintf("side%d.txt", c)), []byte("side "+catName+fmt.Sprint(c)+"\n"), 0o644)
		gitCmd(t, work, "add", ".")
		gitCmd(t, work, "commit", "-q", "-m", "side")
	}
	gitCmd(t, work, "checkout", "-q", "main")
	for c := range 7 {
		os.WriteFile(filepath.Join(work, fmt.Sprintf("main%d.txt", c)), []byte(fmt.Sprintf("main %d %s\n", c, catName)), 0o644)
		gitCmd(t, work, "add", ".")
		gitCmd(t, work, "commit", "-q", "-m", "main")
		if c == 3 {
			gitCmd(t, work, "merge", "-q", "--no-ff", "-m", "merge side", "side")
		}
	}
	f.work = map[string]string{"work/big": work}
	os.WriteFile(f.reposTxt, []byte("file://"+filepath.ToSlash(work)+" 100\n"), 0o644)
	plan := filepath.Join(f.dir, "plan.json")
	if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "--shards", "3", "--split-size", "30", "-o", plan); code != 0 {
		t.Fatal(e)
	}
	p, _ := org.LoadPlan(plan)
	if len(p.Units) != 3 || p.Units[0].Parts != 3 {
		t.Fatalf("units %+v", p.Units)
	}
	var outs []string
	for i := range 3 {
		out := filepath.Join(f.dir, fmt.Sprintf("out%d", i))
		outs = append(outs, out)
		if _, e, code := f.run(t, f.dir, nil, "org", "scan", "--plan", plan, "--shard", fmt.Sprint(i), "--out", out); code != 0 {
			t.Fatal(e)
		}
	}
	want := f.historyKeys(t)
	doc, _ := f.merge(t, outs...)
	equalKeys(t, mergedKeys(t, doc), want)
	// Each part scanned something: the split is real.
	for i, out := range outs {
		m, _ := org.ReadManifest(out)
		for _, d := range m.Units {
			if len(d.Reports) != 1 {
				t.Errorf("shard %d: part %d has %d reports", i, d.Part, len(d.Reports))
			}
		}
	}
	// A new commit: only the last part's shard scans it.
	os.WriteFile(filepath.Join(work, "late.txt"), []byte("late "+catName+"\n"), 0o644)
	gitCmd(t, work, "add", ".")
	gitCmd(t, work, "commit", "-q", "-m", "late")
	for i, out := range outs {
		_, e, code := f.run(t, f.dir, nil, "org", "scan", "--plan", plan, "--shard", fmt.Sprint(i), "--out", out)
		if code != 0 {
			t.Fatal(e)
		}
		last := p.ShardUnits(i)[0].Part == 2
		if got := strings.Contains(e, "1 scanned"); got != last {
			t.Errorf("shard %d (last part %v): %s", i, last, e)
		}
	}
	doc, _ = f.merge(t, outs...)
	equalKeys(t, mergedKeys(t, doc), f.historyKeys(t))
}

// TestResume: a shard killed after some repositories resumes with the
// rest: what the manifest records is not scanned again.
func TestResume(t *testing.T) {
	f := newOrg(t, 4)
	plan := filepath.Join(f.dir, "plan.json")
	if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "-o", plan); code != 0 {
		t.Fatal(e)
	}
	out := filepath.Join(f.dir, "out")
	if _, e, code := f.run(t, f.dir, nil, "org", "scan", "--plan", plan, "--out", out); code != 0 || !strings.Contains(e, "4 scanned, 0 up to date") {
		t.Fatalf("first run: %d %s", code, e)
	}
	// As if killed before the last two units were recorded: the
	// manifest holds the first two (a report written without its record
	// is overwritten).
	m, _ := org.ReadManifest(out)
	delete(m.Units, "acme/r02")
	delete(m.Units, "acme/r03")
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	_, e, code := f.run(t, f.dir, nil, "org", "scan", "--plan", plan, "--out", out)
	if code != 0 || !strings.Contains(e, "2 scanned, 2 up to date, 0 failed") {
		t.Fatalf("resume: %d %s", code, e)
	}
	doc, _ := f.merge(t, out)
	equalKeys(t, mergedKeys(t, doc), f.historyKeys(t))
}

// TestInterruptResume: a shard interrupted during its third repository
// (its context cancelled, as on SIGINT or a pod's termination) has
// recorded the first two; run again, it scans the rest only, and the
// merge equals privscan history.
func TestInterruptResume(t *testing.T) {
	f := newOrg(t, 6)
	plan := filepath.Join(f.dir, "plan.json")
	if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "-o", plan); code != 0 {
		t.Fatal(e)
	}
	p, err := org.LoadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Config{Getenv: f.getenv()})
	m, _, err := eng.Catalog("")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(f.dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := org.ScanOptions{Plan: p, Out: out, Engine: eng, Matcher: m, Getenv: f.getenv(), TempDir: filepath.Join(f.dir, "tmp"),
		Progress: func(i, n int) {
			if i == 3 {
				cancel()
			}
		}}
	if _, err := org.Scan(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted scan: %v", err)
	}
	man, _ := org.ReadManifest(out)
	if len(man.Units) != 2 {
		t.Fatalf("%d units recorded before the interruption, want 2", len(man.Units))
	}
	o.Progress = nil
	res, err := org.Scan(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scanned != 4 || res.Skipped != 2 || res.Failed != 0 {
		t.Errorf("resumed: %+v, want 4 scanned and 2 skipped", res)
	}
	doc, _ := f.merge(t, out)
	equalKeys(t, mergedKeys(t, doc), f.historyKeys(t))
}

// TestKillResume: a shard process killed with SIGKILL (no handler runs, as
// on a node's loss or an OOM kill) while it clones one repository over
// HTTP has recorded only what it finished; run again with the same --out,
// it scans the rest only and the merge equals privscan history. The
// clone's request is held at a gate until the kill, so the test knows the
// shard is mid-repository without waiting on a clock.
func TestKillResume(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	f := newOrg(t, 6)
	backend, _ := url.Parse(f.http.URL)
	proxy := httputil.NewSingleHostReverseProxy(backend)
	var hold atomic.Bool
	hold.Store(true)
	arrived := make(chan struct{})
	var once sync.Once
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold.Load() && strings.Contains(r.URL.Path, "/acme/r04.git/") {
			once.Do(func() { close(arrived) })
			<-r.Context().Done() // held until the client dies
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(gate.Close)
	repos, _ := os.ReadFile(f.reposTxt)
	os.WriteFile(f.reposTxt, []byte(strings.ReplaceAll(string(repos), f.http.URL, gate.URL)), 0o644)
	plan := filepath.Join(f.dir, "plan.json")
	if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "-o", plan); code != 0 {
		t.Fatal(e)
	}
	out := filepath.Join(f.dir, "out")
	cmd := f.proc(t, nil, "org", "scan", "--plan", plan, "--out", out)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-arrived:
	case err := <-exited:
		t.Fatalf("the shard ended before reaching the held repository: %v: %s", err, errb.String())
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	f.noLeak(t, "the killed shard's stderr", errb.String())

	man, err := org.ReadManifest(out)
	if err != nil {
		t.Fatalf("the manifest after SIGKILL: %v", err)
	}
	if man.Units["acme/r04"] != nil {
		t.Fatal("the repository being cloned at the kill is recorded")
	}
	before := len(man.Units)
	t.Logf("%d of 6 repositories recorded before the kill", before)
	f.noLeakTree(t, out)

	hold.Store(false)
	_, e, code := f.run(t, f.dir, nil, "org", "scan", "--plan", plan, "--out", out)
	if want := fmt.Sprintf("%d scanned, %d up to date, 0 failed", 6-before, before); code != 0 || !strings.Contains(e, want) {
		t.Fatalf("resume after SIGKILL: exit %d: %s (want %q)", code, e, want)
	}
	doc, _ := f.merge(t, out)
	equalKeys(t, mergedKeys(t, doc), f.historyKeys(t))
	f.noLeakTree(t, out)
	f.noLeakTree(t, filepath.Join(f.dir, "tmp"))
}
