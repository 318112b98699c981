package gitsrc

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	kzlib "github.com/klauspost/compress/zlib"
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
		{0, packCacheMin}, {14 << 20, packCacheMin}, {32 << 20, packCacheMin}, {48 << 20, 12 << 20},
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

// TestInflate checks the inflater against zlib streams of every
// compression level (git's pack entries), and that a stream whose zlib
// header is not one of deflate data without a preset dictionary, or
// whose data is short, is a damaged entry. The Adler-32 trailer is not
// checked (see inflate).
func TestInflate(t *testing.T) {
	text := bytes.Repeat([]byte("synthetic line 0123456789 abcdefghij\n"), 300)
	stream := func(level int, dict []byte) []byte {
		var b bytes.Buffer
		w, err := zlib.NewWriterLevelDict(&b, level, dict)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(text); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	var in inflater
	for level := zlib.HuffmanOnly; level <= zlib.BestCompression; level++ {
		src := stream(level, nil)
		dst := make([]byte, len(text))
		in.rd.Reset(src)
		if err := in.inflate(dst); err != nil || !bytes.Equal(dst, text) {
			t.Errorf("level %d: err %v, equal %v", level, err, bytes.Equal(dst, text))
		}
	}
	good := stream(zlib.DefaultCompression, nil)
	bad := map[string][]byte{
		"empty":             {},
		"one byte":          good[:1],
		"not deflate":       append([]byte{0x79, good[1]}, good[2:]...),
		"window too large":  append([]byte{0x88, 0x1c}, good[2:]...),
		"header not of 31":  append([]byte{good[0], good[1] ^ 1}, good[2:]...),
		"preset dictionary": stream(zlib.DefaultCompression, []byte("dict")),
		"short data":        good[:len(good)/2],
	}
	for name, src := range bad {
		in.rd.Reset(src)
		if err := in.inflate(make([]byte, len(text))); !errors.Is(err, errPackCorrupt) {
			t.Errorf("%s: err %v, want errPackCorrupt", name, err)
		}
	}
	for _, c := range []struct {
		cmf, flg byte
		want     bool
	}{{0x78, 0x9c, true}, {0x78, 0x01, true}, {0x78, 0xda, true}, {0x58, 0x85, true}, {0x78, 0x9d, false}, {0x78, 0xbb, false}, {0x87, 0x01, false}} {
		if got := zlibHeader(c.cmf, c.flg); got != c.want {
			t.Errorf("zlibHeader(%#x, %#x) = %v, want %v", c.cmf, c.flg, got, c.want)
		}
	}
}

// FuzzInflate inflates arbitrary data to an arbitrary size: the inflater
// never panics, it fails exactly when the zlib reader it replaced fails
// and inflates the same bytes, and when the standard library's zlib
// reader (which decodes further ahead, so it may fail on damage past the
// bytes asked for) reads them, they are the same.
func FuzzInflate(f *testing.F) {
	for _, s := range []string{"", "x", "synthetic text\nsynthetic text\n", strings.Repeat("0123456789abcdef\n", 200)} {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		f.Add(b.Bytes(), uint16(len(s)))
		f.Add(b.Bytes()[:b.Len()/2], uint16(len(s)))
	}
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		var in inflater
		in.rd.Reset(src)
		dst := make([]byte, n)
		err := in.inflate(dst)
		if err != nil && !errors.Is(err, errPackCorrupt) {
			t.Fatalf("err %v, want errPackCorrupt", err)
		}
		// The reader before the header check (klauspost's zlib reader, read
		// to exactly n bytes, its Adler-32 sum computed and never compared)
		// is the reference: the same bytes, or both fail.
		var want []byte
		z, zerr := kzlib.NewReader(bytes.NewReader(src))
		if zerr == nil {
			want = make([]byte, n)
			_, zerr = io.ReadFull(z, want)
		}
		if (err == nil) != (zerr == nil) {
			t.Fatalf("inflate err %v, klauspost's zlib reader %v", err, zerr)
		}
		if err == nil && !bytes.Equal(dst, want) {
			t.Fatalf("inflated %q, klauspost's zlib reader %q", dst, want)
		}
		// compress/zlib decodes further ahead and may find damage past the
		// n bytes asked for; when it reads them, they are the same.
		if err != nil {
			return
		}
		if z, zerr := zlib.NewReader(bytes.NewReader(src)); zerr == nil {
			std := make([]byte, n)
			if _, zerr := io.ReadFull(z, std); zerr == nil && !bytes.Equal(dst, std) {
				t.Fatalf("inflated %q, compress/zlib %q", dst, std)
			}
		}
	})
}

// TestReadRawWindow reads pieces of two files through one inflater, near
// one another, across the window's edge, at the end of a file, and larger
// than the window: each is what the file holds there.
func TestReadRawWindow(t *testing.T) {
	fs := memfs.New()
	var packs [2]*packFile
	var data [2][]byte
	for i := range packs {
		b := make([]byte, 3*readWindow+123)
		for j := range b {
			b[j] = byte(j*7 + j>>8 + i*91)
		}
		name := "pack-" + strconv.Itoa(i)
		if err := util.WriteFile(fs, name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := fs.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		packs[i], data[i] = &packFile{f: f, size: int64(len(b))}, b
	}
	size := int64(len(data[0]))
	reads := []struct {
		pack   int
		off, n int64
	}{
		{0, 1, maxPackHeader}, {0, 10, 100}, {0, 200, readWindow/2 - 10}, {1, 200, 50}, {0, 300, 20},
		{0, readWindow - 8, 16}, {0, readWindow + 4, readWindow / 2}, {0, 5, readWindow/2 + 1},
		{1, size - 10, 10}, {1, size - 30, 30}, {1, size - maxPackHeader, maxPackHeader}, {1, 1, size - 1}, {0, 2, 2},
	}
	var in inflater
	for _, r := range reads {
		if err := packs[r.pack].readRaw(&in, r.off, r.n); err != nil {
			t.Fatalf("pack %d, %d bytes at %d: %v", r.pack, r.n, r.off, err)
		}
		if want := data[r.pack][r.off : r.off+r.n]; !bytes.Equal(in.raw, want) {
			t.Fatalf("pack %d, %d bytes at %d: not the file's bytes", r.pack, r.n, r.off)
		}
	}
	for _, r := range [][2]int64{{0, 10}, {size - 5, 6}, {10, 0}, {5, -1}} {
		if err := packs[0].readRaw(&in, r[0], r[1]); !errors.Is(err, errPackCorrupt) {
			t.Errorf("%d bytes at %d: %v, want errPackCorrupt", r[1], r[0], err)
		}
	}
}
