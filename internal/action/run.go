package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/sarif"
	"github.com/privscan/privscan/scanner"
)

// Config is the process environment Run works in.
type Config struct {
	// Getenv reads the environment: GITHUB_*, RUNNER_TEMP and the inputs
	// (see the Env constants). Required.
	Getenv func(string) string
	// Dir is the repository when GITHUB_WORKSPACE is unset ("" = ".").
	Dir string
	// Stdout receives workflow commands (annotations, notices); Stderr
	// a one-line status and warnings.
	Stdout, Stderr io.Writer
	// ToolVersion is written to the SARIF log.
	ToolVersion string
	// Secrets runs the gitleaks rules too.
	Secrets bool
}

// Result is what a run did.
type Result struct {
	// Skipped is set when nothing was scanned: no catalog is available
	// (pull requests from forks get no secrets) or the push deleted a
	// branch.
	Skipped bool
	// Findings counts the reported (not suppressed) findings.
	Findings int
	// UnderReview counts the findings suppressed only by privscan:allow
	// markers the change itself adds (they fail the check unless
	// allow-new-markers).
	UnderReview int
	// ExitCode is 1 when a finding is at or above fail-on, else 0: the
	// Action's last step fails the job on it, after the SARIF upload.
	ExitCode int
	// SARIFFile is the absolute path of the SARIF log ("" when skipped).
	SARIFFile string
	// Scanned describes the range (commit IDs only).
	Scanned string
}

// Run is `privscan action`: it reads the event, scans the change it
// describes, and writes the SARIF log, the annotations, the job summary
// and the step outputs. Findings are not an error: they are reported in
// Result.ExitCode and the exit-code output.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	getenv := cfg.Getenv
	in, err := ReadInputs(getenv)
	if err != nil {
		return nil, err
	}
	event := getenv("GITHUB_EVENT_NAME")
	if event == "" {
		return nil, engine.WithHint(errors.New("GITHUB_EVENT_NAME is not set"), "privscan action runs inside a GitHub Actions job; on your machine use `privscan diff <base>...<head>`")
	}
	// Refused before anything is read: see ErrPullRequestTarget.
	if event == "pull_request_target" {
		return nil, refusePullRequestTarget()
	}
	evPath := getenv("GITHUB_EVENT_PATH")
	if evPath == "" {
		return nil, engine.WithHint(errors.New("GITHUB_EVENT_PATH is not set"), "privscan action runs inside a GitHub Actions job; on your machine use `privscan diff <base>...<head>`")
	}
	ev, err := readEvent(evPath)
	if err != nil {
		return nil, err
	}
	dir := or(getenv("GITHUB_WORKSPACE"), cfg.Dir, ".")
	getenv = catalogFileIn(dir, getenv)

	eng := engine.New(engine.Config{Getenv: getenv, NoSecrets: !cfg.Secrets})
	matcher, _, err := eng.Catalog("")
	if errors.Is(err, broker.ErrConfigMissing) && getenv(EnvCatalog) == "" && getenv(EnvCatalogFile) == "" {
		msg := "no catalog is available to this run, so nothing was scanned: set the action's catalog input from a secret"
		if fork(event, ev) {
			msg = "no catalog is available to this run (pull requests from forks get no secrets), so nothing was scanned"
		}
		return skip(cfg, msg)
	}
	// A catalog file the repository tracks is read from the base by the
	// scan (engine: policy from the trusted side), so an error of the
	// checked-out catalog (a change that empties it) is left to the scan,
	// which reports it when the base has no such file.
	catErr := err
	if err != nil {
		matcher = nil
	}

	repo, err := gitsrc.Open(dir)
	if err != nil {
		if catErr != nil {
			return nil, catErr
		}
		return nil, gitError(err)
	}
	defer repo.Close()
	p, err := makePlan(event, ev, in, getenv("GITHUB_SHA"), &repoView{repo})
	if err != nil {
		if catErr != nil {
			return nil, catErr
		}
		return nil, gitError(err)
	}
	if p.skip != "" && catErr != nil {
		return nil, catErr
	}
	if p.skip != "" {
		return skip(cfg, p.skip)
	}
	return scan(ctx, cfg, in, eng, matcher, repo, p)
}

func scan(ctx context.Context, cfg Config, in Inputs, eng *engine.Engine, matcher *catalog.Matcher, repo *gitsrc.Repo, p *plan) (*Result, error) {
	getenv := cfg.Getenv
	// The policy of the trusted side (the pull request's base, the push's
	// merge base) judges the change, never the change's own policy; its
	// own markers (in its lines, messages and text) do not silence it.
	req := engine.Request{Matcher: matcher, Repo: repo, FailOn: in.FailOn, AllowNewMarkers: in.AllowNewMarkers, Review: true}
	if p.history != "" {
		req.Target = engine.History(p.history, nil)
	} else {
		req.Target = engine.Diff(gitsrc.DiffOptions{Revs: p.revs})
	}
	if p.skipMsg != "" {
		req.Wrap = func(src scanner.Source) scanner.Source { return &dropMessage{src: src, commit: p.skipMsg} }
	}
	scanned := p.desc + ", with its commit messages"
	if p.pr != nil && in.ScanPRText {
		req.Also = []scanner.Source{&scanner.TextSource{R: strings.NewReader(prText(p.pr)), Kind: finding.KindText}}
		scanned += " and the pull request's title and body"
	}

	sarifPath := sarifPath(in.SARIFFile, getenv)
	if err := os.MkdirAll(filepath.Dir(sarifPath), 0o755); err != nil {
		return nil, fmt.Errorf("creating the SARIF file's directory: %w", errors.Unwrap(err))
	}
	sf, err := os.Create(sarifPath)
	if err != nil {
		return nil, fmt.Errorf("creating the SARIF file: %w", errors.Unwrap(err))
	}
	ok := false
	defer func() {
		if !ok {
			// No partial log for a later upload step to find.
			sf.Close()
			os.Remove(sarifPath)
		}
	}()

	var md bytes.Buffer
	mr := render.NewMarkdown(&md)
	mr.MaxBytes = MaxSummaryBytes - 16<<10
	hs := []finding.Handler{
		sarif.NewHandler(sf, sarif.Options{
			ToolVersion: cfg.ToolVersion,
			Category:    in.Category,
			Warn:        func(msg string) { fmt.Fprintf(cfg.Stderr, "privscan: warning: %s\n", render.OneLine(msg)) },
		}),
		mr,
	}
	if in.Annotations {
		hs = append(hs, render.NewGitHub(cfg.Stdout))
	}
	res0, err := eng.Scan(ctx, req, engine.Tee(hs))
	if err != nil {
		return nil, gitError(err)
	}
	sum := res0.Summary
	if err := sf.Close(); err != nil {
		return nil, fmt.Errorf("writing the SARIF file: %w", err)
	}
	ok = true

	res := &Result{Findings: sum.Findings, UnderReview: sum.SuppressedBy[finding.SuppressInlineAdded], SARIFFile: sarifPath, Scanned: scanned}
	if res0.Failed {
		res.ExitCode = 1
	}
	fmt.Fprintf(&md, "\nScanned %s. Fail-on level: %s; exit code %d.", scanned, res0.FailOn, res.ExitCode)
	if sum.Findings > 0 && p.pr != nil && in.ScanPRText {
		md.WriteString(" Locations `<text>` are in the pull request's title (line 1) and body (from line 3).")
	}
	md.WriteString("\n")
	if err := finish(cfg, res, md.String()); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Stderr, "privscan: scanned %s: %d finding%s, exit-code %d\n", scanned, sum.Findings, plural(sum.Findings), res.ExitCode)
	return res, nil
}

// skip reports a run that scanned nothing: a notice, a summary line and
// outputs that say zero findings.
func skip(cfg Config, msg string) (*Result, error) {
	fmt.Fprintf(cfg.Stdout, "::notice title=privscan::%s\n", escapeData(msg))
	res := &Result{Skipped: true}
	if err := finish(cfg, res, "## privscan\n\nSkipped: "+msg+".\n"); err != nil {
		return nil, err
	}
	return res, nil
}

// finish writes the job summary and the step outputs.
func finish(cfg Config, res *Result, summary string) error {
	if p := cfg.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
		if len(summary) > MaxSummaryBytes {
			summary = strings.ToValidUTF8(summary[:MaxSummaryBytes], "")
		}
		if err := appendFile(p, "the job summary (GITHUB_STEP_SUMMARY)", summary); err != nil {
			return err
		}
	}
	if p := cfg.Getenv("GITHUB_OUTPUT"); p != "" {
		out, err := FormatOutputs([]Output{
			{"findings", strconv.Itoa(res.Findings)},
			{"under-review", strconv.Itoa(res.UnderReview)},
			{"sarif-file", res.SARIFFile},
			{"exit-code", strconv.Itoa(res.ExitCode)},
		})
		if err != nil {
			return err
		}
		if err := appendFile(p, "the step outputs (GITHUB_OUTPUT)", out); err != nil {
			return err
		}
	}
	return nil
}

// sarifPath is the absolute path of the SARIF file: the input resolved
// against the workspace, or DefaultSARIFName in RUNNER_TEMP.
func sarifPath(input string, getenv func(string) string) string {
	ws := or(getenv("GITHUB_WORKSPACE"), ".")
	p := input
	if p == "" {
		p = filepath.Join(or(getenv("RUNNER_TEMP"), ws), DefaultSARIFName)
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// catalogFileIn resolves the relative files of a catalog-file input (one
// or more, separated like PATH) against the workspace: the step may run
// in another directory.
func catalogFileIn(dir string, getenv func(string) string) func(string) string {
	f := getenv(EnvCatalogFile)
	if f == "" {
		return getenv
	}
	files := filepath.SplitList(f)
	rel := false
	for i, p := range files {
		if p != "" && !filepath.IsAbs(p) {
			files[i], rel = filepath.Join(dir, p), true
		}
	}
	if !rel {
		return getenv
	}
	abs := strings.Join(files, string(filepath.ListSeparator))
	return func(k string) string {
		if k == EnvCatalogFile {
			return abs
		}
		return getenv(k)
	}
}

// fork reports whether a pull request comes from another repository.
func fork(event string, ev *Event) bool {
	if event != "pull_request" || ev.PullRequest == nil {
		return false
	}
	h := ev.PullRequest.Head.Repo
	return h == nil || h.FullName != ev.Repository.FullName
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
