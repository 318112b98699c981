package catalog

import (
	"crypto/cipher"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// sealChecker decrypts and authenticates the pages of a sealed catalog's
// arrays into memory (plain) the first time a lookup reads them, so that
// a load does not read the whole file, a lookup never uses a byte that was
// not authenticated, and nothing is read from the file after that: a file
// changed or truncated under its mapping later cannot change what a
// checked page says. A page that fails (its tag does not match, or the
// file no longer has it: the read faults) reads as absent (all zero: no
// finding is drawn from it) and is remembered: Matcher.IntegrityErr
// reports it. Safe for concurrent use.
type sealChecker struct {
	data  []byte // the file (a mapping): read only to decrypt a page
	base  uint64 // the arrays' start: page p is data[base+p*sealPageSize:]
	end   uint64 // the arrays' end
	tags  []byte // sealTagSize bytes per page: a copy on the heap (version 3, whose mac covers them) or the file's (version 5)
	aead  cipher.AEAD
	plain []byte // the arrays, decrypted page by page (8-byte aligned; allocPlain)
	// release frees plain: once, when nothing reads it any more (the
	// Matcher's cleanup).
	release func()
	done    []atomic.Uint64 // bit p: page p decrypted and good
	bad     []atomic.Uint64 // bit p: page p checked and damaged
	locks   [64]sync.Mutex  // by page: one goroutine decrypts a page
	// damaged is set once a page fails its check.
	damaged atomic.Bool
}

// newSealChecker returns the checker of the arrays data[base:end], whose
// page tags are tags (len checked by the caller), encrypted under aead.
// With trust (aead nil), the arrays are taken as they are, unencrypted,
// and every page counts as checked (FuzzParseSealed, which cannot forge
// tags, looks at what the lookups do with any content).
func newSealChecker(data []byte, base, end uint64, tags []byte, aead cipher.AEAD, trust bool) *sealChecker {
	pages := (end - base + sealPageSize - 1) / sealPageSize
	words := (pages + 63) / 64
	plain, release := allocPlain(end - base)
	c := &sealChecker{data: data, base: base, end: end, tags: tags, aead: aead, plain: plain, release: release,
		done: make([]atomic.Uint64, words), bad: make([]atomic.Uint64, words)}
	if trust {
		copy(c.plain, data[base:end])
		for i := range c.done {
			c.done[i].Store(^uint64(0))
		}
	}
	return c
}

// minMappedPlain is the size from which allocPlain maps the decrypted
// tables instead of taking them from the heap.
const minMappedPlain = 1 << 20

// heapPlain returns n zero bytes, 8-byte aligned, on the heap.
func heapPlain(n uint64) []byte {
	buf := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*8)[:n]
}

// ok reports whether the page holding byte rel of the arrays (an offset
// from base) is good, decrypting it if it was not yet.
func (c *sealChecker) ok(rel uint64) bool {
	p := rel >> sealPageLog
	return c.done[p>>6].Load()&(1<<(p&63)) != 0 || c.check(p)
}

// check decrypts page p into plain and authenticates it against its tag.
func (c *sealChecker) check(p uint64) bool {
	bit := uint64(1) << (p & 63)
	mu := &c.locks[p&63]
	mu.Lock()
	defer mu.Unlock()
	if c.done[p>>6].Load()&bit != 0 {
		return true
	}
	if c.bad[p>>6].Load()&bit != 0 {
		return false
	}
	from := c.base + p*sealPageSize
	to := min(from+sealPageSize, c.end)
	ct := make([]byte, 0, sealPageSize+sealTagSize)
	ct, read := copyMapped(ct, c.data[from:to])
	if read {
		ct, read = copyMapped(ct, c.tags[p*sealTagSize:(p+1)*sealTagSize])
	}
	nonce := sealPageNonce(p)
	out := c.plain[from-c.base : from-c.base : to-c.base]
	if !read {
		c.fail(p, bit)
		return false
	}
	if _, err := c.aead.Open(out, nonce[:], ct, nil); err != nil {
		clear(c.plain[from-c.base : to-c.base])
		c.fail(p, bit)
		return false
	}
	c.done[p>>6].Or(bit)
	return true
}

func (c *sealChecker) fail(p, bit uint64) {
	c.bad[p>>6].Or(bit)
	c.damaged.Store(true)
}

// copyMapped appends src, bytes of a file mapping, to dst. A file
// truncated under its mapping makes the read fault (SIGBUS): that is
// reported as read == false, never a crash.
func copyMapped(dst, src []byte) (out []byte, read bool) {
	read = noFault(func() { out = append(dst, src...) })
	if !read {
		out = dst
	}
	return out, read
}

// noFault runs fn, which reads a file mapping, and reports false when a
// read faulted (the file was truncated under the mapping) instead of
// letting the fault kill the process.
func noFault(fn func()) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r) // not a memory fault: a bug, not a truncated file
			}
			ok = false
		}
	}()
	fn()
	return true
}

// okRange checks every page of the file bytes [off, off+n) (within the
// arrays): for the arrays a load uses whole (the prefilter, rule sets).
func (c *sealChecker) okRange(off, n uint64) bool {
	if n == 0 {
		return true
	}
	good := true
	for p := (off - c.base) >> sealPageLog; p <= (off+n-1-c.base)>>sealPageLog; p++ {
		if c.done[p>>6].Load()&(1<<(p&63)) == 0 && !c.check(p) {
			good = false
		}
	}
	return good
}

// IntegrityErr reports whether a lookup of m (or of a catalog combined in
// it) met a page of a sealed catalog that fails its integrity check: such
// a page reads as absent, so no finding comes from it, but the file is
// damaged or was modified and should be sealed again. It is nil for a
// catalog that is not sealed and for an intact one.
func (m *Matcher) IntegrityErr() error {
	for _, p := range slices.Concat(m.parts, m.set) {
		if err := p.IntegrityErr(); err != nil {
			return err
		}
	}
	if m.sealChk != nil && m.sealChk.damaged.Load() {
		return sealedErr("integrity check failed: a page of the tables is damaged or was modified")
	}
	return nil
}

// CheckIntegrity checks every page of the tables of m (and of the sealed
// catalogs combined in it) now, instead of when a lookup first reads it,
// and reports damage as IntegrityErr does. Its cost grows with the tables:
// for uses where a value hidden by a damaged page would be a leak rather
// than a missed finding (redaction, whose output holds what it does not
// find).
func (m *Matcher) CheckIntegrity() error {
	for _, p := range slices.Concat(m.parts, m.set) {
		p.CheckIntegrity()
	}
	if c := m.sealChk; c != nil {
		c.okRange(c.base, c.end-c.base)
	}
	runtime.KeepAlive(m) // its cleanup frees what okRange writes
	return m.IntegrityErr()
}
