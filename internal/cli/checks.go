package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/pii"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/internal/secrets"
	"github.com/privscan/privscan/scanner"
)

// Checks that turn would-be silent no-ops into errors or warnings: a
// privacy gate that quietly scans nothing is a gate that passes leaks.
//
//   - scan of a path that does not exist: error (it would scan nothing).
//   - --config naming a file that does not exist: error (it would fall
//     back to no configuration, dropping the user's excludes and levels).
//   - an unknown key in .privscan.toml: error naming the key.
//   - a [severity] override for a pii/ rule that does not exist: error (the
//     built-in detectors are a fixed set; this is a typo).
//   - a [severity] override for a catalog/ or secret/ rule that does not
//     exist: warning on stderr. The repository's file is shared by people
//     whose catalogs differ, and the secret rules change between releases;
//     failing every scan for that would be wrong, saying nothing too.

// checkScanPaths fails when a path given to scan does not exist. Paths with
// glob characters are pathspecs, not files, and are not checked.
func checkScanPaths(env *Env, paths []string) error {
	for _, p := range paths {
		if p == "" || strings.ContainsAny(p, "*?[") {
			continue
		}
		if _, err := os.Lstat(absPath(env, p)); errors.Is(err, fs.ErrNotExist) {
			return &nameError{what: "path", raw: p, shape: shapePath, tail: "does not exist",
				withheld: "(withheld)", hint: "scan takes files and folders of the working tree, relative to the current directory"}
		}
	}
	return nil
}

// checkConfigFile fails when --config names a file that does not exist.
func checkConfigFile(env *Env, path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(absPath(env, path)); errors.Is(err, fs.ErrNotExist) {
		return &nameError{what: "--config file", raw: path, shape: shapePath, tail: "does not exist",
			withheld: "(withheld)", hint: "without --config, privscan reads .privscan.toml at the repository root if there is one"}
	}
	return nil
}

// repoConfigError names an unknown key of .privscan.toml (after
// screening) and suggests the nearest known one.
func repoConfigError(err error) error {
	var ke *config.KeyError
	if errors.As(err, &ke) {
		where := "at the top level"
		if ke.Section != "" {
			where = "in [" + ke.Section + "]"
		}
		return &nameError{what: "repository config: unknown key", raw: ke.Key, candidates: ke.Known,
			tail: fmt.Sprintf("%s (known: %s)", where, strings.Join(ke.Known, ", ")), withheld: "(withheld)",
			hint: "fix or remove the key; `privscan help` describes the file"}
	}
	return withHint(fmt.Errorf("repository config: %w", err), "fix or remove the file; see `privscan help` for its format")
}

// checkSeverityRules checks the rule IDs of the [severity] overrides
// against the rules that exist: an unknown pii/ rule is an error, an
// unknown catalog/ or secret/ rule a warning (see above). Rule IDs that are
// not known are shown only after screening.
func checkSeverityRules(ctx context.Context, env *Env, m *catalog.Matcher, repo *config.Repo) error {
	if repo == nil || len(repo.Severity) == 0 {
		return nil
	}
	ids := make([]string, 0, len(repo.Severity))
	for id := range repo.Severity {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	known := map[string][]string{}
	for _, name := range pii.Names() {
		known["pii"] = append(known["pii"], "pii/"+name)
	}
	for _, r := range m.Rules() {
		known["catalog"] = append(known["catalog"], "catalog/"+r.ID)
	}
	var scr *screen
	for _, id := range ids {
		src, _, _ := strings.Cut(id, "/")
		if src == "secret" && known["secret"] == nil {
			d, err := secrets.New()
			if err != nil {
				return fmt.Errorf("loading the secret rules: %w", err)
			}
			for _, r := range d.Rules() {
				known["secret"] = append(known["secret"], r.ID)
			}
		}
		cands, ok := known[src]
		if !ok {
			return &nameError{what: "[severity] rule", raw: id, tail: "in " + config.FileName + " is not a rule ID",
				withheld: "(withheld)", hint: "rule IDs start with catalog/, pii/ or secret/"}
		}
		if contains(cands, id) {
			continue
		}
		ne := &nameError{what: "[severity] names rule", raw: id, candidates: cands,
			tail: "in " + config.FileName + ", which does not exist", withheld: "(withheld)",
			hint: "the built-in PII rules are " + strings.Join(known["pii"], ", ")}
		if src == "pii" {
			return ne // Run screens the name
		}
		if scr == nil {
			scr = newScreen(env, env.Args)
		}
		ne.resolve(ctx, scr)
		why := "this catalog has no such rule"
		if src == "secret" {
			why = "this version's secret rules have none such"
		}
		msg := ne.Error() + " (" + why + "; the override does nothing)"
		fmt.Fprintf(env.Stderr, "privscan: warning: %s\n", render.OneLine(msg))
		if ne.suggest != "" {
			fmt.Fprintf(env.Stderr, "privscan: hint: %s\n", render.OneLine(ne.suggest))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pathFilters watches the "-- <path>" filters of diff and history: a
// literal path filter that matched no scanned file is a warning at the end
// of the run (a typo there scans less than the user thinks, and exits 0).
// Glob filters are not checked.
type pathFilters struct {
	env     *Env
	typed   []string // as given
	rel     []string // relative to the root; "" for a glob or a path outside (set by setRoot)
	matched []bool
	mu      sync.Mutex
}

// setRoot works out each literal filter's path relative to the root of
// the repository the scan reads (the engine's, opened once).
func (pf *pathFilters) setRoot(repo *gitsrc.Repo) {
	root := repo.Root()
	absDir, err := filepath.Abs(pf.env.Dir)
	if err != nil || root == "" {
		return
	}
	if r, err := filepath.EvalSymlinks(absDir); err == nil {
		absDir = r
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel := make([]string, len(pf.typed))
	for i, p := range pf.typed {
		if p != "" && !strings.ContainsAny(p, "*?[") {
			abs := p
			if !filepath.IsAbs(p) {
				abs = filepath.Join(absDir, p)
			}
			if r, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(r, "..") {
				rel[i] = filepath.ToSlash(r)
			}
		}
	}
	pf.mu.Lock()
	pf.rel = rel
	pf.mu.Unlock()
}

func (pf *pathFilters) wrap(src scanner.Source) scanner.Source {
	return sourceFunc(func(ctx context.Context, yield func(*scanner.Fragment) error) error {
		return src.Fragments(ctx, func(f *scanner.Fragment) error {
			if f.Path != "" {
				pf.mu.Lock()
				for i, r := range pf.rel {
					if r == "." || f.Path == r || strings.HasPrefix(f.Path, r+"/") {
						pf.matched[i] = true
					}
				}
				pf.mu.Unlock()
			}
			return yield(f)
		})
	})
}

// warn prints a warning per literal filter that matched nothing.
func (pf *pathFilters) warn(ctx context.Context) {
	pf.mu.Lock()
	rels := pf.rel
	pf.mu.Unlock()
	var scr *screen
	for i, r := range rels {
		if r == "" || pf.matched[i] {
			continue
		}
		if scr == nil {
			scr = newScreen(pf.env, pf.env.Args)
		}
		name := scr.show(ctx, pf.typed[i], shapePath)
		if name == "" {
			name = fmt.Sprintf("%d of %d", i+1, len(pf.typed))
		}
		fmt.Fprintf(pf.env.Stderr, "privscan: warning: path filter %s matched no file with changes to scan\n", render.OneLine(name))
	}
}

// warnAtSummary prints the path filter warnings after the report's summary.
type warnAtSummary struct {
	finding.Handler
	ctx context.Context
	pf  *pathFilters
}

func (w *warnAtSummary) Summary(s *finding.Summary) error {
	err := w.Handler.Summary(s)
	w.pf.warn(w.ctx)
	return err
}
