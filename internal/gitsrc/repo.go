package gitsrc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

var (
	// ErrNotRepo is returned by Open when no repository contains the
	// directory.
	ErrNotRepo = errors.New("not a git repository")
	// ErrRevNotFound is wrapped by every *RevError.
	ErrRevNotFound = errors.New("unknown revision")
	// ErrBare is returned when an operation needs a working tree and the
	// repository is bare.
	ErrBare = errors.New("bare repository has no working tree")
)

// RevError reports a revision that does not resolve to a commit. Rev is the
// revision as the user typed it; it is not part of the message, because a
// revision (a branch or tag name) can hold the very names the catalog
// protects, and error messages end up in CI logs. Shallow is set when the
// repository is a shallow clone, where the commit may simply not have been
// fetched.
type RevError struct {
	Rev     string
	Shallow bool
}

func (e *RevError) Error() string {
	if e.Shallow {
		return "unknown revision (the repository is a shallow clone)"
	}
	return "unknown revision"
}

// Unwrap returns ErrRevNotFound.
func (e *RevError) Unwrap() error { return ErrRevNotFound }

// objectCacheSize is shared by all the go-git storages of one Repo.
// Objects in packs are read by the packSet, with its own cache; go-git
// reads loose objects and whatever the packSet leaves to it.
const objectCacheSize = 8 * cache.MiByte

// Repo is an open repository.
type Repo struct {
	root     string // working tree root; "" for a bare repository
	prefix   string // the opened directory relative to root, slash-separated
	dotgit   billy.Filesystem
	objCache cache.Object    // shared, concurrency-safe object cache
	store    *repoStorer     // go-git's storage, reading packed objects through packs
	repo     *git.Repository // on store
	workers  int

	packsOnce sync.Once
	packs     *packSet // nil: read every object through go-git
	limits    cacheLimits
}

// cacheLimits bounds the caches of a Repo's sources, in bytes: the
// packSet's decompressed objects (shared; 0: by the packs' size, see
// packCacheSize), the blob cache of one source
// (shared by its workers), its cache of record ends (history only; 0: an
// eighth of the pack cache, see endsCacheDiv), each worker's tree cache
// generation, and the fragments its workers hold back for commits not
// reached yet (see histJob). Tests lower them.
type cacheLimits struct {
	pack, blob, ends, tree, ahead int
}

// Open finds the repository containing dir, looking upward like git: a
// .git directory, a .git file of a linked worktree ("gitdir: …", with its
// commondir), or a bare repository (which supports history only).
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	} else if !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	root, gitDir, err := discover(abs)
	if err != nil {
		return nil, err
	}
	fs := billy.Filesystem(osfs.New(gitDir, osfs.WithBoundOS()))
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		if _, err := os.Stat(common); err != nil {
			return nil, fmt.Errorf("open repository: commondir: %w", err)
		}
		fs = dotgit.NewRepositoryFilesystem(fs, osfs.New(common, osfs.WithBoundOS()))
	}
	r := &Repo{
		root:     root,
		dotgit:   fs,
		objCache: cache.NewObjectLRU(objectCacheSize),
		workers:  min(runtime.NumCPU(), 2),
		limits:   cacheLimits{blob: blobCacheBytes, tree: treeCacheBytes, ahead: aheadBytes}, // pack: by size
	}
	if root != "" {
		rel, err := filepath.Rel(root, abs)
		if err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			r.prefix = filepath.ToSlash(rel)
		}
	}
	r.store = r.objects()
	var wt billy.Filesystem
	if root != "" {
		wt = osfs.New(root, osfs.WithBoundOS())
	}
	r.repo, err = git.Open(r.store, wt)
	if err != nil {
		r.store.Close()
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, ErrNotRepo
		}
		return nil, fmt.Errorf("open repository: %w", err)
	}
	return r, nil
}

// discover walks up from dir to the repository that contains it.
func discover(dir string) (root, gitDir string, err error) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				if isGitDir(p) {
					return d, p, nil
				}
			} else if g, err := readGitFile(p); err == nil && isGitDir(g) {
				return d, g, nil
			}
		}
		if isGitDir(d) {
			// A bare repository, or the inside of a .git directory: a
			// repository without a working tree.
			return "", d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", ErrNotRepo
		}
		d = parent
	}
}

// readGitFile reads the "gitdir: <path>" line of a .git file.
func readGitFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	g, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", ErrNotRepo
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(p), g)
	}
	return filepath.Clean(g), nil
}

// isGitDir reports whether d looks like a git directory: HEAD plus objects
// and refs (possibly through commondir).
func isGitDir(d string) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || fi.IsDir() {
		return false
	}
	common := d
	if b, err := os.ReadFile(filepath.Join(d, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(d, c)
		}
		common = c
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// packSet returns the reader of the repository's pack files, opened on
// first use, or nil when they cannot be read directly (every object is
// then read through go-git, which reports any real damage).
func (r *Repo) packSet() *packSet {
	r.packsOnce.Do(func() {
		if ps, err := openPackSet(r.dotgit, r.limits.pack); err == nil {
			r.packs = ps
		}
	})
	return r.packs
}

// objects opens a storage of the repository that shares the object cache
// and the packSet. go-git storages are not safe for concurrent use, so
// each goroutine opens its own; the caller closes it.
func (r *Repo) objects() *repoStorer {
	st := filesystem.NewStorageWithOptions(r.dotgit, r.objCache, filesystem.Options{
		KeepDescriptors: true,
	})
	return &repoStorer{Storage: st, r: r}
}

// repoStorer is a go-git storage whose objects in packs are read by the
// Repo's packSet (opened on first use), so that go-git never decodes its
// pack indexes nor reads through its own pack reader; it reads the others
// (loose objects, alternates, anything the packSet leaves). The objects
// read from packs carry the ID they were asked for, so go-git never hashes
// them again. It serves the Repo's go-git repository (revision resolution,
// commits, the walk of commit messages) and the walks and processors of
// the sources. Like the storage it wraps, it is used by one goroutine at a
// time.
type repoStorer struct {
	*filesystem.Storage
	r *Repo
}

// EncodedObject implements storer.EncodedObjectStorer.
func (s *repoStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok, err := s.r.packSet().object(t, h); ok {
		if err != nil {
			return nil, err
		}
		return &obj, nil
	}
	return s.Storage.EncodedObject(t, h)
}

// Close releases the repository's open files.
func (r *Repo) Close() error {
	err := r.store.Close()
	r.packsOnce.Do(func() {})
	if r.packs != nil {
		if e := r.packs.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Root returns the working tree root ("" for a bare repository).
func (r *Repo) Root() string { return r.root }

// IsShallow reports whether the repository is a shallow clone.
func (r *Repo) IsShallow() bool {
	s, err := r.store.Shallow()
	return err == nil && len(s) > 0
}

// SetWorkers sets how many commits History diffs in parallel (default:
// the number of CPUs, at most 2). n < 1 means 1.
func (r *Repo) SetWorkers(n int) { r.workers = max(n, 1) }

// resolve turns a revision into a commit.
func (r *Repo) resolve(rev string) (*object.Commit, error) {
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil || h == nil || h.IsZero() {
		return nil, &RevError{Rev: rev, Shallow: r.IsShallow()}
	}
	c, err := object.GetCommit(r.store, *h)
	if err != nil {
		return nil, &RevError{Rev: rev, Shallow: r.IsShallow()}
	}
	return c, nil
}

// head returns the commit HEAD points to, or nil when HEAD is unborn.
func (r *Repo) head() (*object.Commit, error) {
	ref, err := r.repo.Head()
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return nil, nil
		}
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	c, err := object.GetCommit(r.store, ref.Hash())
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit: %w", err)
	}
	return c, nil
}

// parseRange splits "A..B" and "A...B" (an empty side means HEAD). sym
// reports the three-dot form.
func parseRange(spec string) (a, b string, sym, ok bool) {
	if i := strings.Index(spec, "..."); i >= 0 {
		a, b = spec[:i], spec[i+3:]
		sym = true
	} else if i := strings.Index(spec, ".."); i >= 0 {
		a, b = spec[:i], spec[i+2:]
	} else {
		return "", "", false, false
	}
	if a == "" {
		a = "HEAD"
	}
	if b == "" {
		b = "HEAD"
	}
	return a, b, sym, true
}

// mergeBase returns the first merge base of a and b.
func (r *Repo) mergeBase(spec string, a, b *object.Commit) (*object.Commit, error) {
	bases, err := a.MergeBase(b)
	if err != nil {
		return nil, fmt.Errorf("merge base: %w", err)
	}
	if len(bases) == 0 {
		return nil, &RevError{Rev: spec, Shallow: r.IsShallow()}
	}
	return bases[0], nil
}

// ErrFileNotInCommit is returned by ReadFileAt when the commit has no file
// at the path.
var ErrFileNotInCommit = errors.New("no such file in the commit")

// ReadFileAt returns the content of the file at path (slash-separated,
// relative to the repository root) in commit rev, reading git objects
// only (never the working tree). A file larger than max bytes is an error.
func (r *Repo) ReadFileAt(rev, path string, max int64) ([]byte, error) {
	c, err := r.resolve(rev)
	if err != nil {
		return nil, err
	}
	t, err := object.GetTree(r.store, c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("read tree of commit %s: %w", c.Hash, err)
	}
	e, err := t.FindEntry(path)
	if err != nil {
		if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			return nil, ErrFileNotInCommit
		}
		return nil, fmt.Errorf("read tree of commit %s: %w", c.Hash, err)
	}
	if !e.Mode.IsFile() {
		return nil, ErrFileNotInCommit
	}
	size, err := r.store.EncodedObjectSize(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read object %s of commit %s: %w", e.Hash, c.Hash, err)
	}
	if size > max {
		return nil, fmt.Errorf("file of %d bytes in commit %s is larger than %d bytes", size, c.Hash, max)
	}
	b, err := object.GetBlob(r.store, e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read object %s of commit %s: %w", e.Hash, c.Hash, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("read object %s of commit %s: %w", e.Hash, c.Hash, err)
	}
	defer rd.Close()
	return io.ReadAll(io.LimitReader(rd, max+1))
}

// AuthorTime returns the author date of a commit given by its full hex ID,
// for reports that say when a finding was added. It opens its own storage,
// so it may run beside a source's walk.
func (r *Repo) AuthorTime(id string) (time.Time, error) {
	h := plumbing.NewHash(id)
	if h.IsZero() || h.String() != strings.ToLower(id) {
		return time.Time{}, fmt.Errorf("not a commit ID")
	}
	st := r.objects()
	defer st.Close()
	c, err := object.GetCommit(st, h)
	if err != nil {
		return time.Time{}, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c.Author.When, nil
}

// ResolveCommit returns the full ID of the commit rev names.
func (r *Repo) ResolveCommit(rev string) (string, error) {
	c, err := r.resolve(rev)
	if err != nil {
		return "", err
	}
	return c.Hash.String(), nil
}

// Commit returns the commit rev names; a failure is a *RevError.
func (r *Repo) Commit(rev string) (*object.Commit, error) { return r.resolve(rev) }

// RefCommit returns the commit a full reference name (refs/remotes/…)
// points to, or nil when there is none.
func (r *Repo) RefCommit(name string) *object.Commit {
	ref, err := r.repo.Reference(plumbing.ReferenceName(name), true)
	if err != nil {
		return nil
	}
	c, err := object.GetCommit(r.store, ref.Hash())
	if err != nil {
		return nil
	}
	return c
}

// HeadCommit returns the checked-out commit, or nil (no commit yet, or
// unreadable).
func (r *Repo) HeadCommit() *object.Commit {
	c, err := r.head()
	if err != nil {
		return nil
	}
	return c
}
