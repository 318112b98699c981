package gitsrc

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// goGitCommit decodes b with go-git's commit decoder.
func goGitCommit(b []byte) (*object.Commit, error) {
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.CommitObject)
	if _, err := o.Write(b); err != nil {
		return nil, err
	}
	c := &object.Commit{}
	return c, c.Decode(o)
}

// sameWhen reports whether two dates are the same instant in the same
// zone (name and offset), as a report would print them.
func sameWhen(a, b time.Time) bool {
	an, ao := a.Zone()
	bn, bo := b.Zone()
	return a.Equal(b) && an == bn && ao == bo && a.IsZero() == b.IsZero()
}

// checkDecodeCommit fails unless decodeCommit and go-git agree on b: both
// fail with ErrMalformedCommit, or both give the same tree, parents,
// dates and message.
func checkDecodeCommit(t *testing.T, b []byte) {
	t.Helper()
	want, werr := goGitCommit(b)
	got, err := decodeCommit(plumbing.ZeroHash, b)
	if (err != nil) != (werr != nil) {
		t.Fatalf("decodeCommit(%q): error %v, go-git %v", b, err, werr)
	}
	if err != nil {
		if !errors.Is(err, object.ErrMalformedCommit) || err.Error() != werr.Error() {
			t.Fatalf("decodeCommit(%q): error %q, go-git %q", b, err, werr)
		}
		return
	}
	g := fromGoGit(want)
	switch {
	case got.tree != g.tree:
		t.Fatalf("decodeCommit(%q): tree %s, go-git %s", b, got.tree, g.tree)
	case !slices.Equal(got.parents, g.parents):
		t.Fatalf("decodeCommit(%q): parents %v, go-git %v", b, got.parents, g.parents)
	case !sameWhen(got.author, g.author):
		t.Fatalf("decodeCommit(%q): author date %v, go-git %v", b, got.author, g.author)
	case !sameWhen(got.committer, g.committer):
		t.Fatalf("decodeCommit(%q): committer date %v, go-git %v", b, got.committer, g.committer)
	case got.msg != g.msg:
		t.Fatalf("decodeCommit(%q): message %q, go-git %q", b, got.msg, g.msg)
	}
}

const (
	commitTree   = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
	commitParent = "parent 8ab686eafeb1f44702738c8b0f24f2567c36da6d\n"
	commitAuthor = "author A U Thor <author@example.com> 1700000000 +0130\n"
	commitComm   = "committer C O Mitter <committer@example.com> 1700000100 -0700\n"
)

var commitSeeds = []string{
	commitTree + commitParent + commitAuthor + commitComm + "\nsubject\n\nbody\n",
	commitTree + commitAuthor + commitComm + "\nroot commit\n",
	commitTree + commitParent + commitParent + commitAuthor + commitComm + "\nmerge\n",
	commitTree + commitParent + commitAuthor + commitComm + "gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned\n",
	commitTree + commitParent + commitAuthor + commitComm + "mergetag object 8ab686eafeb1f44702738c8b0f24f2567c36da6d\n type commit\n\nmsg\n",
	commitTree + commitParent + commitAuthor + commitComm + "encoding ISO-8859-1\nx-extra value\n continued\n\nmsg",
	commitTree + commitComm + commitAuthor + "\nswapped\n",
	commitTree + commitAuthor + commitParent + commitComm + "\nlate parent\n",
	commitTree + commitParent + commitAuthor + commitComm,
	commitTree + commitParent + commitAuthor + commitComm + "\n",
	commitTree,
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
	"tree 4B825DC642CB6EB9A060E54BF8D69288FBEE4904\n\nupper case\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee490\n\nshort\n",
	commitTree + "parent\n\nno id\n",
	commitParent + commitTree,
	"",
	"\n",
	commitTree + "author no brackets 1700000000 +0000\ncommitter x <y> 1700000000\n\nno zone\n",
	commitTree + "author x <y> -00x0 +0000\ncommitter x <y> 1700000000 -0030\n\nodd dates\n",
	commitTree + "author x <y>1700000000 +0100\ncommitter x <y> 17000000000000000000000 +0100\n\noverflow\n",
	commitTree + "author x > <y 5 +0100\ncommitter x <y> 5 +01\n\nreversed\n",
}

func TestDecodeCommit(t *testing.T) {
	for _, s := range commitSeeds {
		checkDecodeCommit(t, []byte(s))
	}
	c, err := decodeCommit(plumbing.ZeroHash, []byte(commitSeeds[0]))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.parents) != 1 || c.msg != "subject\n\nbody\n" || c.author.Unix() != 1700000000 || c.committer.Unix() != 1700000100 {
		t.Errorf("decodeCommit: %+v", c)
	}
	if _, off := c.author.Zone(); off != 90*60 {
		t.Errorf("author zone offset %d, want %d", off, 90*60)
	}
}

// FuzzDecodeCommit checks decodeCommit against go-git's decoder on
// arbitrary input.
func FuzzDecodeCommit(f *testing.F) {
	for _, s := range commitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeCommit(t, b)
	})
}
