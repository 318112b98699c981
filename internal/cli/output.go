package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/progress"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/scanner"
)

// present wires what a scan shows a person around the report handler: the
// text renderer's options (commit dates, fingerprints, masked context),
// the summary line on stderr when the report goes to a file, and the
// progress bar. It returns the handler and source to run, the function
// that receives the engine's repository (nil when none is needed: the
// door opens no repository of its own), and a function to call when the
// run is over.
func present(ctx context.Context, env *Env, cmd string, f *scanFlags, h finding.Handler) (finding.Handler, func(scanner.Source) scanner.Source, func(*gitsrc.Repo), func()) {
	var closers []func()
	var wraps []func(scanner.Source) scanner.Source
	finish := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	dumb := env.Getenv("TERM") == "dumb"
	bar := env.StderrTTY && !dumb && !f.noProgress && (cmd == "history" || cmd == "scan")

	if t, ok := h.(*render.Text); ok {
		t.Color = t.Color && !dumb
		t.Fingerprints = f.showFingerprints
		t.LineFlush = bar || env.StdoutTTY && f.output == ""
		// History findings carry their commit's date from the walk.
		t.Commits = cmd == "history"
		if f.verbose {
			m, err := newMasker(env, f.catalogKey)
			if err == nil {
				wraps = append(wraps, m.wrap)
				t.Context = m.context
			} else {
				fmt.Fprintf(env.Stderr, "privscan: warning: -v: %s; no context lines\n", render.OneLine(err.Error()))
			}
		}
	}
	var onRepo func(*gitsrc.Repo)
	if paths := filterPaths(env.Args); len(paths) > 0 && (cmd == "diff" || cmd == "history") {
		pf := &pathFilters{env: env, typed: paths, matched: make([]bool, len(paths))}
		onRepo = pf.setRoot
		wraps = append(wraps, pf.wrap)
		h = &warnAtSummary{Handler: h, ctx: ctx, pf: pf}
	}
	if f.output != "" && f.output != "-" && !f.quiet {
		h = &stderrSummary{Handler: h, w: env.Stderr}
	}
	if bar {
		unit := "files"
		if cmd == "history" {
			unit = "commits"
		}
		b := progress.New(env.Stderr, cmd, unit)
		// The source counts what it walks (history: the commit graph,
		// beside the scan, on the same repository).
		wraps = append(wraps, func(src scanner.Source) scanner.Source {
			if t, ok := src.(interface{ OnTotal(func(int)) }); ok {
				t.OnTotal(b.SetTotal)
			}
			return &barSource{src: src, bar: b, commits: cmd == "history"}
		})
		h = &barHandler{Handler: h, bar: b}
		closers = append(closers, b.Clear)
	}
	wrap := func(src scanner.Source) scanner.Source {
		for _, w := range wraps {
			src = w(src)
		}
		return src
	}
	return h, wrap, onRepo, finish
}

// filterPaths returns the paths after "--" in args.
func filterPaths(args []string) []string {
	for i, a := range args {
		if a == "--" {
			return args[i+1:]
		}
	}
	return nil
}

// stderrSummary also prints the summary line on stderr, for a report
// written to a file.
type stderrSummary struct {
	finding.Handler
	w io.Writer
}

func (s *stderrSummary) Summary(sum *finding.Summary) error {
	err := s.Handler.Summary(sum)
	fmt.Fprintln(s.w, render.SummaryLine(sum))
	return err
}
