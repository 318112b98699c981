package engine

import (
	"context"
	"errors"

	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/scanner"
)

// hinted adds a hint to an error: one sentence telling the user what to
// do. Neither holds a catalog value or scanned text.
type hinted struct {
	err  error
	hint string
}

func (e *hinted) Error() string { return e.err.Error() }
func (e *hinted) Unwrap() error { return e.err }
func (e *hinted) Hint() string  { return e.hint }

// WithHint returns err with a hint.
func WithHint(err error, hint string) error { return &hinted{err: err, hint: hint} }

// Hint returns the hint of the first error in err's chain that has one
// (any error with a Hint() string method: the engine's, the broker's, a
// door's), or "".
func Hint(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	return ""
}

// Hints that name the CI fix for a commit missing from the clone.
const (
	ShallowHint = "this is a shallow clone: fetch more history (in GitHub Actions, set `fetch-depth: 0` on actions/checkout)"
	RevHint     = "check the revision with `git log --oneline`"
	NotRepoHint = "run privscan inside a git repository, or use `privscan text` for plain files"
)

// GitError adds a hint to a git error: an unknown revision (and whether
// the clone is shallow), no repository.
func GitError(err error) error {
	if Hint(err) != "" {
		return err
	}
	var re *gitsrc.RevError
	if errors.As(err, &re) {
		if re.Shallow {
			return WithHint(err, ShallowHint)
		}
		return WithHint(err, RevHint)
	}
	if errors.Is(err, gitsrc.ErrNotRepo) {
		return WithHint(err, NotRepoHint)
	}
	return err
}

// ErrInterrupted is returned when the scan's context was cancelled.
var ErrInterrupted = errors.New("interrupted")

// ScanError rewrites an error of scanner.Run.
func ScanError(err error) error {
	if errors.Is(err, context.Canceled) {
		return ErrInterrupted
	}
	if errors.Is(err, scanner.ErrDetectorPanic) {
		return WithHint(err, "please report this bug; the crash details were withheld because they could include scanned text")
	}
	return GitError(err)
}

// ConfigError is an error in the repository's policy files
// (.privscan.toml, .privscanignore) or an explicit --config file.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "repository config: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

// Hint tells the user what to do.
func (e *ConfigError) Hint() string {
	return "fix or remove the file; see `privscan help` for its format"
}

func configError(err error) error { return &ConfigError{Err: err} }
