package gitsrc

import (
	"bytes"
	"container/list"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

const (
	// binaryProbe is how many leading bytes git inspects for a NUL byte
	// (FIRST_FEW_BYTES in git's xdiff-interface.c).
	binaryProbe = 8000
	// bigFile is git's core.bigFileThreshold default: larger blobs are
	// treated as binary without being read.
	bigFile = 512 << 20
	// blobCacheBytes bounds the cache of recently diffed blobs and their
	// split lines, shared by the history workers: a blob is usually
	// diffed twice, as the new side of a commit and as the old side of
	// its child, which the walk reaches just before. (The contents also
	// stay in the packSet's cache; this one saves the lookup and the
	// split.) The walk drops each new side once diffed, so it holds only
	// old sides waiting for their commit. On go-git's history 1 MiB
	// gives 19 % of the records already split, 4 MiB 40 %, 8 MiB 42 %
	// (TestPackCacheSizes), but 4 MiB measured no faster (CPU medians of
	// 5 interleaved runs 1.11 s against 1.01, within the noise).
	blobCacheBytes = 1 << 20
	// endsCacheDiv sizes the history walk's cache of split records
	// (their end offsets, 4 bytes a line, without the text) of blobs
	// too large for the blob cache or evicted from it: an eighth of the
	// pack cache (1 MiB to 4 MiB). The old side of a diff is split
	// once, and its records are given again when the walk reaches the
	// commit where that version is the new side. On prometheus' history
	// 41 % of the bytes split were split a second time (868 of 2,122 MB);
	// with 1 MiB of ends 924 MB of splits were saved, 2 MiB 984, 4 MiB
	// 1,006; on go-git's 43 MB (of 98) from 1 MiB on.
	endsCacheDiv = 8
)

var lfsHeader = []byte("version https://git-lfs.github.com/spec/v1")

// isBinary applies git's rule: a NUL byte among the first 8000 bytes.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), binaryProbe)], 0) >= 0
}

// isLFSPointer reports a Git LFS pointer file.
func isLFSPointer(b []byte) bool {
	return len(b) < 1024 && bytes.HasPrefix(b, lfsHeader)
}

// blobCache is a size-bounded LRU of blob contents, safe for concurrent use.
type blobCache struct {
	mu    sync.Mutex
	max   int
	size  int
	ll    *list.List
	items map[plumbing.Hash]*list.Element

	// The records of blobs that are not (or no longer) in the cache
	// above: only their end offsets, in an LRU of their own bounded by
	// endsMax bytes (0: none kept).
	endsMax  int
	endsSize int
	endsLL   *list.List
	endsOf   map[plumbing.Hash]*list.Element

	// records found split, and split anew, and their bytes (for
	// measuring the reuse)
	recHits, recMisses        atomic.Int64
	recHitBytes, recMissBytes atomic.Int64
}

type endsItem struct {
	h    plumbing.Hash
	ends []uint32
}

type blobItem struct {
	h    plumbing.Hash
	b    []byte
	recs records // split lazily, see records
}

// newBlobCache returns a cache of max bytes of blob contents (with their
// records) and endsMax bytes of other blobs' record ends.
func newBlobCache(max, endsMax int) *blobCache {
	return &blobCache{
		max: max, ll: list.New(), items: map[plumbing.Hash]*list.Element{},
		endsMax: endsMax, endsLL: list.New(), endsOf: map[plumbing.Hash]*list.Element{},
	}
}

func (c *blobCache) get(h plumbing.Hash) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[h]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*blobItem).b, true
	}
	return nil, false
}

// records returns the cached split of a blob, splitting and caching it on
// first use (a blob is usually diffed twice: as the new side of a commit
// and as the old side of an earlier one). The records of a blob in the
// content cache are kept with it; those of any other blob go to the ends
// cache. b must be the content of h: the ends are reused for it.
func (c *blobCache) records(h plumbing.Hash, b []byte) records {
	c.mu.Lock()
	if e, ok := c.items[h]; ok {
		if it := e.Value.(*blobItem); it.recs.ends != nil {
			c.mu.Unlock()
			c.recHit(len(b))
			return it.recs
		}
	}
	if ee, ok := c.endsOf[h]; ok {
		c.endsLL.MoveToFront(ee)
		ends := ee.Value.(*endsItem).ends
		c.mu.Unlock()
		c.recHit(len(b))
		return records{b: b, ends: ends}
	}
	c.mu.Unlock()
	c.recMisses.Add(1)
	c.recMissBytes.Add(int64(len(b)))
	recs := newRecords(b)
	if recs.ends == nil {
		return recs
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[h]; ok {
		it := e.Value.(*blobItem)
		if it.recs.ends == nil {
			it.recs = recs
			c.size += 4 * cap(recs.ends)
			c.evict()
		}
		return recs
	}
	c.putEnds(h, recs.ends)
	return recs
}

func (c *blobCache) recHit(n int) {
	c.recHits.Add(1)
	c.recHitBytes.Add(int64(n))
}

// putEnds caches the record ends of h, with c.mu held.
func (c *blobCache) putEnds(h plumbing.Hash, ends []uint32) {
	size := 4 * cap(ends)
	if size > c.endsMax/4 {
		return
	}
	if _, ok := c.endsOf[h]; ok {
		return
	}
	c.endsOf[h] = c.endsLL.PushFront(&endsItem{h: h, ends: ends})
	c.endsSize += size
	for c.endsSize > c.endsMax {
		c.removeEnds(c.endsLL.Back())
	}
}

// removeEnds removes an entry of the ends cache, with c.mu held.
func (c *blobCache) removeEnds(e *list.Element) {
	it := e.Value.(*endsItem)
	c.endsLL.Remove(e)
	delete(c.endsOf, it.h)
	c.endsSize -= 4 * cap(it.ends)
}

// evict removes the least recently used blobs until the cache fits, with
// c.mu held; their records, if split, go on in the ends cache.
func (c *blobCache) evict() {
	for c.size > c.max {
		e := c.ll.Back()
		it := e.Value.(*blobItem)
		c.ll.Remove(e)
		delete(c.items, it.h)
		c.size -= cap(it.b) + 4*cap(it.recs.ends)
		if it.recs.ends != nil {
			c.putEnds(it.h, it.recs.ends)
		}
	}
}

// drop removes h, and its record ends, from the cache: the history walk
// calls it for the new side of a diff, used up (see packSet.demote).
func (c *blobCache) drop(h plumbing.Hash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.endsOf[h]; ok {
		c.removeEnds(e)
	}
	if e, ok := c.items[h]; ok {
		it := e.Value.(*blobItem)
		c.ll.Remove(e)
		delete(c.items, h)
		c.size -= cap(it.b) + 4*cap(it.recs.ends)
	}
}

func (c *blobCache) put(h plumbing.Hash, b []byte) {
	if cap(b) > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[h]; ok {
		return
	}
	c.items[h] = c.ll.PushFront(&blobItem{h: h, b: b})
	c.size += cap(b)
	c.evict()
}

// overlay is an object storer that serves some blobs from memory (working
// tree files and the empty tree) and the rest from the repository.
type overlay struct {
	storer.EncodedObjectStorer
	mem map[plumbing.Hash]memObject
}

type memObject struct {
	t plumbing.ObjectType
	b []byte
}

func newOverlay(base storer.EncodedObjectStorer) *overlay {
	return &overlay{EncodedObjectStorer: base, mem: map[plumbing.Hash]memObject{}}
}

// addBlob stores content and returns its hash.
func (o *overlay) addBlob(b []byte) plumbing.Hash {
	h := plumbing.ComputeHash(plumbing.BlobObject, b)
	o.mem[h] = memObject{plumbing.BlobObject, b}
	return h
}

func (o *overlay) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if m, ok := o.mem[h]; ok {
		if t != plumbing.AnyObject && t != m.t {
			return nil, plumbing.ErrObjectNotFound
		}
		obj := &plumbing.MemoryObject{}
		obj.SetType(m.t)
		if _, err := obj.Write(m.b); err != nil {
			return nil, err
		}
		return obj, nil
	}
	return o.EncodedObjectStorer.EncodedObject(t, h)
}

func (o *overlay) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := o.mem[h]; ok {
		return nil
	}
	return o.EncodedObjectStorer.HasEncodedObject(h)
}

func (o *overlay) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if m, ok := o.mem[h]; ok {
		return int64(len(m.b)), nil
	}
	return o.EncodedObjectStorer.EncodedObjectSize(h)
}

// processor turns changes into fragments. It is used by one goroutine.
type processor struct {
	ov    *overlay
	base  storer.EncodedObjectStorer // go-git, for what packs leaves
	packs *packSet                   // nil: objects are read through base only
	blobs *blobCache
	trees *treeCache
	x     xenv // the line diff's buffers
}

// newProcessor returns a processor reading objects through st, a storer
// of its own.
func newProcessor(st *repoStorer, blobs *blobCache, treeBytes int) *processor {
	packs := st.r.packSet()
	return &processor{
		ov:    newOverlay(st),
		base:  st.Storage,
		packs: packs,
		blobs: blobs,
		trees: newTreeCache(st.Storage, packs, treeBytes),
	}
}

// blob reads a blob's content, which is shared and must not be modified.
// A blob larger than git's big file threshold is not read whole: only a
// head that classifies it as binary is returned.
func (p *processor) blob(h plumbing.Hash) ([]byte, error) {
	if m, ok := p.ov.mem[h]; ok {
		return m.b, nil
	}
	if b, ok := p.blobs.get(h); ok {
		return b, nil
	}
	if obj, ok, err := p.packs.object(plumbing.BlobObject, h); ok {
		if err != nil {
			return nil, fmt.Errorf("read blob %s: %w", h, err)
		}
		p.blobs.put(h, obj.b)
		return obj.b, nil
	}
	return p.readBlob(h)
}

// readBlob reads a blob through go-git.
func (p *processor) readBlob(h plumbing.Hash) ([]byte, error) {
	obj, err := p.base.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	size := obj.Size()
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer rd.Close()
	if size > bigFile {
		// Treated as binary like git does; only the head is needed to
		// tell an LFS pointer (never this large) from anything else.
		head := make([]byte, binaryProbe)
		n, _ := io.ReadFull(rd, head)
		head = head[:n]
		if !isBinary(head) {
			head = append(head, 0) // force the binary verdict
		}
		return head, nil
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(rd, b); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	p.blobs.put(h, b)
	return b, nil
}

// isFileMode reports a regular or executable file.
func isFileMode(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

// sameKind reports whether two modes hold comparable content (a symlink
// replaced by a file is shown by git as a deletion and an addition).
func sameKind(a, b filemode.FileMode) bool {
	if isFileMode(a) && isFileMode(b) {
		return true
	}
	return a == b
}

// fragmentFor builds the fragment of one change: the added lines of its
// new side, a skipped fragment, or nil when nothing was added.
func (p *processor) fragmentFor(c *change, commit string) (*scanner.Fragment, error) {
	if !c.hasTo {
		return nil, nil
	}
	f := &scanner.Fragment{Kind: finding.KindDiff, Path: c.to.path, Commit: commit}
	switch {
	case c.to.mode == filemode.Submodule:
		f.Skipped = finding.SkipSubmodule
		return f, nil
	case c.to.mode == filemode.Dir:
		return nil, nil
	case c.hasFrom && sameKind(c.from.mode, c.to.mode) && c.from.hash == c.to.hash:
		return nil, nil // mode change or pure rename
	}
	nb, err := p.blob(c.to.hash)
	if err != nil {
		return nil, err
	}
	if len(nb) == 0 {
		return nil, nil
	}
	if isLFSPointer(nb) {
		f.Skipped = finding.SkipLFS
		return f, nil
	}
	if isBinary(nb) || uint64(len(nb)) > maxRecordsText {
		// Git treats files over core.bigFileThreshold (512 MiB) as
		// binary; blobs over it are never read whole here, and a working
		// tree file too large for records' 32-bit offsets is skipped too.
		f.Skipped = finding.SkipBinary
		return f, nil
	}
	var ob []byte
	if c.hasFrom && sameKind(c.from.mode, c.to.mode) {
		if ob, err = p.blob(c.from.hash); err != nil {
			return nil, err
		}
		if isBinary(ob) || uint64(len(ob)) > maxRecordsText {
			f.Skipped = finding.SkipBinary
			return f, nil
		}
	}
	recs := p.blobs.records(c.to.hash, nb)
	var orecs records
	if ob != nil {
		orecs = p.blobs.records(c.from.hash, ob)
	}
	removed, added := p.x.diff(orecs, recs)
	defer p.x.release()
	if ob != nil {
		p.packs.demote(c.to.hash)
		p.blobs.drop(c.to.hash)
	}
	// each visits the added lines in order, and before each run of them
	// the lines of context (from the line after the previous added one,
	// at most scanner.ContextLines).
	each := func(visit func(i int, context bool)) {
		next := 0 // the first line not yet visited
		for i, a := range added {
			if !a {
				continue
			}
			if i > 0 && !added[i-1] {
				for j := max(next, i-scanner.ContextLines); j < i; j++ {
					visit(j, true)
				}
			}
			visit(i, false)
			next = i + 1
		}
	}
	n, nc, size := 0, 0, 0
	each(func(i int, context bool) {
		if context {
			nc++
		} else {
			n++
		}
		size += len(recs.at(i))
	})
	if n == 0 {
		return nil, nil
	}
	// The blob content is cached and shared: the lines get their own
	// copy, so that a consumer may modify them.
	buf := make([]byte, 0, size)
	f.Lines = make([]scanner.Line, 0, n)
	if nc > 0 {
		f.Context = make([]scanner.Line, 0, nc)
	}
	marked := false // an added line carries an allow marker
	each(func(i int, context bool) {
		t := lineText(recs.at(i))
		start := len(buf)
		buf = append(buf, t...)
		l := scanner.Line{Number: i + 1, Text: buf[start:len(buf):len(buf)]}
		if context {
			f.Context = append(f.Context, l)
			return
		}
		f.Lines = append(f.Lines, l)
		marked = marked || bytes.Contains(t, allowMarker)
	})
	if orecs.n() > 0 && marked {
		f.BaseMarkers = baseMarkers(f, orecs, removed, added)
	}
	return f, nil
}

var allowMarker = []byte(scanner.AllowMarker)

// baseMarkers finds, for each added line of f that carries a marker, the
// lines removed in the same hunk that carry one too (the base side of a
// marker the change did not add).
func baseMarkers(f *scanner.Fragment, orecs records, removed, added []bool) map[int][][]byte {
	// Lines holds the added records in order: map record index -> line.
	lineOf := make(map[int]int)
	for li, l := range f.Lines {
		if bytes.Contains(l.Text, allowMarker) {
			lineOf[l.Number-1] = li
		}
	}
	pairs := hunkRemoved(removed, added, orecs.n(), func(k int) bool { _, ok := lineOf[k]; return ok })
	var out map[int][][]byte
	for k, olds := range pairs {
		var base [][]byte
		for _, o := range olds {
			if t := lineText(orecs.at(o)); bytes.Contains(t, allowMarker) {
				base = append(base, bytes.Clone(t))
			}
		}
		if len(base) > 0 {
			if out == nil {
				out = map[int][][]byte{}
			}
			out[lineOf[k]] = base
		}
	}
	return out
}

// wholeFragment returns a fragment holding every line of b, or a skipped
// fragment, or nil for empty content.
func wholeFragment(kind finding.Kind, path string, b []byte) *scanner.Fragment {
	if len(b) == 0 {
		return nil
	}
	f := &scanner.Fragment{Kind: kind, Path: path}
	switch {
	case isLFSPointer(b):
		f.Skipped = finding.SkipLFS
	case isBinary(b):
		f.Skipped = finding.SkipBinary
	default:
		recs := splitRecords(b)
		f.Lines = make([]scanner.Line, len(recs))
		for i, r := range recs {
			f.Lines[i] = scanner.Line{Number: i + 1, Text: lineText(r)}
		}
	}
	return f
}

// messageFragment returns a commit message as a fragment.
func messageFragment(commit, msg string) *scanner.Fragment {
	f := wholeFragment(finding.KindCommitMessage, "", []byte(msg))
	if f == nil {
		return nil
	}
	f.Commit = commit
	if f.Skipped != finding.SkipNone {
		// A message is text whatever its bytes; scan every line.
		f.Skipped = finding.SkipNone
		recs := splitRecords([]byte(msg))
		for i, r := range recs {
			f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: lineText(r)})
		}
	}
	return f
}
