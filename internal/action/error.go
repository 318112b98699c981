package action

import (
	"errors"

	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
)

// ErrPullRequestTarget is returned (with a hint) for a
// pull_request_target event.
var ErrPullRequestTarget = errors.New("refusing to scan a pull_request_target event: that event runs with the base repository's secrets and a write token, so checking out and scanning the pull request's untrusted head there hands attacker-controlled content (its files, its .privscan.toml, and its action.yml if the workflow uses ./) a privileged job")

// Hints for a commit missing from the clone. Both name fetch-depth.
const (
	ShallowHint = "this is a shallow clone without the base commit: set `fetch-depth: 0` on actions/checkout so the base commit and the history between base and head are fetched"
	MissingHint = "the commit is not in this clone: set `fetch-depth: 0` on actions/checkout, which fetches every branch and its history"
)

// gitError adds the fetch-depth hint to an unknown-revision error.
func gitError(err error) error {
	var re *gitsrc.RevError
	if errors.As(err, &re) {
		if re.Shallow {
			return engine.WithHint(err, ShallowHint)
		}
		return engine.WithHint(err, MissingHint)
	}
	if errors.Is(err, gitsrc.ErrNotRepo) {
		return engine.WithHint(err, "check out the repository first (actions/checkout with `fetch-depth: 0`)")
	}
	return err
}
