package gitsrc

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// indexFixture builds a repository whose index has nested directories,
// an executable, a symlink, a long path (over 0xfff bytes) and staged
// edits.
func indexFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.write("a.txt", "a\n")
	f.write("b/c.txt", "c\n")
	f.write("b/d/e.txt", "e\n")
	f.write("b-x.txt", "bx\n")
	f.write("b.txt", "b\n")
	f.write("run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(f.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(f.dir, "link")); err != nil {
		t.Fatal(err)
	}
	f.commit("one")
	// A path over 0xfff bytes, too long for the file system: index only.
	long := strings.Repeat(strings.Repeat("x", 200)+"/", 21) + "deep.txt"
	blob := strings.TrimSpace(f.git("hash-object", "-w", "a.txt"))
	f.git("update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	f.write("b/d/e.txt", "e2\n")
	f.write("z/new.txt", "new\n")
	f.git("add", "b/d/e.txt", "z/new.txt")
	return f
}

// TestIndexTreeMatchesWriteTree checks the tree IDs computed from the
// index against `git write-tree`, and that an intent-to-add entry leaves
// its directories without one.
func TestIndexTreeMatchesWriteTree(t *testing.T) {
	f := indexFixture(t)
	idx, err := open(t, f.dir).readIndex()
	if err != nil {
		t.Fatal(err)
	}
	root := buildIndexTree(idx)
	want := strings.TrimSpace(f.git("write-tree"))
	if root == nil || !root.ok || root.hash.String() != want {
		t.Fatalf("root tree %v, git write-tree %s", root, want)
	}
	for _, dir := range []string{"b", "b/d", "z"} {
		it := root
		for _, c := range strings.Split(dir, "/") {
			it = it.child(c)
		}
		if w := strings.TrimSpace(f.git("rev-parse", want+":"+dir)); it == nil || !it.ok || it.hash.String() != w {
			t.Errorf("%s: tree %v, git %s", dir, it, w)
		}
	}
	f.write("b/d/ita.txt", "ita\n")
	f.git("add", "-N", "b/d/ita.txt")
	idx, err = open(t, f.dir).readIndex()
	if err != nil {
		t.Fatal(err)
	}
	root = buildIndexTree(idx)
	if root.ok || root.child("b").ok || root.child("b").child("d").ok || !root.child("z").ok {
		t.Error("intent-to-add entry: wrong directories left without a tree ID")
	}
	if buildIndexTree(&index.Index{Entries: []*index.Entry{{Name: "b"}, {Name: "a"}}}) != nil {
		t.Error("unsorted index accepted")
	}
}

// TestFlattenTreeIndexed checks that taking unchanged subtrees from the
// index yields exactly the files of the commit, for commits near and far
// from the index, with and without a pathspec.
func TestFlattenTreeIndexed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gen")
	generateRepo(t, dir, 60)
	r := open(t, dir)
	idx, err := r.readIndex()
	if err != nil {
		t.Fatal(err)
	}
	it := buildIndexTree(idx)
	if it == nil || !it.ok {
		t.Fatal("no index tree")
	}
	ctx := context.Background()
	for _, rev := range []string{"HEAD", "HEAD~1", "HEAD~7", "HEAD~59"} {
		c, err := r.resolve(rev)
		if err != nil {
			t.Fatal(err)
		}
		for _, paths := range [][]string{nil, {"d1"}, {"*.txt"}, {"d2/f1*"}} {
			ps, err := newPathspec(r.root, "", paths)
			if err != nil {
				t.Fatal(err)
			}
			var want, got []entry
			tc := newTreeCache(r.store.Storage, nil, treeCacheBytes)
			if err := tc.flattenTree(ctx, c.TreeHash, "", ps, func(e entry) { want = append(want, e) }); err != nil {
				t.Fatal(err)
			}
			tc = newTreeCache(r.store.Storage, nil, treeCacheBytes)
			if err := tc.flattenTreeIndexed(ctx, c.TreeHash, it, "", ps, func(e entry) { got = append(got, e) }); err != nil {
				t.Fatal(err)
			}
			sortEntries(want)
			sortEntries(got)
			if len(want) == 0 && paths == nil {
				t.Fatalf("%s: empty tree", rev)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v: %d files, want %d", rev, paths, len(got), len(want))
			}
			if rev == "HEAD" && len(tc.cur) > 0 {
				t.Errorf("%s %v: %d trees read, want none", rev, paths, len(tc.cur))
			}
		}
	}
}

// TestRacyClean checks git's racy-git rule: a file rewritten with the same
// size and the same mtime as its index entry, within the second the index
// was written, is still compared by content.
func TestRacyClean(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "aaaa\n")
	f.write("b.txt", "bbbb\n")
	f.commit("one")
	p := filepath.Join(f.dir, "a.txt")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	mt := fi.ModTime()
	f.write("a.txt", "cccc\n") // same size
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
	// The index written in the same instant as the entry's mtime.
	if err := os.Chtimes(filepath.Join(f.dir, ".git", "index"), mt, mt); err != nil {
		t.Fatal(err)
	}
	r := open(t, f.dir)
	for _, revs := range [][]string{nil, {"HEAD"}} {
		got := diffSrc(t, r, DiffOptions{Revs: revs})
		want := []addedLine{{Path: "a.txt", Line: 1, Text: "cccc"}}
		compareAdded(t, "racy file", got.lines, want)
		gitWant := f.gitAdded(f.dir, append([]string{"diff"}, revs...)...)
		compareAdded(t, "git diff", got.lines, gitWant)
	}
}

// TestParsePackIndex checks lookups against go-git's index decoder for
// every object of a repacked repository, and damaged indexes.
func TestParsePackIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gen")
	generateRepo(t, dir, 40)
	m, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if err != nil || len(m) != 1 {
		t.Fatalf("pack indexes: %v %v", m, err)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	x, err := parsePackIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	mi := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(b)).Decode(mi); err != nil {
		t.Fatal(err)
	}
	iter, err := mi.Entries()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		e, err := iter.Next()
		if err != nil {
			break
		}
		i, ok := x.find(e.Hash)
		if !ok {
			t.Fatalf("%s not found", e.Hash)
		}
		if off, ok := x.offset(i); !ok || off != e.Offset {
			t.Fatalf("%s: offset %d, go-git %d", e.Hash, off, e.Offset)
		}
		n++
	}
	if n != x.n || n < 100 {
		t.Fatalf("%d objects, index says %d", n, x.n)
	}
	if _, ok := x.find(plumbing.NewHash(strings.Repeat("ff", 20))); ok {
		t.Error("unknown object found")
	}
	for _, bad := range [][]byte{b[:100], append(bytes.Clone(b[:len(b)-40]), make([]byte, 43)...), append([]byte("\xfftOc\x00\x00\x00\x01"), b[8:]...)} {
		if _, err := parsePackIndex(bad); err == nil {
			t.Errorf("damaged index of %d bytes accepted", len(bad))
		}
	}
}

// FuzzParsePackIndex checks that parsePackIndex never panics and that
// lookups stay within the index and find the IDs it lists (a real index is
// compared with go-git's decoder in TestParsePackIndex).
func FuzzParsePackIndex(f *testing.F) {
	f.Add(packIndexForTest(map[string]uint64{strings.Repeat("ab", 20): 12, strings.Repeat("01", 20): 1 << 33}), []byte{0xab})
	f.Add(packIndexForTest(nil), []byte{0})
	f.Fuzz(func(t *testing.T, b []byte, key []byte) {
		x, err := parsePackIndex(b)
		if err != nil {
			return
		}
		var h plumbing.Hash
		copy(h[:], key)
		if i, ok := x.find(h); ok && (i < 0 || i >= x.n || !bytes.Equal(x.names[20*i:20*i+20], h[:])) {
			t.Fatalf("position %d of %d for %s", i, x.n, h)
		}
		for i := 0; i < min(x.n, 64); i++ {
			x.offset(i)
			copy(h[:], x.names[20*i:])
			if b := int(h[0]); i < int(binary.BigEndian.Uint32(x.fanout[4*b:])) && (b == 0 || i >= int(binary.BigEndian.Uint32(x.fanout[4*(b-1):]))) {
				if j, ok := x.find(h); ok && !bytes.Equal(x.names[20*j:20*j+20], h[:]) {
					t.Fatalf("found %s at %d, a different ID", h, j)
				}
			}
		}
	})
}

// packIndexForTest encodes a version 2 pack index of the given objects.
func packIndexForTest(objs map[string]uint64) []byte {
	var names []plumbing.Hash
	for k := range objs {
		names = append(names, plumbing.NewHash(k))
	}
	plumbing.HashesSort(names)
	b := []byte("\xfftOc\x00\x00\x00\x02")
	for v := 0; v < 256; v++ {
		n := 0
		for _, h := range names {
			if int(h[0]) <= v {
				n++
			}
		}
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	}
	for _, h := range names {
		b = append(b, h[:]...)
	}
	b = append(b, make([]byte, 4*len(names))...) // CRC-32s
	var big []byte
	for _, h := range names {
		o := objs[h.String()]
		if o >= 1<<31 {
			b = binary.BigEndian.AppendUint32(b, 1<<31|uint32(len(big)/8))
			big = binary.BigEndian.AppendUint64(big, o)
		} else {
			b = binary.BigEndian.AppendUint32(b, uint32(o))
		}
	}
	b = append(b, big...)
	b = append(b, make([]byte, 20)...) // pack checksum
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}
