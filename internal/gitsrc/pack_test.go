package gitsrc

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// TestPackSetMatchesGoGit reads every object of a repacked repository
// (deep delta chains) through the packSet and through go-git, with OFS and
// REF deltas, with a cache large enough to hold everything and with one so
// small that every chain is walked again.
func TestPackSetMatchesGoGit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gen")
	generateRepo(t, dir, 120)
	f := &fixture{t: t, dir: dir, home: dir}
	for _, ofs := range []bool{true, false} {
		f.git("-c", "repack.useDeltaBaseOffset="+strconv.FormatBool(ofs), "repack", "-adfq", "--depth=50")
		out := f.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		r := open(t, dir)
		for _, cacheBytes := range []int{64 << 20, 4 << 10} {
			ps, err := openPackSet(r.dotgit, cacheBytes)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps.packs) != 1 {
				t.Fatalf("%d packs, want 1", len(ps.packs))
			}
			n := 0
			for _, l := range lines {
				h := plumbing.NewHash(l[:40])
				typ, b, err := ps.read(h)
				if err != nil {
					t.Fatalf("ofs=%v cache=%d: read %s: %v", ofs, cacheBytes, h, err)
				}
				obj, err := r.store.Storage.EncodedObject(plumbing.AnyObject, h)
				if err != nil {
					t.Fatal(err)
				}
				rd, _ := obj.Reader()
				want, _ := io.ReadAll(rd)
				rd.Close()
				if typ != obj.Type() || !bytes.Equal(b, want) {
					t.Fatalf("ofs=%v cache=%d: object %s differs from go-git", ofs, cacheBytes, h)
				}
				if plumbing.ComputeHash(typ, b) != h {
					t.Fatalf("object %s: content does not hash to its ID", h)
				}
				n++
			}
			if _, _, err := ps.read(plumbing.NewHash(strings.Repeat("ab", 20))); !errors.Is(err, errPackFallback) {
				t.Errorf("unknown object: %v, want errPackFallback", err)
			}
			ps.Close()
			if n < 300 {
				t.Fatalf("only %d objects", n)
			}
		}
	}
}

// TestPackCacheBound checks the cache's byte bound and LRU order.
func TestPackCacheBound(t *testing.T) {
	c := newPackCache(4*packItemOverhead + 4000)
	p := &packFile{}
	for i := range 10 {
		c.put(p, int64(i+1), plumbing.BlobObject, make([]byte, 1000))
		if c.size > c.max {
			t.Fatalf("size %d over %d", c.size, c.max)
		}
	}
	if _, _, ok := c.get(p, 1); ok {
		t.Error("oldest entry kept")
	}
	if _, _, ok := c.get(p, 10); !ok {
		t.Error("newest entry dropped")
	}
	c.put(p, 20, plumbing.BlobObject, make([]byte, c.max)) // too large to cache
	if _, _, ok := c.get(p, 20); ok {
		t.Error("oversized entry cached")
	}
}

func TestPackCacheSize(t *testing.T) {
	for _, tc := range []struct {
		pack int64
		want int
	}{
		{0, packCacheMin}, {14 << 20, packCacheMin}, {48 << 20, packCacheMin},
		{100 << 20, 25 << 20}, {128 << 20, packCacheMax}, {441 << 20, packCacheMax}, {1 << 40, packCacheMax},
	} {
		if got := packCacheSize(tc.pack); got != tc.want {
			t.Errorf("packCacheSize(%d) = %d, want %d", tc.pack, got, tc.want)
		}
	}
}

// TestPackCacheDemote checks that a demoted entry is evicted first, and
// that demoting an absent entry changes nothing.
func TestPackCacheDemote(t *testing.T) {
	c := newPackCache(4*packItemOverhead + 4*500)
	p := &packFile{}
	for i := range 4 {
		c.put(p, int64(i+1), plumbing.BlobObject, make([]byte, 500))
	}
	c.demote(p, 4) // the newest
	c.demote(p, 99)
	c.put(p, 5, plumbing.BlobObject, make([]byte, 500))
	for off, want := range map[int64]bool{1: true, 2: true, 3: true, 4: false, 5: true} {
		if _, _, ok := c.get(p, off); ok != want {
			t.Errorf("entry %d cached %v, want %v", off, ok, want)
		}
	}
	var ps *packSet
	ps.demote(plumbing.ZeroHash) // a repository read without packs
}

func TestParsePackHeader(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		off  int64
		want packHeader
		err  bool
	}{
		{"blob small", []byte{0x35}, 12, packHeader{typ: plumbing.BlobObject, size: 5, n: 1}, false},
		{"tree multi-byte size", []byte{0xa1, 0x02}, 12, packHeader{typ: plumbing.TreeObject, size: 1 | 2<<4, n: 2}, false},
		{"ofs delta", []byte{0x63, 0x81, 0x00}, 1000, packHeader{typ: plumbing.OFSDeltaObject, size: 3, baseOff: 1000 - 256, n: 3}, false},
		{"ofs before pack start", []byte{0x63, 0x10}, 12, packHeader{}, true},
		{"ref delta short", append([]byte{0x73}, make([]byte, 10)...), 12, packHeader{}, true},
		{"bad type", []byte{0x50}, 12, packHeader{}, true},
		{"truncated size", []byte{0xb0}, 12, packHeader{}, true},
		{"empty", nil, 12, packHeader{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePackHeader(tt.b, tt.off)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if err == nil && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestApplyDelta(t *testing.T) {
	base := []byte("hello, world\n")
	tests := []struct {
		name  string
		delta []byte
		want  string
		err   bool
	}{
		// copy base[7:12] ("world"), insert "!", copy base[0:5] ("hello")
		{"copy insert copy", []byte{13, 11, 0x91, 7, 5, 1, '!', 0x90, 5}, "world!hello", false},
		{"base size mismatch", []byte{12, 1, 1, 'x'}, "", true},
		{"copy past base", []byte{13, 5, 0x91, 10, 5}, "", true},
		{"short result", []byte{13, 3, 1, 'x'}, "", true},
		{"overlong result", []byte{13, 1, 2, 'x', 'y'}, "", true},
		{"zero command", []byte{13, 1, 0}, "", true},
		{"truncated insert", []byte{13, 3, 3, 'x'}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyDelta(base, tt.delta)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if err == nil && string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzApplyDelta checks that applyDelta never panics, returns exactly the
// size its header announces, and agrees with go-git wherever go-git
// accepts the delta.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello, world\n"), []byte{13, 11, 0x91, 7, 5, 1, '!', 0x90, 5})
	f.Add([]byte("abc"), []byte{3, 3, 0x90})
	f.Add([]byte("x"), []byte{1, 0x80, 0x80, 0x01, 0x80})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		got, err := applyDelta(base, delta)
		if errors.Is(err, errPackFallback) {
			return // a result over the big file threshold
		}
		if err == nil {
			if n, ok := deltaTargetSizeForTest(delta); !ok || n != uint64(len(got)) {
				t.Fatalf("result of %d bytes, header says %d", len(got), n)
			}
		}
		want, gerr := packfile.PatchDelta(base, delta)
		if gerr == nil && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("go-git accepts the delta, applyDelta: %v", err)
		}
	})
}

func deltaTargetSizeForTest(d []byte) (uint64, bool) {
	_, d, ok := leb128(d)
	if !ok {
		return 0, false
	}
	n, _, ok := leb128(d)
	return n, ok
}

// FuzzParsePackHeader checks that parsePackHeader never panics, consumes
// no more than it was given, and only yields base offsets before the
// entry.
func FuzzParsePackHeader(f *testing.F) {
	f.Add([]byte{0x35}, int64(12))
	f.Add([]byte{0x63, 0x81, 0x00}, int64(1000))
	f.Add(append([]byte{0x73}, bytes.Repeat([]byte{0xab}, 20)...), int64(100))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, int64(1<<40))
	f.Fuzz(func(t *testing.T, b []byte, off int64) {
		if off <= 0 {
			return
		}
		h, err := parsePackHeader(b, off)
		if err != nil {
			return
		}
		if h.n <= 0 || h.n > len(b) || h.size < 0 {
			t.Fatalf("bad header %+v for %d bytes", h, len(b))
		}
		if h.typ == plumbing.OFSDeltaObject && (h.baseOff <= 0 || h.baseOff >= off) {
			t.Fatalf("base offset %d for entry at %d", h.baseOff, off)
		}
	})
}
