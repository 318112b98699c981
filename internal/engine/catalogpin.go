package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/gitsrc"
)

// catalogPin reads the catalog files that the repository tracks as they
// are in the trusted commit rev (broker.Pinned): a catalog committed
// beside the code is policy, so a change cannot swap, edit or empty the
// catalog it is judged by.
type catalogPin struct {
	repo *gitsrc.Repo
	rev  string
	root string            // the repository root, symlinks resolved
	data map[string][]byte // by path as the broker gave it
	rel  map[string]string // repository path of each pinned file
}

func newCatalogPin(repo *gitsrc.Repo, rev string) *catalogPin {
	root := repo.Root()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return &catalogPin{repo: repo, rev: rev, root: root, data: map[string][]byte{}, rel: map[string]string{}}
}

// Pin accepts a file inside the repository that commit rev tracks.
func (p *catalogPin) Pin(path string) (string, bool, error) {
	data, ok := p.data[path]
	if !ok {
		real := path
		if r, err := filepath.EvalSymlinks(path); err == nil {
			real = r
		}
		rel, err := filepath.Rel(p.root, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return "", false, nil
		}
		rel = filepath.ToSlash(rel)
		data, err = p.repo.ReadFileAt(p.rev, rel, catalog.MaxSealedSize)
		if errors.Is(err, gitsrc.ErrFileNotInCommit) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		p.data[path], p.rel[path] = data, rel
	}
	sum := sha256.Sum256(data)
	return p.rev + ":" + hex.EncodeToString(sum[:8]), true, nil
}

// ReadPinned returns the content Pin read.
func (p *catalogPin) ReadPinned(path string, _ int64) ([]byte, error) { return p.data[path], nil }

// files returns the repository paths of the pinned files.
func (p *catalogPin) files() []string {
	var out []string
	for _, r := range p.rel {
		out = append(out, r)
	}
	return out
}

// pinnedCatalog opens the catalog selected by key with the files the
// repository tracks read from commit base; m is nil when no catalog file
// is tracked (the catalog from the file system stands).
func (e *Engine) pinnedCatalog(repo *gitsrc.Repo, key, base string) (m *catalog.Matcher, files []string, err error) {
	b, err := e.Broker()
	if err != nil {
		return nil, nil, err
	}
	pin := newCatalogPin(repo, base)
	info, err := b.StatCatalogAt(key, pin)
	if err != nil {
		return nil, nil, err
	}
	pinned := false
	for _, p := range info.Parts {
		pinned = pinned || p.Pinned != ""
	}
	if !pinned {
		return nil, nil, nil
	}
	m, _, err = b.OpenCatalogAt(key, pin)
	if err != nil {
		return nil, nil, err
	}
	return m, pin.files(), nil
}

// catalogRev is the commit that tracked catalog files are read from when
// two commits are compared (base != ""): the base, or the revision
// policyFrom names; "" (the file system) for the working tree, HEAD and
// the defaults, which judge uncommitted work.
func catalogRev(policyFrom, base string) string {
	if base == "" {
		return ""
	}
	switch policyFrom {
	case "":
		return base
	case PolicyWorktree, PolicyHEAD, PolicyDefaults:
		return ""
	}
	return policyFrom
}

// catalogChanged reports whether any of the catalog files (repository
// paths) differs between commits base and head.
func catalogChanged(repo *gitsrc.Repo, base, head string, files []string) bool {
	for _, p := range files {
		a, aerr := repo.ReadFileAt(base, p, catalog.MaxSealedSize)
		b, berr := repo.ReadFileAt(head, p, catalog.MaxSealedSize)
		if aerr != nil || berr != nil || !bytes.Equal(a, b) {
			return true
		}
	}
	return false
}
