package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/sarif"
)

func runScan(ctx context.Context, env *Env, cmd string, args []string) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	var f scanFlags
	f.register(fs, cmd)
	pos, paths, help, err := parseOrHelp(env, fs, cmd, args)
	if help || err != nil {
		return err
	}
	if err := checkFormat(f.format); err != nil {
		return err
	}
	if err := checkFailOn(f.failOn); err != nil {
		return err
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

	eng := engine.New(engine.Config{Getenv: env.Getenv, Open: env.OpenRepo})
	// The catalog first: it is the most common configuration problem, and
	// nothing is scanned without it.
	// For a comparison of commits, a catalog file tracked by the
	// repository is read from the base (the engine pins it): its error,
	// if any, is reported by the scan.
	matcher, _, err := eng.Catalog(f.catalogKey)
	if err != nil && (cmd != "diff" && cmd != "history") {
		return err
	}
	if cmd == "text" {
		var cancel context.CancelFunc
		ctx, cancel, _ = f.caps.capInput(ctx, nil)
		defer cancel()
	}
	target, closeTarget, err := scanTarget(ctx, env, cmd, &f, pos, paths)
	if err != nil {
		return err
	}
	defer closeTarget()

	out, closeOut, err := openOutput(env, f.output)
	if err != nil {
		return err
	}
	h, wrap, onRepo, finish := present(ctx, env, cmd, &f, newHandler(env, &f, out))
	defer finish()
	res, runErr := eng.Scan(ctx, engine.Request{
		OnRepo:          onRepo,
		Matcher:         matcher,
		CatalogKey:      f.catalogKey,
		Dir:             env.Dir,
		Target:          target,
		Wrap:            wrap,
		ConfigPath:      absPath(env, f.config),
		PolicyFrom:      f.policyFrom,
		Baseline:        absPath(env, f.baseline),
		Check:           func(m *catalog.Matcher, cfg *config.Repo) error { return checkSeverityRules(ctx, env, m, cfg) },
		FailOn:          f.failOn,
		AllowNewMarkers: f.allowNewMarkers,
	}, h)
	if err := closeOut(); err != nil && runErr == nil {
		runErr = fmt.Errorf("writing %s: %w", f.output, err)
	}
	if runErr != nil {
		if err := inputError(ctx, runErr); err != nil {
			return err
		}
		return cliError(runErr)
	}
	if res.Failed {
		return ErrFindings
	}
	return nil
}

// cliError presents an engine error on the command line: an unknown key
// of the repository's config as a name error (with suggestions).
func cliError(err error) error {
	var ke *config.KeyError
	if errors.As(err, &ke) {
		return repoConfigError(ke)
	}
	return err
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

// scanTarget builds the target of a scanning command and a function that
// releases what it opened (a text file).
func scanTarget(ctx context.Context, env *Env, cmd string, f *scanFlags, pos, paths []string) (engine.Target, func(), error) {
	none := func() {}
	switch cmd {
	case "text":
		if len(pos) == 0 || pos[0] == "-" {
			return engine.Text(f.caps.reader(stdinReader(ctx, env)), "", ""), none, nil
		}
		file, err := os.Open(absPath(env, pos[0]))
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", pos[0], errors.Unwrap(err))
		}
		return engine.Text(f.caps.reader(file), filepath.ToSlash(pos[0]), ""), func() { file.Close() }, nil
	case "diff":
		return engine.Diff(gitsrc.DiffOptions{Revs: pos, Staged: f.staged, Paths: paths, NoUntracked: f.noUntracked, NoMessages: f.noMessages}), none, nil
	case "history":
		rng := ""
		if len(pos) == 1 {
			rng = pos[0]
		}
		return engine.History(rng, paths), none, nil
	}
	return engine.Files(append(pos, paths...)), none, nil
}

func absPath(env *Env, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
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
