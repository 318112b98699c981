// Command report turns the raw results of bench/run into a Markdown report:
// the machine, the repository, the performance targets with their status, and a
// table per figure (min/median/max wall time, CPU time, peak RSS, ratios of
// medians).
//
// Usage (bench/run calls it):
//
//	report -dir OUT [-note TEXT] [-load-start "0.5 0.6 0.7"]
//
// It reads OUT/results.jsonl (bench/cmd/measure and bench/cmd/mcplat),
// OUT/compile-phases.jsonl (bench/cmd/compile), OUT/gobench.txt (go test
// -bench output), OUT/repo.json (bench/cmd/genrepo -summary, optional),
// OUT/range.json (range facts from bench/run), OUT/privscan-history.json and
// OUT/gitleaks-history.json (one untimed run each, for finding counts),
// OUT/notes.txt and OUT/profile.txt (optional).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// Result is one measured command (the fields report uses from measure's
// and mcplat's JSON lines).
type Result struct {
	Group     string    `json:"group"`
	Label     string    `json:"label"`
	Argv      []string  `json:"argv"`
	Runs      int       `json:"runs"`
	WallMS    []float64 `json:"wallMs"`
	MinMS     float64   `json:"minMs"`
	MedianMS  float64   `json:"medianMs"`
	P90MS     float64   `json:"p90Ms"`
	MaxMS     float64   `json:"maxMs"`
	MedianCPU float64   `json:"medianCpuMs"`
	PeakRSSMB float64   `json:"peakRssMb"`
	StartMS   float64   `json:"startMs"`
	Findings  int       `json:"findings"`
}

type report struct {
	dir     string
	results []Result
	bench   map[string]map[string]float64 // goBench of gobench.txt
	w       *bytes.Buffer
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	dir := fs.String("dir", "", "bench/run output directory")
	note := fs.String("note", "", "a note on the conditions of this run")
	loadStart := fs.String("load-start", "", "load average when the run started")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("-dir is required")
	}
	r := &report{dir: *dir, w: &bytes.Buffer{}}
	if err := readJSONL(filepath.Join(*dir, "results.jsonl"), &r.results); err != nil {
		return err
	}
	r.bench = goBench(r.file("gobench.txt"))
	r.header(*note, *loadStart)
	r.targets()
	r.history()
	r.diff()
	r.mcp()
	r.compile()
	r.gobench()
	r.notes()
	_, err := stdout.Write(r.w.Bytes())
	return err
}

func readJSONL[T any](path string, out *[]T) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for l := range bytes.Lines(b) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(l, &v); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		*out = append(*out, v)
	}
	return nil
}

func (r *report) printf(format string, a ...any) { fmt.Fprintf(r.w, format, a...) }

func (r *report) get(group, label string) *Result {
	for i := range r.results {
		if r.results[i].Group == group && r.results[i].Label == label {
			return &r.results[i]
		}
	}
	return nil
}

func (r *report) file(name string) []byte {
	b, _ := os.ReadFile(filepath.Join(r.dir, name))
	return b
}

// Machine returns a host-name-free description of this machine.
func Machine() (cpu string, cores int, ramGB float64) {
	cores = runtime.NumCPU()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for l := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.Join(strings.Fields(v), " ")
				break
			}
		}
	}
	if cpu == "" {
		cpu = runtime.GOARCH
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for l := range strings.SplitSeq(string(b), "\n") {
			if rest, ok := strings.CutPrefix(l, "MemTotal:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
				ramGB = kb / (1 << 20)
			}
		}
	}
	return cpu, cores, ramGB
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func gitVersion() string {
	out, err := exec.Command("git", "version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "git version ")
}

func (r *report) header(note, loadStart string) {
	cpu, cores, ram := Machine()
	r.printf("# privscan benchmark, %s\n\n", time.Now().UTC().Format("2006-01-02"))
	r.printf("Produced by `bench/run` (see [bench/README.md](../README.md)). ")
	r.printf("All times are wall-clock milliseconds of whole processes unless marked; ratios are ratios of medians.\n\n")
	r.printf("| machine | |\n| --- | --- |\n")
	r.printf("| CPU | %s |\n| cores | %d |\n| RAM | %.0f GiB |\n| OS | %s/%s |\n| Go | %s |\n| git | %s |\n",
		cpu, cores, ram, runtime.GOOS, runtime.GOARCH, runtime.Version(), gitVersion())
	if loadStart != "" {
		r.printf("| load average (1/5/15 min) | %s at start, %s at end |\n", loadStart, loadavg())
	}
	r.printf("\n")
	if note != "" {
		r.printf("**Conditions:** %s\n\n", note)
	}
	var rg struct {
		Source        string `json:"source"`
		Range         string `json:"range"`
		Commits       int    `json:"commits"`
		NonMerge      int    `json:"nonMergeCommits"`
		LastAdded     int    `json:"lastCommitAddedLines"`
		PatchBytes    int64  `json:"gitLogPatchBytes"`
		AddedLines    int64  `json:"gitLogAddedLines"`
		HeadFiles     int    `json:"headFiles"`
		GitleaksFlags string `json:"gitleaksLogOpts"`
	}
	if json.Unmarshal(r.file("range.json"), &rg) == nil {
		r.printf("**Repository:** %s. Range `%s`: %d commits (%d non-merge); `git log -p -U0` output %.1f MB, %d added lines; %d files at HEAD; HEAD adds %d lines.\n\n",
			rg.Source, rg.Range, rg.Commits, rg.NonMerge, float64(rg.PatchBytes)/(1<<20), rg.AddedLines, rg.HeadFiles, rg.LastAdded)
	}
	if b := r.file("repo.json"); len(b) > 0 {
		var s map[string]any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if d.Decode(&s) == nil {
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range s {
					if !yield(k) {
						return
					}
				}
			})
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s %v", k, s[k]))
			}
			r.printf("Generator summary: %s.\n\n", strings.Join(parts, ", "))
		}
	}
}

type status struct {
	figure, target, measured, verdict string
}

func ratio(a, b *Result) float64 {
	if a == nil || b == nil || b.MedianMS == 0 {
		return 0
	}
	return a.MedianMS / b.MedianMS
}

func cpuRatio(a, b *Result) float64 {
	if a == nil || b == nil || b.MedianCPU == 0 {
		return 0
	}
	return a.MedianCPU / b.MedianCPU
}

func verdict(ok bool, measured, target float64, lowerBetter bool) string {
	if ok {
		return "met"
	}
	if lowerBetter {
		return fmt.Sprintf("**missed** by %.0f %%", (measured/target-1)*100)
	}
	return fmt.Sprintf("**missed** by %.0f %%", (1-measured/target)*100)
}

const (
	labelHistory = "privscan history"
	labelRE2     = "gitleaks git (re2)"
	labelPlain   = "gitleaks git"
	labelGitLog  = "git log -p"
	labelDiff    = "privscan diff HEAD~1"
	labelMCP     = "mcp scan_diff warm"
)

func (r *report) targets() {
	var rows []status
	h, re2, gl := r.get("history", labelHistory), r.get("history", labelRE2), r.get("history", labelGitLog)
	if x := ratio(h, re2); x > 0 {
		rows = append(rows, status{"`history` vs `gitleaks git` (re2 build), same range", "≤ 1.0× wall",
			fmt.Sprintf("%.2f× (%.0f / %.0f ms); CPU %.2f×", x, h.MedianMS, re2.MedianMS, cpuRatio(h, re2)), verdict(x <= 1.0, x, 1.0, true)})
	}
	if x := ratio(h, gl); x > 0 {
		rows = append(rows, status{"`history` vs the `git log -p` floor", "≤ 1.5× wall",
			fmt.Sprintf("%.2f× (%.0f / %.0f ms); CPU %.2f×", x, h.MedianMS, gl.MedianMS, cpuRatio(h, gl)), verdict(x <= 1.5, x, 1.5, true)})
	}
	if d := r.get("diff", labelDiff); d != nil {
		rows = append(rows, status{"`diff HEAD~1`, 10k catalog, cold process", "≤ 100 ms median",
			fmt.Sprintf("%.1f ms", d.MedianMS), verdict(d.MedianMS <= 100, d.MedianMS, 100, true)})
	}
	if m := r.get("mcp", labelMCP); m != nil {
		rows = append(rows, status{"MCP `scan_diff` warm, HEAD~1..HEAD", "≤ 30 ms median",
			fmt.Sprintf("%.1f ms (p90 %.1f)", m.MedianMS, m.P90MS), verdict(m.MedianMS <= 30, m.MedianMS, 30, true)})
	}
	if c := r.get("compile", "compile 1M"); c != nil {
		ok := c.MedianMS <= 1000 && c.PeakRSSMB <= 100
		v := "met"
		if !ok {
			var parts []string
			if c.MedianMS > 1000 {
				parts = append(parts, fmt.Sprintf("time by %.0f %%", (c.MedianMS/1000-1)*100))
			}
			if c.PeakRSSMB > 100 {
				parts = append(parts, fmt.Sprintf("RSS by %.0f %%", (c.PeakRSSMB/100-1)*100))
			}
			v = "**missed**: " + strings.Join(parts, ", ")
		}
		rows = append(rows, status{"catalog parse + compile end to end, 1M literals (whole process, both cores)", "≤ 1 s, ≤ 100 MB RSS",
			fmt.Sprintf("%.0f ms (CPU %.0f ms), %.0f MB", c.MedianMS, c.MedianCPU, c.PeakRSSMB), v})
	}
	if c, ok := r.compileBench("1M"); ok {
		v := "met"
		if c.ms > 1000 || c.allocMB > 100 {
			v = fmt.Sprintf("**missed**: %.0f ms, %.0f MB", c.ms, c.allocMB)
		}
		rows = append(rows, status{"catalog compile, 1M literals (`BenchmarkCompile/1M`, one core)", "≤ 1 s, ≤ 100 MB",
			fmt.Sprintf("%.0f ms (CPU %.0f ms), %.1f MB allocated, %.1f MB retained", c.ms, c.cpuMS, c.allocMB, c.retainedMB), v})
	}
	for _, t := range []struct {
		size   string
		target float64
	}{{"100k", 150}, {"1M", 80}} {
		if b, ok := r.findBench(t.size); ok {
			rows = append(rows, status{"catalog-only scan, one core, " + t.size + " literals", fmt.Sprintf("≥ %.0f MB/s", t.target),
				fmt.Sprintf("%.1f MB/s (per CPU second: %.1f)", b.mbps, b.cpuMbps), verdict(b.mbps >= t.target, b.mbps, t.target, false)})
		}
	}
	r.printf("## Targets\n\n| figure | target | measured (median) | status |\n| --- | --- | --- | --- |\n")
	for _, s := range rows {
		r.printf("| %s | %s | %s | %s |\n", s.figure, s.target, s.measured, s.verdict)
	}
	r.printf("\n")
}

func (r *report) table(rows []*Result, base *Result, baseName string) {
	r.printf("| command | runs | min | median | max | median CPU | peak RSS MB |")
	if base != nil {
		r.printf(" × %s (wall) | × %s (CPU) |", baseName, baseName)
	}
	r.printf("\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	if base != nil {
		r.printf(" ---: | ---: |")
	}
	r.printf("\n")
	for _, x := range rows {
		if x == nil {
			continue
		}
		r.printf("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f |", x.Label, x.Runs, x.MinMS, x.MedianMS, x.MaxMS, x.MedianCPU, x.PeakRSSMB)
		if base != nil {
			r.printf(" %.2f | %.2f |", ratio(x, base), cpuRatio(x, base))
		}
		r.printf("\n")
	}
	r.printf("\n")
}

func (r *report) history() {
	h, re2, pl, gl := r.get("history", labelHistory), r.get("history", labelRE2), r.get("history", labelPlain), r.get("history", labelGitLog)
	if h == nil {
		return
	}
	r.printf("## `history` vs `gitleaks git` vs `git log -p`\n\n")
	r.printf("Same commit set for all three (every commit reachable from HEAD; merges contribute no patch). ")
	r.printf("Runs alternate between the commands (ABBA order). CPU is user + system time of the process and the children it waited for (gitleaks runs `git log`); peak RSS is the largest single process in that tree.\n\n")
	r.table([]*Result{h, re2, pl, gl}, gl, "git log -p")
	r.printf("Ratios of medians (wall; CPU in brackets):\n\n| pair | ratio |\n| --- | ---: |\n")
	for _, p := range []struct {
		name string
		a, b *Result
	}{
		{"privscan history / gitleaks git (re2)", h, re2},
		{"privscan history / gitleaks git", h, pl},
		{"privscan history / git log -p", h, gl},
		{"gitleaks git (re2) / git log -p", re2, gl},
		{"gitleaks git / git log -p", pl, gl},
		{"gitleaks git (re2) / gitleaks git", re2, pl},
	} {
		if p.a != nil && p.b != nil {
			r.printf("| %s | %.2f (%.2f) |\n", p.name, ratio(p.a, p.b), cpuRatio(p.a, p.b))
		}
	}
	r.printf("\n")
	var ps struct {
		Findings []struct {
			Source string `json:"source"`
		} `json:"findings"`
		Summary map[string]any `json:"summary"`
	}
	var glf []struct {
		RuleID string `json:"RuleID"`
	}
	if json.Unmarshal(r.file("privscan-history.json"), &ps) == nil && json.Unmarshal(r.file("gitleaks-history.json"), &glf) == nil {
		by := map[string]int{}
		for _, f := range ps.Findings {
			by[f.Source]++
		}
		r.printf("Findings on the range (one untimed run each): privscan %d (catalog %d, PII %d, secrets %d); gitleaks %d secrets. ",
			len(ps.Findings), by["catalog"], by["pii"], by["secret"], len(glf))
		r.printf("privscan summary: %s.\n\n", compactJSON(ps.Summary))
	}
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return "`" + string(b) + "`"
}

func (r *report) diff() {
	var rows []*Result
	for i := range r.results {
		if r.results[i].Group == "diff" {
			rows = append(rows, &r.results[i])
		}
	}
	if len(rows) == 0 {
		return
	}
	r.printf("## `diff`, cold process, 10k catalog\n\n")
	r.printf("`privscan diff HEAD~1` compares HEAD~1 with the working tree (clean checkout of HEAD, untracked files included); `HEAD~1 HEAD` compares the two commits only.\n\n")
	r.table(rows, nil, "")
}

func (r *report) mcp() {
	m := r.get("mcp", labelMCP)
	if m == nil {
		return
	}
	r.printf("## MCP `scan_diff`, warm\n\n")
	r.printf("mcp-go stdio client spawning `privscan mcp` in the repository; `scan_diff` with `base: HEAD~1, head: HEAD` (%d findings); one warm-up call, then %d timed calls. Latency is the client's round trip.\n\n", m.Findings, m.Runs)
	r.printf("| calls | min | median | p90 | max | spawn + initialize + first call | server peak RSS MB |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	r.printf("| %d | %.1f | %.1f | %.1f | %.1f | %.0f | %.1f |\n\n", m.Runs, m.MinMS, m.MedianMS, m.P90MS, m.MaxMS, m.StartMS, m.PeakRSSMB)
}

type phases struct {
	Values    int     `json:"values"`
	ReadMS    float64 `json:"readMs"`
	ParseMS   float64 `json:"parseMs"`
	CompileMS float64 `json:"compileMs"`
	HeapMB    float64 `json:"retainedHeapMb"`
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (r *report) compile() {
	var rows []*Result
	for i := range r.results {
		if g := r.results[i].Group; g == "compile" || g == "catalog-check" {
			rows = append(rows, &r.results[i])
		}
	}
	if len(rows) == 0 {
		return
	}
	r.printf("## Catalog compile\n\n")
	r.printf("`compile N` is `bench/cmd/compile`: read the Markdown catalog, `catalog.Parse`, `catalog.Compile` (what privscan does after the broker reads the file), as a whole process. `privscan catalog check` also lints and goes through the broker (16 MiB file limit).\n\n")
	r.table(rows, nil, "")
	var ph []phases
	if readJSONL(filepath.Join(r.dir, "compile-phases.jsonl"), &ph) == nil && len(ph) > 0 {
		by := map[int][]phases{}
		var sizes []int
		for _, p := range ph {
			if _, ok := by[p.Values]; !ok {
				sizes = append(sizes, p.Values)
			}
			by[p.Values] = append(by[p.Values], p)
		}
		slices.Sort(sizes)
		r.printf("In-process phases (median of the runs above):\n\n| values | read ms | parse ms | compile ms | heap retained by the matcher MB |\n| ---: | ---: | ---: | ---: | ---: |\n")
		for _, n := range sizes {
			var rd, pa, co, hp []float64
			for _, p := range by[n] {
				rd, pa, co, hp = append(rd, p.ReadMS), append(pa, p.ParseMS), append(co, p.CompileMS), append(hp, p.HeapMB)
			}
			r.printf("| %d | %.0f | %.0f | %.0f | %.1f |\n", n, median(rd), median(pa), median(co), median(hp))
		}
		r.printf("\n")
	}
}

var benchLine = regexp.MustCompile(`^Benchmark(\w+/\w+)(?:-\d+)?\s+\d+\s+(.*)$`)

// goBench returns the median of each unit's values per benchmark and
// catalog size in go test -bench output: ["Find/100k"]["MB/s"].
func goBench(out []byte) map[string]map[string]float64 {
	vals := map[string]map[string][]float64{}
	for l := range bytes.Lines(out) {
		m := benchLine.FindStringSubmatch(strings.TrimRight(string(l), "\r\n"))
		if m == nil {
			continue
		}
		if vals[m[1]] == nil {
			vals[m[1]] = map[string][]float64{}
		}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				vals[m[1]][f[i+1]] = append(vals[m[1]][f[i+1]], v)
			}
		}
	}
	med := map[string]map[string]float64{}
	for name, units := range vals {
		med[name] = map[string]float64{}
		for u, v := range units {
			med[name][u] = median(v)
		}
	}
	return med
}

type benchFig struct{ mbps, cpuMbps float64 }

// findBench returns BenchmarkFind's medians for a catalog size.
func (r *report) findBench(size string) (benchFig, bool) {
	b := r.bench["Find/"+size]
	mbps, ok := b["MB/s"]
	return benchFig{mbps, b["cpu-MB/s"]}, ok
}

type compileFig struct{ ms, cpuMS, allocMB, retainedMB float64 }

// compileBench returns BenchmarkCompile's medians for a catalog size.
func (r *report) compileBench(size string) (compileFig, bool) {
	c := r.bench["Compile/"+size]
	ns, ok := c["ns/op"]
	return compileFig{ns / 1e6, c["cpu-ms/op"], c["alloc-MB/op"], c["retained-MB"]}, ok
}

func (r *report) gobench() {
	sizes := []string{"10k", "100k", "1M"}
	var compileRows, findRows []string
	for _, k := range sizes {
		if c, ok := r.compileBench(k); ok {
			compileRows = append(compileRows, fmt.Sprintf("| %s | %.1f | %.1f | %.1f | %.1f |\n", k, c.ms, c.cpuMS, c.allocMB, c.retainedMB))
		}
		if b, ok := r.findBench(k); ok {
			findRows = append(findRows, fmt.Sprintf("| %s | %.1f | %.1f |\n", k, b.mbps, b.cpuMbps))
		}
	}
	if len(compileRows) > 0 {
		r.printf("## Catalog compile, Go benchmark\n\n")
		r.printf("`go test -run '^$' -bench BenchmarkCompile -benchtime 3x -cpu 1 ./catalog/`: `catalog.Compile` of the synthetic catalog (already parsed), one core; median of the runs. Allocated is what one Compile allocates (an upper bound of its heap growth), retained what the matcher keeps.\n\n")
		r.printf("| catalog | ms | CPU ms | allocated MB | retained MB |\n| --- | ---: | ---: | ---: | ---: |\n%s\n", strings.Join(compileRows, ""))
	}
	if len(findRows) > 0 {
		r.printf("## Catalog-only scan throughput\n\n")
		r.printf("`go test -run '^$' -bench BenchmarkFind -cpu 1 ./catalog/` (1 MiB of synthetic source lines, one line in 40 holding a catalog value; median of the runs). `cpu-MB/s` divides by the process's CPU time instead of wall time.\n\n")
		r.printf("| catalog | MB/s | cpu-MB/s |\n| --- | ---: | ---: |\n%s\n", strings.Join(findRows, ""))
	}
}

func (r *report) notes() {
	if b := bytes.TrimSpace(r.file("notes.txt")); len(b) > 0 {
		r.printf("## Notes\n\n")
		for l := range strings.SplitSeq(string(b), "\n") {
			r.printf("- %s\n", l)
		}
		r.printf("\n")
	}
	if b := bytes.TrimSpace(r.file("profile.txt")); len(b) > 0 {
		r.printf("## CPU profile of `privscan history`\n\n```\n%s\n```\n\n", b)
	}
	if b := bytes.TrimSpace(r.file("commands.txt")); len(b) > 0 {
		r.printf("## Commands\n\n```\n%s\n```\n", b)
	}
}
