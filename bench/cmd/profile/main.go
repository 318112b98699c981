// Command profile runs one privscan command in-process (internal/cli.Run)
// under the Go profiler, for finding where privscan spends its time:
//
//	profile -cpu cpu.prof [-mem mem.prof] [-trace trace.out] [-dir REPO] [-repeat N] -- history --format json
//	go tool pprof -top cpu.prof
//
// The command's standard output is discarded; its standard error is shown.
// The environment (PRIVSCAN_CATALOG_FILE, ...) is the process's own.
package main

import (
	"context"
	"crypto"
	"crypto/sha1"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/privscan/privscan/internal/cli"
)

func main() {
	// As cmd/privscan does: the standard SHA-1 instead of go-git's
	// collision-detecting one, so that profiles represent the product.
	_ = hash.RegisterHash(crypto.SHA1, sha1.New)
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	cpu := fs.String("cpu", "cpu.prof", "CPU profile output")
	mem := fs.String("mem", "", "allocation profile output (optional)")
	trc := fs.String("trace", "", "execution trace output (optional; go tool trace)")
	dir := fs.String("dir", ".", "working directory of the command")
	repeat := fs.Int("repeat", 1, "run the command this many times (for short commands such as diff)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no privscan command given")
	}
	if *mem != "" {
		runtime.MemProfileRate = 64 << 10
	}
	stopCPU, err := record(*cpu, pprof.StartCPUProfile, pprof.StopCPUProfile)
	if err != nil {
		return err
	}
	stopTrace := func() error { return nil }
	if *trc != "" {
		if stopTrace, err = record(*trc, trace.Start, trace.Stop); err != nil {
			stopCPU()
			return err
		}
	}
	cpu0 := cpuClasses()
	start := time.Now()
	var runErr error
	for range max(1, *repeat) {
		runErr = cli.Run(context.Background(), &cli.Env{
			Args:   fs.Args(),
			Stdin:  os.Stdin,
			Stdout: io.Discard,
			Stderr: os.Stderr,
			Getenv: os.Getenv,
			Dir:    *dir,
		})
		if cli.ExitCode(runErr) == 2 {
			break
		}
	}
	if err := errors.Join(stopCPU(), stopTrace()); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "profile: %s x%d took %s (exit code %d)\n", fs.Arg(0), max(1, *repeat), time.Since(start).Round(time.Millisecond), cli.ExitCode(runErr))
	cpu1 := cpuClasses()
	total := cpu1[0] - cpu0[0]
	share := func(i int) float64 { return 100 * (cpu1[i] - cpu0[i]) / max(total, 1e-9) }
	fmt.Fprintf(os.Stderr, "profile: Go CPU time (GOMAXPROCS %d × wall) %.2f s: user %.1f %%, GC %.1f %%, scavenge %.1f %%, idle %.1f %%\n",
		runtime.GOMAXPROCS(0), total, share(1), share(2), share(3), share(4))
	if *mem != "" {
		mf, err := os.Create(*mem)
		if err != nil {
			return err
		}
		defer mf.Close()
		if err := pprof.Lookup("allocs").WriteTo(mf, 0); err != nil {
			return err
		}
	}
	if code := cli.ExitCode(runErr); code == 2 {
		return runErr
	}
	return nil
}

// cpuClasses reads the runtime's estimate of its CPU time (GOMAXPROCS
// times wall time), split into user code, GC, scavenging and idle: idle is
// the time a P had no goroutine to run, so it shows the cores the command
// left unused whatever the machine's load.
func cpuClasses() [5]float64 {
	names := []string{
		"/cpu/classes/total:cpu-seconds",
		"/cpu/classes/user:cpu-seconds",
		"/cpu/classes/gc/total:cpu-seconds",
		"/cpu/classes/scavenge/total:cpu-seconds",
		"/cpu/classes/idle:cpu-seconds",
	}
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	metrics.Read(s)
	var v [5]float64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindFloat64 {
			v[i] = s[i].Value.Float64()
		}
	}
	return v
}

// record creates the file path and starts a recorder writing to it
// (pprof.StartCPUProfile, trace.Start); the function it returns stops the
// recorder and closes the file.
func record(path string, start func(io.Writer) error, stop func()) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		stop()
		return f.Close()
	}, nil
}
