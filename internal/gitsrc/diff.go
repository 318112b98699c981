package gitsrc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// DiffOptions selects what Diff compares, with git diff's semantics.
type DiffOptions struct {
	// Revs are read as `git diff` reads them: none (working tree vs
	// index), "A" (A vs working tree), "A..B" or "A", "B" (A vs B),
	// "A...B" (merge base of A and B vs B). An empty side of ".." or
	// "..." means HEAD.
	Revs []string
	// Staged compares the index instead of the working tree: with no
	// revision against HEAD, with one against that revision (git diff
	// --cached).
	Staged bool
	// Paths limits the comparison like `git diff -- <path>…`: files,
	// directory prefixes or globs, relative to the directory given to
	// Open.
	Paths []string
	// NoUntracked leaves out untracked files. By default a comparison
	// with the working tree also yields every untracked, non-ignored
	// file as wholly added.
	NoUntracked bool
	// NoMessages leaves out commit messages. By default a comparison of
	// two commits also yields the message of every commit reachable from
	// the new side and not from the old one (merges included).
	NoMessages bool
	// EmptyIfUnborn compares with the empty tree when the one revision is
	// "HEAD" and the repository has no commit yet (git diff HEAD would
	// fail): "everything not committed yet" from the first commit on.
	EmptyIfUnborn bool
}

type sideKind int

const (
	sideEmpty sideKind = iota
	sideTree
	sideIndex
	sideWorktree
)

type side struct {
	kind sideKind
	tree plumbing.Hash
}

func treeSide(c *object.Commit) side {
	if c == nil {
		return side{kind: sideEmpty}
	}
	return side{kind: sideTree, tree: c.TreeHash}
}

type diffSource struct {
	r         *Repo
	ps        *pathspec
	old, new  side
	base      string // the old-side commit of a two-commit diff
	commit    string // the new-side commit of a two-commit diff
	untracked bool
	msgFrom   *object.Commit
	msgTo     *object.Commit // nil: no messages
	unborn    bool           // "HEAD" was the empty tree (EmptyIfUnborn)
}

// Diff returns the added lines of a comparison chosen by opts. Revisions
// are resolved now: an unknown one is reported as a *RevError.
//
// The source yields one fragment per file with added lines (or skipped),
// sorted by path, with untracked files merged in path order; then, for a
// two-commit comparison, the commit messages in git log order. Fragments
// of a two-commit comparison carry the new commit's ID; the others carry
// none.
func (r *Repo) Diff(opts DiffOptions) (scanner.Source, error) {
	ps, err := newPathspec(r.root, r.prefix, opts.Paths)
	if err != nil {
		return nil, err
	}
	s := &diffSource{r: r, ps: ps, untracked: !opts.NoUntracked}
	work := side{kind: sideWorktree}
	if opts.Staged {
		work = side{kind: sideIndex}
	}
	commits := func(from, to *object.Commit, base *object.Commit) {
		s.old, s.new = treeSide(base), treeSide(to)
		s.base, s.commit = base.Hash.String(), to.Hash.String()
		s.msgFrom, s.msgTo = from, to
	}
	errStaged := errors.New("--staged compares the index with at most one commit")
	switch len(opts.Revs) {
	case 0:
		if opts.Staged {
			head, err := r.head()
			if err != nil {
				return nil, err
			}
			s.old, s.new = treeSide(head), side{kind: sideIndex}
		} else {
			s.old, s.new = side{kind: sideIndex}, side{kind: sideWorktree}
		}
	case 1:
		if a, b, sym, ok := parseRange(opts.Revs[0]); ok {
			if opts.Staged {
				return nil, errStaged
			}
			ca, err := r.resolve(a)
			if err != nil {
				return nil, err
			}
			cb, err := r.resolve(b)
			if err != nil {
				return nil, err
			}
			base := ca
			if sym {
				if base, err = r.mergeBase(opts.Revs[0], ca, cb); err != nil {
					return nil, err
				}
			}
			commits(ca, cb, base)
		} else {
			c, err := r.resolve(opts.Revs[0])
			if err != nil {
				if !opts.EmptyIfUnborn || opts.Revs[0] != "HEAD" {
					return nil, err
				}
				if h, herr := r.head(); herr != nil || h != nil {
					return nil, err
				}
				c = nil // unborn HEAD: the empty tree
				s.unborn = true
			}
			s.old, s.new = treeSide(c), work
		}
	case 2:
		if opts.Staged {
			return nil, errStaged
		}
		ca, err := r.resolve(opts.Revs[0])
		if err != nil {
			return nil, err
		}
		cb, err := r.resolve(opts.Revs[1])
		if err != nil {
			return nil, err
		}
		commits(ca, cb, ca)
	default:
		return nil, errors.New("diff takes at most two revisions")
	}
	if r.root == "" && (s.old.kind >= sideIndex || s.new.kind >= sideIndex) {
		return nil, ErrBare
	}
	if opts.NoMessages {
		s.msgTo = nil
	}
	return s, nil
}

// UnbornHEAD reports whether the comparison took HEAD, which has no
// commit yet, for the empty tree (DiffOptions.EmptyIfUnborn).
func (s *diffSource) UnbornHEAD() bool { return s.unborn }

// PolicyBase returns the commit a two-commit comparison compares against
// (the a of a..b and "a b", the merge base of a...b): the trusted side,
// whose policy files judge the change. It is "" when either side is the
// index or the working tree.
func (s *diffSource) PolicyBase() string { return s.base }

// PolicyHead returns the new-side commit of a two-commit comparison: the
// side under review. It is "" when PolicyBase is.
func (s *diffSource) PolicyHead() string {
	if s.base == "" {
		return ""
	}
	return s.commit
}

// entries lists one side of a non tree-to-tree comparison.
func (s *diffSource) entries(ctx context.Context, sd side, p *processor, idx *index.Index) ([]entry, error) {
	switch sd.kind {
	case sideTree:
		// The other side is the index or the working tree: the files of
		// the subtrees the index has unchanged are taken from it.
		es := make([]entry, 0, len(idx.Entries))
		err := p.trees.flattenTreeIndexed(ctx, sd.tree, buildIndexTree(idx), "", s.ps, func(e entry) { es = append(es, e) })
		sortEntries(es)
		return es, err
	case sideIndex:
		return indexEntries(idx, s.ps), nil
	case sideWorktree:
		return s.r.worktreeEntries(ctx, idx, s.ps, p.ov)
	}
	return nil, nil
}

// Fragments implements scanner.Source.
func (s *diffSource) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	p := newProcessor(s.r.store, newBlobCache(s.r.limits.blob, 0), s.r.limits.tree)
	var changes []change
	var idx *index.Index
	if s.old.kind <= sideTree && s.new.kind <= sideTree {
		if err := p.trees.diffTrees(ctx, s.old.tree, s.new.tree, "", s.ps, &changes); err != nil {
			return err
		}
	} else {
		var err error
		if idx, err = s.r.readIndex(); err != nil {
			return err
		}
		oldE, err := s.entries(ctx, s.old, p, idx)
		if err != nil {
			return err
		}
		newE, err := s.entries(ctx, s.new, p, idx)
		if err != nil {
			return err
		}
		changes = diffEntries(oldE, newE)
	}
	changes, err := p.detectRenames(changes)
	if err != nil {
		return err
	}
	var untracked []string
	if s.new.kind == sideWorktree && s.untracked {
		if untracked, err = s.r.untracked(ctx, idx, s.ps); err != nil {
			return err
		}
	}
	i, j := 0, 0
	for i < len(changes) || j < len(untracked) {
		if err := ctx.Err(); err != nil {
			return err
		}
		var f *scanner.Fragment
		if j == len(untracked) || i < len(changes) && changes[i].to.path <= untracked[j] {
			if f, err = p.fragmentFor(&changes[i], s.commit); err != nil {
				return err
			}
			i++
		} else {
			if f, err = s.untrackedFragment(untracked[j]); err != nil {
				return err
			}
			j++
		}
		if f != nil {
			if err := yield(f); err != nil {
				return err
			}
		}
	}
	if s.msgTo == nil {
		return nil
	}
	w := newWalker(s.r.store, s.r.shallowSet())
	var from []*object.Commit
	if s.msgFrom != nil {
		from = append(from, s.msgFrom)
	}
	list, err := w.limited(ctx, []*object.Commit{s.msgTo}, from, nil)
	if err != nil {
		return err
	}
	for _, ci := range list {
		if f := messageFragment(ci.hash.String(), ci.msg); f != nil {
			if err := yield(f); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *diffSource) untrackedFragment(p string) (*scanner.Fragment, error) {
	abs := filepath.Join(s.r.root, filepath.FromSlash(p))
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, nil // vanished since the walk
	}
	b, err := readWorktreeFile(abs, fi)
	if err != nil {
		return nil, fmt.Errorf("read untracked file: %w", err)
	}
	return wholeFragment(finding.KindDiff, p, b), nil
}
