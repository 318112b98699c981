// Command sealbench measures sealed catalogs against Markdown ones, in
// process, on a Markdown catalog of literal and identifier rules (bench/cmd/
// gencatalog -literal: the internal/synth catalog without its regex rules,
// which cannot be sealed):
//
//   - seal: catalog.Seal of n values into a file (wall and CPU time);
//   - size: the sealed file's bytes per value;
//   - load: catalog.OpenSealed of that file (mapped and checked; table
//     pages are checked when the scan first reads them), against
//     catalog.Parse + catalog.Compile of the same catalog's Markdown;
//   - scan: catalog-only throughput (Matcher.Find over every line of
//     synthetic source text with planted values), sealed vs compiled; the
//     CPU time is the scanning thread's own (RUSAGE_THREAD).
//
// Every figure is the median of -runs runs, the two forms alternating.
// The cold `privscan diff HEAD~1` comparison needs processes: see
// bench/README.md (bench/cmd/measure with PRIVSCAN_CATALOG_FILE).
//
// Usage:
//
//	gencatalog -literal -n 1000000 -o c1m.md
//	sealbench -f c1m.md [-unique] [-runs 5] [-text-mb 16] [-o FILE.sealed -key-file F]
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/synth"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sealbench:", err)
		os.Exit(1)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPU is the CPU time of the calling thread (RUSAGE_THREAD): with
// the goroutine locked to its thread, a scan's own CPU time, without the
// garbage collector's and other goroutines' on other threads.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type sample struct{ wall, cpu time.Duration }

func timed(f func() error) (sample, error) {
	c0, t0 := cpuTime(), time.Now()
	err := f()
	return sample{time.Since(t0), cpuTime() - c0}, err
}

func median(s []sample) sample {
	w := make([]time.Duration, len(s))
	c := make([]time.Duration, len(s))
	for i, x := range s {
		w[i], c[i] = x.wall, x.cpu
	}
	slices.Sort(w)
	slices.Sort(c)
	return sample{w[len(w)/2], c[len(c)/2]}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("sealbench", flag.ContinueOnError)
	file := fs.String("f", "", "Markdown catalog (gencatalog -literal)")
	runs := fs.Int("runs", 5, "runs per figure (medians)")
	textMB := fs.Int("text-mb", 16, "MiB of text for the scan figure")
	seed := fs.Int64("seed", 1, "the catalog's synth seed: values of it are planted in the text")
	unique := fs.Bool("unique", false, "the catalog is gencatalog -unique: plant synth.UniqueValue values")
	out := fs.String("o", "", "keep the sealed catalog in this file (default: a temporary file)")
	keyFile := fs.String("key-file", "", "with -o: write the seal key to this new file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 || *file == "" {
		return errors.New("-f is required and -runs must be at least 1")
	}
	mdText, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	c, err := catalog.Parse(mdText)
	if err != nil {
		return err
	}
	n := c.Counts().Values
	key := make([]byte, catalog.SealKeySize)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	sealed := *out
	if sealed == "" {
		d, err := os.MkdirTemp("", "sealbench-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		sealed = filepath.Join(d, "catalog.sealed")
	}
	if *keyFile != "" {
		f, err := os.OpenFile(*keyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(catalog.FormatSealKey(key))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "values: %d; Markdown catalog: %d bytes; %s, GOMAXPROCS %d\n", n, len(mdText), runtime.Version(), runtime.GOMAXPROCS(0))

	var sealS, loadS, compileS []sample
	var size int64
	for range *runs {
		runtime.GC()
		s, err := timed(func() error {
			f, err := os.Create(sealed)
			if err != nil {
				return err
			}
			bw := bufio.NewWriterSize(f, 1<<20)
			err = catalog.Seal(bw, c, key, nil)
			if err == nil {
				err = bw.Flush()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		})
		if err != nil {
			return err
		}
		sealS = append(sealS, s)
		fi, err := os.Stat(sealed)
		if err != nil {
			return err
		}
		size = fi.Size()
	}
	var ms1, mm *catalog.Matcher
	for range *runs {
		runtime.GC()
		s, err := timed(func() error {
			f, err := os.Open(sealed)
			if err != nil {
				return err
			}
			defer f.Close()
			m, _, err := catalog.OpenSealed(f, size, key)
			ms1 = m
			return err
		})
		if err != nil {
			return err
		}
		loadS = append(loadS, s)
		runtime.GC()
		s, err = timed(func() error {
			pc, err := catalog.Parse(mdText)
			if err != nil {
				return err
			}
			mm, err = catalog.Compile(pc, nil)
			return err
		})
		if err != nil {
			return err
		}
		compileS = append(compileS, s)
	}
	var plant []string
	if *unique {
		for i := 0; i < n; i += max(n/2000, 1) {
			plant = append(plant, synth.UniqueValue(*seed, n, i))
		}
	} else {
		vals := synth.Values(*seed, n)
		for i := 0; i < len(vals); i += max(len(vals)/2000, 1) {
			plant = append(plant, vals[i])
		}
	}
	text := synth.Text(2, *textMB<<20, plant)
	lines := slices.Collect(bytes.Lines(text))
	// The scans run on one locked thread and count its CPU time only.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	scan := func(m *catalog.Matcher) (sample, int) {
		found := 0
		var dst []catalog.Match
		c0, t0 := threadCPU(), time.Now()
		for _, l := range lines {
			dst = m.Find(l, dst[:0])
			found += len(dst)
		}
		return sample{time.Since(t0), threadCPU() - c0}, found
	}
	var scanMD, scanSealed []sample
	var foundMD, foundSealed int
	for i := range *runs {
		if i%2 == 0 {
			s, f := scan(mm)
			scanMD, foundMD = append(scanMD, s), f
			s, f = scan(ms1)
			scanSealed, foundSealed = append(scanSealed, s), f
		} else {
			s, f := scan(ms1)
			scanSealed, foundSealed = append(scanSealed, s), f
			s, f = scan(mm)
			scanMD, foundMD = append(scanMD, s), f
		}
	}
	if foundMD != foundSealed {
		return fmt.Errorf("the sealed catalog found %d matches, the Markdown one %d", foundSealed, foundMD)
	}
	mbps := func(s sample) string {
		return fmt.Sprintf("%.1f MB/s (cpu %.1f MB/s)", float64(len(text))/1e6/s.wall.Seconds(), float64(len(text))/1e6/s.cpu.Seconds())
	}
	sm, ld, cp := median(sealS), median(loadS), median(compileS)
	fmt.Fprintf(stdout, "seal:            %s wall, %s cpu\n", ms(sm.wall), ms(sm.cpu))
	fmt.Fprintf(stdout, "sealed size:     %d bytes, %.2f bytes per value\n", size, float64(size)/float64(n))
	fmt.Fprintf(stdout, "load sealed:     %s wall, %s cpu (OpenSealed: map, key, MAC of all but the table pages, checks)\n", ms(ld.wall), ms(ld.cpu))
	fmt.Fprintf(stdout, "load Markdown:   %s wall, %s cpu (Parse + Compile)\n", ms(cp.wall), ms(cp.cpu))
	a, b := median(scanMD), median(scanSealed)
	fmt.Fprintf(stdout, "scan Markdown:   %s\n", mbps(a))
	fmt.Fprintf(stdout, "scan sealed:     %s; sealed/Markdown wall %.3f, cpu %.3f; %d matches each\n", mbps(b),
		a.wall.Seconds()/b.wall.Seconds(), a.cpu.Seconds()/b.cpu.Seconds(), foundMD)
	fmt.Fprintf(stdout, "first sealed:    %s (the run that checked the table pages as it read them)\n", mbps(scanSealed[0]))
	return nil
}
