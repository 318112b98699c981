package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/sarif"
	"github.com/privscan/privscan/scanner"
)

func runScan(ctx context.Context, env *Env, cmd string, args []string) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	var f scanFlags
	f.register(fs, cmd)
	pos, paths, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(env.Stdout, helpFor(cmd, fs))
		return nil
	}
	if err != nil {
		return err
	}
	if err := checkFormat(f.format); err != nil {
		return err
	}
	if f.failOn != "" {
		if _, err := failLevel(f.failOn); err != nil {
			return err
		}
	}

	if err := checkArgs(cmd, pos, paths); err != nil {
		return err
	}
	if cmd == "scan" {
		if err := checkScanPaths(env, append(pos, paths...)); err != nil {
			return err
		}
	}
	if err := checkConfigFile(env, f.config); err != nil {
		return err
	}

	// The catalog first: it is the most common configuration problem, and
	// nothing is scanned without it.
	matcher, err := openCatalog(env, f.catalogKey)
	if err != nil {
		return err
	}

	if cmd == "text" {
		var cancel context.CancelFunc
		ctx, cancel, _ = f.caps.capInput(ctx, nil)
		defer cancel()
	}
	src, repo, err := scanSource(ctx, env, cmd, &f, pos, paths)
	if err != nil {
		return err
	}
	if repo != nil {
		defer repo.Close()
	}

	// Policy: from the trusted side when two commits are compared.
	base, head := engine.PolicyRevs(src)
	policyRev := base
	switch f.policyFrom {
	case "":
	case engine.PolicyWorktree:
		policyRev = ""
	default:
		policyRev = f.policyFrom
	}
	var repoCfg *config.Repo
	var suppressed map[string]string
	if policyRev != "" {
		repoCfg, suppressed, err = engine.RepoFilesAt(repo, policyRev, absPath(env, f.config))
		if err != nil {
			if errors.Is(err, gitsrc.ErrRevNotFound) {
				return gitError(err)
			}
			return repoConfigError(err)
		}
	} else {
		root := ""
		if repo != nil {
			root = repo.Root()
		}
		repoCfg, suppressed, err = engine.RepoFiles(root, absPath(env, f.config))
		if err != nil {
			return repoConfigError(err)
		}
	}
	if err := checkSeverityRules(ctx, env, matcher, repoCfg); err != nil {
		return err
	}
	if f.baseline != "" {
		if err := loadBaseline(absPath(env, f.baseline), suppressed); err != nil {
			return err
		}
	}
	failOn := f.failOn
	if failOn == "" {
		failOn = repoCfg.FailOn
	}
	if failOn == "" {
		failOn = "warning"
	}
	level, _ := failLevel(failOn)

	opts, err := engine.Options(engine.Settings{Matcher: matcher, Repo: repoCfg, Suppressed: suppressed, Secrets: &engine.Secrets{}})
	if err != nil {
		return err
	}
	if base != "" {
		// A change under review: its own markers do not silence it, and
		// an edit of its own policy is reported.
		opts.Markers = scanner.MarkersReview
		opts.PolicyChanged = engine.PolicyChanged(repo, base, head, engine.PolicyFiles)
	}

	out, closeOut, err := openOutput(env, f.output)
	if err != nil {
		return err
	}
	h, src, finish := present(ctx, env, cmd, &f, newHandler(env, &f, out), src)
	defer finish()
	g := &gate{Handler: h, level: level, allowNewMarkers: f.allowNewMarkers}
	_, runErr := scanner.Run(ctx, src, opts, g)
	if err := closeOut(); err != nil && runErr == nil {
		runErr = fmt.Errorf("writing %s: %w", f.output, err)
	}
	if runErr != nil {
		if err := inputError(ctx, runErr); err != nil {
			return err
		}
		return scanError(runErr)
	}
	if g.hit {
		return ErrFindings
	}
	return nil
}

// checkArgs checks the number of positional arguments of a command.
func checkArgs(cmd string, pos, paths []string) error {
	switch {
	case cmd == "text" && (len(pos) > 1 || len(paths) > 0):
		return usagef("text takes at most one file")
	case cmd == "diff" && len(pos) > 2:
		return usagef("diff takes at most two revisions")
	case cmd == "history" && len(pos) > 1:
		return usagef("history takes at most one range")
	}
	return nil
}

var formats = []string{"text", "json", "sarif", "github", "markdown"}

func checkFormat(format string) error {
	switch format {
	case "text", "json", "sarif", "github", "markdown":
		return nil
	}
	return &nameError{what: "unknown --format", raw: format, candidates: formats,
		tail: "(want text, json, sarif, github or markdown)", withheld: "(value withheld)"}
}

// failLevel parses --fail-on; "never" is level 0.
func failLevel(s string) (finding.Severity, error) {
	if s == "never" {
		return 0, nil
	}
	if l, ok := finding.ParseSeverity(s); ok {
		return l, nil
	}
	return 0, &nameError{what: "unknown --fail-on level", raw: s, candidates: []string{"error", "warning", "note", "never"},
		tail: "(want error, warning, note or never)", withheld: "(value withheld)"}
}

func openCatalog(env *Env, key string) (*catalog.Matcher, error) {
	b, err := broker.Open(broker.Options{Getenv: env.Getenv})
	if err != nil {
		return nil, err
	}
	m, _, err := b.OpenCatalog(key)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// scanSource builds the source for a scanning command and returns the
// repository it reads (nil for text), which the caller closes.
func scanSource(ctx context.Context, env *Env, cmd string, f *scanFlags, pos, paths []string) (scanner.Source, *gitsrc.Repo, error) {
	if cmd == "text" {
		if len(pos) == 0 || pos[0] == "-" {
			return &scanner.TextSource{R: f.caps.reader(stdinReader(ctx, env))}, nil, nil
		}
		file, err := os.Open(absPath(env, pos[0]))
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", pos[0], errors.Unwrap(err))
		}
		return &closingSource{TextSource: scanner.TextSource{R: f.caps.reader(file), Path: filepath.ToSlash(pos[0])}, c: file}, nil, nil
	}
	repo, err := gitsrc.Open(env.Dir)
	if err != nil {
		return nil, nil, gitError(err)
	}
	var src scanner.Source
	switch cmd {
	case "diff":
		src, err = repo.Diff(gitsrc.DiffOptions{Revs: pos, Staged: f.staged, Paths: paths, NoUntracked: f.noUntracked, NoMessages: f.noMessages})
	case "history":
		rng := ""
		if len(pos) == 1 {
			rng = pos[0]
		}
		src, err = repo.History(rng, paths)
	case "scan":
		src, err = repo.Files(append(pos, paths...))
	}
	if err != nil {
		repo.Close()
		return nil, nil, gitError(err)
	}
	return src, repo, nil
}

type closingSource struct {
	scanner.TextSource
	c io.Closer
}

func (s *closingSource) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	defer s.c.Close()
	return s.TextSource.Fragments(ctx, yield)
}

func absPath(env *Env, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

// gitError adds hints to git errors.
func gitError(err error) error {
	var re *gitsrc.RevError
	if errors.As(err, &re) {
		if re.Shallow {
			return withHint(err, "this is a shallow clone: fetch more history (in GitHub Actions, set `fetch-depth: 0` on actions/checkout)")
		}
		return withHint(err, "check the revision with `git log --oneline`")
	}
	if errors.Is(err, gitsrc.ErrNotRepo) {
		return withHint(err, "run privscan inside a git repository, or use `privscan text` for plain files")
	}
	return err
}

func scanError(err error) error {
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted")
	}
	if errors.Is(err, scanner.ErrDetectorPanic) {
		return withHint(err, "please report this bug; the crash details were withheld because they could include scanned text")
	}
	return gitError(err)
}

func loadBaseline(path string, suppressed map[string]string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading baseline: %w", err)
	}
	var rep render.Report
	if err := json.Unmarshal(data, &rep); err != nil || rep.Version != render.Version {
		return withHint(errors.New("baseline is not a privscan --format json report"), "create one with `privscan ... --format json --output baseline.json`")
	}
	for _, f := range rep.Findings {
		if f.Fingerprint != "" {
			suppressed[strings.ToLower(f.Fingerprint)] = "baseline"
		}
	}
	return nil
}

// openOutput returns the report's writer: stdout, or a file created (and
// truncated) for --output.
func openOutput(env *Env, output string) (io.Writer, func() error, error) {
	if output == "" || output == "-" {
		return env.Stdout, func() error { return nil }, nil
	}
	file, err := os.Create(absPath(env, output))
	if err != nil {
		return nil, nil, fmt.Errorf("creating --output file: %w", err)
	}
	return file, file.Close, nil
}

func newHandler(env *Env, f *scanFlags, out io.Writer) finding.Handler {
	tool := render.ToolInfo{Name: "privscan", Version: ToolVersion()}
	switch f.format {
	case "json":
		return render.NewJSON(out, tool)
	case "sarif":
		return sarif.NewHandler(out, sarif.Options{
			ToolVersion: tool.Version,
			Category:    f.category,
			Warn:        func(msg string) { fmt.Fprintf(env.Stderr, "privscan: warning: %s\n", render.OneLine(msg)) },
		})
	case "github":
		return render.NewGitHub(out)
	case "markdown":
		return render.NewMarkdown(out)
	}
	t := render.NewText(out)
	t.Color = f.output == "" && env.StdoutTTY && !f.noColor && env.Getenv("NO_COLOR") == ""
	t.Quiet = f.quiet
	return t
}

// gate records whether a finding reached the --fail-on level.
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
