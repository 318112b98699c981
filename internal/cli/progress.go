package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/privscan/privscan/scanner"
)

// progress draws a one-line progress indicator on a terminal's stderr.
// It is only used when stderr is a terminal.
type progress struct {
	w       io.Writer
	mu      sync.Mutex
	files   int
	commits map[string]bool
	last    time.Time
	drawn   bool
}

func newProgress(w io.Writer) *progress { return &progress{w: w, commits: map[string]bool{}} }

func (p *progress) wrap(src scanner.Source) scanner.Source {
	return sourceFunc(func(ctx context.Context, yield func(*scanner.Fragment) error) error {
		return src.Fragments(ctx, func(f *scanner.Fragment) error {
			p.tick(f)
			return yield(f)
		})
	})
}

func (p *progress) tick(f *scanner.Fragment) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f.Commit != "" {
		p.commits[f.Commit] = true
	}
	if f.Kind != scanner.KindCommitMessage {
		p.files++
	}
	if now := time.Now(); now.Sub(p.last) > 100*time.Millisecond {
		p.last = now
		p.drawn = true
		if len(p.commits) > 0 {
			fmt.Fprintf(p.w, "\rprivscan: %d commits, %d files…", len(p.commits), p.files)
		} else {
			fmt.Fprintf(p.w, "\rprivscan: %d files…", p.files)
		}
	}
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

type sourceFunc func(ctx context.Context, yield func(*scanner.Fragment) error) error

func (s sourceFunc) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	return s(ctx, yield)
}
