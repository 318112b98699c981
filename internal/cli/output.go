package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/progress"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/scanner"
)

// present wires what a scan shows a person around the report handler: the
// text renderer's options (commit dates, fingerprints, masked context),
// the summary line on stderr when the report goes to a file, and the
// progress bar. It returns the handler and source to run, and a function
// to call when the run is over.
func present(ctx context.Context, env *Env, cmd string, f *scanFlags, h finding.Handler) (finding.Handler, func(scanner.Source) scanner.Source, func()) {
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
		if cmd == "history" {
			d := &commitDates{dir: env.Dir, cache: map[string]dateResult{}}
			t.CommitDate = d.lookup
			closers = append(closers, d.close)
		}
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
	if paths := filterPaths(env.Args); len(paths) > 0 && (cmd == "diff" || cmd == "history") {
		if pf := newPathFilters(env, paths); pf != nil {
			wraps = append(wraps, pf.wrap)
			h = &warnAtSummary{Handler: h, ctx: ctx, pf: pf}
		}
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
		wraps = append(wraps, func(src scanner.Source) scanner.Source {
			if t, ok := src.(interface{ OnTotal(func(int)) }); ok {
				t.OnTotal(b.SetTotal)
			}
			return &barSource{src: src, bar: b, commits: cmd == "history"}
		})
		h = &barHandler{Handler: h, bar: b}
		if cmd == "history" && len(filterPaths(env.Args)) == 0 {
			cctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				countCommits(cctx, env.Dir, historyRange(env.Args), b)
			}()
			closers = append(closers, func() { cancel(); <-done })
		}
		closers = append(closers, b.Clear)
	}
	wrap := func(src scanner.Source) scanner.Source {
		for _, w := range wraps {
			src = w(src)
		}
		return src
	}
	return h, wrap, finish
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

// historyRange is the range argument of a history command line, after
// the flags were checked by the real parser.
func historyRange(args []string) string {
	fs := newScanFlagSet("history", new(scanFlags))
	pos, _, err := parseArgs(fs, args[1:])
	if err != nil || len(pos) == 0 {
		return ""
	}
	return pos[0]
}

// countCommits sets the bar's total to the number of commits in the range,
// walked on a repository of its own beside the scan.
func countCommits(ctx context.Context, dir, rng string, b *progress.Bar) {
	repo, err := gitsrc.Open(dir)
	if err != nil {
		return
	}
	defer repo.Close()
	if n, err := repo.CountCommits(ctx, rng); err == nil {
		b.SetTotal(n)
	}
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

// commitDates looks up the author dates of history findings' commits, on
// a repository opened on first use.
type commitDates struct {
	dir   string
	mu    sync.Mutex
	repo  *gitsrc.Repo
	err   error
	cache map[string]dateResult
}

type dateResult struct {
	t  time.Time
	ok bool
}

func (d *commitDates) lookup(commit string) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.cache[commit]; ok {
		return r.t, r.ok
	}
	if d.repo == nil && d.err == nil {
		d.repo, d.err = gitsrc.Open(d.dir)
	}
	var r dateResult
	if d.err == nil {
		t, err := d.repo.AuthorTime(commit)
		r = dateResult{t, err == nil}
	}
	d.cache[commit] = r
	return r.t, r.ok
}

func (d *commitDates) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.repo != nil {
		d.repo.Close()
	}
}
