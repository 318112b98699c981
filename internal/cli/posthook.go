package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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

// PostHookHelp is the help text of "privscan hook claude-post-tool-use".
const PostHookHelp = `privscan hook claude-post-tool-use [--fail-on LEVEL] [--catalog-key KEY]

Claude Code PostToolUse hook. Reads the hook payload on stdin and reports,
after the tool ran:

  Write, Edit, MultiEdit, NotebookEdit
        the lines of the edited file that differ from HEAD (the whole file
        when it is untracked or outside a repository)
  Bash  the commits the command made, whatever its spelling (a script,
        make, an alias): every commit reachable from HEAD that was not
        there after the previous Bash command in this repository, with
        its message

Findings at or above --fail-on exit 2 with their rule IDs and locations on
stderr, which Claude Code feeds back to Claude so that it fixes them in its
next step (for commits: amend or reset before pushing). Never the matched
text. Problems reading the payload or the repository exit 0 with a note.`

func runPostHook(ctx context.Context, env *Env, p *hook.Payload, catalogKey, failOn string) error {
	cwd := p.Cwd
	if cwd == "" {
		cwd = env.Dir
	}
	switch p.ToolName {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		file := p.ToolInput.FilePath
		if file == "" {
			file = p.ToolInput.NotebookPath
		}
		if file == "" {
			return nil
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(cwd, file)
		}
		matcher, err := openCatalog(env, catalogKey)
		if err != nil {
			hookNote(env, "not checking the edit: %s", render.OneLine(err.Error()))
			return nil
		}
		b, err := scanEdit(ctx, file, matcher, failOn)
		if err != nil {
			hookNote(env, "not checking the edit: %s", render.OneLine(err.Error()))
			return nil
		}
		if b == nil {
			return nil
		}
		return reportBlocked(env, []blockedCommit{*b})
	case "Bash":
		return postBash(ctx, env, cwd, catalogKey, failOn)
	}
	return nil
}

// scanEdit scans what an edit added to file.
func scanEdit(ctx context.Context, file string, m *catalog.Matcher, failOn string) (*blockedCommit, error) {
	repo, err := gitsrc.Open(filepath.Dir(file))
	if errors.Is(err, gitsrc.ErrNotRepo) {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("reading the edited file: %w", errors.Unwrap(err))
		}
		defer f.Close()
		src := &scanner.TextSource{R: f, Kind: finding.KindFile, Path: filepath.Base(file)}
		return gateScan(ctx, "edit", filepath.Dir(file), src, m, &config.Repo{}, map[string]string{}, &engine.Secrets{}, failOn)
	}
	if err != nil {
		return nil, gitError(err)
	}
	defer repo.Close()
	cfg, sup, err := headPolicy(repo)
	if err != nil {
		return nil, err
	}
	// Lines that differ from HEAD (untracked: the whole file).
	src, err := headVsWorktree(repo, []string{file}, true)
	if err != nil {
		return nil, gitError(err)
	}
	return gateScan(ctx, "edit", repo.Root(), src, m, cfg, sup, &engine.Secrets{}, failOn)
}

// headPolicy is the committed policy: HEAD's files, or the defaults with
// no commit yet.
func headPolicy(repo *gitsrc.Repo) (*config.Repo, map[string]string, error) {
	cfg, sup, err := engine.RepoFilesAt(repo, "HEAD", "")
	if errors.Is(err, gitsrc.ErrRevNotFound) {
		return &config.Repo{}, map[string]string{}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("repository config: %w", err)
	}
	return cfg, sup, nil
}

// postBash is the net behind the commit gate: commits a Bash command made
// in whatever way. The state is one file per repository holding the HEAD
// seen after the previous Bash command; the first command in a repository
// only records it.
func postBash(ctx context.Context, env *Env, cwd, catalogKey, failOn string) error {
	repo, err := gitsrc.Open(cwd)
	if err != nil {
		return nil // not a repository (or unreadable): nothing to net
	}
	defer repo.Close()
	head, err := repo.ResolveCommit("HEAD")
	if err != nil {
		return nil // no commit yet
	}
	state := headStatePath(env, repo.Root())
	if state == "" {
		return nil
	}
	prev, _ := os.ReadFile(state)
	last := strings.TrimSpace(string(prev))
	if last == head {
		return nil
	}
	writeState := func() {
		if err := os.MkdirAll(filepath.Dir(state), 0o700); err == nil {
			_ = os.WriteFile(state, []byte(head+"\n"), 0o600)
		}
	}
	if last == "" {
		writeState()
		return nil
	}
	if _, err := repo.ResolveCommit(last); err != nil {
		writeState() // the recorded commit is gone (gc, another clone)
		return nil
	}
	matcher, err := openCatalog(env, catalogKey)
	if err != nil {
		hookNote(env, "not checking new commits: %s", render.OneLine(err.Error()))
		return nil
	}
	src, err := repo.History(last+".."+head, nil)
	if err != nil {
		hookNote(env, "not checking new commits: %s", render.OneLine(gitError(err).Error()))
		return nil
	}
	cfg, sup, err := engine.RepoFilesAt(repo, last, "")
	if err != nil {
		hookNote(env, "not checking new commits: %s", render.OneLine(err.Error()))
		return nil
	}
	b, err := gateScan(ctx, "new commits", repo.Root(), src, matcher, cfg, sup, &engine.Secrets{}, failOn)
	// The commits exist either way: record them, so that the next command
	// does not report them again (the push gate still will).
	writeState()
	if err != nil {
		hookNote(env, "not checking new commits: %s", render.OneLine(err.Error()))
		return nil
	}
	if b == nil {
		return nil
	}
	return reportBlocked(env, []blockedCommit{*b})
}

// headStatePath is where the HEAD seen after the previous Bash command in
// the repository at root is kept: $XDG_STATE_HOME/privscan/heads/<digest
// of the root> (~/.local/state when unset); "" without either.
func headStatePath(env *Env, root string) string {
	base := ""
	if x := env.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		base = filepath.Join(x, "privscan")
	} else if h := env.Getenv("HOME"); h != "" {
		base = filepath.Join(h, ".local", "state", "privscan")
	}
	if base == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, "heads", hex.EncodeToString(sum[:16]))
}
