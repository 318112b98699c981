package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/scanner"
)

const testCatalog = "## P\n- category: person\n\n```values\nZelda Quartermaine\n```\n\n## W\n- category: codename\n- severity: warning\n\n```values\nProject Nightjar\n```\n"

// newEngine returns an engine whose catalog comes from the environment.
func newEngine(t *testing.T) *Engine {
	t.Helper()
	env := map[string]string{"PRIVSCAN_CATALOG": testCatalog, "HOME": t.TempDir()}
	return New(Config{Getenv: func(k string) string { return env[k] }, NoSecrets: true})
}

// gitRepo is a repository built with go-git (no git binary).
type gitRepo struct {
	t    *testing.T
	dir  string
	r    *git.Repository
	tick int
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return &gitRepo{t: t, dir: dir, r: r}
}

func (g *gitRepo) write(path, content string) {
	g.t.Helper()
	p := filepath.Join(g.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

// commit writes pairs of path, content, stages everything and commits.
func (g *gitRepo) commit(msg string, files ...string) string {
	g.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		g.write(files[i], files[i+1])
	}
	w, err := g.r.Worktree()
	if err != nil {
		g.t.Fatal(err)
	}
	if err := w.AddGlob("."); err != nil {
		g.t.Fatal(err)
	}
	g.tick++
	sig := &object.Signature{Name: "Test", Email: "test@example.com", When: time.Unix(1700000000+int64(g.tick), 0)}
	h, err := w.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		g.t.Fatal(err)
	}
	return h.String()
}

type collected struct {
	findings []finding.Finding
	summary  *finding.Summary
}

func (c *collected) Finding(f *finding.Finding) error {
	c.findings = append(c.findings, *f)
	return nil
}
func (c *collected) Summary(s *finding.Summary) error { c.summary = s; return nil }

func (c *collected) where() string {
	var b []string
	for _, f := range c.findings {
		s := f.RuleID + "@" + f.Path
		if f.Suppressed != "" {
			s += "(" + f.Suppressed + ")"
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}

// TestScanTargets: every target kind through the one entry point, with
// the fail-on decision taken from the request, then the repository, then
// the default.
func TestScanTargets(t *testing.T) {
	g := newGitRepo(t)
	base := g.commit("initial", "a.txt", "one\n")
	head := g.commit("add", "a.txt", "one\nZelda Quartermaine\n", "b.txt", "Project Nightjar\n")
	g.write("c.txt", "Zelda Quartermaine again\n") // untracked

	tests := []struct {
		name       string
		req        Request
		want       string
		failed     bool
		comparison string
	}{
		{"text", Request{Target: Text(strings.NewReader("hi Zelda Quartermaine"), "", "")}, "catalog/P@", true, ""},
		{"text, fail-on error, warning only", Request{Target: Text(strings.NewReader("Project Nightjar"), "", ""), FailOn: "error"}, "catalog/W@", false, ""},
		{"text, fail-on never", Request{Target: Text(strings.NewReader("Zelda Quartermaine"), "", ""), FailOn: "never"}, "catalog/P@", false, ""},
		{"diff of two commits", Request{Dir: g.dir, Target: Diff(gitsrc.DiffOptions{Revs: []string{base, head}})}, "catalog/P@a.txt catalog/W@b.txt", true,
			"base vs head (commits), with the commit messages in between"},
		{"HEAD vs the working tree", Request{Dir: g.dir, Target: Diff(gitsrc.DiffOptions{Revs: []string{"HEAD"}, EmptyIfUnborn: true})}, "catalog/P@c.txt", true,
			"HEAD vs the working tree, including untracked files (everything not committed yet)"},
		{"history", Request{Dir: g.dir, Target: History("", nil)}, "catalog/P@a.txt catalog/W@b.txt", true, ""},
		{"files", Request{Dir: g.dir, Target: Files([]string{"b.txt"})}, "catalog/W@b.txt", true, ""},
		{"custom", Request{Dir: g.dir, Target: Custom(func(r *gitsrc.Repo) (scanner.Source, error) { return r.Files([]string{"c.txt"}) })}, "catalog/P@c.txt", true, ""},
		{"also", Request{Target: Text(strings.NewReader("clean"), "", ""), Also: []scanner.Source{&scanner.TextSource{R: strings.NewReader("Project Nightjar")}}}, "catalog/W@", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c collected
			res, err := newEngine(t).Scan(context.Background(), tt.req, &c)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.where(); got != tt.want {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
			if res.Failed != tt.failed {
				t.Errorf("Failed = %v, want %v", res.Failed, tt.failed)
			}
			if res.Comparison != tt.comparison {
				t.Errorf("Comparison = %q, want %q", res.Comparison, tt.comparison)
			}
			if c.summary == nil || res.Summary != c.summary {
				t.Error("the handler's summary is not the result's")
			}
		})
	}
}

// TestScanPolicyFromBase: comparing two commits, the base's policy
// judges; the head's relaxation is reported as policyChanged, and a marker
// the head adds does not silence its own finding.
func TestScanPolicyFromBase(t *testing.T) {
	g := newGitRepo(t)
	base := g.commit("initial", "a.txt", "one\n", ".privscan.toml", "fail-on = \"warning\"\n")
	head := g.commit("relax", ".privscan.toml", "fail-on = \"never\"\nexclude = [\"*.txt\"]\n",
		"a.txt", "one\nZelda Quartermaine privscan:allow\n")
	var c collected
	res, err := newEngine(t).Scan(context.Background(), Request{Dir: g.dir, Target: Diff(gitsrc.DiffOptions{Revs: []string{base + ".." + head}})}, &c)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.where(); got != "catalog/P@a.txt(inline-added)" {
		t.Errorf("findings %q", got)
	}
	if !res.Failed || res.FailOn != "warning" || !res.Summary.PolicyChanged {
		t.Errorf("Failed=%v FailOn=%q PolicyChanged=%v, want the base's policy and the change reported", res.Failed, res.FailOn, res.Summary.PolicyChanged)
	}
	// The same markers allowed: suppressed for the decision.
	res, err = newEngine(t).Scan(context.Background(), Request{Dir: g.dir, AllowNewMarkers: true, Target: Diff(gitsrc.DiffOptions{Revs: []string{base, head}})}, &collected{})
	if err != nil || res.Failed {
		t.Errorf("with new markers allowed: Failed=%v err=%v", res != nil && res.Failed, err)
	}
	// From the working tree (the head's files): its fail-on applies.
	res, err = newEngine(t).Scan(context.Background(), Request{Dir: g.dir, PolicyFrom: PolicyWorktree, Target: Files(nil)}, &collected{})
	if err != nil || res.FailOn != "never" {
		t.Errorf("worktree policy: FailOn=%v err=%v", res, err)
	}
}

// TestScanUnborn: before the first commit, HEAD vs the working tree is
// everything there, and the HEAD policy is the defaults.
func TestScanUnborn(t *testing.T) {
	g := newGitRepo(t)
	g.write("a.txt", "Zelda Quartermaine\n")
	var c collected
	res, err := newEngine(t).Scan(context.Background(), Request{Dir: g.dir, PolicyFrom: PolicyHEAD,
		Target: Diff(gitsrc.DiffOptions{Revs: []string{"HEAD"}, EmptyIfUnborn: true})}, &c)
	if err != nil {
		t.Fatal(err)
	}
	if c.where() != "catalog/P@a.txt" || !strings.Contains(res.Comparison, "no commit yet") {
		t.Errorf("findings %q, comparison %q", c.where(), res.Comparison)
	}
	// Without EmptyIfUnborn, git's answer: HEAD is unknown.
	_, err = newEngine(t).Scan(context.Background(), Request{Dir: g.dir, Target: Diff(gitsrc.DiffOptions{Revs: []string{"HEAD"}})}, &c)
	var re *gitsrc.RevError
	if !errors.As(err, &re) || Hint(err) != RevHint {
		t.Errorf("err %v (hint %q), want a revision error with its hint", err, Hint(err))
	}
}

// TestScanErrors: every failure carries what the user can do, and none
// quotes the catalog or the scanned text.
func TestScanErrors(t *testing.T) {
	g := newGitRepo(t)
	g.commit("initial", "a.txt", "one\n")
	notRepo := t.TempDir()
	baseline := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(baseline, []byte("Zelda Quartermaine"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  Request
		is   func(error) bool
		hint string
	}{
		{"not a repository", Request{Dir: notRepo, Target: Files(nil)}, func(err error) bool { return errors.Is(err, gitsrc.ErrNotRepo) }, NotRepoHint},
		{"unknown revision", Request{Dir: g.dir, Target: Diff(gitsrc.DiffOptions{Revs: []string{"nope"}})}, func(err error) bool { var re *gitsrc.RevError; return errors.As(err, &re) }, RevHint},
		{"bad fail-on", Request{Target: Text(strings.NewReader(""), "", ""), FailOn: "fatal"}, func(err error) bool { return errors.Is(err, ErrFailOn) }, "use error, warning, note or never"},
		{"bad config", Request{Dir: g.dir, Target: Files(nil), ConfigPath: writeTemp(t, "fail-on = [\n")}, func(err error) bool { var ce *ConfigError; return errors.As(err, &ce) }, "fix or remove the file; see `privscan help` for its format"},
		{"bad baseline", Request{Target: Text(strings.NewReader(""), "", ""), Baseline: baseline}, func(err error) bool { return err != nil }, "create one with `privscan ... --format json --output baseline.json`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newEngine(t).Scan(context.Background(), tt.req, &collected{})
			if err == nil || !tt.is(err) {
				t.Fatalf("err %v", err)
			}
			if Hint(err) != tt.hint {
				t.Errorf("hint %q, want %q", Hint(err), tt.hint)
			}
			if strings.Contains(err.Error(), "Zelda") || strings.Contains(err.Error(), "Quartermaine") {
				t.Errorf("error quotes a value: %v", err)
			}
		})
	}
}

// TestScanCancelled: a cancelled scan is ErrInterrupted.
func TestScanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newEngine(t).Scan(ctx, Request{Target: Text(strings.NewReader("Zelda Quartermaine\n"), "", "")}, &collected{})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
}

// TestCatalogCache: a catalog is compiled once and again when its file
// changes.
func TestCatalogCache(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "catalog.md")
	if err := os.WriteFile(p, []byte(testCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PRIVSCAN_CATALOG_FILE": p, "HOME": dir}
	e := New(Config{Getenv: func(k string) string { return env[k] }, NoSecrets: true})
	first, _, err := e.Catalog("")
	if err != nil {
		t.Fatal(err)
	}
	if again, _, _ := e.Catalog(""); again != first {
		t.Error("unchanged catalog compiled again")
	}
	if err := os.WriteFile(p, []byte(testCatalog+"\n## X\n- category: codename\n\n```values\nProject Heron\n```\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	second, _, err := e.Catalog("")
	if err != nil || second == first || len(second.Rules()) != 3 {
		t.Errorf("edited catalog: same=%v err=%v", second == first, err)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ".privscan.toml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
