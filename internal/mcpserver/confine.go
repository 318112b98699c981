package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/privscan/privscan/broker"
)

// roots are the directories a caller may scan: the server's working
// directory and every --root, each with symlinks resolved.
type roots []string

// newRoots resolves dirs. Every root must be an existing directory.
func newRoots(dirs []string) (roots, error) {
	var rs roots
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, errors.Unwrap(err))
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, errors.Unwrap(err))
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("root %s is not a directory", d)
		}
		rs = append(rs, real)
	}
	if len(rs) == 0 {
		return nil, errors.New("no root directory")
	}
	return rs, nil
}

// within reports whether the clean absolute path p is dir or inside it.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// contains reports whether the resolved path p lies inside a root.
func (rs roots) contains(p string) bool {
	for _, r := range rs {
		if within(p, r) {
			return true
		}
	}
	return false
}

// repoDir resolves the repo argument ("" = the first root, the working
// directory): relative paths are taken from the working directory,
// symlinks are resolved, and the result must be an existing directory
// inside a root.
func (rs roots) repoDir(repo string) (string, *toolError) {
	if repo == "" {
		return rs[0], nil
	}
	p := repo
	if !filepath.IsAbs(p) {
		p = filepath.Join(rs[0], p)
	}
	p = filepath.Clean(p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Do not tell a caller outside the roots what exists there.
			if !rs.contains(p) {
				return "", errorf(CodePathOutsideRoot, "repo %s is outside the directories this server may read (its working directory and --root directories)", quoteArg(repo))
			}
			return "", errorf(CodeRepoNotFound, "repo %s does not exist", quoteArg(repo))
		}
		return "", errorf(CodeRepoNotFound, "repo %s cannot be read", quoteArg(repo))
	}
	if !rs.contains(real) {
		return "", errorf(CodePathOutsideRoot, "repo %s is outside the directories this server may read (its working directory and --root directories)", quoteArg(repo))
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", errorf(CodeRepoNotFound, "repo %s is not a directory", quoteArg(repo))
	}
	return real, nil
}

// scanPath checks one path limit of scan_diff, given relative to dir (the
// resolved directory the repository was opened at) or absolute, and
// returns it relative to dir, slash-separated, as gitsrc expects. The
// path's longest existing prefix is resolved through symlinks and the
// result must lie inside a root and inside dir; a glob is resolved up to
// the directory of its first wildcard.
func (rs roots) scanPath(dir, p string) (string, *toolError) {
	native := filepath.FromSlash(p)
	if !filepath.IsAbs(native) {
		native = filepath.Join(dir, native)
	}
	native = filepath.Clean(native)
	check, tail := native, ""
	if i := strings.IndexAny(native, "*?["); i >= 0 {
		check = filepath.Dir(native[:i+1])
		tail, _ = filepath.Rel(check, native)
	}
	real, ok := resolveExisting(check)
	if !ok || !rs.contains(real) {
		return "", errorf(CodePathOutsideRoot, "path %s is outside the directories this server may read", quoteArg(p))
	}
	if tail != "" {
		real = filepath.Join(real, tail)
	}
	rel, err := filepath.Rel(dir, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", errorf(CodePathOutsideRoot, "path %s is outside the repository directory being scanned", quoteArg(p))
	}
	return filepath.ToSlash(rel), nil
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// the clean absolute path p and appends the rest. It fails when a prefix
// cannot be resolved for another reason than absence.
func resolveExisting(p string) (string, bool) {
	rest := ""
	for cur := p; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), true
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", false
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", false
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// filePath resolves the path argument of read_redacted and redact_file as
// repo is resolved: relative paths are taken from the working directory,
// symlinks are resolved (a symlink may point anywhere inside the roots,
// never outside them), and the result must lie inside a root. It does not
// check what the path names: openFile does, on the open file.
func (rs roots) filePath(p string) (string, *toolError) {
	abs := filepath.FromSlash(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(rs[0], abs)
	}
	abs = filepath.Clean(abs)
	outside := errorf(CodePathOutsideRoot, "path %s is outside the directories this server may read (its working directory and --root directories)", quoteArg(p))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// Do not tell a caller outside the roots what exists there.
		if !rs.contains(abs) {
			return "", outside
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return "", errorf(string(broker.CodeFileMissing), "path %s does not exist", quoteArg(p))
		}
		return "", errorf(string(broker.CodeFileMissing), "path %s cannot be resolved (a symlink loop, or a directory that cannot be searched)", quoteArg(p))
	}
	if !rs.contains(real) {
		return "", outside
	}
	return real, nil
}

// display returns the resolved path real as replies name it: relative to
// the working directory when inside it, else absolute; slash-separated.
func (rs roots) display(real string) string {
	if rel, err := filepath.Rel(rs[0], real); err == nil && within(real, rs[0]) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(real)
}
