// Command measure runs commands repeatedly, alternating between them, and
// reports wall time, CPU time and peak RSS per command.
//
// Usage:
//
//	measure [-runs 5] [-warmup 1] [-dir DIR] [-group NAME] [-out FILE.jsonl] \
//	    -- LABEL CMD [ARG...] [--- LABEL CMD [ARG...]]...
//
// Each round runs every command once; odd rounds run them in reverse order
// (ABBA), so drift on a shared machine hits all alike. Warm-up runs are not
// recorded. Standard output is read through a pipe and discarded; a command
// that exits non-zero stops the measurement and its standard error is shown.
//
// Peak RSS is the child's ru_maxrss from wait4: the largest resident set of
// the command or of any descendant it waited for (git under gitleaks), not
// their sum. CPU time is user plus system time of the command and its
// waited-for descendants.
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
	"slices"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
}

// Command is one labelled command line.
type Command struct {
	Label string
	Argv  []string
}

// Sample is one timed run.
type Sample struct {
	Wall   time.Duration
	CPU    time.Duration
	MaxRSS int64 // bytes
}

// Result is what measure records per command (one JSON line).
type Result struct {
	Group      string    `json:"group"`
	Label      string    `json:"label"`
	Argv       []string  `json:"argv"`
	Runs       int       `json:"runs"`
	WallMS     []float64 `json:"wallMs"`
	CPUMS      []float64 `json:"cpuMs"`
	MaxRSSMB   []float64 `json:"maxRssMb"`
	MinMS      float64   `json:"minMs"`
	MedianMS   float64   `json:"medianMs"`
	MaxMS      float64   `json:"maxMs"`
	P90MS      float64   `json:"p90Ms"`
	MedianCPU  float64   `json:"medianCpuMs"`
	PeakRSSMB  float64   `json:"peakRssMb"`
	StdoutSize int64     `json:"stdoutBytes"`
}

// ParseCommands splits "LABEL CMD ARG... --- LABEL CMD ARG..." into
// commands. Only an argument that is exactly "---" separates.
func ParseCommands(args []string) ([]Command, error) {
	var out []Command
	var cur []string
	flush := func() error {
		if len(cur) < 2 {
			return errors.New("each command needs a label and a program")
		}
		out = append(out, Command{Label: cur[0], Argv: cur[1:]})
		cur = nil
		return nil
	}
	for _, a := range args {
		if a == "---" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur = append(cur, a)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	runs := fs.Int("runs", 5, "recorded runs per command")
	warmup := fs.Int("warmup", 1, "unrecorded runs per command first")
	dir := fs.String("dir", "", "working directory of the commands")
	group := fs.String("group", "", "group name recorded with the results")
	out := fs.String("out", "", "append one JSON line per command to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	cmds, err := ParseCommands(fs.Args())
	if err != nil {
		return err
	}
	samples := make([][]Sample, len(cmds))
	sizes := make([]int64, len(cmds))
	for range *warmup {
		for i, c := range cmds {
			if _, sizes[i], err = once(c, *dir); err != nil {
				return err
			}
		}
	}
	for round := range *runs {
		order := make([]int, len(cmds))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			s, n, err := once(cmds[i], *dir)
			if err != nil {
				return err
			}
			samples[i] = append(samples[i], s)
			sizes[i] = n
		}
	}
	var jsonOut io.Writer
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		jsonOut = f
	}
	fmt.Fprintf(stdout, "%-22s %5s %10s %10s %10s %10s %9s\n", *group, "runs", "min ms", "median ms", "max ms", "cpu ms", "RSS MB")
	for i, c := range cmds {
		r := Summarize(*group, c, samples[i])
		r.StdoutSize = sizes[i]
		fmt.Fprintf(stdout, "%-22s %5d %10.1f %10.1f %10.1f %10.1f %9.1f\n", c.Label, r.Runs, r.MinMS, r.MedianMS, r.MaxMS, r.MedianCPU, r.PeakRSSMB)
		if jsonOut != nil {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if _, err := jsonOut.Write(append(b, '\n')); err != nil {
				return err
			}
		}
	}
	return nil
}

// countWriter discards what it is given and counts it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func once(c Command, dir string) (Sample, int64, error) {
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = dir
	var so countWriter
	var se tailBuffer
	cmd.Stdout = &so
	cmd.Stderr = &se
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return Sample{}, 0, fmt.Errorf("%s: %w\n%s", c.Label, err, bytes.TrimSpace(se.b))
	}
	s := Sample{Wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
		s.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return s, so.n, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Summarize computes min, median, p90 and max wall time, median CPU time
// and peak RSS.
func Summarize(group string, c Command, ss []Sample) Result {
	r := Result{Group: group, Label: c.Label, Argv: c.Argv, Runs: len(ss)}
	var peak int64
	for _, s := range ss {
		r.WallMS = append(r.WallMS, ms(s.Wall))
		r.CPUMS = append(r.CPUMS, ms(s.CPU))
		r.MaxRSSMB = append(r.MaxRSSMB, float64(s.MaxRSS)/(1<<20))
		peak = max(peak, s.MaxRSS)
	}
	w := slices.Sorted(slices.Values(r.WallMS))
	if len(w) > 0 {
		r.MinMS, r.MaxMS = w[0], w[len(w)-1]
		r.MedianMS = Quantile(w, 0.5)
		r.P90MS = Quantile(w, 0.9)
		r.MedianCPU = Quantile(slices.Sorted(slices.Values(r.CPUMS)), 0.5)
	}
	r.PeakRSSMB = float64(peak) / (1 << 20)
	return r
}

// Quantile returns the q-quantile of sorted values with linear
// interpolation (the median of an even count is the mean of the middle two).
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}
