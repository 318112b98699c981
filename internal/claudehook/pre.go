package claudehook

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/hook"
	"github.com/privscan/privscan/scanner"
)

// PreToolUse gates a Bash command before it runs. It returns nil to let
// the command run and an error (with a hint, see engine.Hint) to block
// it; the list of findings is already on env.Stderr then. The HEAD of
// the command's repository is recorded for PostToolUse by tool_use_id.
func PreToolUse(ctx context.Context, eng *engine.Engine, env Env, p *hook.Payload, opts Options) error {
	if p.ToolName != "" && p.ToolName != "Bash" {
		return nil
	}
	h := newRun(eng, env, p, opts)
	cmds := hook.FindWith(p.ToolInput.Command, h.cwd, hook.Options{Aliases: hook.NewGitConfig(env.Getenv)})
	var found []blocked
	add := func(what string, b *blocked, err error) {
		if err != nil {
			h.note("not gating %s: %s", what, oneLine(err.Error()))
		} else if b != nil {
			found = append(found, *b)
		}
	}
	if !cmds.Empty() {
		// The catalog first: without it nothing is gated (and the note
		// says so once).
		if _, err := h.catalog(); err != nil {
			h.note("not gating %s: %s", gatedWhat(cmds), oneLine(err.Error()))
			cmds = hook.Commands{}
		}
	}
	for i := range cmds.Commits {
		if cmds.Commits[i].DirUnknown {
			h.note("a git commit runs in a directory the hook cannot follow (cd to a variable or cd -): checking the last directory it knows")
		}
		b, err := h.commit(ctx, &cmds.Commits[i])
		add("a git commit", b, err)
	}
	for i := range cmds.Pushes {
		if cmds.Pushes[i].DirUnknown {
			h.note("a git push runs in a directory the hook cannot follow (cd to a variable or cd -): checking the last directory it knows")
		}
		b, err := h.push(ctx, &cmds.Pushes[i])
		add("a git push", b, err)
	}
	for i := range cmds.GH {
		b, err := h.ghText(ctx, &cmds.GH[i])
		add("a gh command", b, err)
	}
	if len(found) > 0 {
		return report(env.Stderr, found)
	}
	h.recordHead()
	return nil
}

// gatedWhat names the first gated command of cmds for a note.
func gatedWhat(cmds hook.Commands) string {
	switch {
	case len(cmds.Commits) > 0:
		return "git commit"
	case len(cmds.Pushes) > 0:
		return "git push"
	}
	return "gh"
}

// openRepo opens the repository at dir; nil (and no error) when dir is
// not in one: git itself refuses there.
func openRepo(dir string) (*gitsrc.Repo, error) {
	repo, err := gitsrc.Open(dir)
	if errors.Is(err, gitsrc.ErrNotRepo) {
		return nil, nil
	}
	if err != nil {
		return nil, engine.GitError(err)
	}
	return repo, nil
}

// commit scans what c would record and its message, judged by the policy
// committed at HEAD (the defaults before the first commit): what the
// agent stages is the change under review.
func (h *hookRun) commit(ctx context.Context, c *hook.Commit) (*blocked, error) {
	dir := h.abs(c.Dir)
	repo, err := openRepo(dir)
	if repo == nil || err != nil {
		return nil, err
	}
	defer repo.Close()
	target := engine.Custom(func(repo *gitsrc.Repo) (scanner.Source, error) {
		src, err := commitSource(repo, c, dir)
		if err != nil {
			return nil, err
		}
		if msg := commitMessage(c, dir); msg != "" {
			src = engine.Chain{src, &scanner.TextSource{R: strings.NewReader(msg), Kind: finding.KindCommitMessage}}
		}
		return src, nil
	})
	return h.gate(ctx, "git commit", dir, engine.Request{Repo: repo, Target: target, PolicyFrom: engine.PolicyHEAD})
}

// push scans the commits a git push would publish (patches and
// messages), judged by the policy the remote already has (its HEAD's;
// HEAD's when the remote's default branch is not known).
func (h *hookRun) push(ctx context.Context, p *hook.Push) (*blocked, error) {
	dir := h.abs(p.Dir)
	repo, err := openRepo(dir)
	if repo == nil || err != nil {
		return nil, err
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
	policy := "refs/remotes/" + remote + "/HEAD"
	if _, err := repo.ResolveCommit(policy); err != nil {
		policy = engine.PolicyHEAD
	}
	target := engine.Custom(func(repo *gitsrc.Repo) (scanner.Source, error) { return repo.Outgoing(remote, revs) })
	return h.gate(ctx, "git push", dir, engine.Request{Repo: repo, Target: target, PolicyFrom: policy})
}

// ghText scans the title and body a gh command would publish, under the
// default policy (the text is not in a repository).
func (h *hookRun) ghText(ctx context.Context, t *hook.GHText) (*blocked, error) {
	text := t.Title + "\n\n" + t.Body
	switch f := t.BodyFile; {
	case f == "-" && t.Stdin != "":
		text += "\n" + t.Stdin
	case f == "-":
		h.note("gh reads its body from stdin, which the hook cannot see: only the title is checked")
	case f != "":
		if !filepath.IsAbs(f) {
			f = filepath.Join(h.abs(t.Dir), f)
		}
		b, err := readSmallFile(f, maxMessageFile)
		if err != nil {
			h.note("cannot read the --body-file: only the title and --body are checked")
		} else {
			text += "\n" + string(b)
		}
	}
	return h.gate(ctx, "gh", h.abs(t.Dir), engine.Request{Target: engine.Text(strings.NewReader(text), "", finding.KindText)})
}

// commitSource is what c would record: the staged changes; with -a also
// the modified tracked files; with paths, those files' working-tree
// content (plus the staged changes with -i); and whatever the `git add`s
// before it in the same command stage. Before the first commit, HEAD is
// the empty tree.
func commitSource(repo *gitsrc.Repo, c *hook.Commit, dir string) (scanner.Source, error) {
	for _, a := range c.Adds {
		if a.All && len(a.Paths) == 0 && len(c.Paths) == 0 {
			// git add -A: the index becomes the working tree, so HEAD vs
			// the working tree (untracked files too) is exactly what the
			// commit records.
			return headVsWorktree(repo, nil, true)
		}
	}
	src, err := stagedSource(repo, c)
	if err != nil {
		return nil, err
	}
	all := engine.Chain{src}
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
		return engine.Chain{s, w}, nil
	case c.All:
		return headVsWorktree(repo, nil, false)
	}
	return repo.Diff(staged)
}

// headVsWorktree compares HEAD (the empty tree before the first commit)
// with the working tree, limited to paths, with untracked (not ignored)
// files when untracked is set.
func headVsWorktree(repo *gitsrc.Repo, paths []string, untracked bool) (scanner.Source, error) {
	return repo.Diff(gitsrc.DiffOptions{Revs: []string{"HEAD"}, Paths: paths, NoUntracked: !untracked, EmptyIfUnborn: true})
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
