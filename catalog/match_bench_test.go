package catalog_test

import (
	"bytes"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/synth"
)

var benchSizes = []struct {
	name string
	n    int
}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}}

var (
	benchMu   sync.Mutex
	benchCats = map[int]*catalog.Catalog{}
)

func benchCatalog(n int) *catalog.Catalog {
	benchMu.Lock()
	defer benchMu.Unlock()
	if c, ok := benchCats[n]; ok {
		return c
	}
	c := synth.Catalog(1, n)
	benchCats[n] = c
	return c
}

// cpuTime returns the CPU time the process has used. Benchmarks report
// throughput per CPU second too, which stays meaningful when other
// processes share the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompile reports, besides time, the heap the compiled matcher
// retains (retained-MB) and the bytes Compile allocates (alloc-MB/op), an
// upper bound of its peak heap growth.
func BenchmarkCompile(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			c := benchCatalog(sz.n)
			key := []byte("bench-key")
			var m *catalog.Matcher
			var err error
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				m = nil
				m, err = catalog.Compile(c, &catalog.CompileOptions{HashKey: key})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "retained-MB")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "alloc-MB/op")
			runtime.KeepAlive(m)
		})
	}
}

// BenchmarkFind scans synthetic source text (1 MiB, about one line in 40
// holding a catalog value) line by line.
func BenchmarkFind(b *testing.B) {
	for _, sz := range benchSizes {
		for _, form := range []string{"", "-literal", "-sealed"} {
			b.Run(sz.name+form, func(b *testing.B) { benchFind(b, sz.n, form) })
		}
	}
}

// benchFind is BenchmarkFind of the catalog of n values: form "" is the
// whole catalog compiled, "-literal" its literal and identifier rules
// compiled, "-sealed" those sealed and loaded (the matcher checks its
// table pages as the first iteration reads them).
func benchFind(b *testing.B, n int, form string) {
	c := benchCatalog(n)
	if form != "" {
		c = literalOnly(c)
	}
	m, err := catalog.Compile(c, &catalog.CompileOptions{HashKey: []byte("bench-key")})
	if err != nil {
		b.Fatal(err)
	}
	if form == "-sealed" {
		var buf bytes.Buffer
		key := bytes.Repeat([]byte{1}, catalog.SealKeySize)
		if err := catalog.Seal(&buf, c, key, nil); err != nil {
			b.Fatal(err)
		}
		if m, _, err = catalog.LoadSealed(buf.Bytes(), key); err != nil {
			b.Fatal(err)
		}
	}
	vals := synth.Values(1, n)
	var plant []string
	for i := 0; i < len(vals); i += len(vals) / 500 {
		plant = append(plant, vals[i])
	}
	text := synth.Text(2, 1<<20, plant)
	var lines [][]byte
	for l := range bytes.Lines(text) {
		lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
	}
	dst := make([]catalog.Match, 0, 64)
	hits := 0
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		hits = 0
		for _, l := range lines {
			dst = m.Find(l, dst[:0])
			hits += len(dst)
		}
	}
	b.StopTimer()
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(text))*float64(b.N)/(1<<20)/cpu.Seconds(), "cpu-MB/s")
	}
	if hits < 500 {
		b.Fatalf("only %d matches", hits)
	}
	b.ReportMetric(float64(hits), "matches/op")
}

// TestCompilePeakMemory measures Compile's peak heap for a large synthetic
// catalog (skipped in -short mode) against the 100 MB per 1M values budget.
func TestCompilePeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large catalog")
	}
	n := 200_000
	c := synth.Catalog(1, n)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var hi uint64
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				peak <- hi
				return
			default:
			}
			runtime.ReadMemStats(&ms)
			hi = max(hi, ms.HeapAlloc)
		}
	}()
	m, err := catalog.Compile(c, nil)
	close(stop)
	hi := <-peak
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	retained := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
	grow := float64(int64(hi)-int64(before.HeapAlloc)) / (1 << 20)
	t.Logf("%d values: retained %.1f MB, peak growth %.1f MB", n, retained, grow)
	// Budget: 100 MB for 1M values, scaled.
	if limit := 100.0 * float64(n) / 1e6; grow > limit {
		t.Errorf("peak heap growth %.1f MB over the %.1f MB budget", grow, limit)
	}
	runtime.KeepAlive(m)
	runtime.KeepAlive(c)
}
