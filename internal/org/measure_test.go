package org_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/privscan/privscan/internal/org"
)

// TestMeasure times a local organisation scanned with 1, 2 and 4 shard
// processes, and each repository's open (clone) and scan. It runs only
// with PRIVSCAN_ORG_MEASURE=<repositories> (docs/org.md quotes its
// figures); PRIVSCAN_ORG_MEASURE_COMMITS sets the commits per repository
// (default 40).
func TestMeasure(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PRIVSCAN_ORG_MEASURE"))
	if n < 2 {
		t.Skip("set PRIVSCAN_ORG_MEASURE=<repositories> to measure")
	}
	commits, _ := strconv.Atoi(os.Getenv("PRIVSCAN_ORG_MEASURE_COMMITS"))
	if commits < 1 {
		commits = 40
	}
	f := newOrg(t, 0)
	serve := filepath.Join(f.dir, "served")
	var lines []string
	for i := range n {
		name := fmt.Sprintf("m%03d", i)
		work := filepath.Join(f.dir, "work", name)
		os.MkdirAll(work, 0o755)
		gitCmd(t, work, "init", "-q", "-b", "main")
		for c := range commits {
			var b strings.Builder
			for l := range 40 {
				fmt.Fprintf(&b, "func f%d_%d() { return %d } // line of repo %d\n", c, l, l*c, i)
			}
			if c%10 == 3 {
				b.WriteString("// owner: " + catName + "\n")
			}
			os.WriteFile(filepath.Join(work, fmt.Sprintf("f%d.go", c%8)), []byte(b.String()), 0o644)
			gitCmd(t, work, "add", ".")
			gitCmd(t, work, "commit", "-q", "-m", fmt.Sprintf("change %d", c))
		}
		if i%2 == 0 {
			lines = append(lines, "file://"+filepath.ToSlash(work))
			continue
		}
		gitCmd(t, f.dir, "clone", "-q", "--bare", work, filepath.Join(serve, "acme", name+".git"))
		lines = append(lines, f.http.URL+"/acme/"+name+".git")
	}
	os.WriteFile(f.reposTxt, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	for _, shards := range []int{1, 2, 4} {
		plan := filepath.Join(f.dir, fmt.Sprintf("plan%d.json", shards))
		if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "--shards", fmt.Sprint(shards), "-o", plan); code != 0 {
			t.Fatal(e)
		}
		start := time.Now()
		var wg sync.WaitGroup
		var outs []string
		for i := range shards {
			out := filepath.Join(f.dir, fmt.Sprintf("out%d-%d", shards, i))
			outs = append(outs, out)
			cmd := f.proc(t, nil, "org", "scan", "--plan", plan, "--shard", fmt.Sprint(i), "--out", out)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("shard %d: %v %s", i, err, b)
				}
			}()
		}
		wg.Wait()
		wall := time.Since(start)
		var open, scan [2]float64 // file, http
		var cnt [2]int
		for _, out := range outs {
			m, err := org.ReadManifest(out)
			if err != nil {
				t.Fatal(err)
			}
			for id, d := range m.Units {
				if d.Status != org.StatusDone {
					t.Errorf("%s: %s", id, d.Reason)
				}
				k := 0
				if strings.HasPrefix(d.Repo, "acme/") {
					k = 1
				}
				open[k] += d.OpenSeconds
				scan[k] += d.ScanSeconds
				cnt[k]++
			}
		}
		doc, _ := f.merge(t, outs...)
		t.Logf("%d repositories × %d commits, %d shard processes: wall %.2fs (%.1f ms/repository); findings %d", n, commits, shards,
			wall.Seconds(), wall.Seconds()*1000/float64(n), len(doc.Findings))
		for k, kind := range []string{"file (open in place)", "smart HTTP (clone)"} {
			if cnt[k] > 0 {
				t.Logf("  %s: open %.1f ms, scan %.1f ms per repository (mean of %d)", kind, open[k]*1000/float64(cnt[k]), scan[k]*1000/float64(cnt[k]), cnt[k])
			}
		}
	}
}
