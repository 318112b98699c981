package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("results.jsonl", `{"group":"history","label":"privscan history","runs":5,"minMs":900,"medianMs":1000,"maxMs":1100,"medianCpuMs":1500,"peakRssMb":80}
{"group":"history","label":"gitleaks git (re2)","runs":5,"minMs":1100,"medianMs":1250,"maxMs":1300,"medianCpuMs":1400,"peakRssMb":90}
{"group":"history","label":"git log -p","runs":5,"minMs":400,"medianMs":500,"maxMs":600,"medianCpuMs":450,"peakRssMb":50}
{"group":"diff","label":"privscan diff HEAD~1","runs":30,"medianMs":120}
{"group":"mcp","label":"mcp scan_diff warm","runs":50,"medianMs":12,"p90Ms":20}
{"group":"compile","label":"compile 1M","runs":5,"medianMs":800,"peakRssMb":140}
`)
	write("compile-phases.jsonl", `{"values":1000003,"parseMs":300,"compileMs":500,"retainedHeapMb":40}
`)
	write("gobench.txt", `BenchmarkFind/100k   	     100	  10000000 ns/op	 104.86 MB/s	 110.0 cpu-MB/s	 600 matches/op
BenchmarkFind/100k   	     100	  10000000 ns/op	 204.86 MB/s	 210.0 cpu-MB/s	 600 matches/op
BenchmarkFind/100k   	     100	  10000000 ns/op	 184.86 MB/s	 190.0 cpu-MB/s	 600 matches/op
BenchmarkFind/1M-2   	     100	  10000000 ns/op	 50.00 MB/s	 55.0 cpu-MB/s	 600 matches/op
BenchmarkCompile/1M         	       3	 700000000 ns/op	        31.23 alloc-MB/op	       690.0 cpu-ms/op	        29.70 retained-MB
BenchmarkCompile/1M         	       3	 600000000 ns/op	        31.23 alloc-MB/op	       590.0 cpu-ms/op	        29.70 retained-MB
BenchmarkCompile/1M         	       3	 1200000000 ns/op	        31.23 alloc-MB/op	       1190.0 cpu-ms/op	        29.70 retained-MB
`)
	var out bytes.Buffer
	if err := run([]string{"-dir", dir, "-note", "loaded"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"| `history` vs `gitleaks git` (re2 build), same range | ≤ 1.0× wall | 0.80× (1000 / 1250 ms); CPU 1.07× | met |",
		"| `history` vs the `git log -p` floor | ≤ 1.5× wall | 2.00×",
		"**missed** by 33 %",
		"| 120.0 ms | **missed** by 20 %",
		"| 12.0 ms (p90 20.0) | met |",
		"**missed**: RSS by 40 %",
		"184.9 MB/s (per CPU second: 190.0) | met |",
		"50.0 MB/s (per CPU second: 55.0) | **missed** by 38 %",
		"| 1000003 | 0 | 300 | 500 | 40.0 |",
		"**Conditions:** loaded",
		"| catalog compile, 1M literals (`BenchmarkCompile/1M`, one core) | ≤ 1 s, ≤ 100 MB | 700 ms (CPU 690 ms), 31.2 MB allocated, 29.7 MB retained | met |",
		"| 1M | 700.0 | 690.0 | 31.2 | 29.7 |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if err := run([]string{"-dir", t.TempDir()}, &out); err == nil {
		t.Error("missing results: no error")
	}
}
