// Command compile parses and compiles a Markdown catalog file the way
// privscan does (catalog.Parse, then catalog.Compile with default options)
// and reports the time of each phase. It reads the file directly, so it
// also handles catalogs above the broker's 16 MiB file limit. Run it under
// bench/cmd/measure for process wall time and peak RSS.
//
// Usage:
//
//	compile -f catalog.md [-phases FILE.jsonl] [-cpuprofile FILE]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/privscan/privscan/catalog"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "compile:", err)
		os.Exit(1)
	}
}

// Phases is one run's figures.
type Phases struct {
	Values    int     `json:"values"`
	ReadMS    float64 `json:"readMs"`
	ParseMS   float64 `json:"parseMs"` // with the collection of the file's bytes
	CompileMS float64 `json:"compileMs"`
	HeapMB    float64 `json:"retainedHeapMb"` // live heap after compile, catalog dropped
	MaxRSSMB  float64 `json:"maxRssMb"`
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("compile", flag.ContinueOnError)
	file := fs.String("f", "", "catalog file")
	phases := fs.String("phases", "", "append the phase times as one JSON line to this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of parse and compile to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return errors.New("-f is required")
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	var p Phases
	t0 := time.Now()
	src, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	t1 := time.Now()
	c, err := catalog.Parse(src)
	if err != nil {
		return err // catalog errors carry line numbers only
	}
	// Like broker.OpenCatalog: drop the file's bytes and, for a catalog of
	// the broker's gcBeforeCompile (4 MiB) or more, collect them before
	// Compile allocates its tables. The collection counts as parse time.
	big := len(src) >= 4<<20
	src = nil
	if big {
		runtime.GC()
	}
	t2 := time.Now()
	for _, r := range c.Rules {
		p.Values += len(r.Values)
	}
	m, err := catalog.Compile(c, nil)
	if err != nil {
		return err
	}
	t3 := time.Now()
	c = nil
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(m)
	runtime.KeepAlive(src)
	runtime.KeepAlive(c)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		p.MaxRSSMB = float64(ru.Maxrss) / 1024
	}
	p.ReadMS = float64(t1.Sub(t0)) / 1e6
	p.ParseMS = float64(t2.Sub(t1)) / 1e6
	p.CompileMS = float64(t3.Sub(t2)) / 1e6
	p.HeapMB = float64(ms.HeapAlloc) / (1 << 20)
	fmt.Fprintf(stdout, "%d values: read %.0f ms, parse %.0f ms, compile %.0f ms, retained heap %.1f MB, peak RSS %.1f MB\n",
		p.Values, p.ReadMS, p.ParseMS, p.CompileMS, p.HeapMB, p.MaxRSSMB)
	if *phases != "" {
		f, err := os.OpenFile(*phases, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(p)
		_, err = f.Write(append(b, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return nil
}
