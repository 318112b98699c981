package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/hook"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/scanner"
)

// HookHelp is the help text of "privscan hook".
const HookHelp = `privscan hook claude-pre-tool-use [--fail-on LEVEL] [--catalog-key KEY]

Claude Code PreToolUse hook for the Bash tool. Reads the hook payload on
stdin and gates, before they run:

  git commit   what the commit would record: the staged changes, with the
               git add -A/./<paths>/-u that precede it in the same command
               applied (untracked files too), -a, -i and paths; and its
               -m/-F message
  git push     the commits it would publish (not on the remote's
               tracking refs) and their messages
  gh pr|issue create|edit|comment
               the --title/-t, --body/-b and --body-file/-F text

It follows "git -C <dir>", "cd <dir> && …", &&, ||, ;, pipes, subshells,
sh -c and environment assignments. The policy is the committed one (HEAD;
for a push, the remote's): privscan:allow markers, .privscan.toml and
.privscanignore edits in the change itself never count. Findings at or
above --fail-on (default: that policy's fail-on, else warning) block the
command: exit 2, with the rule IDs and locations on stderr for Claude, never
the matched text. Any other command, a payload that cannot be read, or a
privscan setup problem lets the command run (exit 0; a note goes to
stderr). Commands that gate nothing return without loading the catalog.`

// maxMessageFile bounds a -F message file read by the hook.
const maxMessageFile = 1 << 20

// maxListed bounds the findings the hook lists on stderr.
const maxListed = 20

func runHook(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			return usagef("usage: privscan hook claude-pre-tool-use")
		}
		fmt.Fprintln(env.Stdout, HookHelp+"\n\n"+PostHookHelp)
		return nil
	}
	post := args[0] == "claude-post-tool-use"
	if args[0] != "claude-pre-tool-use" && !post {
		return usagef("unknown hook (want claude-pre-tool-use or claude-post-tool-use)")
	}
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	failOn := fs.String("fail-on", "", "block on findings at or above `LEVEL`: error, warning or note")
	catalogKey := fs.String("catalog-key", "", "catalog `KEY` in the key map")
	pos, paths, err := parseArgs(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(env.Stdout, helpFor("hook", fs))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos)+len(paths) > 0 {
		return usagef("hook %s takes no arguments", args[0])
	}
	if *failOn != "" {
		if _, err := failLevel(*failOn); err != nil {
			return err
		}
	}

	p, err := hook.Parse(env.Stdin)
	if err != nil {
		hookNote(env, "could not read the hook payload (%s); not gating this command", err)
		return nil
	}
	if post {
		return runPostHook(ctx, env, p, *catalogKey, *failOn)
	}
	if p.ToolName != "" && p.ToolName != "Bash" {
		return nil
	}
	cwd := p.Cwd
	if cwd == "" {
		cwd = env.Dir
	}
	cmds := hook.Find(p.ToolInput.Command, cwd)
	if cmds.Empty() {
		return nil // the fast path: no catalog, no repository
	}
	commits := cmds.Commits

	matcher, err := openCatalog(env, *catalogKey)
	if err != nil {
		hookNote(env, "not gating git commit: %s", render.OneLine(err.Error()))
		return nil
	}
	secrets := &engine.Secrets{}
	var blocked []blockedCommit
	gate := func(what string, b *blockedCommit, err error) {
		if err != nil {
			hookNote(env, "not gating %s: %s", what, render.OneLine(err.Error()))
		} else if b != nil {
			blocked = append(blocked, *b)
		}
	}
	for i := range commits {
		b, err := scanCommit(ctx, env, &commits[i], matcher, secrets, *failOn)
		gate("a git commit", b, err)
	}
	for i := range cmds.Pushes {
		b, err := scanPush(ctx, env, &cmds.Pushes[i], matcher, secrets, *failOn)
		gate("a git push", b, err)
	}
	for i := range cmds.GH {
		b, err := scanGHText(ctx, env, &cmds.GH[i], matcher, secrets, *failOn)
		gate("a gh command", b, err)
	}
	if len(blocked) == 0 {
		return nil
	}
	return reportBlocked(env, blocked)
}

// scanPush scans the commits a git push would publish (patches and
// messages), judged by the policy the remote already has.
func scanPush(ctx context.Context, env *Env, p *hook.Push, m *catalog.Matcher, secrets *engine.Secrets, failOn string) (*blockedCommit, error) {
	dir := p.Dir
	if !filepath.IsAbs(dir) {
		dir = absPath(env, dir)
	}
	repo, err := gitsrc.Open(dir)
	if err != nil {
		if errors.Is(err, gitsrc.ErrNotRepo) {
			return nil, nil
		}
		return nil, gitError(err)
	}
	defer repo.Close()
	remote := p.Remote
	if remote == "" || strings.ContainsAny(remote, ":/") {
		remote = "origin" // a URL or path: compare with origin's refs
	}
	var revs []string
	for _, rs := range p.Refspecs {
		src, _, _ := strings.Cut(strings.TrimPrefix(rs, "+"), ":")
		if src != "" {
			revs = append(revs, src)
		}
	}
	src, err := repo.Outgoing(remote, revs)
	if err != nil {
		return nil, gitError(err)
	}
	policy := "refs/remotes/" + remote + "/HEAD"
	cfg, sup, err := engine.RepoFilesAt(repo, policy, "")
	if errors.Is(err, gitsrc.ErrRevNotFound) {
		cfg, sup, err = engine.RepoFilesAt(repo, "HEAD", "")
	}
	if err != nil {
		return nil, fmt.Errorf("repository config: %w", err)
	}
	return gateScan(ctx, "git push", dir, src, m, cfg, sup, secrets, failOn)
}

// scanGHText scans the title and body a gh command would publish.
func scanGHText(ctx context.Context, env *Env, t *hook.GHText, m *catalog.Matcher, secrets *engine.Secrets, failOn string) (*blockedCommit, error) {
	text := t.Title + "\n\n" + t.Body
	switch f := t.BodyFile; {
	case f == "-" && t.Stdin != "":
		text += "\n" + t.Stdin
	case f == "-":
		hookNote(env, "gh reads its body from stdin, which the hook cannot see: only the title is checked")
	case f != "":
		if !filepath.IsAbs(f) {
			f = filepath.Join(absPath(env, t.Dir), f)
		}
		b, err := readSmallFile(f, maxMessageFile)
		if err != nil {
			hookNote(env, "cannot read the --body-file: only the title and --body are checked")
		} else {
			text += "\n" + string(b)
		}
	}
	src := &scanner.TextSource{R: strings.NewReader(text), Kind: finding.KindText}
	return gateScan(ctx, "gh", absPath(env, t.Dir), src, m, &config.Repo{}, map[string]string{}, secrets, failOn)
}

// gateScan runs a gate's scan: markers in the gated text never count.
func gateScan(ctx context.Context, what, dir string, src scanner.Source, m *catalog.Matcher, cfg *config.Repo, sup map[string]string, secrets *engine.Secrets, failOn string) (*blockedCommit, error) {
	if failOn == "" {
		failOn = cfg.FailOn
	}
	if failOn == "" {
		failOn = "warning"
	}
	level, err := failLevel(failOn)
	if err != nil {
		return nil, err
	}
	if level == 0 {
		return nil, nil
	}
	opts, err := engine.Options(engine.Settings{Matcher: m, Repo: cfg, Suppressed: sup, Secrets: secrets})
	if err != nil {
		return nil, err
	}
	opts.Markers = scanner.MarkersReview
	g := &levelGate{level: level}
	if _, err := scanner.Run(ctx, src, opts, g); err != nil {
		return nil, scanError(err)
	}
	if g.total == 0 {
		return nil, nil
	}
	return &blockedCommit{what: what, dir: dir, level: level, total: g.total, findings: g.hits}, nil
}

func hookNote(env *Env, format string, args ...any) {
	fmt.Fprintf(env.Stderr, "privscan: hook: "+format+"\n", args...)
}

// blockedCommit is a commit with findings at or above the level.
type blockedCommit struct {
	what     string // "git commit" (""), "git push", "gh"
	dir      string
	level    finding.Severity
	total    int
	findings []finding.Finding
}

// levelGate collects the findings at or above a level.
type levelGate struct {
	level finding.Severity
	hits  []finding.Finding
	total int
}

func (g *levelGate) Finding(f *finding.Finding) error {
	if f.Severity >= g.level {
		g.total++
		if len(g.hits) < maxListed {
			g.hits = append(g.hits, *f)
		}
	}
	return nil
}

func (g *levelGate) Summary(*finding.Summary) error { return nil }

// scanCommit scans what c would commit. It returns nil when nothing at or
// above the level was found; an error when the commit cannot be scanned
// (not a repository, unreadable config), which lets it through.
func scanCommit(ctx context.Context, env *Env, c *hook.Commit, m *catalog.Matcher, secrets *engine.Secrets, failOn string) (*blockedCommit, error) {
	dir := c.Dir
	if !filepath.IsAbs(dir) {
		dir = absPath(env, dir)
	}
	repo, err := gitsrc.Open(dir)
	if err != nil {
		if errors.Is(err, gitsrc.ErrNotRepo) {
			return nil, nil // git itself will refuse
		}
		return nil, gitError(err)
	}
	defer repo.Close()
	// The policy is HEAD's: what the agent stages (or leaves in the
	// working tree) is the change under review, and it must not relax the
	// policy that judges it. With no commit yet, the defaults.
	cfg, sup, err := headPolicy(repo)
	if err != nil {
		return nil, err
	}
	src, err := commitSource(repo, c, dir)
	if err != nil {
		return nil, gitError(err)
	}
	if msg := commitMessage(c, dir); msg != "" {
		src = sources{src, &scanner.TextSource{R: strings.NewReader(msg), Kind: finding.KindCommitMessage}}
	}
	return gateScan(ctx, "git commit", dir, src, m, cfg, sup, secrets, failOn)
}

// commitSource is what c would record: the staged changes; with -a also
// the modified tracked files; with paths, those files' working-tree
// content (plus the staged changes with -i); and whatever the `git add`s
// before it in the same command stage. With no commit yet, the
// comparisons against HEAD become "staged, then working tree vs index".
func commitSource(repo *gitsrc.Repo, c *hook.Commit, dir string) (scanner.Source, error) {
	src, err := stagedSource(repo, c)
	if err != nil {
		return nil, err
	}
	var all sources
	for _, a := range c.Adds {
		if a.All && len(a.Paths) == 0 && len(c.Paths) == 0 {
			// git add -A: the index becomes the working tree, so HEAD vs
			// the working tree (untracked files too) is exactly what the
			// commit records.
			return headVsWorktree(repo, nil, true)
		}
	}
	all = append(all, src)
	for _, a := range c.Adds {
		paths := make([]string, 0, len(a.Paths))
		for _, p := range a.Paths {
			// Pathspecs are relative to where git add ran; gitsrc takes
			// them relative to the commit's directory.
			if !filepath.IsAbs(p) {
				p = filepath.Join(a.Dir, p)
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				rel = p
			}
			paths = append(paths, filepath.ToSlash(rel))
		}
		if len(paths) == 0 && !a.Update {
			continue // git add with no pathspec adds nothing
		}
		s, err := headVsWorktree(repo, paths, !a.Update)
		if err != nil {
			return nil, err
		}
		all = append(all, s)
	}
	if len(all) == 1 {
		return src, nil
	}
	return all, nil
}

// stagedSource is what c would record from the index and its own options.
func stagedSource(repo *gitsrc.Repo, c *hook.Commit) (scanner.Source, error) {
	staged := gitsrc.DiffOptions{Staged: true}
	switch {
	case len(c.Paths) > 0 && !c.Include:
		return headVsWorktree(repo, c.Paths, false)
	case len(c.Paths) > 0:
		s, err := repo.Diff(staged)
		if err != nil {
			return nil, err
		}
		w, err := headVsWorktree(repo, c.Paths, false)
		if err != nil {
			return nil, err
		}
		return sources{s, w}, nil
	case c.All:
		return headVsWorktree(repo, nil, false)
	}
	return repo.Diff(staged)
}

// headVsWorktree compares HEAD with the working tree, limited to paths,
// with untracked (not ignored) files when untracked is set.
func headVsWorktree(repo *gitsrc.Repo, paths []string, untracked bool) (scanner.Source, error) {
	src, err := repo.Diff(gitsrc.DiffOptions{Revs: []string{"HEAD"}, Paths: paths, NoUntracked: !untracked})
	var re *gitsrc.RevError
	if errors.As(err, &re) && re.Rev == "HEAD" {
		s, err := repo.Diff(gitsrc.DiffOptions{Staged: true, Paths: paths})
		if err != nil {
			return nil, err
		}
		w, err := repo.Diff(gitsrc.DiffOptions{Paths: paths, NoUntracked: !untracked})
		if err != nil {
			return nil, err
		}
		return sources{s, w}, nil
	}
	return src, err
}

// commitMessage is the message given with -m, -F <file> or -F - with a
// here-document; "" when none can be read.
func commitMessage(c *hook.Commit, dir string) string {
	msg := c.Message()
	switch f := c.MessageFile; {
	case f == "-":
		msg = joinMessage(msg, c.Stdin)
	case f != "":
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		if b, err := readSmallFile(f, maxMessageFile); err == nil {
			msg = joinMessage(msg, string(b))
		}
	}
	return msg
}

func joinMessage(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n\n" + b
}

func readSmallFile(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// sources yields the fragments of several sources in turn.
type sources []scanner.Source

func (s sources) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	for _, src := range s {
		if err := src.Fragments(ctx, yield); err != nil {
			return err
		}
	}
	return nil
}

// reportBlocked writes the value-free explanation Claude reads and
// returns the error that makes the exit code 2.
func reportBlocked(env *Env, blocked []blockedCommit) error {
	total := 0
	for _, b := range blocked {
		total += b.total
	}
	what := blocked[0].what
	if what == "" {
		what = "git commit"
	}
	scope := map[string]string{"git commit": "what it would commit", "git push": "the commits it would publish",
		"gh": "the title and body it would publish", "edit": "the lines this edit added", "new commits": "the commits the command just made"}[what]
	w := env.Stderr
	fmt.Fprintf(w, "privscan: blocked %s: %d finding%s at or above %s in %s. Matched text is withheld; locations and rules:\n",
		what, total, plural(total), blocked[0].level, scope)
	for _, b := range blocked {
		if len(blocked) > 1 {
			fmt.Fprintf(w, "in %s:\n", b.dir)
		}
		for i := range b.findings {
			f := &b.findings[i]
			loc := f.Path
			switch {
			case f.Kind == finding.KindCommitMessage && f.Commit != "":
				loc = "commit " + f.Commit[:min(12, len(f.Commit))] + " message"
			case f.Kind == finding.KindCommitMessage:
				loc = "commit message"
			case f.Kind == finding.KindText:
				loc = "title and body"
			case f.Commit != "":
				loc = f.Path + " in commit " + f.Commit[:min(12, len(f.Commit))]
			}
			fmt.Fprintf(w, "  %s:%d:%d-%d %s %s (%s)", render.OneLine(loc), f.Line, f.Column, f.EndColumn, f.RuleID, f.Severity, f.Category)
			if f.Description != "" {
				fmt.Fprintf(w, ": %s", render.OneLine(f.Description))
			}
			if f.Suppressed == finding.SuppressInlineAdded {
				fmt.Fprint(w, " [a privscan:allow marker this change adds does not count]")
			}
			fmt.Fprintln(w)
		}
		if n := b.total - len(b.findings); n > 0 {
			fmt.Fprintf(w, "  … and %d more\n", n)
		}
	}
	exception := " Markers and policy edits in the change itself do not count: a deliberate exception is the user's decision (they run it themselves, outside the agent, or allow it in the committed .privscan.toml or .privscanignore)"
	switch what {
	case "edit":
		return withHint(errors.New("the edit added catalogued or personal data"),
			"replace each flagged span with synthetic data, such as \"Jane Doe\", user@example.com or 192.0.2.10; for replacements ask the privacy-scanner subagent")
	case "new commits":
		return withHint(errors.New("the command committed catalogued or personal data"),
			"the commits have not left this machine: fix each flagged span and rewrite them before pushing (git commit --amend for the last commit, git reset --soft or git rebase -i for earlier ones); the push gate blocks them until then."+exception)
	case "git push":
		return withHint(errors.New("git push blocked by the privacy check"),
			"the commits listed have not left this machine yet: fix each flagged span with synthetic data and rewrite them (git commit --amend for the last commit, git rebase -i for earlier ones) before pushing; for replacements ask the privacy-scanner subagent."+exception)
	case "gh":
		return withHint(errors.New("gh blocked by the privacy check"),
			"rewrite the title or body without the flagged spans (line 1 is the title, the body starts at line 3) and run it again."+exception)
	}
	return withHint(errors.New("git commit blocked by the privacy check"),
		"replace each flagged span (columns are code points, end exclusive) with synthetic data, such as \"Jane Doe\", user@example.com or 192.0.2.10, then stage the change and commit again; for replacements ask the privacy-scanner subagent."+exception)
}
