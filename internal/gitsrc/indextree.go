package gitsrc

import (
	"context"
	"crypto/sha1"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// itree is a directory of the index (or a file in one), with the ID of
// the tree `git write-tree` would write for it. Comparing a commit with
// the index or the working tree needs the commit's files: wherever one of
// its subtrees has the ID of the index's directory at the same path, the
// files are the index's, and the subtree (with everything under it) is
// not read from the object database.
type itree struct {
	name string
	dir  bool
	mode filemode.FileMode // files: the index's mode
	hash plumbing.Hash     // files: the blob; directories: the tree, when ok
	ok   bool              // directories: hash is the tree's ID
	kids []*itree          // directories: entries in git's tree order
}

// buildIndexTree returns the root directory of the index, or nil when its
// entries are not in git's order (paths strictly increasing, then
// stages), so that directories cannot be told apart reliably. A directory
// holding an unmerged, intent-to-add or otherwise unwritable entry has no
// ID (ok is false): git would not write it as a tree.
func buildIndexTree(idx *index.Index) *itree {
	es := idx.Entries
	for i := 1; i < len(es); i++ {
		a, b := es[i-1], es[i]
		if a.Name > b.Name || a.Name == b.Name && a.Stage >= b.Stage {
			return nil
		}
	}
	var buf []byte
	return buildIndexDir(es, "", &buf)
}

// buildIndexDir builds the directory whose entries es all start with
// prefix ("" or a path ending in '/'). buf is scratch space for encoding.
func buildIndexDir(es []*index.Entry, prefix string, buf *[]byte) *itree {
	t := &itree{dir: true, ok: true}
	for i := 0; i < len(es); {
		e := es[i]
		rest := e.Name[len(prefix):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			sub := e.Name[:len(prefix)+j+1]
			k := i + 1
			for k < len(es) && strings.HasPrefix(es[k].Name, sub) {
				k++
			}
			kid := buildIndexDir(es[i:k], sub, buf)
			kid.name = rest[:j]
			t.ok = t.ok && kid.ok && kid.name != ""
			t.kids = append(t.kids, kid)
			i = k
			continue
		}
		i++
		if e.Stage != 0 || e.IntentToAdd || rest == "" || !writableMode(e.Mode) {
			t.ok = false
			continue
		}
		t.kids = append(t.kids, &itree{name: rest, mode: e.Mode, hash: e.Hash})
	}
	sort.SliceStable(t.kids, func(i, j int) bool {
		a, b := t.kids[i], t.kids[j]
		return compareEntries(a.name, a.dir, b.name, b.dir) < 0
	})
	if !t.ok {
		return t
	}
	b := (*buf)[:0]
	for _, k := range t.kids {
		if k.dir {
			b = append(b, "40000"...)
		} else {
			b = strconv.AppendUint(b, uint64(k.mode), 8)
		}
		b = append(b, ' ')
		b = append(b, k.name...)
		b = append(b, 0)
		b = append(b, k.hash[:]...)
	}
	*buf = b
	h := sha1.New()
	h.Write([]byte("tree "))
	h.Write(strconv.AppendInt(nil, int64(len(b)), 10))
	h.Write([]byte{0})
	h.Write(b)
	copy(t.hash[:], h.Sum(nil))
	return t
}

// writableMode reports the modes git writes for a file in a tree.
func writableMode(m filemode.FileMode) bool {
	switch m {
	case filemode.Regular, filemode.Executable, filemode.Symlink, filemode.Submodule:
		return true
	}
	return false
}

// child returns the subdirectory name of t, or nil.
func (t *itree) child(name string) *itree {
	if t == nil {
		return nil
	}
	i := sort.Search(len(t.kids), func(i int) bool {
		return compareEntries(t.kids[i].name, t.kids[i].dir, name, true) >= 0
	})
	if i < len(t.kids) && t.kids[i].dir && t.kids[i].name == name {
		return t.kids[i]
	}
	return nil
}

// flatten calls fn for every file under t (a directory named dir),
// restricted to ps, exactly as flattenTree does for a tree of the same ID.
// t has a tree ID, so its files' modes are among those git writes: already
// canonical.
func (t *itree) flatten(dir string, ps *pathspec, fn func(entry)) {
	for _, k := range t.kids {
		p := joinPath(dir, k.name)
		if k.dir {
			if ps.descend(p) {
				k.flatten(p, ps, fn)
			}
			continue
		}
		if ps.match(p) {
			fn(entry{path: p, mode: k.mode, hash: k.hash})
		}
	}
}

// flattenTreeIndexed is flattenTree for tree h, taking the files of every
// subtree whose ID is that of the index directory it (at the same path)
// from the index instead of reading the subtree.
func (tc *treeCache) flattenTreeIndexed(ctx context.Context, h plumbing.Hash, it *itree, dir string, ps *pathspec, fn func(entry)) error {
	if it != nil && it.ok && it.hash == h {
		it.flatten(dir, ps, fn)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := tc.entries(h)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := joinPath(dir, e.Name)
		if e.Mode == filemode.Dir {
			if ps.descend(p) {
				if err := tc.flattenTreeIndexed(ctx, e.Hash, it.child(e.Name), p, ps, fn); err != nil {
					return err
				}
			}
			continue
		}
		if ps.match(p) {
			fn(entry{path: p, mode: e.Mode, hash: e.Hash})
		}
	}
	return nil
}
