package gitsrc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// entry is a file of one side of a comparison.
type entry struct {
	path string // slash-separated, relative to the root
	mode filemode.FileMode
	hash plumbing.Hash
}

// change pairs the old and the new side of a path (or of a rename).
type change struct {
	from, to       entry
	hasFrom, hasTo bool
}

// treeCache decodes trees and keeps the recently used ones: two
// generations of at most maxBytes each (consecutive commits share most
// subtrees; a walk needs the trees of the last few commits only).
type treeCache struct {
	s         storer.EncodedObjectStorer // go-git, for what packs leaves
	packs     *packSet                   // nil: trees are read through s only
	cur, prev map[plumbing.Hash][]object.TreeEntry
	curBytes  int
	maxBytes  int
}

// treeCacheBytes bounds a generation of a treeCache, counting each entry
// as its name plus treeEntryBytes. A commit's tree diff reads only the
// subtrees on the paths it changes: 256 KiB holds those of the last
// commits (1 MiB per generation and worker kept 5 MB of parsed trees alive
// on go-git's history for no measurable gain in CPU).
const (
	treeCacheBytes = 256 << 10
	treeEntryBytes = 64
)

func newTreeCache(s storer.EncodedObjectStorer, packs *packSet, maxBytes int) *treeCache {
	return &treeCache{s: s, packs: packs, cur: map[plumbing.Hash][]object.TreeEntry{}, maxBytes: maxBytes}
}

func (tc *treeCache) entries(h plumbing.Hash) ([]object.TreeEntry, error) {
	if e, ok := tc.cur[h]; ok {
		return e, nil
	}
	e, ok := tc.prev[h]
	if !ok {
		raw, err := tc.read(h)
		if err != nil {
			return nil, fmt.Errorf("read tree %s: %w", h, err)
		}
		if e, err = parseTree(raw); err != nil {
			return nil, fmt.Errorf("read tree %s: %w", h, err)
		}
	}
	size := treeEntryBytes
	for i := range e {
		size += treeEntryBytes + len(e[i].Name)
	}
	if tc.curBytes+size > tc.maxBytes && len(tc.cur) > 0 {
		tc.prev, tc.cur = tc.cur, make(map[plumbing.Hash][]object.TreeEntry, len(tc.cur))
		tc.curBytes = 0
	}
	tc.cur[h] = e
	tc.curBytes += size
	return e, nil
}

// read returns the raw content of tree h (shared: not to be modified).
func (tc *treeCache) read(h plumbing.Hash) ([]byte, error) {
	if obj, ok, err := tc.packs.object(plumbing.TreeObject, h); ok {
		return obj.b, err
	}
	obj, err := tc.s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, obj.Size())
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	_, err = io.ReadFull(rd, raw)
	rd.Close()
	return raw, err
}

var errMalformedTree = errors.New("malformed tree object")

// parseTree decodes the entries of a raw tree object ("<octal mode>
// <name>\x00<20-byte id>" repeated), canonicalising modes as git does. All
// names share one string allocation.
func parseTree(raw []byte) ([]object.TreeEntry, error) {
	s := string(raw)
	n := strings.Count(s, "\x00")
	es := make([]object.TreeEntry, 0, n)
	for len(s) > 0 {
		sp := strings.IndexByte(s, ' ')
		if sp <= 0 {
			return nil, errMalformedTree
		}
		var mode uint64
		for i := 0; i < sp; i++ {
			c := s[i]
			if c < '0' || c > '7' || mode > 0o7777777 {
				return nil, errMalformedTree
			}
			mode = mode<<3 | uint64(c-'0')
		}
		s = s[sp+1:]
		nul := strings.IndexByte(s, 0)
		if nul <= 0 || len(s) < nul+1+20 {
			return nil, errMalformedTree
		}
		e := object.TreeEntry{Name: s[:nul], Mode: canonicalMode(filemode.FileMode(mode))}
		copy(e.Hash[:], s[nul+1:nul+21])
		es = append(es, e)
		s = s[nul+21:]
	}
	return es, nil
}

// canonicalMode maps a tree entry mode to the modes git writes.
func canonicalMode(m filemode.FileMode) filemode.FileMode {
	switch m & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if m&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	}
	return filemode.Submodule
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// compareEntries orders names the way git sorts tree entries: a directory
// sorts as if its name ended with '/'.
func compareEntries(na string, da bool, nb string, db bool) int {
	n := min(len(na), len(nb))
	if c := strings.Compare(na[:n], nb[:n]); c != 0 {
		return c
	}
	ca, cb := keyByte(na, n, da), keyByte(nb, n, db)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

func keyByte(name string, i int, dir bool) int {
	switch {
	case i < len(name):
		return int(name[i])
	case dir:
		return '/'
	}
	return -1
}

// flattenTree calls fn for every file under tree h (a directory named dir),
// restricted to ps.
func (tc *treeCache) flattenTree(ctx context.Context, h plumbing.Hash, dir string, ps *pathspec, fn func(entry)) error {
	return tc.flattenTreeIndexed(ctx, h, nil, dir, ps, fn)
}

// diffTrees appends the changes between trees a and b (either may be the
// zero hash: no tree) to out, skipping identical subtrees.
func (tc *treeCache) diffTrees(ctx context.Context, a, b plumbing.Hash, dir string, ps *pathspec, out *[]change) error {
	if a == b {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var ea, eb []object.TreeEntry
	var err error
	if !a.IsZero() {
		if ea, err = tc.entries(a); err != nil {
			return err
		}
	}
	if !b.IsZero() {
		if eb, err = tc.entries(b); err != nil {
			return err
		}
	}
	del := func(e object.TreeEntry) error {
		p := joinPath(dir, e.Name)
		if e.Mode == filemode.Dir {
			if !ps.descend(p) {
				return nil
			}
			return tc.flattenTree(ctx, e.Hash, p, ps, func(x entry) {
				*out = append(*out, change{from: x, hasFrom: true})
			})
		}
		if ps.match(p) {
			*out = append(*out, change{from: entry{p, e.Mode, e.Hash}, hasFrom: true})
		}
		return nil
	}
	add := func(e object.TreeEntry) error {
		p := joinPath(dir, e.Name)
		if e.Mode == filemode.Dir {
			if !ps.descend(p) {
				return nil
			}
			return tc.flattenTree(ctx, e.Hash, p, ps, func(x entry) {
				*out = append(*out, change{to: x, hasTo: true})
			})
		}
		if ps.match(p) {
			*out = append(*out, change{to: entry{p, e.Mode, e.Hash}, hasTo: true})
		}
		return nil
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		var c int
		switch {
		case i == len(ea):
			c = 1
		case j == len(eb):
			c = -1
		default:
			c = compareEntries(ea[i].Name, ea[i].Mode == filemode.Dir, eb[j].Name, eb[j].Mode == filemode.Dir)
		}
		switch {
		case c < 0:
			if err := del(ea[i]); err != nil {
				return err
			}
			i++
		case c > 0:
			if err := add(eb[j]); err != nil {
				return err
			}
			j++
		default:
			x, y := ea[i], eb[j]
			i++
			j++
			if x.Hash == y.Hash && x.Mode == y.Mode {
				continue
			}
			p := joinPath(dir, x.Name)
			if x.Mode == filemode.Dir {
				if ps.descend(p) {
					if err := tc.diffTrees(ctx, x.Hash, y.Hash, p, ps, out); err != nil {
						return err
					}
				}
				continue
			}
			if ps.match(p) {
				*out = append(*out, change{
					from: entry{p, x.Mode, x.Hash}, hasFrom: true,
					to: entry{p, y.Mode, y.Hash}, hasTo: true,
				})
			}
		}
	}
	return nil
}

// diffEntries compares two sides given as lists of files sorted by path.
func diffEntries(a, b []entry) []change {
	var out []change
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].path < b[j].path:
			out = append(out, change{from: a[i], hasFrom: true})
			i++
		case i == len(a) || b[j].path < a[i].path:
			out = append(out, change{to: b[j], hasTo: true})
			j++
		default:
			if a[i].hash != b[j].hash || a[i].mode != b[j].mode {
				out = append(out, change{from: a[i], hasFrom: true, to: b[j], hasTo: true})
			}
			i++
			j++
		}
	}
	return out
}

func sortEntries(es []entry) {
	sort.Slice(es, func(i, j int) bool { return es[i].path < es[j].path })
}
