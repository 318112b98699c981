package claudehook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/hook"
	"github.com/privscan/privscan/internal/render"
)

// PostToolUse reports, after a tool ran, what an edit added (Write, Edit,
// MultiEdit, NotebookEdit) and the commits a Bash command made. It
// returns an error (with a hint) when it found something at or above the
// level; the list is already on env.Stderr then.
func PostToolUse(ctx context.Context, eng *engine.Engine, env Env, p *hook.Payload, opts Options) error {
	h := newRun(eng, env, p, opts)
	switch p.ToolName {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		file := p.ToolInput.FilePath
		if file == "" {
			file = p.ToolInput.NotebookPath
		}
		if file == "" {
			return nil
		}
		b, err := h.edit(ctx, h.abs(file))
		if err != nil {
			h.note("not checking the edit: %s", oneLine(err.Error()))
			return nil
		}
		if b == nil {
			return nil
		}
		return report(env.Stderr, []blocked{*b})
	case "Bash":
		// What the command printed reached the model: the guard's check
		// after the fact (SPEC §7.1).
		outErr := guardDecision(ctx, h, func(g *guardRun) error { return g.output(ctx) }, false)
		b, err := h.newCommits(ctx)
		if err != nil {
			h.note("not checking new commits: %s", oneLine(err.Error()))
			return outErr
		}
		if b == nil {
			return outErr
		}
		if outErr != nil {
			render.Error(env.Stderr, outErr.Error(), engine.Hint(outErr))
		}
		return report(env.Stderr, []blocked{*b})
	case "Grep":
		return guardDecision(ctx, h, func(g *guardRun) error { return g.output(ctx) }, false)
	}
	return nil
}

// edit scans what an edit added to file: the lines that differ from HEAD
// (the whole file when it is untracked or outside a repository).
func (h *hookRun) edit(ctx context.Context, file string) (*blocked, error) {
	repo, err := openRepo(filepath.Dir(file))
	if err != nil {
		return nil, err
	}
	if repo == nil {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("reading the edited file: %w", unwrapPath(err))
		}
		defer f.Close()
		return h.gate(ctx, "edit", filepath.Dir(file), engine.Request{Target: engine.Text(f, filepath.Base(file), finding.KindFile)})
	}
	defer repo.Close()
	target := engine.Diff(gitsrc.DiffOptions{Revs: []string{"HEAD"}, Paths: []string{file}, EmptyIfUnborn: true})
	return h.gate(ctx, "edit", repo.Root(), engine.Request{Repo: repo, Target: target, PolicyFrom: engine.PolicyHEAD})
}

// unwrapPath drops the path from an *os.PathError: the hook names no
// file it was not asked about, and the caller knows which file it was.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// The PostToolUse net: PreToolUse records, per tool_use_id, the
// repository root and HEAD before a Bash command runs (the plugin's
// launcher does the same for the commands it lets through without
// starting privscan); PostToolUse reads and removes the record, and scans
// the commits between the recorded HEAD and the new one.

// stateMaxAge is how long a record whose PostToolUse never came (the
// command was refused or interrupted) is kept before PreToolUse removes it.
const stateMaxAge = 24 * time.Hour

// plainToolUseID reports whether a tool_use_id may name a record file as
// it is (the launcher names them so: 1 to 128 of A-Z a-z 0-9 _ -); others
// are hashed. (A loop, not a regexp: `{1,128}` compiles to 128 copies at
// every hook process's start.)
func plainToolUseID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// stateDir is $XDG_STATE_HOME/privscan/tool-use (~/.local/state when
// unset); "" with neither.
func (h *hookRun) stateDir() string {
	if x := h.env.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "privscan", "tool-use")
	}
	if home := h.env.Getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "privscan", "tool-use")
	}
	return ""
}

// statePath is the record of this payload's tool use; "" when there is
// none to keep.
func (h *hookRun) statePath() string {
	id := h.p.ToolUseID
	dir := h.stateDir()
	if id == "" || dir == "" {
		return ""
	}
	if !plainToolUseID(id) {
		sum := sha256.Sum256([]byte(id))
		id = "h" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(dir, id)
}

// recordHead records the root and HEAD of the repository the command
// starts in ("" for HEAD before the first commit), and removes records
// older than stateMaxAge. Problems are silent: the net is best effort.
func (h *hookRun) recordHead() {
	path := h.statePath()
	if path == "" {
		return
	}
	repo, err := gitsrc.Open(h.cwd)
	if err != nil {
		return
	}
	head, _ := repo.ResolveCommit("HEAD")
	root := repo.Root()
	repo.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	h.prune(filepath.Dir(path))
	_ = os.WriteFile(path, []byte(root+"\n"+head+"\n"), 0o600)
}

// prune removes records older than stateMaxAge from dir.
func (h *hookRun) prune(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	old := h.env.Now().Add(-stateMaxAge)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(old) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// newCommits reads and removes this tool use's record and scans the
// commits made since: the commits reachable from HEAD and not from the
// recorded HEAD (all of HEAD's before the first commit), with their
// messages, judged by the policy of the recorded HEAD.
func (h *hookRun) newCommits(ctx context.Context) (*blocked, error) {
	path := h.statePath()
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	os.Remove(path)
	if err != nil {
		return nil, nil // no record: PreToolUse did not see a repository
	}
	root, last, ok := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if !ok && root == "" {
		return nil, nil
	}
	repo, err := openRepo(root)
	if repo == nil || err != nil {
		return nil, err
	}
	defer repo.Close()
	head, err := repo.ResolveCommit("HEAD")
	if err != nil || head == last {
		return nil, nil // no commit yet, or HEAD did not move
	}
	rng, policy := last+".."+head, last
	if last == "" {
		// The first commits: nothing committed before judges them.
		rng, policy = head, engine.PolicyDefaults
	} else if _, err := repo.ResolveCommit(last); err != nil {
		return nil, nil // the recorded commit is gone
	}
	req := engine.Request{Repo: repo, Target: engine.History(rng, nil), PolicyFrom: policy}
	return h.gate(ctx, "new commits", repo.Root(), req)
}
