// Package engine assembles privscan's detectors (catalog, built-in PII,
// gitleaks secrets) and repository settings into scanner options. The CLI,
// the GitHub Action and the MCP server all build their scans here, so the
// same catalog gives the same findings and fingerprints through every door.
package engine

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/pii"
	"github.com/privscan/privscan/internal/secrets"
	"github.com/privscan/privscan/scanner"
)

// Secrets builds the gitleaks detector once per process: its configuration
// takes tens of milliseconds to compile and is immutable afterwards.
type Secrets struct {
	once sync.Once
	d    *secrets.Detector
	err  error
}

// Get returns the shared secrets detector.
func (s *Secrets) Get() (*secrets.Detector, error) {
	s.once.Do(func() { s.d, s.err = secrets.New() })
	return s.d, s.err
}

// Settings select what a scan runs.
type Settings struct {
	Matcher *catalog.Matcher // required
	Repo    *config.Repo     // nil: defaults
	// Suppressed maps fingerprints to a suppression source ("ignore-file",
	// "baseline").
	Suppressed map[string]string
	Secrets    *Secrets // nil: secrets detection off
	Workers    int
}

// Options returns the scanner options for s.
func Options(s Settings) (scanner.Options, error) {
	if s.Matcher == nil {
		return scanner.Options{}, fmt.Errorf("no catalog")
	}
	repo := s.Repo
	if repo == nil {
		repo = &config.Repo{}
	}
	dets := []scanner.Detector{scanner.NewCatalogDetector(s.Matcher)}

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
	if on, set := repo.Detectors["secrets"]; s.Secrets != nil && (!set || on) {
		d, err := s.Secrets.Get()
		if err != nil {
			return scanner.Options{}, fmt.Errorf("loading the secret rules: %w", err)
		}
		dets = append(dets, d)
	}
	opts := scanner.Options{
		Detectors:      dets,
		FingerprintKey: s.Matcher.FingerprintKey(),
		Workers:        s.Workers,
		Severity:       repo.Severity,
		Suppressed:     s.Suppressed,
	}
	if len(repo.Exclude) > 0 {
		opts.Exclude = repo.Excluded
	}
	return opts, nil
}

// RepoFiles loads .privscan.toml (or configPath when set) and
// .privscanignore from a repository root. root "" means no repository.
func RepoFiles(root, configPath string) (*config.Repo, map[string]string, error) {
	if configPath == "" && root != "" {
		configPath = filepath.Join(root, config.FileName)
	}
	repo := &config.Repo{}
	if configPath != "" {
		r, err := config.Load(configPath)
		if err != nil {
			return nil, nil, err
		}
		repo = r
	}
	sup := map[string]string{}
	if root != "" {
		ign, err := config.LoadIgnore(filepath.Join(root, config.IgnoreFileName))
		if err != nil {
			return nil, nil, err
		}
		for fp := range ign {
			sup[fp] = "ignore-file"
		}
	}
	return repo, sup, nil
}
