package engine

import (
	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/secrets"
	"github.com/privscan/privscan/scanner"
)

// Secrets, Settings and Options are the assembly the doors used before
// Engine.Scan; they go once every door calls Scan.
type Secrets struct{}

// Get returns the secrets detector.
func (*Secrets) Get() (*secrets.Detector, error) { return secrets.New() }

// Settings select what a scan runs.
type Settings struct {
	Matcher    *catalog.Matcher
	Repo       *config.Repo
	Suppressed map[string]string
	Secrets    *Secrets
	Workers    int
}

// Options returns the scanner options for s.
func Options(s Settings) (scanner.Options, error) {
	return options(settings{matcher: s.Matcher, repo: s.Repo, suppressed: s.Suppressed, noSecrets: s.Secrets == nil, workers: s.Workers})
}
