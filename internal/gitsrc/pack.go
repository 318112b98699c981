package gitsrc

import (
	"bufio"
	"bytes"
	"container/list"
	"errors"
	"fmt"
	"github.com/klauspost/compress/zlib"
	"io"
	"slices"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// packCacheBytes bounds the objects (delta bases, trees, blobs) that a
// packSet keeps decompressed, like git's core.deltaBaseCacheLimit.
const packCacheBytes = 32 << 20

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
	idx  *idxfile.MemoryIndex
	f    billy.File // read with ReadAt only: safe for concurrent use
	size int64

	endsOnce sync.Once
	ends     []int64 // entry offsets, sorted (see entryEnd)
}

// openPackSet opens the pack files of the repository whose git directory
// is fs. A repository without packs yields an empty set.
func openPackSet(fs billy.Filesystem, cacheBytes int) (*packSet, error) {
	d := dotgit.New(fs)
	hashes, err := d.ObjectPacks()
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", err)
	}
	ps := &packSet{cache: newPackCache(cacheBytes)}
	for _, h := range hashes {
		p, err := openPack(d, h)
		if err != nil {
			ps.Close()
			return nil, err
		}
		ps.packs = append(ps.packs, p)
	}
	return ps, nil
}

func openPack(d *dotgit.DotGit, h plumbing.Hash) (*packFile, error) {
	fi, err := d.ObjectPackIdx(h)
	if err != nil {
		return nil, fmt.Errorf("open pack index: %w", err)
	}
	idx := idxfile.NewMemoryIndex()
	err = idxfile.NewDecoder(bufio.NewReader(fi)).Decode(idx)
	fi.Close()
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

// find returns the offset of h in the pack. It reads the decoded index
// directly (idxfile's FindOffset also records every lookup in a map that
// would grow with the history).
func (p *packFile) find(h plumbing.Hash) (int64, bool) {
	idx := p.idx
	b := int(h[0])
	n := idx.Fanout[b]
	if b > 0 {
		n -= idx.Fanout[b-1]
	}
	if n == 0 {
		return 0, false
	}
	k := idx.FanoutMapping[b]
	if k < 0 || k >= len(idx.Names) || k >= len(idx.Offset32) {
		return 0, false
	}
	names, offs := idx.Names[k], idx.Offset32[k]
	lo, hi := 0, min(len(names)/20, len(offs)/4)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c := compareHash(h, names[mid*20:mid*20+20])
		switch {
		case c == 0:
			o := uint64(offs[mid*4])<<24 | uint64(offs[mid*4+1])<<16 | uint64(offs[mid*4+2])<<8 | uint64(offs[mid*4+3])
			if o&(1<<31) != 0 {
				i := (o &^ (1 << 31)) * 8
				if i+8 > uint64(len(idx.Offset64)) {
					return 0, false
				}
				o = 0
				for _, x := range idx.Offset64[i : i+8] {
					o = o<<8 | uint64(x)
				}
			}
			if o >= uint64(p.size) {
				return 0, false
			}
			return int64(o), true
		case c < 0:
			hi = mid
		default:
			lo = mid + 1
		}
	}
	return 0, false
}

func compareHash(h plumbing.Hash, b []byte) int {
	for i := range h {
		if h[i] != b[i] {
			if h[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// inflater holds the reusable buffers and readers of one object read.
type inflater struct {
	raw   []byte // the compressed entry
	delta []byte // an inflated delta, applied then dropped
	rd    bytes.Reader
	z     io.ReadCloser
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
	if cap(in.raw) > scratchKeep {
		in.raw = nil
	}
	if cap(in.delta) > scratchKeep {
		in.delta = nil
	}
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

// header parses the header of the entry at off.
func (p *packFile) header(off int64) (packHeader, error) {
	if off <= 0 || off >= p.size {
		return packHeader{}, errPackCorrupt
	}
	var buf [maxPackHeader]byte
	n, err := p.f.ReadAt(buf[:min(int64(len(buf)), p.size-off)], off)
	if n == 0 && err != nil {
		return packHeader{}, fmt.Errorf("read pack: %w", err)
	}
	return parsePackHeader(buf[:n], off)
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

// entryEnd returns where the entry at off ends: the next entry's offset,
// or the pack's trailing checksum.
func (p *packFile) entryEnd(off int64) int64 {
	p.endsOnce.Do(func() {
		idx := p.idx
		for k := range idx.Offset32 {
			o32 := idx.Offset32[k]
			for i := 0; i+4 <= len(o32); i += 4 {
				o := uint64(o32[i])<<24 | uint64(o32[i+1])<<16 | uint64(o32[i+2])<<8 | uint64(o32[i+3])
				if o&(1<<31) != 0 {
					j := (o &^ (1 << 31)) * 8
					if j+8 > uint64(len(idx.Offset64)) {
						continue
					}
					o = 0
					for _, x := range idx.Offset64[j : j+8] {
						o = o<<8 | uint64(x)
					}
				}
				p.ends = append(p.ends, int64(o))
			}
		}
		slices.Sort(p.ends)
	})
	if i, _ := slices.BinarySearch(p.ends, off+1); i < len(p.ends) {
		return p.ends[i]
	}
	return max(p.size-20, off)
}

// entry reads the entry at off whole into in.raw, parses its header and
// leaves in.rd at its zlib data.
func (p *packFile) entry(in *inflater, off int64) (packHeader, error) {
	end := p.entryEnd(off)
	if off <= 0 || end <= off || end > p.size {
		return packHeader{}, errPackCorrupt
	}
	n := int(end - off)
	if cap(in.raw) < n {
		in.raw = make([]byte, n)
	}
	raw := in.raw[:n]
	if _, err := p.f.ReadAt(raw, off); err != nil {
		return packHeader{}, fmt.Errorf("read pack: %w", err)
	}
	h, err := parsePackHeader(raw[:min(n, maxPackHeader)], off)
	if err != nil {
		return h, err
	}
	in.rd.Reset(raw[h.n:])
	return h, nil
}

// inflate fills dst from the zlib data at in.rd. klauspost/compress's
// inflater reads a *bytes.Reader without an interface call per byte: on
// the benchmark history it cut privscan's CPU time by ~18 % (4.45 -> 3.65 s)
// against compress/zlib, which is why it is a direct dependency.
func (in *inflater) inflate(dst []byte) error {
	var err error
	if in.z == nil {
		in.z, err = zlib.NewReader(&in.rd)
	} else {
		err = in.z.(zlib.Resetter).Reset(&in.rd, nil)
	}
	if err != nil {
		return errPackCorrupt
	}
	if _, err := io.ReadFull(in.z, dst); err != nil {
		return errPackCorrupt
	}
	return nil
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
	var chain []int64 // offsets of the deltas walked, top first
	var typ plumbing.ObjectType
	var data []byte
	for {
		if t, b, ok := ps.cache.get(p, off); ok {
			typ, data = t, b
			break
		}
		h, err := p.header(off)
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if h.typ == plumbing.OFSDeltaObject || h.typ == plumbing.REFDeltaObject {
			chain = append(chain, off)
			if len(chain) > maxDeltaChain {
				return plumbing.InvalidObject, nil, errPackCorrupt
			}
			if h.typ == plumbing.OFSDeltaObject {
				off = h.baseOff
			} else if off, err = ps.refBase(p, h.baseRef); err != nil {
				return plumbing.InvalidObject, nil, err
			}
			continue
		}
		if h.size > bigFile {
			return plumbing.InvalidObject, nil, errPackFallback
		}
		if _, err := p.entry(in, off); err != nil {
			return plumbing.InvalidObject, nil, err
		}
		data = make([]byte, h.size)
		if err := in.inflate(data); err != nil {
			return plumbing.InvalidObject, nil, err
		}
		typ = h.typ
		ps.cache.put(p, off, typ, data)
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		h, err := p.entry(in, chain[i])
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if h.size > bigFile {
			return plumbing.InvalidObject, nil, errPackFallback
		}
		if cap(in.delta) < int(h.size) {
			in.delta = make([]byte, h.size)
		}
		delta := in.delta[:h.size]
		if err := in.inflate(delta); err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if data, err = applyDelta(data, delta); err != nil {
			return plumbing.InvalidObject, nil, err
		}
		ps.cache.put(p, chain[i], typ, data)
	}
	return typ, data, nil
}

// applyDelta returns base with git delta d applied: a header (the base
// size, then the result size, as base-128 varints) followed by copy
// commands (high bit set: copy a range of the base) and insert commands
// (1-127: insert that many literal bytes). A result larger than git's big
// file threshold is left to go-git (errPackFallback).
func applyDelta(base, d []byte) ([]byte, error) {
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
	out := make([]byte, dstSize)
	w := 0
	for len(d) > 0 {
		cmd := d[0]
		d = d[1:]
		switch {
		case cmd&0x80 != 0:
			var off, n uint64
			for i := 0; i < 4; i++ {
				if cmd&(1<<i) != 0 {
					if len(d) == 0 {
						return nil, errPackCorrupt
					}
					off |= uint64(d[0]) << (8 * i)
					d = d[1:]
				}
			}
			for i := 0; i < 3; i++ {
				if cmd&(0x10<<i) != 0 {
					if len(d) == 0 {
						return nil, errPackCorrupt
					}
					n |= uint64(d[0]) << (8 * i)
					d = d[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || n > uint64(len(out)-w) {
				return nil, errPackCorrupt
			}
			w += copy(out[w:], base[off:off+n])
		case cmd != 0:
			n := int(cmd)
			if n > len(d) || n > len(out)-w {
				return nil, errPackCorrupt
			}
			w += copy(out[w:], d[:n])
			d = d[n:]
		default:
			return nil, errPackCorrupt
		}
	}
	if w != len(out) {
		return nil, errPackCorrupt
	}
	return out, nil
}

// refBase finds the base of a REF_DELTA in the same pack (a pack on disk
// is self-contained).
func (ps *packSet) refBase(p *packFile, h plumbing.Hash) (int64, error) {
	off, ok := p.find(h)
	if !ok {
		return 0, errPackFallback
	}
	return off, nil
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
		c.ll.MoveToFront(e)
		it := e.Value.(*packItem)
		return it.typ, it.b, true
	}
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

// packItemOverhead approximates an entry's bookkeeping (list element, item
// and map slot), so that many tiny objects also count.
const packItemOverhead = 160

// packStorer serves objects from a packSet, and the others (loose objects,
// alternates, anything the packSet leaves) from a go-git storage. The
// objects it returns carry the ID they were asked for, so go-git never
// hashes them again. Like the go-git storage it wraps, it is used by one
// goroutine at a time.
type packStorer struct {
	storer.EncodedObjectStorer
	packs *packSet
}

// newPackStorer returns base itself when there is no packSet.
func newPackStorer(base storer.EncodedObjectStorer, packs *packSet) storer.EncodedObjectStorer {
	if packs == nil {
		return base
	}
	return &packStorer{EncodedObjectStorer: base, packs: packs}
}

// EncodedObject implements storer.EncodedObjectStorer.
func (s *packStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, b, err := s.packs.read(h)
	if err == nil {
		if t != plumbing.AnyObject && t != typ {
			return nil, plumbing.ErrObjectNotFound
		}
		return &packObject{h: h, t: typ, b: b}, nil
	}
	if !errors.Is(err, errPackFallback) {
		return nil, err
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
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
