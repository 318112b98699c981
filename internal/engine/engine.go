// Package engine is privscan's orchestrator: every door (the command line,
// the MCP server, the GitHub Action, the agent hooks) turns its input into
// a Request and calls Engine.Scan, which
//
//	opens the catalog (through the broker, cached)
//	opens the repository (through gitsrc) and builds the target's Source
//	reads the policy (.privscan.toml, .privscanignore, baselines) from the
//	  trusted side when two commits are compared
//	assembles the detectors (catalog, built-in PII, gitleaks secrets)
//	runs scanner.Run into the door's Handler, noting whether a finding
//	  reached the fail-on level
//
// so the same catalog gives the same findings, fingerprints, exit status
// and error hints through every door. Doors choose handlers (renderers)
// and map errors to their medium; they do not assemble scans.
package engine

import (
	"fmt"
	"sync"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/pii"
	"github.com/privscan/privscan/internal/secrets"
	"github.com/privscan/privscan/scanner"
)

// Config configures an Engine.
type Config struct {
	// Getenv reads the environment (the broker's key map location,
	// PRIVSCAN_CATALOG, PRIVSCAN_CATALOG_FILE). nil: os.Getenv.
	Getenv func(string) string
	// MapPath overrides the key map's location (tests).
	MapPath string
	// NoSecrets turns the gitleaks rules off for every scan.
	NoSecrets bool
	// Workers bounds the fragments detected in parallel; 0: GOMAXPROCS.
	Workers int
	// Open opens a scan's repository; nil: gitsrc.Open (tests count the
	// opens with it).
	Open func(dir string) (*gitsrc.Repo, error)
}

// Engine is process-lived: it owns the broker and the compiled catalogs.
// It is safe for concurrent use.
type Engine struct {
	opts Config

	once  sync.Once
	b     *broker.Broker
	bErr  error
	cache *catalogCache
}

// New returns an Engine. It reads nothing yet: the key map and the
// catalogs are read by the first scan that needs them, so their errors are
// reported there.
func New(o Config) *Engine {
	return &Engine{opts: o}
}

// Broker returns the engine's broker (opened on first use).
func (e *Engine) Broker() (*broker.Broker, error) {
	e.once.Do(func() {
		e.b, e.bErr = broker.Open(broker.Options{Getenv: e.opts.Getenv, MapPath: e.opts.MapPath})
		if e.bErr == nil {
			e.cache = newCatalogCache(e.b)
		}
	})
	return e.b, e.bErr
}

// Catalog returns the compiled catalog for key ("": the default
// precedence: environment, then the map's default) and its identity. It
// is compiled once and recompiled when its file changes.
func (e *Engine) Catalog(key string) (*catalog.Matcher, broker.CatalogInfo, error) {
	if _, err := e.Broker(); err != nil {
		return nil, broker.CatalogInfo{}, err
	}
	m, info, _, err := e.cache.get(key)
	return m, info, err
}

// settings select what a scan runs.
type settings struct {
	matcher *catalog.Matcher // required
	repo    *config.Repo     // nil: defaults
	// suppressed maps fingerprints to a suppression source
	// ("ignore-file", "baseline").
	suppressed map[string]string
	noSecrets  bool
	workers    int
}

// options returns the scanner options for s.
func options(s settings) (scanner.Options, error) {
	if s.matcher == nil {
		return scanner.Options{}, fmt.Errorf("no catalog")
	}
	repo := s.repo
	if repo == nil {
		repo = &config.Repo{}
	}
	dets := []scanner.Detector{NewCatalogDetector(s.matcher)}

	enabled := map[string]bool{}
	any := false
	for _, name := range pii.Names() {
		on, set := repo.Detectors[name]
		enabled[name] = !set || on
		any = any || enabled[name]
	}
	if any {
		// Processor test card numbers (4111 1111 1111 1111, 4242…) are in
		// every payment integration's tests and identify no one: skipped
		// unless [detectors] credit-card-test-numbers = true asks for them.
		d, err := pii.New(pii.Config{Enabled: enabled, SkipTestCards: !repo.Detectors["credit-card-test-numbers"]})
		if err != nil {
			return scanner.Options{}, err
		}
		dets = append(dets, d)
	}
	if on, set := repo.Detectors["secrets"]; !s.noSecrets && (!set || on) {
		d, err := secrets.New()
		if err != nil {
			return scanner.Options{}, fmt.Errorf("loading the secret rules: %w", err)
		}
		dets = append(dets, d)
	}
	opts := scanner.Options{
		Detectors:      dets,
		FingerprintKey: s.matcher.FingerprintKey(),
		Workers:        s.workers,
		Severity:       repo.Severity,
		Suppressed:     s.suppressed,
	}
	if len(repo.Exclude) > 0 {
		opts.Exclude = repo.Excluded
	}
	return opts, nil
}

// Prewarm compiles the default catalog and the secret rules now, so that
// the first scan is fast. Errors are ignored: the scans report them.
func (e *Engine) Prewarm() {
	if !e.opts.NoSecrets {
		_, _ = secrets.New()
	}
	_, _, _ = e.Catalog("")
}

// Options returns the scanner options Scan builds for catalog m under the
// default policy: the catalog, PII and secret detectors. For tests that
// drive scanner.Run themselves (with an extra detector, say); doors call
// Scan.
func (e *Engine) Options(m *catalog.Matcher) (scanner.Options, error) {
	return options(settings{matcher: m, noSecrets: e.opts.NoSecrets, workers: e.opts.Workers})
}
