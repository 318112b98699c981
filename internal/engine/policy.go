package engine

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/gitsrc"
)

// PolicyWorktree is the --policy-from value that reads the policy files
// from the working tree.
const PolicyWorktree = "worktree"

// PolicyFiles are the repository files that make up a scan's policy. A
// change under review must not relax the policy it is judged by, so when
// two commits are compared they are read from the trusted side.
var PolicyFiles = []string{config.FileName, config.IgnoreFileName}

// maxPolicyFile is the largest policy file read from a commit (the same
// limit as on disk).
const maxPolicyFile = 1 << 20

// policySource is implemented by the git sources that compare two commits:
// PolicyBase is the trusted side ("" when the index or working tree takes
// part), PolicyHead the side under review.
type policySource interface {
	PolicyBase() string
	PolicyHead() string
}

// PolicyRevs returns the commits a scan of src compares for policy: the
// trusted base and the head under review, or "" and "" when src does not
// compare two commits.
func PolicyRevs(src any) (base, head string) {
	if p, ok := src.(policySource); ok && p.PolicyBase() != "" {
		return p.PolicyBase(), p.PolicyHead()
	}
	return "", ""
}

// RepoFilesAt loads .privscan.toml (or configPath when set, from disk: an
// explicit choice of the person running the scan) and .privscanignore as
// they are in commit rev, reading git objects only: a pull request that
// edits them cannot change what judges it.
func RepoFilesAt(repo *gitsrc.Repo, rev, configPath string) (*config.Repo, map[string]string, error) {
	cfg := &config.Repo{}
	if configPath != "" {
		r, err := config.Load(configPath)
		if err != nil {
			return nil, nil, err
		}
		cfg = r
	} else {
		data, err := repo.ReadFileAt(rev, config.FileName, maxPolicyFile)
		switch {
		case errors.Is(err, gitsrc.ErrFileNotInCommit):
		case err != nil:
			return nil, nil, fmt.Errorf("%s of the base commit: %w", config.FileName, err)
		default:
			if cfg, err = config.Parse(data); err != nil {
				return nil, nil, fmt.Errorf("in the base commit: %w", err)
			}
		}
	}
	sup := map[string]string{}
	data, err := repo.ReadFileAt(rev, config.IgnoreFileName, maxPolicyFile)
	switch {
	case errors.Is(err, gitsrc.ErrFileNotInCommit):
	case err != nil:
		return nil, nil, fmt.Errorf("%s of the base commit: %w", config.IgnoreFileName, err)
	default:
		ign, err := config.ParseIgnore(data)
		if err != nil {
			return nil, nil, fmt.Errorf("in the base commit: %w", err)
		}
		for fp := range ign {
			sup[fp] = "ignore-file"
		}
	}
	return cfg, sup, nil
}

// PolicyChanged reports whether any of files (repository paths) differs
// between commits base and head: a change that edits its own policy. A
// file that cannot be read on either side counts as changed.
func PolicyChanged(repo *gitsrc.Repo, base, head string, files []string) bool {
	for _, p := range files {
		a, aerr := repo.ReadFileAt(base, p, maxPolicyFile)
		b, berr := repo.ReadFileAt(head, p, maxPolicyFile)
		for _, err := range []error{aerr, berr} {
			if err != nil && !errors.Is(err, gitsrc.ErrFileNotInCommit) {
				return true
			}
		}
		if (aerr == nil) != (berr == nil) || !bytes.Equal(a, b) {
			return true
		}
	}
	return false
}
