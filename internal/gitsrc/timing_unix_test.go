//go:build unix

package gitsrc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/privscan/privscan/scanner"
)

// TestCompareWithGitLog times History against `git log -p` on the
// benchmark repository (median of 5 each). It only runs when
// PRIVSCAN_GIT_TIMING is set; it reports, it does not assert.
func TestCompareWithGitLog(t *testing.T) {
	if os.Getenv("PRIVSCAN_GIT_TIMING") == "" {
		t.Skip("set PRIVSCAN_GIT_TIMING=1 to time History against git log -p")
	}
	dir := filepath.Join(t.TempDir(), "bench")
	n := benchCommits
	if v := os.Getenv("PRIVSCAN_GIT_TIMING_COMMITS"); v != "" {
		fmt.Sscan(v, &n)
	}
	generateRepo(t, dir, n)
	// median returns the median wall time and CPU time (user+system) of
	// five runs; f returns the CPU time it used.
	median := func(f func() time.Duration) (time.Duration, time.Duration) {
		var ds, cs []time.Duration
		for i := 0; i < 5; i++ {
			start := time.Now()
			cs = append(cs, f())
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
		return ds[2], cs[2]
	}
	selfCPU := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	gitLog, gitCPU := median(func() time.Duration {
		cmd := exec.Command("git", "log", "-p", "--no-color")
		cmd.Dir = dir
		cmd.Env = gitEnv(dir)
		cmd.Stdout = nil
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	})
	for _, w := range []int{1, 2} {
		ours, oursCPU := median(func() time.Duration {
			c0 := selfCPU()
			r := open(t, dir)
			r.SetWorkers(w)
			src, err := r.History("", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := src.Fragments(context.Background(), func(*scanner.Fragment) error { return nil }); err != nil {
				t.Fatal(err)
			}
			return selfCPU() - c0
		})
		t.Logf("%d commits: History (%d workers) wall %v cpu %v; git log -p wall %v cpu %v; wall ratio %.2f, cpu ratio %.2f",
			n, w, ours, oursCPU, gitLog, gitCPU, float64(ours)/float64(gitLog), float64(oursCPU)/float64(gitCPU))
	}
	diff, _ := median(func() time.Duration {
		r := open(t, dir)
		src, err := r.Diff(DiffOptions{Revs: []string{"HEAD~1"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Fragments(context.Background(), func(*scanner.Fragment) error { return nil }); err != nil {
			t.Fatal(err)
		}
		return 0
	})
	t.Logf("Diff HEAD~1 (open, resolve, diff with worktree): %v", diff)
}
