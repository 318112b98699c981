package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/privscan/privscan/sarif"

	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/org"
	"github.com/privscan/privscan/internal/progress"
	"github.com/privscan/privscan/internal/render"
)

const orgUsage = "usage: privscan org plan|scan|merge (see `privscan help org`)"

func runOrg(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		return usagef(orgUsage)
	}
	switch args[0] {
	case "plan":
		return runOrgPlan(ctx, env, args[1:])
	case "scan":
		return runOrgScan(ctx, env, args[1:])
	case "merge":
		return runOrgMerge(env, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(env.Stdout, helpFor("org", nil))
		return nil
	}
	return &nameError{what: "unknown org command", raw: args[0], candidates: []string{"plan", "scan", "merge"},
		suggestFmt: "did you mean `privscan org %s`?", hint: orgUsage}
}

func orgFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("org "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func runOrgPlan(ctx context.Context, env *Env, args []string) error {
	fs := orgFlags("plan")
	gh := fs.String("github", "", "list the repositories of GitHub organisation `ORG` (GITHUB_TOKEN; GITHUB_API_URL for Enterprise)")
	gl := fs.String("gitlab", "", "list the projects of GitLab group `GROUP` and its subgroups (GITLAB_TOKEN; GITLAB_API_URL)")
	reposFile := fs.String("repos", "", "read clone URLs from `FILE`, one a line (\"URL [size-KiB]\"; credentials are removed)")
	shards := fs.Int("shards", 1, "split the work into `N` balanced shards (at most 256)")
	archived := fs.Bool("include-archived", false, "include archived repositories")
	forks := fs.Bool("include-forks", false, "include forks")
	out := fs.String("o", "", "write the plan to `FILE` (required; - for stdout)")
	split := fs.Int64("split-size", org.SplitKiB, "split a history larger than `KIB` KiB into commit ranges over several shards")
	pos, paths, help, err := parseOrHelp(env, fs, "org", args)
	if help || err != nil {
		return err
	}
	if len(pos)+len(paths) > 0 {
		return usagef("org plan takes no arguments")
	}
	n := 0
	for _, s := range []string{*gh, *gl, *reposFile} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return usagef("org plan needs exactly one of --github ORG, --gitlab GROUP or --repos FILE")
	}
	if *out == "" {
		return usagef("org plan needs -o plan.json")
	}
	if *shards < 1 {
		return usagef("--shards must be at least 1")
	}
	if *shards > org.MaxShards {
		fmt.Fprintf(env.Stderr, "privscan: warning: --shards capped at %d (a GitHub Actions matrix holds at most 256 jobs)\n", org.MaxShards)
	}
	lo := org.ListOptions{Archived: *archived, Forks: *forks}
	var repos []org.Repo
	source := "file"
	switch {
	case *gh != "":
		source = "github"
		lo.Token, lo.APIURL = env.Getenv("GITHUB_TOKEN"), env.Getenv("GITHUB_API_URL")
		repos, err = org.ListGitHub(ctx, *gh, lo)
	case *gl != "":
		source = "gitlab"
		lo.Token, lo.APIURL = env.Getenv("GITLAB_TOKEN"), env.Getenv("GITLAB_API_URL")
		repos, err = org.ListGitLab(ctx, *gl, lo)
	default:
		var f *os.File
		f, err = os.Open(absPath(env, *reposFile))
		if err != nil {
			return fmt.Errorf("opening --repos: %w", errors.Unwrap(err))
		}
		defer f.Close()
		repos, err = org.ParseRepos(f)
	}
	if err != nil {
		return err
	}
	if *split < 1 {
		return usagef("--split-size must be at least 1")
	}
	plan, err := org.NewPlan(source, repos, *shards, *split)
	if err != nil {
		return err
	}
	w, closeOut, err := openOutput(env, *out)
	if err != nil {
		return err
	}
	if err := plan.Write(w); err != nil {
		closeOut()
		return fmt.Errorf("writing the plan: %w", err)
	}
	if err := closeOut(); err != nil {
		return fmt.Errorf("writing the plan: %w", errors.Unwrap(err))
	}
	if *out != "-" {
		fmt.Fprintf(env.Stderr, "privscan: planned %d repositories in %d units over %d shards\n", len(plan.Repos), len(plan.Units), plan.Shards)
	}
	return nil
}

func runOrgScan(ctx context.Context, env *Env, args []string) error {
	fs := orgFlags("scan")
	planPath := fs.String("plan", "", "the plan `FILE` written by privscan org plan (required)")
	shard := fs.Int("shard", -1, "the shard `I` to run (0-based; default: JOB_COMPLETION_INDEX, else the only shard)")
	out := fs.String("out", "", "the output `DIR`: reports, and the manifest that resumes a run (required)")
	key := fs.String("catalog-key", "", "catalog `KEY` in the key map")
	maxMiB := fs.Int64("max-repo-size", org.DefaultMaxRepoBytes>>20, "fail a repository whose pack exceeds `MIB` mebibytes")
	noProgress := fs.Bool("no-progress", false, "no progress line on a terminal")
	pos, paths, help, err := parseOrHelp(env, fs, "org", args)
	if help || err != nil {
		return err
	}
	if len(pos)+len(paths) > 0 {
		return usagef("org scan takes no arguments")
	}
	if *planPath == "" || *out == "" {
		return usagef("org scan needs --plan FILE and --out DIR")
	}
	if *maxMiB < 1 {
		return usagef("--max-repo-size must be at least 1")
	}
	plan, err := org.LoadPlan(absPath(env, *planPath))
	if err != nil {
		return err
	}
	i := *shard
	if i < 0 {
		if v := env.Getenv("JOB_COMPLETION_INDEX"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return usagef("JOB_COMPLETION_INDEX is not a shard number")
			}
			i = n
		} else if plan.Shards == 1 {
			i = 0
		} else {
			return withHint(usagef("the plan has %d shards: which one?", plan.Shards),
				"pass --shard I, or set JOB_COMPLETION_INDEX (a Kubernetes Indexed Job does)")
		}
	}
	if i >= plan.Shards {
		return usagef("shard %d is outside the plan's 0 to %d", i, plan.Shards-1)
	}
	eng := engine.New(engine.Config{Getenv: env.Getenv})
	m, _, err := eng.Catalog(*key)
	if err != nil {
		return err
	}
	o := org.ScanOptions{
		Plan: plan, Shard: i, Out: absPath(env, *out), Engine: eng, Matcher: m,
		Getenv: env.Getenv, MaxRepoBytes: *maxMiB << 20, ToolVersion: ToolVersion(),
		TempDir: env.Getenv("TMPDIR"),
	}
	if env.StderrTTY && !*noProgress && env.Getenv("TERM") != "dumb" {
		bar := progress.New(env.Stderr, fmt.Sprintf("privscan org shard %d", i), "repositories")
		defer bar.Clear()
		o.Progress = func(k, n int) {
			bar.SetTotal(n)
			if k > 1 {
				bar.Add(1)
			}
		}
	}
	res, err := org.Scan(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "privscan: shard %d: %d scanned, %d up to date, %d failed (see %s)\n",
		i, res.Scanned, res.Skipped, res.Failed, org.ManifestName)
	return nil
}

func runOrgMerge(env *Env, args []string) error {
	fs := orgFlags("merge")
	format := fs.String("format", "markdown", "output `FORMAT`: json, sarif or markdown")
	output := fs.String("output", "", "write the report to `FILE` (default: stdout)")
	pos, paths, help, err := parseOrHelp(env, fs, "org", args)
	if help || err != nil {
		return err
	}
	dirs := append(pos, paths...)
	if len(dirs) == 0 {
		return usagef("org merge needs at least one shard output DIR")
	}
	switch *format {
	case "json", "sarif", "markdown":
	default:
		return &nameError{what: "unknown --format", raw: *format, candidates: []string{"json", "sarif", "markdown"},
			tail: "(want json, sarif or markdown)", withheld: "(value withheld)"}
	}
	for k, d := range dirs {
		dirs[k] = absPath(env, d)
	}
	m, err := org.Merge(dirs)
	if err != nil {
		return err
	}
	w, closeOut, err := openOutput(env, *output)
	if err != nil {
		return err
	}
	switch *format {
	case "json":
		err = m.WriteJSON(w, render.ToolInfo{Name: "privscan", Version: ToolVersion()})
	case "sarif":
		err = m.WriteSARIF(w)
	default:
		err = m.WriteMarkdown(w)
	}
	if cerr := closeOut(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the merged report: %w", errors.Unwrap(err))
	}
	if *format == "sarif" && m.Runs() > sarif.MaxRunsPerFile {
		fmt.Fprintf(env.Stderr, "privscan: warning: the merged SARIF log has %d runs, one per repository; GitHub code scanning takes at most %d a file\n", m.Runs(), sarif.MaxRunsPerFile)
		fmt.Fprintln(env.Stderr, "privscan: hint: upload each repository's own reports/<name>/*.sarif to that repository; keep the merged log as the archive")
	}
	if len(m.Missing) > 0 {
		fmt.Fprintf(env.Stderr, "privscan: warning: %d planned repositories or parts have no result:", len(m.Missing))
		for _, n := range m.Missing {
			fmt.Fprintf(env.Stderr, " %s", render.OneLine(n))
		}
		fmt.Fprintln(env.Stderr)
	}
	return nil
}
