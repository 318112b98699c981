package gitsrc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// readIndex reads the index; a repository without one has an empty index.
func (r *Repo) readIndex() (*index.Index, error) {
	idx, err := r.store.Index()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &index.Index{}, nil
		}
		return nil, fmt.Errorf("read index: %w", err)
	}
	return idx, nil
}

// indexEntries returns the index's merged entries selected by ps, sorted.
// Intent-to-add entries are left out: they are new in the working tree.
// (go-git's index.Merged constant is 1, but merged entries decode with
// stage 0, so the stage is compared with 0.)
func indexEntries(idx *index.Index, ps *pathspec) []entry {
	var es []entry
	for _, e := range idx.Entries {
		if e.Stage != 0 || e.IntentToAdd || !ps.match(e.Name) {
			continue
		}
		es = append(es, entry{path: e.Name, mode: e.Mode, hash: e.Hash})
	}
	sortEntries(es)
	return es
}

// coreBool reads a boolean core option of the repository configuration.
func (r *Repo) coreBool(name string, def bool) bool {
	cfg, err := r.store.Config()
	if err != nil || cfg.Raw == nil {
		return def
	}
	v := strings.ToLower(cfg.Raw.Section("core").Option(name))
	switch v {
	case "false", "no", "off", "0":
		return false
	case "true", "yes", "on", "1":
		return true
	}
	return def
}

// readWorktreeFile reads a working tree file as git would store it: a
// symlink's content is its target.
func readWorktreeFile(abs string, fi fs.FileInfo) ([]byte, error) {
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(abs)
		if err != nil {
			return nil, err
		}
		return []byte(filepath.ToSlash(t)), nil
	}
	return os.ReadFile(abs)
}

// worktreeEntries returns the tracked files of the working tree selected
// by ps, sorted. A file whose stat data matches the index (and is not
// racily clean) keeps the index's hash without being read; any other file
// is read, hashed, and its content kept in ov.
func (r *Repo) worktreeEntries(ctx context.Context, idx *index.Index, ps *pathspec, ov *overlay) ([]entry, error) {
	trustMode := r.coreBool("filemode", true)
	seen := map[string]bool{}
	var es []entry
	for _, e := range idx.Entries {
		if seen[e.Name] || !ps.match(e.Name) {
			continue
		}
		seen[e.Name] = true
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e.Mode == filemode.Submodule || e.SkipWorktree {
			es = append(es, entry{path: e.Name, mode: e.Mode, hash: e.Hash})
			continue
		}
		abs := filepath.Join(r.root, filepath.FromSlash(e.Name))
		fi, err := os.Lstat(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || isNotDir(err) {
				continue // deleted in the working tree
			}
			return nil, fmt.Errorf("stat working tree file: %w", err)
		}
		var mode filemode.FileMode
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			mode = filemode.Symlink
		case fi.Mode().IsRegular():
			mode = filemode.Regular
			if trustMode {
				if fi.Mode()&0o100 != 0 {
					mode = filemode.Executable
				}
			} else if e.Mode == filemode.Executable {
				mode = filemode.Executable
			}
		default:
			continue // a directory or special file where the file was
		}
		if e.Stage == 0 && !e.IntentToAdd && statClean(e, fi, idx) && sameKind(mode, e.Mode) {
			es = append(es, entry{path: e.Name, mode: mode, hash: e.Hash})
			continue
		}
		b, err := readWorktreeFile(abs, fi)
		if err != nil {
			return nil, fmt.Errorf("read working tree file: %w", err)
		}
		es = append(es, entry{path: e.Name, mode: mode, hash: ov.addBlob(b)})
	}
	sortEntries(es)
	return es, nil
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// statClean reports whether the file's stat data matches its index entry
// and the entry is not racily clean (modified in the same instant the
// index was written), git's test before trusting the index's hash.
func statClean(e *index.Entry, fi fs.FileInfo, idx *index.Index) bool {
	if uint32(fi.Size()) != e.Size || !fi.ModTime().Equal(e.ModifiedAt) {
		return false
	}
	if !idx.ModTime.IsZero() && !e.ModifiedAt.Before(idx.ModTime) {
		return false
	}
	return true
}

// parseIgnore parses gitignore lines for the directory domain.
func parseIgnore(rd io.Reader, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseIgnore(f, domain)
}

// baseIgnore loads the excludes that apply everywhere: core.excludesFile
// (or git's default ~/.config/git/ignore) and $GIT_DIR/info/exclude.
func (r *Repo) baseIgnore() []gitignore.Pattern {
	var ps []gitignore.Pattern
	excludes := ""
	if cfg, err := r.store.Config(); err == nil && cfg.Raw != nil {
		excludes = cfg.Raw.Section("core").Option("excludesfile")
	}
	if excludes == "" {
		if cfg, err := config.LoadConfig(config.GlobalScope); err == nil && cfg.Raw != nil {
			excludes = cfg.Raw.Section("core").Option("excludesfile")
		}
	}
	if excludes == "" {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			excludes = filepath.Join(x, "git", "ignore")
		} else if h, err := os.UserHomeDir(); err == nil {
			excludes = filepath.Join(h, ".config", "git", "ignore")
		}
	} else if rest, ok := strings.CutPrefix(excludes, "~/"); ok {
		if h, err := os.UserHomeDir(); err == nil {
			excludes = filepath.Join(h, rest)
		}
	}
	if excludes != "" {
		ps = append(ps, readIgnoreFile(excludes, nil)...)
	}
	if f, err := r.dotgit.Open("info/exclude"); err == nil {
		ps = append(ps, parseIgnore(f, nil)...)
		f.Close()
	}
	return ps
}

// untracked lists the files of the working tree that are neither tracked
// nor ignored, selected by ps, sorted. Like git, it does not descend into
// ignored directories or into nested repositories.
func (r *Repo) untracked(ctx context.Context, idx *index.Index, ps *pathspec) ([]string, error) {
	tracked := make(map[string]bool, len(idx.Entries))
	submodules := map[string]bool{}
	for _, e := range idx.Entries {
		if !e.IntentToAdd {
			tracked[e.Name] = true
		}
		if e.Mode == filemode.Submodule {
			submodules[e.Name] = true
		}
	}
	var out []string
	base := r.baseIgnore()
	var walk func(dir string, comps []string, patterns []gitignore.Pattern) error
	walk = func(dir string, comps []string, patterns []gitignore.Pattern) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		abs := filepath.Join(r.root, filepath.FromSlash(dir))
		patterns = append(patterns[:len(patterns):len(patterns)], readIgnoreFile(filepath.Join(abs, ".gitignore"), comps)...)
		m := gitignore.NewMatcher(patterns)
		ents, err := os.ReadDir(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return fmt.Errorf("read working tree: %w", err)
		}
		for _, de := range ents {
			name := de.Name()
			if name == ".git" {
				continue
			}
			p := joinPath(dir, name)
			pc := append(comps[:len(comps):len(comps)], name)
			isDir := de.IsDir()
			if isDir {
				if submodules[p] || !ps.descend(p) || m.Match(pc, true) {
					continue // a submodule, out of the pathspec, or ignored
				}
				if _, err := os.Lstat(filepath.Join(abs, name, ".git")); err == nil {
					continue // a nested repository
				}
				if err := walk(p, pc, patterns); err != nil {
					return err
				}
				continue
			}
			if !de.Type().IsRegular() && de.Type()&fs.ModeSymlink == 0 {
				continue
			}
			if tracked[p] || !ps.match(p) || m.Match(pc, false) {
				continue
			}
			out = append(out, p)
		}
		return nil
	}
	if err := walk("", nil, base); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}
