package gitsrc

import (
	"bytes"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// The objects (delta bases, trees, blobs) that a packSet keeps
// decompressed, like git's core.deltaBaseCacheLimit, are bounded by a
// quarter of the packs' size, within [packCacheMin, packCacheMax]: what a
// history walk needs again (the last version read of each file that
// changes) grows with the repository. The walk demotes what it has used up
// (see packSet.demote), so that the cache holds what later reads need.
// Hit rates, demoted: go-git's last 1,499 commits (a 14 MB pack) 33.6 %
// with 4 MiB, 42.1 % with 8, 47.1 % with 12, 48.6 % with 32;
// prometheus' last 10,025 (441 MB) 40.1 % with 16 MiB, 47.3 % with 32
// (40.6 % without demotion); prometheus' 32 MiB saves it 5 % of CPU
// against 16. The floor is what a small repository pays for: a full cache
// counts twice in the peak heap (the garbage collector lets the heap grow
// to twice what is live), and on go-git's history 12 MiB put the peak RSS
// level with gitleaks' (73 MB), 8 MiB about 9 MB below it.
const (
	packCacheMin = 8 << 20
	packCacheMax = 32 << 20
)

// packCacheSize returns the cache bound for packs of packBytes in all.
func packCacheSize(packBytes int64) int {
	return int(min(max(packBytes/4, packCacheMin), packCacheMax))
}

// maxDeltaChain bounds a delta chain (git's pack.depth is at most 4095);
// a longer one, or a cycle of REF deltas, is reported as corrupt.
const maxDeltaChain = 10000

var (
	errPackCorrupt = errors.New("corrupt pack object")
	// errPackFallback means the pack reader does not handle this object
	// (not in a pack, too large, or a delta it cannot resolve alone): the
	// caller reads it through go-git instead.
	errPackFallback = errors.New("object not read from pack")
)

// packSet reads objects straight from the repository's pack files: the
// index lookup, the zlib streams and the delta chains are handled here,
// with one byte-bounded cache of decompressed objects keyed by their pack
// position, shared by every goroutine. Compared with reading through
// go-git's storage, nothing is hashed again (the index gives the ID),
// delta data is inflated once per use instead of once for its size and
// once for its content, and the cache is bounded in bytes.
//
// Objects that are not in a pack (loose objects, alternates) are left to
// go-git: lookups report them as not found. A packSet is safe for
// concurrent use.
type packSet struct {
	packs []*packFile
	cache *packCache
	pool  sync.Pool // *inflater
}

type packFile struct {
	idx  *packIndex
	f    billy.File // read with ReadAt only: safe for concurrent use
	size int64

	endsOnce  sync.Once
	ends      []int64     // entry offsets, sorted (see sortEnds)
	endsReady atomic.Bool // ends is built
}

// openPackSet opens the pack files of the repository whose git directory
// is fs, with a cache of cacheBytes (0: packCacheSize). A repository
// without packs yields an empty set.
func openPackSet(fs billy.Filesystem, cacheBytes int) (*packSet, error) {
	d := dotgit.New(fs)
	hashes, err := d.ObjectPacks()
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", err)
	}
	ps := &packSet{}
	var total int64
	for _, h := range hashes {
		p, err := openPack(d, h)
		if err != nil {
			ps.Close()
			return nil, err
		}
		ps.packs = append(ps.packs, p)
		total += p.size
	}
	if cacheBytes <= 0 {
		cacheBytes = packCacheSize(total)
	}
	ps.cache = newPackCache(cacheBytes)
	return ps, nil
}

func openPack(d *dotgit.DotGit, h plumbing.Hash) (*packFile, error) {
	fi, err := d.ObjectPackIdx(h)
	if err != nil {
		return nil, fmt.Errorf("open pack index: %w", err)
	}
	b, err := readAllFile(fi)
	fi.Close()
	if err != nil {
		return nil, fmt.Errorf("read pack index: %w", err)
	}
	idx, err := parsePackIndex(b)
	if err != nil {
		return nil, fmt.Errorf("read pack index: %w", err)
	}
	f, err := d.ObjectPack(h)
	if err != nil {
		return nil, fmt.Errorf("open pack: %w", err)
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open pack: %w", err)
	}
	return &packFile{idx: idx, f: f, size: size}, nil
}

// readAllFile reads a whole file, in one read when its size is known.
func readAllFile(f billy.File) ([]byte, error) {
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Size() > 0 && fi.Size() < 1<<40 {
			b := make([]byte, fi.Size())
			_, err := io.ReadFull(f, b)
			return b, err
		}
	}
	return io.ReadAll(f)
}

// packIndex is a version 2 pack index, kept as read: a 256-entry fanout
// table (the number of objects whose ID's first byte is at most i), the
// sorted object IDs, their CRC-32s (unused), their 4-byte offsets (the high
// bit set: an index into the 8-byte offsets), the 8-byte offsets, then the
// pack's and the index's checksums. Lookups read the bytes directly: no
// decoding beyond checking the layout, so opening a pack costs one read.
type packIndex struct {
	n      int
	fanout []byte // 256 × 4
	names  []byte // n × 20
	off32  []byte // n × 4
	off64  []byte // k × 8
}

var errBadPackIndex = errors.New("unsupported or corrupt pack index")

// parsePackIndex checks the layout of a version 2 pack index (the only
// one git writes; a version 1 index is left to go-git).
func parsePackIndex(b []byte) (*packIndex, error) {
	const head, fan, trailer = 8, 256 * 4, 40
	if len(b) < head+fan+trailer || string(b[:4]) != "\xfftOc" || binary.BigEndian.Uint32(b[4:8]) != 2 {
		return nil, errBadPackIndex
	}
	fanout := b[head : head+fan]
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		v := binary.BigEndian.Uint32(fanout[4*i:])
		if v < prev {
			return nil, errBadPackIndex
		}
		prev = v
	}
	n := uint64(prev)
	rest := uint64(len(b) - head - fan - trailer)
	if n*28 > rest || (rest-n*28)%8 != 0 {
		return nil, errBadPackIndex
	}
	body := b[head+fan : len(b)-trailer]
	return &packIndex{
		n:      int(n),
		fanout: fanout,
		names:  body[:n*20],
		off32:  body[n*24 : n*28],
		off64:  body[n*28:],
	}, nil
}

// offset returns the pack offset of the i-th object.
func (x *packIndex) offset(i int) (uint64, bool) {
	o := uint64(binary.BigEndian.Uint32(x.off32[4*i:]))
	if o&(1<<31) == 0 {
		return o, true
	}
	j := (o &^ (1 << 31)) * 8
	if j+8 > uint64(len(x.off64)) {
		return 0, false
	}
	return binary.BigEndian.Uint64(x.off64[j:]), true
}

// find returns the position of h among the index's objects.
func (x *packIndex) find(h plumbing.Hash) (int, bool) {
	b := int(h[0])
	lo, hi := 0, int(binary.BigEndian.Uint32(x.fanout[4*b:]))
	if b > 0 {
		lo = int(binary.BigEndian.Uint32(x.fanout[4*(b-1):]))
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(h[:], x.names[mid*20:mid*20+20]); {
		case c == 0:
			return mid, true
		case c < 0:
			hi = mid
		default:
			lo = mid + 1
		}
	}
	return 0, false
}

// Close closes the pack files.
func (ps *packSet) Close() error {
	var first error
	for _, p := range ps.packs {
		if err := p.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	ps.packs = nil
	return first
}

// find returns the offset of h in the pack.
func (p *packFile) find(h plumbing.Hash) (int64, bool) {
	i, ok := p.idx.find(h)
	if !ok {
		return 0, false
	}
	o, ok := p.idx.offset(i)
	if !ok || o >= uint64(p.size) {
		return 0, false
	}
	return int64(o), true
}

// inflater holds the reusable buffers and readers of one object read.
type inflater struct {
	raw    []byte // the compressed entry: a piece of win, or of buf
	buf    []byte // an entry too large for the window, read directly
	win    []byte // the stretch of winP at winOff read last (readWindow bytes)
	winP   *packFile
	winOff int64
	delta  []byte   // an inflated delta, applied then dropped
	parts  [][]byte // applyDeltaParts' pieces
	rd     bytes.Reader
	z      io.ReadCloser
}

// scratchKeep bounds the buffers an idle inflater keeps.
const scratchKeep = 1 << 20

func (ps *packSet) getInflater() *inflater {
	if in, ok := ps.pool.Get().(*inflater); ok {
		return in
	}
	return &inflater{}
}

func (ps *packSet) putInflater(in *inflater) {
	in.raw = nil
	if cap(in.buf) > scratchKeep {
		in.buf = nil
	}
	if cap(in.delta) > scratchKeep {
		in.delta = nil
	}
	clear(in.parts)
	if cap(in.parts) > scratchKeep/16 {
		in.parts = nil
	}
	in.parts = in.parts[:0]
	in.rd.Reset(nil)
	ps.pool.Put(in)
}

// packHeader is the header of a pack entry.
type packHeader struct {
	typ     plumbing.ObjectType
	size    int64 // inflated size of the entry's data (a delta's own size)
	baseOff int64 // OFS_DELTA
	baseRef plumbing.Hash
	n       int // header length
}

// maxPackHeader is the longest entry header: a 10-byte size varint, then
// a 10-byte offset varint or a 20-byte object ID.
const maxPackHeader = 32

// header parses the header of the entry at off, read through in's window.
func (p *packFile) header(in *inflater, off int64) (packHeader, error) {
	if off <= 0 || off >= p.size {
		return packHeader{}, errPackCorrupt
	}
	if err := p.readRaw(in, off, min(maxPackHeader, p.size-off)); err != nil {
		return packHeader{}, err
	}
	return parsePackHeader(in.raw, off)
}

// parsePackHeader parses a pack entry header (type and size varint, then
// the base offset of an OFS_DELTA or the base ID of a REF_DELTA) of the
// entry at offset off.
func parsePackHeader(b []byte, off int64) (packHeader, error) {
	var h packHeader
	i := 0
	next := func() (byte, bool) {
		if i >= len(b) {
			return 0, false
		}
		i++
		return b[i-1], true
	}
	c, ok := next()
	if !ok {
		return h, errPackCorrupt
	}
	h.typ = plumbing.ObjectType(c >> 4 & 7)
	size := uint64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if shift > 56 {
			return h, errPackCorrupt
		}
		if c, ok = next(); !ok {
			return h, errPackCorrupt
		}
		size |= uint64(c&0x7f) << shift
	}
	if size > 1<<62 {
		return h, errPackCorrupt
	}
	h.size = int64(size)
	switch h.typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		if c, ok = next(); !ok {
			return h, errPackCorrupt
		}
		rel := uint64(c & 0x7f)
		for c&0x80 != 0 {
			if rel >= 1<<55 {
				return h, errPackCorrupt
			}
			if c, ok = next(); !ok {
				return h, errPackCorrupt
			}
			rel = (rel+1)<<7 | uint64(c&0x7f)
		}
		if rel == 0 || rel >= uint64(off) {
			return h, errPackCorrupt
		}
		h.baseOff = off - int64(rel)
	case plumbing.REFDeltaObject:
		if len(b)-i < len(h.baseRef) {
			return h, errPackCorrupt
		}
		i += copy(h.baseRef[:], b[i:])
	default:
		return h, errPackCorrupt
	}
	h.n = i
	return h, nil
}

// sortExtents sorts the entry offsets of every pack now, so that each
// entry is read exactly (see inflateEntry).
func (ps *packSet) sortExtents() {
	for _, p := range ps.packs {
		p.sortEnds()
	}
}

// sortEnds returns the pack's entry offsets, sorted on first use.
func (p *packFile) sortEnds() []int64 {
	p.endsOnce.Do(func() {
		ends := make([]int64, 0, p.idx.n)
		for i := range p.idx.n {
			if o, ok := p.idx.offset(i); ok {
				ends = append(ends, int64(o))
			}
		}
		slices.Sort(ends)
		p.ends = ends
		p.endsReady.Store(true)
	})
	return p.ends
}

// entryEnd returns where the entry at off ends: the next entry's offset,
// or the pack's trailing checksum.
func (p *packFile) entryEnd(off int64) int64 {
	ends := p.sortEnds()
	if i, _ := slices.BinarySearch(ends, off+1); i < len(ends) {
		return ends[i]
	}
	return max(p.size-20, off)
}

// guessMax bounds the window inflateEntry reads before the pack's entry
// offsets are sorted.
const guessMax = 1 << 20

// inflateEntry inflates the data of the entry at off, whose header is h,
// into dst (h.size bytes). The entry's extent is only known once every
// offset of the pack is sorted (entryEnd), which costs more than a short
// command reads: until then, a window large enough for any zlib stream git
// writes of that size (deflate's stored blocks add 5 bytes per 64 KiB) is
// read instead, and the exact extent only when that window falls short.
func (p *packFile) inflateEntry(in *inflater, off int64, h packHeader, dst []byte) error {
	if !p.endsReady.Load() {
		if n := int64(h.n) + h.size + h.size>>10 + 64; n <= guessMax {
			if err := p.readRaw(in, off, min(n, p.size-off)); err != nil {
				return err
			}
			if len(in.raw) > h.n {
				in.rd.Reset(in.raw[h.n:])
				if in.inflate(dst) == nil {
					return nil
				}
			}
		}
	}
	end := p.entryEnd(off)
	if end <= off+int64(h.n) || end > p.size {
		return errPackCorrupt
	}
	if err := p.readRaw(in, off, end-off); err != nil {
		return err
	}
	in.rd.Reset(in.raw[h.n:])
	return in.inflate(dst)
}

// readWindow is how much of a pack an inflater reads at once for a short
// read. An object read is a read per entry header and per entry of its
// delta chain, and these are mostly close together in the pack: on
// prometheus' history a 4 KiB window serves 88,000 of 156,000 reads
// (32 KiB: 101,000, for eight times the bytes copied per read).
const readWindow = 4 << 10

// readRaw sets in.raw to the n bytes of the pack at off: a piece of the
// window when it holds them, else read (into the window, from off, when
// they fit in half of it).
func (p *packFile) readRaw(in *inflater, off, n int64) error {
	if off <= 0 || n <= 0 || off+n > p.size {
		return errPackCorrupt
	}
	if in.winP == p && off >= in.winOff && off+n <= in.winOff+int64(len(in.win)) {
		in.raw = in.win[off-in.winOff : off-in.winOff+n]
		return nil
	}
	if n <= readWindow/2 {
		if in.win == nil {
			in.win = make([]byte, readWindow)
		}
		w := in.win[:min(readWindow, p.size-off)]
		in.winP = nil
		if _, err := p.f.ReadAt(w, off); err != nil {
			return fmt.Errorf("read pack: %w", err)
		}
		in.win, in.winP, in.winOff = w, p, off
		in.raw = w[:n]
		return nil
	}
	if int64(cap(in.buf)) < n {
		in.buf = make([]byte, n)
	}
	in.raw = in.buf[:n]
	if _, err := p.f.ReadAt(in.raw, off); err != nil {
		return fmt.Errorf("read pack: %w", err)
	}
	return nil
}

// inflate fills dst from the zlib data at in.rd. klauspost/compress's
// inflater reads a *bytes.Reader without an interface call per byte: on
// the benchmark history it cut privscan's CPU time by ~18 % (4.45 -> 3.65 s)
// against compress/zlib, which is why it is a direct dependency.
//
// The zlib header is checked here and the deflate stream inflated as is:
// the Adler-32 sum of the output, which a zlib reader computes over every
// byte (1.4 % of privscan's CPU time on prometheus' history), is not.
// Nothing is given up by that: a zlib reader compares the sum only when a
// read reaches the end of the stream, and reading exactly the entry's size
// (as this reader always did) stops before it, so the sum was computed and
// never checked. A damaged stream still fails to inflate to the entry's
// size in most cases; a changed literal byte was not noticed before
// either (an object's content is not hashed against its ID when read).
func (in *inflater) inflate(dst []byte) error {
	var hdr [2]byte
	if _, err := io.ReadFull(&in.rd, hdr[:]); err != nil || !zlibHeader(hdr[0], hdr[1]) {
		return errPackCorrupt
	}
	if in.z == nil {
		in.z = flate.NewReader(&in.rd)
	} else if err := in.z.(flate.Resetter).Reset(&in.rd, nil); err != nil {
		return errPackCorrupt
	}
	if _, err := io.ReadFull(in.z, dst); err != nil {
		return errPackCorrupt
	}
	return nil
}

// zlibHeader reports whether cmf and flg open a zlib stream of deflate
// data without a preset dictionary (RFC 1950: method 8, a window of at
// most 32 KiB, the two bytes a multiple of 31), as zlib readers require.
func zlibHeader(cmf, flg byte) bool {
	return cmf&0x0f == 8 && cmf>>4 <= 7 && (uint16(cmf)<<8|uint16(flg))%31 == 0 && flg&0x20 == 0
}

// read returns the type and content of object h. The content is shared
// (cached): callers must not modify it. It returns errPackFallback when h
// is not in a pack or is left to go-git, and errPackCorrupt for a damaged
// entry.
func (ps *packSet) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	for _, p := range ps.packs {
		if off, ok := p.find(h); ok {
			return ps.readAt(p, off)
		}
	}
	return plumbing.InvalidObject, nil, errPackFallback
}

// readAt resolves the entry at off: it walks down the delta chain to a
// cached object or a whole one, then applies the deltas back up, caching
// each result (the next object asked for is often a neighbour in the same
// chain, as consecutive versions of a file are).
func (ps *packSet) readAt(p *packFile, off int64) (plumbing.ObjectType, []byte, error) {
	in := ps.getInflater()
	defer ps.putInflater(in)
	type link struct {
		off int64
		h   packHeader
	}
	var chain []link // the deltas walked, top first
	var typ plumbing.ObjectType
	var data []byte
	for {
		if t, b, ok := ps.cache.get(p, off); ok {
			typ, data = t, b
			break
		}
		h, err := p.header(in, off)
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if h.typ == plumbing.OFSDeltaObject || h.typ == plumbing.REFDeltaObject {
			chain = append(chain, link{off, h})
			if len(chain) > maxDeltaChain {
				return plumbing.InvalidObject, nil, errPackCorrupt
			}
			if h.typ == plumbing.OFSDeltaObject {
				off = h.baseOff
			} else if base, ok := p.find(h.baseRef); ok {
				off = base
			} else {
				// A pack on disk is self-contained: a REF_DELTA base
				// elsewhere is left to go-git.
				return plumbing.InvalidObject, nil, errPackFallback
			}
			continue
		}
		if h.size > bigFile {
			return plumbing.InvalidObject, nil, errPackFallback
		}
		data = make([]byte, h.size)
		if err := p.inflateEntry(in, off, h, data); err != nil {
			return plumbing.InvalidObject, nil, err
		}
		typ = h.typ
		if typ != plumbing.CommitObject || len(chain) > 0 {
			// A commit is read once by the walk and is rarely a
			// delta base: it is not worth the room.
			ps.cache.put(p, off, typ, data)
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		l := chain[i]
		if l.h.size > bigFile {
			return plumbing.InvalidObject, nil, errPackFallback
		}
		if cap(in.delta) < int(l.h.size) {
			in.delta = make([]byte, l.h.size)
		}
		delta := in.delta[:l.h.size]
		if err := p.inflateEntry(in, l.off, l.h, delta); err != nil {
			return plumbing.InvalidObject, nil, err
		}
		var err error
		if data, err = applyDeltaParts(data, delta, &in.parts); err != nil {
			return plumbing.InvalidObject, nil, err
		}
		ps.cache.put(p, l.off, typ, data)
	}
	return typ, data, nil
}

// applyDelta returns base with git delta d applied: a header (the base
// size, then the result size, as base-128 varints) followed by copy
// commands (high bit set: copy a range of the base) and insert commands
// (1-127: insert that many literal bytes). A result larger than git's big
// file threshold is left to go-git (errPackFallback).
func applyDelta(base, d []byte) ([]byte, error) {
	var parts [][]byte
	return applyDeltaParts(base, d, &parts)
}

// applyDeltaParts is applyDelta with a scratch slice: the copy and insert
// commands are gathered as pieces of base and d first, then joined into
// the result in one pass, which bytes.Join allocates without zeroing it
// first (the result is as large as the file: zeroing it was a quarter of
// applying a delta on prometheus' history).
func applyDeltaParts(base, d []byte, parts *[][]byte) ([]byte, error) {
	srcSize, d, ok := leb128(d)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errPackCorrupt
	}
	dstSize, d, ok := leb128(d)
	if !ok {
		return nil, errPackCorrupt
	}
	if dstSize > bigFile {
		return nil, errPackFallback
	}
	ps := (*parts)[:0]
	defer func() {
		clear(ps)
		*parts = ps[:0]
	}()
	w := uint64(0)
	for len(d) > 0 {
		cmd := d[0]
		d = d[1:]
		switch {
		case cmd&0x80 != 0:
			// Bits 0-3 of cmd say which bytes of the offset follow, bits
			// 4-6 which bytes of the size (both little-endian): byte i
			// lands at bit 8i of v, so the size starts at bit 32.
			var v uint64
			for i := range 7 {
				if cmd&(1<<i) != 0 {
					if len(d) == 0 {
						return nil, errPackCorrupt
					}
					v |= uint64(d[0]) << (8 * i)
					d = d[1:]
				}
			}
			off, n := v&0xffffffff, v>>32
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || n > dstSize-w {
				return nil, errPackCorrupt
			}
			ps = append(ps, base[off:off+n])
			w += n
		case cmd != 0:
			n := int(cmd)
			if n > len(d) || uint64(n) > dstSize-w {
				return nil, errPackCorrupt
			}
			ps = append(ps, d[:n])
			w += uint64(n)
			d = d[n:]
		default:
			return nil, errPackCorrupt
		}
	}
	if w != dstSize {
		return nil, errPackCorrupt
	}
	if len(ps) == 0 {
		return []byte{}, nil
	}
	return bytes.Join(ps, nil), nil
}

// leb128 reads a delta header varint. Like git, it stops at the end of
// the data even within a varint.
func leb128(d []byte) (uint64, []byte, bool) {
	var v uint64
	for shift := 0; len(d) > 0; shift += 7 {
		if shift > 56 {
			return 0, nil, false
		}
		c := d[0]
		d = d[1:]
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	return v, d, true
}

// packCache is a byte-bounded LRU of decompressed pack entries, safe for
// concurrent use.
type packCache struct {
	mu    sync.Mutex
	max   int
	size  int
	ll    *list.List
	items map[packKey]*list.Element

	hits, misses atomic.Int64 // lookups, for measuring the hit rate
}

type packKey struct {
	p   *packFile
	off int64
}

type packItem struct {
	k   packKey
	typ plumbing.ObjectType
	b   []byte
}

func newPackCache(max int) *packCache {
	return &packCache{max: max, ll: list.New(), items: map[packKey]*list.Element{}}
}

func (c *packCache) get(p *packFile, off int64) (plumbing.ObjectType, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[packKey{p, off}]; ok {
		c.hits.Add(1)
		c.ll.MoveToFront(e)
		it := e.Value.(*packItem)
		return it.typ, it.b, true
	}
	c.misses.Add(1)
	return plumbing.InvalidObject, nil, false
}

func (c *packCache) put(p *packFile, off int64, typ plumbing.ObjectType, b []byte) {
	if cap(b) > c.max/4 {
		return
	}
	k := packKey{p, off}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.ll.PushFront(&packItem{k: k, typ: typ, b: b})
	c.size += cap(b) + packItemOverhead
	for c.size > c.max {
		e := c.ll.Back()
		it := e.Value.(*packItem)
		c.ll.Remove(e)
		delete(c.items, it.k)
		c.size -= cap(it.b) + packItemOverhead
	}
}

// demote moves the cached content of h, if any, to the back of the cache,
// to be evicted first. The history walk calls it for the new side of a
// diff once both sides are read: walking newest first, that version of
// the file was the base of the old side just read (git packs older
// versions as deltas against newer ones) and is not needed again, while
// the old side is the base of the next older version. ps may be nil.
func (ps *packSet) demote(h plumbing.Hash) {
	if ps == nil {
		return
	}
	for _, p := range ps.packs {
		if off, ok := p.find(h); ok {
			ps.cache.demote(p, off)
			return
		}
	}
}

func (c *packCache) demote(p *packFile, off int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[packKey{p, off}]; ok {
		c.ll.MoveToBack(e)
	}
}

// packItemOverhead approximates an entry's bookkeeping (list element, item
// and map slot), so that many tiny objects also count.
const packItemOverhead = 160

// object reads object h, of type t or of any type (plumbing.AnyObject),
// as a read-only object. ps may be nil. ok is false when the object is
// left to go-git; a type other than t is reported as not found.
func (ps *packSet) object(t plumbing.ObjectType, h plumbing.Hash) (_ packObject, ok bool, _ error) {
	if ps == nil {
		return packObject{}, false, nil
	}
	typ, b, err := ps.read(h)
	switch {
	case errors.Is(err, errPackFallback):
		return packObject{}, false, nil
	case err != nil:
		return packObject{}, true, err
	case t != plumbing.AnyObject && t != typ:
		return packObject{}, true, plumbing.ErrObjectNotFound
	}
	return packObject{h: h, t: typ, b: b}, true, nil
}

// packObject is a read-only object whose content is shared.
type packObject struct {
	h plumbing.Hash
	t plumbing.ObjectType
	b []byte
}

var errReadOnlyObject = errors.New("read-only object")

func (o *packObject) Hash() plumbing.Hash             { return o.h }
func (o *packObject) Type() plumbing.ObjectType       { return o.t }
func (o *packObject) SetType(plumbing.ObjectType)     {}
func (o *packObject) Size() int64                     { return int64(len(o.b)) }
func (o *packObject) SetSize(int64)                   {}
func (o *packObject) Writer() (io.WriteCloser, error) { return nil, errReadOnlyObject }
func (o *packObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.b)), nil
}
