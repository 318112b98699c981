package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/scanner"
)

// PolicyHEAD is the PolicyFrom value that reads the policy files as they
// are committed at HEAD (the defaults with no commit yet): the hooks judge
// uncommitted work by the committed policy.
const PolicyHEAD = "HEAD"

// PolicyDefaults is the PolicyFrom value that reads no repository policy
// file: the built-in defaults judge (or Request.ConfigPath). The hooks use
// it where nothing committed can judge (commits made before any commit).
const PolicyDefaults = "defaults"

// Scan runs req into h: the one path from a door to the detectors. It
// stops at the first error; errors carry a hint (see Hint) where the user
// can act on them, and never quote scanned text or catalog values.
func (e *Engine) Scan(ctx context.Context, req Request, h finding.Handler) (*Result, error) {
	if err := checkFailOn(req.FailOn); err != nil {
		return nil, err
	}
	// The catalog first: it is the most common configuration problem, and
	// nothing is scanned without it.
	m := req.Matcher
	var catErr error
	if m == nil {
		if m, _, catErr = e.Catalog(req.CatalogKey); catErr != nil && !req.Target.needsRepo() {
			return nil, catErr
		}
	}

	repo := req.Repo
	if repo == nil && req.Target.needsRepo() {
		open := e.opts.Open
		if open == nil {
			open = gitsrc.Open
		}
		r, err := open(req.Dir)
		if err != nil {
			if catErr != nil {
				return nil, catErr
			}
			return nil, GitError(err)
		}
		defer r.Close()
		repo = r
	}
	if repo != nil && req.OnRepo != nil {
		req.OnRepo(repo)
	}
	src, comparison, err := req.Target.open(repo)
	if err != nil {
		if catErr != nil {
			return nil, catErr
		}
		return nil, GitError(err)
	}

	// Policy: from the trusted side when two commits are compared.
	base, head := PolicyRevs(src)
	// A catalog file the repository tracks is policy too: read from the
	// trusted side, so a change cannot swap or empty the catalog that
	// judges it (its error, if any, is the one reported).
	var catalogFiles []string
	if pinRev := catalogRev(req.PolicyFrom, base); pinRev != "" && repo != nil {
		pm, files, err := e.pinnedCatalog(repo, req.CatalogKey, pinRev)
		if err != nil {
			return nil, err
		}
		if pm != nil {
			m, catErr, catalogFiles = pm, nil, files
		}
	}
	if catErr != nil {
		return nil, catErr
	}
	cfg, suppressed, err := e.policy(repo, req, base)
	if err != nil {
		return nil, err
	}
	if req.Check != nil {
		if err := req.Check(m, cfg); err != nil {
			return nil, err
		}
	}
	if req.Baseline != "" {
		if err := loadBaseline(req.Baseline, suppressed); err != nil {
			return nil, err
		}
	}
	failOn := firstOf(req.FailOn, cfg.FailOn, "warning")
	level, _ := FailLevel(failOn)

	opts, err := options(settings{matcher: m, repo: cfg, suppressed: suppressed,
		noSecrets: e.opts.NoSecrets || req.NoSecrets, workers: e.opts.Workers})
	if err != nil {
		return nil, err
	}
	if base != "" || req.Review {
		// A change under review: its own markers do not silence it.
		opts.Markers = scanner.MarkersReview
	}
	if base != "" {
		// ... and an edit of its own policy is reported.
		opts.PolicyChanged = PolicyChanged(repo, base, head, PolicyFiles) || catalogChanged(repo, base, head, catalogFiles)
	}
	if len(req.Also) > 0 {
		src = append(Chain{src}, req.Also...)
	}
	if req.Wrap != nil {
		src = req.Wrap(src)
	}
	g := &gate{Handler: h, level: level, allowNewMarkers: req.AllowNewMarkers}
	sum, err := scanner.Run(ctx, src, opts, g)
	if err != nil {
		return nil, ScanError(err)
	}
	// A sealed catalog's pages are checked when first read: a damaged
	// one gave no finding, and fails the scan.
	if err := m.IntegrityErr(); err != nil {
		return nil, broker.IntegrityError(err)
	}
	return &Result{Summary: sum, Failed: g.hit, FailOn: failOn, Comparison: comparison}, nil
}

// policy reads the repository's policy files for req: .privscan.toml (or
// req.ConfigPath) and .privscanignore, from commit base when two commits
// are compared (unless req.PolicyFrom says otherwise), else from the
// working tree; the defaults without a repository.
func (e *Engine) policy(repo *gitsrc.Repo, req Request, base string) (*config.Repo, map[string]string, error) {
	rev := base
	switch req.PolicyFrom {
	case "":
	case PolicyWorktree:
		rev = ""
	case PolicyDefaults:
		return RepoFiles("", req.ConfigPath)
	default:
		rev = req.PolicyFrom
	}
	if rev != "" && repo != nil {
		cfg, sup, err := RepoFilesAt(repo, rev, req.ConfigPath)
		if errors.Is(err, gitsrc.ErrRevNotFound) && rev == PolicyHEAD && req.PolicyFrom == PolicyHEAD {
			// No commit yet: nothing committed judges, the defaults do
			// (or the explicit --config).
			return RepoFiles("", req.ConfigPath)
		}
		if err != nil {
			if errors.Is(err, gitsrc.ErrRevNotFound) {
				return nil, nil, GitError(err)
			}
			return nil, nil, configError(err)
		}
		return cfg, sup, nil
	}
	root := ""
	if repo != nil {
		root = repo.Root()
	}
	cfg, sup, err := RepoFiles(root, req.ConfigPath)
	if err != nil {
		return nil, nil, configError(err)
	}
	return cfg, sup, nil
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

// checkFailOn validates a fail-on level ("" is allowed: the default).
func checkFailOn(s string) error {
	if s == "" {
		return nil
	}
	_, err := FailLevel(s)
	return err
}

// ErrFailOn is returned (wrapped) for an unknown fail-on level.
var ErrFailOn = errors.New("unknown fail-on level")

// FailLevel parses a fail-on level; "never" is level 0.
func FailLevel(s string) (finding.Severity, error) {
	if s == "never" {
		return 0, nil
	}
	if l, ok := finding.ParseSeverity(s); ok {
		return l, nil
	}
	return 0, WithHint(ErrFailOn, "use error, warning, note or never")
}

// loadBaseline adds the fingerprints of a privscan JSON report at path.
func loadBaseline(path string, suppressed map[string]string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading baseline: %w", err)
	}
	var rep render.Report
	if err := json.Unmarshal(data, &rep); err != nil || rep.Version != render.Version {
		return WithHint(errors.New("baseline is not a privscan --format json report"), "create one with `privscan ... --format json --output baseline.json`")
	}
	for _, f := range rep.Findings {
		if f.Fingerprint != "" {
			suppressed[strings.ToLower(f.Fingerprint)] = "baseline"
		}
	}
	return nil
}

// gate records whether a finding reached the fail-on level.
type gate struct {
	finding.Handler
	level           finding.Severity
	allowNewMarkers bool
	hit             bool
}

func (g *gate) Finding(f *finding.Finding) error {
	if f.Fails(g.level, g.allowNewMarkers) {
		g.hit = true
	}
	return g.Handler.Finding(f)
}

// Tee hands every finding and the summary to each handler in turn.
type Tee []finding.Handler

// Finding implements finding.Handler.
func (t Tee) Finding(f *finding.Finding) error {
	for _, h := range t {
		if err := h.Finding(f); err != nil {
			return err
		}
	}
	return nil
}

// Summary implements finding.Handler.
func (t Tee) Summary(s *finding.Summary) error {
	for _, h := range t {
		if err := h.Summary(s); err != nil {
			return err
		}
	}
	return nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// Redactor returns a redactor for req's catalog and configuration (its
// ConfigPath; redaction reads no repository): the same detectors as Scan,
// so a redacted text has nothing left that Scan would report.
func (e *Engine) Redactor(req Request) (*scanner.Redactor, error) {
	m := req.Matcher
	if m == nil {
		var err error
		if m, _, err = e.Catalog(req.CatalogKey); err != nil {
			return nil, err
		}
	}
	// A value on a damaged page of a sealed catalog would pass through
	// unredacted: every page is checked first.
	if err := m.CheckIntegrity(); err != nil {
		return nil, broker.IntegrityError(err)
	}
	cfg, _, err := RepoFiles("", req.ConfigPath)
	if err != nil {
		return nil, configError(err)
	}
	opts, err := options(settings{matcher: m, repo: cfg, noSecrets: e.opts.NoSecrets || req.NoSecrets, workers: e.opts.Workers})
	if err != nil {
		return nil, err
	}
	return scanner.NewRedactor(opts), nil
}
