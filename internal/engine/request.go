package engine

import (
	"context"
	"io"
	"strings"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/scanner"
)

// Request is one scan, as a door describes it.
type Request struct {
	// CatalogKey names the catalog ("": the default precedence). Matcher,
	// when set, is used instead (a door that scans several times with one
	// catalog opens it once with Engine.Catalog, with the same key) —
	// except when two commits are compared and catalog files of CatalogKey
	// are tracked by the repository: those are policy, read from the base.
	CatalogKey string
	Matcher    *catalog.Matcher

	// Dir is where the repository is looked up (its root or any folder
	// inside it). Text targets need none.
	Dir string
	// Repo, when set, is the open repository to scan (the caller closes
	// it); Dir is then ignored.
	Repo *gitsrc.Repo
	// Target is what is scanned: Diff, History, Files, Text or Custom.
	Target Target
	// Also are sources scanned after the target, in the same stream (the
	// Action's pull request text).
	Also []scanner.Source
	// Wrap, when set, wraps the final source (progress counting).
	Wrap func(scanner.Source) scanner.Source
	// OnRepo, when set, is called with the repository the scan reads, once
	// it is open and before the source runs, so that a door needs to open
	// none of its own (the command line's path filters read its root).
	// The repository must not be used after Scan returns.
	OnRepo func(*gitsrc.Repo)

	// ConfigPath names a .privscan.toml to use instead of the
	// repository's (read from disk: the choice of the person running the
	// scan).
	ConfigPath string
	// PolicyFrom says where the repository's policy files are read: ""
	// (the trusted base when two commits are compared, else the working
	// tree), PolicyWorktree, PolicyHEAD, PolicyDefaults, or a revision.
	PolicyFrom string
	// Baseline names a privscan JSON report whose fingerprints are
	// suppressed.
	Baseline string
	// Check, when set, inspects the catalog and the policy before the
	// scan (the command line's checks of [severity] rule IDs).
	Check func(*catalog.Matcher, *config.Repo) error

	// FailOn is the level at which findings fail the run: "error",
	// "warning", "note" or "never"; "" takes the repository's fail-on,
	// then "warning".
	FailOn string
	// AllowNewMarkers lets privscan:allow markers that the change itself
	// adds silence findings for the fail-on decision.
	AllowNewMarkers bool
	// Review treats every marker the scanned text adds as under review,
	// even when no two commits are compared (the Action: a pull request's
	// text).
	Review bool
	// NoSecrets turns the gitleaks rules off for this scan.
	NoSecrets bool
}

// Result is what a successful scan returns.
type Result struct {
	Summary *finding.Summary
	// Failed is set when a finding reached the fail-on level.
	Failed bool
	// FailOn is the level applied ("never" for none).
	FailOn string
	// Comparison describes a Diff target in words that name no revision
	// (a branch name can hold a catalogued name); "" for other targets.
	Comparison string
}

// Target is what a Request scans.
type Target interface {
	// open builds the source; repo is nil for targets that need none.
	open(repo *gitsrc.Repo) (scanner.Source, string, error)
	needsRepo() bool
}

type diffTarget struct{ o gitsrc.DiffOptions }

// Diff scans the added lines of a comparison, with git diff's semantics
// (gitsrc.DiffOptions). "HEAD" against the working tree or index in a
// repository with no commit yet compares with the empty tree.
func Diff(o gitsrc.DiffOptions) Target { return diffTarget{o} }

func (t diffTarget) needsRepo() bool { return true }
func (t diffTarget) open(repo *gitsrc.Repo) (scanner.Source, string, error) {
	src, err := repo.Diff(t.o)
	if u, ok := src.(interface{ UnbornHEAD() bool }); ok && u.UnbornHEAD() {
		return src, "the working tree, including untracked files, vs an empty tree (the repository has no commit yet)", err
	}
	return src, comparison(t.o), err
}

// comparison describes a diff in words that name no revision.
func comparison(o gitsrc.DiffOptions) string {
	base := ""
	if len(o.Revs) > 0 {
		base = o.Revs[0]
	}
	switch {
	case len(o.Revs) == 2:
		return "base vs head (commits), with the commit messages in between"
	case strings.Contains(base, "..."):
		return "the merge base of the two sides of base vs its second side, with the commit messages in between"
	case strings.Contains(base, ".."):
		return "the first side of base vs its second side (commits), with the commit messages in between"
	case base == "HEAD" && o.EmptyIfUnborn && o.Staged:
		return "HEAD vs the index (what git commit would record)"
	case base == "HEAD" && o.EmptyIfUnborn:
		return "HEAD vs the working tree, including untracked files (everything not committed yet)"
	case base != "" && o.Staged:
		return "base vs the index (staged changes)"
	case base != "":
		return "base vs the working tree, including untracked files"
	case o.Staged:
		return "HEAD vs the index (what git commit would record)"
	}
	return "the index vs the working tree"
}

type historyTarget struct {
	rng   string
	paths []string
}

// History scans every commit of a range (git log's, "" for all of HEAD's
// history): the lines each added and its message.
func History(rng string, paths []string) Target { return historyTarget{rng, paths} }

func (t historyTarget) needsRepo() bool { return true }
func (t historyTarget) open(repo *gitsrc.Repo) (scanner.Source, string, error) {
	src, err := repo.History(t.rng, t.paths)
	return src, "", err
}

type filesTarget struct{ paths []string }

// Files scans whole working-tree files (all tracked and untracked files
// under paths; all of them for none).
func Files(paths []string) Target { return filesTarget{paths} }

func (t filesTarget) needsRepo() bool { return true }
func (t filesTarget) open(repo *gitsrc.Repo) (scanner.Source, string, error) {
	src, err := repo.Files(t.paths)
	return src, "", err
}

type textTarget struct{ src *scanner.TextSource }

// Text scans free text read from r, located at path ("" for none).
func Text(r io.Reader, path string, kind finding.Kind) Target {
	return textTarget{&scanner.TextSource{R: r, Path: path, Kind: kind}}
}

func (t textTarget) needsRepo() bool { return false }
func (t textTarget) open(*gitsrc.Repo) (scanner.Source, string, error) {
	return t.src, "", nil
}

type customTarget func(*gitsrc.Repo) (scanner.Source, error)

// Custom scans the source fn builds from the repository (the hooks'
// model of what a command will record).
func Custom(fn func(*gitsrc.Repo) (scanner.Source, error)) Target { return customTarget(fn) }

func (t customTarget) needsRepo() bool { return true }
func (t customTarget) open(repo *gitsrc.Repo) (scanner.Source, string, error) {
	src, err := t(repo)
	return src, "", err
}

// Chain yields the fragments of several sources in turn.
type Chain []scanner.Source

// Fragments implements scanner.Source.
func (c Chain) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	for _, s := range c {
		if err := s.Fragments(ctx, yield); err != nil {
			return err
		}
	}
	return nil
}
