package gitsrc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// Files returns the whole files of the working tree (KindFile), sorted by
// path: tracked files and untracked files that .gitignore (nested ignore
// files, $GIT_DIR/info/exclude and core.excludesFile) does not exclude.
// paths limit the set like a pathspec, relative to the directory given to
// Open. Submodules yield a skipped fragment; symbolic links are not
// followed.
func (r *Repo) Files(paths []string) (scanner.Source, error) {
	if r.root == "" {
		return nil, ErrBare
	}
	ps, err := newPathspec(r.root, r.prefix, paths)
	if err != nil {
		return nil, err
	}
	return &filesSource{r: r, ps: ps}, nil
}

type filesSource struct {
	r       *Repo
	ps      *pathspec
	onTotal func(files int)
}

// OnTotal asks the source to call fn with the number of files it is about
// to read, once it has listed them (for a progress total).
func (s *filesSource) OnTotal(fn func(files int)) { s.onTotal = fn }

type fileItem struct {
	path      string
	submodule bool
}

// Fragments implements scanner.Source.
func (s *filesSource) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	idx, err := s.r.readIndex()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var items []fileItem
	for _, e := range idx.Entries {
		if seen[e.Name] || !s.ps.match(e.Name) || e.SkipWorktree {
			continue
		}
		seen[e.Name] = true
		items = append(items, fileItem{path: e.Name, submodule: e.Mode == filemode.Submodule})
	}
	untracked, err := s.r.untracked(ctx, idx, s.ps)
	if err != nil {
		return err
	}
	for _, p := range untracked {
		items = append(items, fileItem{path: p})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].path < items[j].path })
	if s.onTotal != nil {
		s.onTotal(len(items))
	}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		if it.submodule {
			if err := yield(&scanner.Fragment{Kind: finding.KindFile, Path: it.path, Skipped: finding.SkipSubmodule}); err != nil {
				return err
			}
			continue
		}
		abs := filepath.Join(s.r.root, filepath.FromSlash(it.path))
		fi, err := os.Lstat(abs)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted, a symbolic link, or not a file
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("read working tree file: %w", err)
		}
		if f := wholeFragment(finding.KindFile, it.path, b); f != nil {
			if err := yield(f); err != nil {
				return err
			}
		}
	}
	return nil
}
