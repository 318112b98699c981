package gitsrc

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func rawTree(t testing.TB, entries []object.TreeEntry) []byte {
	t.Helper()
	obj := &plumbing.MemoryObject{}
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		t.Fatal(err)
	}
	rd, _ := obj.Reader()
	var b bytes.Buffer
	if _, err := b.ReadFrom(rd); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParseTree(t *testing.T) {
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	entries := []object.TreeEntry{
		{Name: "a b.txt", Mode: filemode.Regular, Hash: h},
		{Name: "dir", Mode: filemode.Dir, Hash: h},
		{Name: "exe", Mode: filemode.Executable, Hash: h},
		{Name: "link", Mode: filemode.Symlink, Hash: h},
		{Name: "sub", Mode: filemode.Submodule, Hash: h},
		{Name: "ünï", Mode: filemode.Regular, Hash: h},
	}
	got, err := parseTree(rawTree(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, entries) {
		t.Errorf("parseTree = %v, want %v", got, entries)
	}
	for _, bad := range []string{"100644", "100644 name", "100644 name\x00short", "abc name\x00" + string(h[:]), " name\x00" + string(h[:])} {
		if _, err := parseTree([]byte(bad)); err == nil {
			t.Errorf("parseTree(%q) accepted a malformed tree", bad)
		}
	}
	// Legacy modes are canonicalised like git does.
	got, err = parseTree([]byte("100664 old\x00" + string(h[:]) + "40000 d\x00" + string(h[:])))
	if err != nil || got[0].Mode != filemode.Regular || got[1].Mode != filemode.Dir {
		t.Errorf("legacy modes: %v %v", got, err)
	}
}

// FuzzParseTree checks parseTree against go-git's tree decoder.
func FuzzParseTree(f *testing.F) {
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	f.Add(rawTree(f, []object.TreeEntry{{Name: "a", Mode: filemode.Regular, Hash: h}, {Name: "d", Mode: filemode.Dir, Hash: h}}))
	f.Add([]byte("100755 x\x00" + string(h[:])))
	f.Add([]byte("160000 s\x00" + string(h[:19])))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := parseTree(raw)
		obj := &plumbing.MemoryObject{}
		obj.SetType(plumbing.TreeObject)
		obj.Write(raw)
		var tr object.Tree
		werr := tr.Decode(obj)
		if err != nil {
			return // stricter than go-git is fine (e.g. absurd modes)
		}
		if werr != nil {
			t.Fatalf("parseTree accepted what go-git rejects: %v", werr)
		}
		if len(got) != len(tr.Entries) {
			t.Fatalf("%d entries, go-git %d", len(got), len(tr.Entries))
		}
		for i := range got {
			if got[i] != tr.Entries[i] {
				t.Fatalf("entry %d = %v, go-git %v", i, got[i], tr.Entries[i])
			}
		}
	})
}
