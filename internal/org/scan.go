package org

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/sarif"
	"github.com/privscan/privscan/scanner"
)

// DefaultMaxRepoBytes caps what one repository may take on disk (its
// pack): 4 GiB.
const DefaultMaxRepoBytes int64 = 4 << 30

// ScanOptions configure a shard's run.
type ScanOptions struct {
	Plan  *Plan
	Shard int
	Out   string
	// Engine scans; Matcher is the catalog (opened once by the caller).
	Engine  *engine.Engine
	Matcher *catalog.Matcher
	// Getenv reads PRIVSCAN_GIT_TOKEN, GITHUB_TOKEN and GITLAB_TOKEN.
	Getenv func(string) string
	// TempDir holds the clones ("": the system's).
	TempDir string
	// MaxRepoBytes caps one repository's pack (0: DefaultMaxRepoBytes).
	MaxRepoBytes int64
	ToolVersion  string
	// Progress, when set, is told each unit's start (i of n, 1-based).
	Progress func(i, n int)
}

// ShardResult counts a shard's units.
type ShardResult struct {
	Scanned, Skipped, Failed int
}

// Unit failure reasons: fixed words, never a value, a URL or a token.
const (
	ReasonNotFound = "repository not found or not readable"
	ReasonAuth     = "authentication failed"
	ReasonTooLarge = "repository larger than the size cap"
	ReasonClone    = "clone failed"
	ReasonHostKey  = "the ssh host key is not in known_hosts or differs from it"
	ReasonOpen     = "repository could not be opened (corrupt or not a repository)"
	ReasonScan     = "history scan failed"
	ReasonRange    = "the recorded tip is no longer in the history"
)

var errTooLarge = errors.New(ReasonTooLarge)

// Scan runs shard o.Shard of the plan into o.Out. A failing repository is
// recorded as failed and the shard goes on; the error is for the shard
// itself (its folder, its manifest, cancellation).
func Scan(ctx context.Context, o ScanOptions) (ShardResult, error) {
	var res ShardResult
	if o.Shard < 0 || o.Shard >= o.Plan.Shards {
		return res, fmt.Errorf("shard %d is outside the plan's 0 to %d", o.Shard, o.Plan.Shards-1)
	}
	if o.MaxRepoBytes <= 0 {
		o.MaxRepoBytes = DefaultMaxRepoBytes
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return res, fmt.Errorf("creating --out: %w", errors.Unwrap(err))
	}
	m, err := ReadManifest(o.Out)
	if err != nil {
		return res, err
	}
	m.Planned = nil
	for _, r := range o.Plan.Repos {
		m.Planned = append(m.Planned, r.Name)
	}
	// Written now: a shard with no unit still says what was planned.
	if err := m.Write(o.Out); err != nil {
		return res, err
	}
	units := o.Plan.ShardUnits(o.Shard)
	for i, u := range units {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if o.Progress != nil {
			o.Progress(i+1, len(units))
		}
		repo, _ := o.Plan.Repo(u.Repo)
		prev := m.Units[u.ID()]
		d, scanned, err := o.unit(ctx, repo, u, prev)
		if err != nil {
			return res, err
		}
		switch {
		case d.Status == StatusFailed:
			res.Failed++
		case scanned:
			res.Scanned++
		default:
			res.Skipped++
		}
		m.Units[u.ID()] = d
		if err := m.Write(o.Out); err != nil {
			return res, err
		}
	}
	return res, nil
}

// unit scans one unit. It returns the unit's new record and whether
// commits were scanned; an error only when the shard must stop.
func (o ScanOptions) unit(ctx context.Context, repo Repo, u Unit, prev *Done) (*Done, bool, error) {
	d := &Done{Repo: u.Repo, Part: u.Part, Parts: u.Parts}
	if prev != nil && prev.Status == StatusDone {
		*d = *prev
		if u.Parts > 1 && u.Part < u.Parts-1 {
			// A split history's earlier parts are fixed once scanned;
			// new commits belong to the last part.
			return d, false, nil
		}
	}
	fail := func(reason string) (*Done, bool, error) {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		f := *d
		if prev == nil || prev.Status != StatusDone {
			f.Status = StatusFailed
		}
		f.Reason = reason
		return &f, false, nil
	}
	auth := o.auth(repo)
	if prev != nil && prev.Status == StatusDone && prev.Tip != "" {
		// Resume and increments: ask the remote for its HEAD first, and
		// clone nothing when it has not moved.
		if tip, err := remoteHead(ctx, repo.URL, auth); err == nil && tip == prev.Tip {
			d.Reason = ""
			return d, false, nil
		}
	}
	t0 := time.Now()
	r, cleanup, reason := o.open(ctx, repo, auth)
	defer cleanup()
	d.OpenSeconds = time.Since(t0).Seconds()
	if reason != "" {
		return fail(reason)
	}
	defer r.Close()
	head, err := r.ResolveCommit("HEAD")
	if err != nil {
		if errors.Is(err, gitsrc.ErrRevNotFound) {
			// An empty repository: nothing to scan, done.
			d.Status, d.Reason = StatusDone, ""
			return d, false, nil
		}
		return fail(ReasonOpen)
	}
	from, to := "", head
	if u.Parts > 1 && (prev == nil || prev.Status != StatusDone) {
		bounds, err := firstParentBounds(r, head, u.Parts)
		if err != nil {
			return fail(ReasonOpen)
		}
		from, to = bounds[u.Part], bounds[u.Part+1]
		if to == "" || from == to {
			// A part of a history shorter than its parts: empty.
			d.Status, d.Reason, d.Tip = StatusDone, "", to
			return d, false, nil
		}
	}
	if prev != nil && prev.Status == StatusDone && prev.Tip != "" {
		if prev.Tip == head {
			d.Reason = ""
			return d, false, nil
		}
		if !isAncestor(r, prev.Tip, head) {
			// History rewritten: scan it all again (the merge dedupes).
			from = ""
		} else {
			from = prev.Tip
		}
	}
	seq := len(d.Reports)
	base := filepath.ToSlash(filepath.Join("reports", repo.Name, fmt.Sprintf("p%d.%d", u.Part, seq)))
	rep := Report{JSON: base + ".json", SARIF: base + ".sarif", From: from, To: to}
	t1 := time.Now()
	err = o.scan(ctx, r, repo, from, to, rep)
	d.ScanSeconds = time.Since(t1).Seconds()
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		var fe *fileError
		if errors.As(err, &fe) {
			return nil, false, fe.err
		}
		return fail(ReasonScan)
	}
	d.Status, d.Reason, d.Tip = StatusDone, "", to
	d.Reports = append(d.Reports, rep)
	return d, true, nil
}

// fileError is an error writing the output folder: it stops the shard.
type fileError struct{ err error }

func (e *fileError) Error() string { return e.err.Error() }

// scan writes the reports of from..to (all of to's history for from "").
func (o ScanOptions) scan(ctx context.Context, r *gitsrc.Repo, repo Repo, from, to string, rep Report) error {
	rng := to
	if from != "" {
		rng = from + ".." + to
	}
	tool := render.ToolInfo{Name: "privscan", Version: o.ToolVersion}
	jsonPath := filepath.Join(o.Out, filepath.FromSlash(rep.JSON))
	sarifPath := filepath.Join(o.Out, filepath.FromSlash(rep.SARIF))
	var scanErr error
	werr := writeAtomic(jsonPath, func(jw io.Writer) error {
		return writeAtomic(sarifPath, func(sw io.Writer) error {
			h := engine.Tee{
				render.NewJSON(jw, tool),
				sarif.NewHandler(sw, sarif.Options{ToolVersion: o.ToolVersion, Category: "privscan-org/" + repo.Name}),
			}
			_, scanErr = o.Engine.Scan(ctx, engine.Request{
				Matcher: o.Matcher,
				Repo:    r,
				// The history of a range, judged as `privscan history`
				// judges a fresh clone's: by the tip's committed policy,
				// with the tip's markers (no review of a "change").
				Target: engine.Custom(func(r *gitsrc.Repo) (scanner.Source, error) {
					src, err := r.History(rng, nil)
					if err != nil {
						return nil, err
					}
					return plainSource{src}, nil
				}),
				PolicyFrom: to,
				FailOn:     "never",
			}, h)
			return scanErr
		})
	})
	if scanErr != nil {
		return scanErr
	}
	if werr != nil {
		return &fileError{werr}
	}
	return nil
}

// plainSource hides a range's policy boundary: every part of a history
// is judged as the whole history is.
type plainSource struct{ s scanner.Source }

func (p plainSource) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	return p.s.Fragments(ctx, yield)
}

// auth returns the clone's credentials: PRIVSCAN_GIT_TOKEN, else the
// token of the API that listed the repository, for https only.
func (o ScanOptions) auth(repo Repo) transport.AuthMethod {
	if !strings.HasPrefix(repo.URL, "https://") && !strings.HasPrefix(repo.URL, "http://") {
		return nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	tok := getenv("PRIVSCAN_GIT_TOKEN")
	if tok == "" {
		switch repo.Host {
		case "github":
			tok = getenv("GITHUB_TOKEN")
		case "gitlab":
			tok = getenv("GITLAB_TOKEN")
		}
	}
	if tok == "" {
		return nil
	}
	user := "x-access-token"
	if repo.Host == "gitlab" {
		user = "oauth2"
	}
	return &githttp.BasicAuth{Username: user, Password: tok}
}

// open gives the repository to scan: a file URL is opened in place
// (read-only, no copy); any other URL is cloned bare (HEAD's branch, no
// tags) into a temporary folder that cleanup removes. reason is "" on
// success.
func (o ScanOptions) open(ctx context.Context, repo Repo, auth transport.AuthMethod) (r *gitsrc.Repo, cleanup func(), reason string) {
	cleanup = func() {}
	if strings.HasPrefix(repo.URL, "file://") {
		u, err := url.Parse(repo.URL)
		if err != nil {
			return nil, cleanup, ReasonNotFound
		}
		dir := filepath.FromSlash(u.Path)
		if _, err := os.Stat(dir); err != nil {
			return nil, cleanup, ReasonNotFound
		}
		if n, err := dirSize(dir, o.MaxRepoBytes); err != nil {
			return nil, cleanup, ReasonOpen
		} else if n > o.MaxRepoBytes {
			return nil, cleanup, ReasonTooLarge
		}
		r, err := gitsrc.Open(dir)
		if err != nil {
			return nil, cleanup, ReasonOpen
		}
		return r, cleanup, ""
	}
	tmp, err := os.MkdirTemp(o.TempDir, "privscan-org-*")
	if err != nil {
		return nil, cleanup, ReasonClone
	}
	cleanup = func() { os.RemoveAll(tmp) }
	st := cappedStorage{filesystem.NewStorage(osfs.New(tmp), cache.NewObjectLRUDefault()), o.MaxRepoBytes}
	_, err = git.CloneContext(ctx, st, nil, &git.CloneOptions{
		URL: repo.URL, Auth: auth, SingleBranch: true, Tags: git.NoTags, NoCheckout: true,
	})
	if err != nil {
		return nil, cleanup, cloneReason(err)
	}
	r, err = gitsrc.Open(tmp)
	if err != nil {
		return nil, cleanup, ReasonOpen
	}
	return r, cleanup, ""
}

// cloneReason classifies a clone error in fixed words.
func cloneReason(err error) string {
	switch {
	case errors.Is(err, errTooLarge):
		return ReasonTooLarge
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return ReasonNotFound
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return ReasonAuth
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return ReasonNotFound
	}
	var keyErr *knownhosts.KeyError
	if errors.As(err, &keyErr) {
		return ReasonHostKey
	}
	return ReasonClone
}

// cappedStorage is a repository storage whose pack writer fails once a
// fetched pack exceeds max bytes: a clone's disk is bounded whatever the
// history's depth.
type cappedStorage struct {
	*filesystem.Storage
	max int64
}

// PackfileWriter implements storer.PackfileWriter.
func (s cappedStorage) PackfileWriter() (io.WriteCloser, error) {
	w, err := s.Storage.PackfileWriter()
	if err != nil {
		return nil, err
	}
	return &capWriter{w: w, left: s.max}, nil
}

type capWriter struct {
	w    io.WriteCloser
	left int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		return 0, errTooLarge
	}
	c.left -= int64(len(p))
	return c.w.Write(p)
}

func (c *capWriter) Close() error { return c.w.Close() }

// dirSize sums the sizes of a folder's files, stopping past limit.
func dirSize(dir string, limit int64) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			fi, err := e.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
			if n > limit {
				return fs.SkipAll
			}
		}
		return nil
	})
	return n, err
}

// remoteHead asks a remote which commit its HEAD names (no clone).
func remoteHead(ctx context.Context, rawURL string, auth transport.AuthMethod) (string, error) {
	if strings.HasPrefix(rawURL, "file://") {
		u, err := url.Parse(rawURL)
		if err != nil {
			return "", err
		}
		r, err := gitsrc.Open(filepath.FromSlash(u.Path))
		if err != nil {
			return "", err
		}
		defer r.Close()
		return r.ResolveCommit("HEAD")
	}
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{rawURL}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: auth})
	if err != nil {
		return "", err
	}
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, ref := range refs {
		byName[ref.Name()] = ref
	}
	ref := byName[plumbing.HEAD]
	for i := 0; ref != nil && ref.Type() == plumbing.SymbolicReference && i < 5; i++ {
		ref = byName[ref.Target()]
	}
	if ref == nil || ref.Type() != plumbing.HashReference {
		return "", errors.New("no HEAD")
	}
	return ref.Hash().String(), nil
}

// isAncestor says whether commit a is an ancestor of b (or b itself).
func isAncestor(r *gitsrc.Repo, a, b string) bool {
	ca, err := r.Commit(a)
	if err != nil {
		return false
	}
	cb, err := r.Commit(b)
	if err != nil {
		return false
	}
	ok, err := ca.IsAncestor(cb)
	return err == nil && ok
}

// firstParentBounds cuts head's first-parent chain (oldest first) into
// parts runs of about equal length: it returns parts+1 boundaries, where
// boundary i (0 < i < parts) is the last commit of run i-1 ("" when run
// i-1 is empty), boundary 0 is "" and boundary parts is head. Part i
// scans boundary(i)..boundary(i+1), part 0 all of boundary 1's history.
func firstParentBounds(r *gitsrc.Repo, head string, parts int) ([]string, error) {
	var chain []string // newest first
	c, err := r.Commit(head)
	if err != nil {
		return nil, err
	}
	for {
		chain = append(chain, c.Hash.String())
		if c.NumParents() == 0 {
			break
		}
		if c, err = c.Parent(0); err != nil {
			return nil, err
		}
	}
	n := len(chain)
	bounds := []string{""}
	for i := 1; i < parts; i++ {
		k := i * n / parts // the commits of runs 0..i-1
		if k == 0 {
			bounds = append(bounds, "")
			continue
		}
		bounds = append(bounds, chain[n-k])
	}
	return append(bounds, head), nil
}
