package gitsrc

import (
	"context"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/privscan/privscan/scanner"
)

// TestPackCacheSizes measures the history walk of a real repository with
// several sizes of the decompressed-object cache: its hit rate, wall and
// CPU time and the peak of live heap objects, and how often the blob
// cache gave a blob's records already split. It runs only when
// PRIVSCAN_HISTORY_REPO names a repository (PRIVSCAN_HISTORY_RANGE, the
// range; all of HEAD by default; PRIVSCAN_BLOB_CACHE_KIB, the blob cache's
// size; PRIVSCAN_ENDS_CACHE_KIB, the record ends cache's, by default an eighth
// of the pack cache's):
//
//	PRIVSCAN_HISTORY_REPO=/path/to/repo go test ./internal/gitsrc -run TestPackCacheSizes -v
func TestPackCacheSizes(t *testing.T) {
	dir := os.Getenv("PRIVSCAN_HISTORY_REPO")
	if dir == "" {
		t.Skip("PRIVSCAN_HISTORY_REPO not set")
	}
	rng := os.Getenv("PRIVSCAN_HISTORY_RANGE")
	blobKiB := 0
	if v := os.Getenv("PRIVSCAN_BLOB_CACHE_KIB"); v != "" {
		blobKiB, _ = strconv.Atoi(v)
	}
	endsKiB := 0
	if v := os.Getenv("PRIVSCAN_ENDS_CACHE_KIB"); v != "" {
		endsKiB, _ = strconv.Atoi(v)
	}
	for _, mb := range []int{4, 8, 12, 16, 32, 64} {
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		r.limits.pack = mb << 20
		if blobKiB > 0 {
			r.limits.blob = blobKiB << 10
		}
		if endsKiB > 0 {
			r.limits.ends = endsKiB << 10
		}
		src, err := r.History(rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		peak := make(chan uint64)
		stop := make(chan struct{})
		go func() {
			s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			tk := time.NewTicker(5 * time.Millisecond)
			defer tk.Stop()
			var p uint64
			for {
				metrics.Read(s)
				p = max(p, s[0].Value.Uint64())
				select {
				case <-stop:
					peak <- p
					return
				case <-tk.C:
				}
			}
		}()
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		t0 := time.Now()
		lines := 0
		err = src.Fragments(context.Background(), func(f *scanner.Fragment) error {
			lines += len(f.Lines)
			return nil
		})
		wall := time.Since(t0)
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		close(stop)
		p := <-peak
		if err != nil {
			t.Fatal(err)
		}
		cpu := time.Duration(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano()) * time.Nanosecond
		c := r.packSet().cache
		h, m := c.hits.Load(), c.misses.Load()
		t.Logf("pack cache %3d MiB: hits %8d misses %8d hit rate %5.1f%%  wall %6.0f ms  cpu %6.0f ms  peak live heap %5.1f MiB  (%d lines)",
			mb, h, m, 100*float64(h)/float64(max(h+m, 1)), wall.Seconds()*1000, cpu.Seconds()*1000, float64(p)/(1<<20), lines)
		bc := src.(*historySource).blobs
		rh, rm := bc.recHits.Load(), bc.recMisses.Load()
		hb, mb := bc.recHitBytes.Load(), bc.recMissBytes.Load()
		t.Logf("  blob cache %d KiB, ends cache %d KiB: records reused %d, split %d (%.1f%% reused; %.1f%% of the bytes)",
			r.limits.blob>>10, bc.endsMax>>10, rh, rm, 100*float64(rh)/float64(max(rh+rm, 1)), 100*float64(hb)/float64(max(hb+mb, 1)))
		r.Close()
	}
}
