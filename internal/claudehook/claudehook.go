package claudehook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/hook"
	"github.com/privscan/privscan/internal/render"
)

// Env is what a hook reads and writes besides the payload.
type Env struct {
	// Stdout takes what a hook tells Claude Code on success (the guard's
	// warnings, as JSON); nil discards it.
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Dir is the directory relative paths are taken from when the payload
	// names no cwd.
	Dir string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Options are the hook's command-line settings.
type Options struct {
	// CatalogKey names the catalog ("": the default precedence).
	CatalogKey string
	// FailOn is the level that blocks ("": the policy's fail-on, then
	// warning).
	FailOn string
}

// maxListed bounds the findings a block message lists.
const maxListed = 20

// maxMessageFile bounds a message or body file read by a gate.
const maxMessageFile = 1 << 20

// hook is one invocation: the engine, the settings, the payload.
type hookRun struct {
	eng  *engine.Engine
	env  Env
	opts Options
	p    *hook.Payload
	cwd  string
	m    *catalog.Matcher
}

func newRun(eng *engine.Engine, env Env, p *hook.Payload, opts Options) *hookRun {
	cwd := p.Cwd
	if cwd == "" {
		cwd = env.Dir
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	return &hookRun{eng: eng, env: env, opts: opts, p: p, cwd: cwd}
}

// note writes a line for the user on stderr.
func (h *hookRun) note(format string, args ...any) {
	fmt.Fprintf(h.env.Stderr, "privscan: hook: "+format+"\n", args...)
}

// catalog opens the catalog once per invocation.
func (h *hookRun) catalog() (*catalog.Matcher, error) {
	if h.m == nil {
		m, _, err := h.eng.Catalog(h.opts.CatalogKey)
		if err != nil {
			return nil, err
		}
		h.m = m
	}
	return h.m, nil
}

// abs makes dir absolute against the payload's cwd.
func (h *hookRun) abs(dir string) string {
	if dir == "" || filepath.IsAbs(dir) {
		if dir == "" {
			return h.cwd
		}
		return dir
	}
	return filepath.Join(h.cwd, dir)
}

// blocked is what one gate found at or above its level.
type blocked struct {
	what     string // "git commit", "git push", "gh", "edit", "new commits"
	dir      string
	level    finding.Severity
	total    int
	findings []finding.Finding
}

// collector keeps the findings that reach the level (the first
// maxListed of them) and counts them all.
type collector struct {
	level finding.Severity
	hits  []finding.Finding
	total int
}

func (c *collector) Finding(f *finding.Finding) error {
	if f.Fails(c.level, false) {
		c.total++
		if len(c.hits) < maxListed {
			c.hits = append(c.hits, *f)
		}
	}
	return nil
}

func (c *collector) Summary(*finding.Summary) error { return nil }

// gate runs req (a change under review: its own markers never count) and
// returns what blocks, or nil.
func (h *hookRun) gate(ctx context.Context, what, dir string, req engine.Request) (*blocked, error) {
	m, err := h.catalog()
	if err != nil {
		return nil, err
	}
	req.Matcher, req.CatalogKey = m, h.opts.CatalogKey
	req.FailOn = h.opts.FailOn
	req.Review = true
	c := &collector{}
	req.Check = func(_ *catalog.Matcher, cfg *config.Repo) error {
		// The level the engine applies: the hook's --fail-on, else the
		// policy's, else warning.
		l := h.opts.FailOn
		if l == "" {
			l = cfg.FailOn
		}
		if l == "" {
			l = "warning"
		}
		level, err := engine.FailLevel(l)
		c.level = level
		return err
	}
	res, err := h.eng.Scan(ctx, req, c)
	if err != nil || !res.Failed {
		return nil, err
	}
	return &blocked{what: what, dir: dir, level: c.level, total: c.total, findings: c.hits}, nil
}

// readSmallFile reads a regular file of at most max bytes.
func readSmallFile(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// oneLine is the sanitiser for every text the hook prints.
func oneLine(s string) string { return render.OneLine(s) }
