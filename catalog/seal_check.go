package catalog

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"sync/atomic"
)

// sealChecker checks the pages of a sealed catalog's arrays against their
// tags the first time a lookup reads them, so that a load does not read
// the whole file and a lookup never uses a byte that was not checked. A
// page that fails its check reads as absent (no finding is drawn from it)
// and is remembered: Matcher.IntegrityErr reports it. Safe for concurrent
// use: two lookups may check the same page at once, which is harmless.
type sealChecker struct {
	data []byte // the file
	base uint64 // the arrays' start: page p is data[base+p*sealPageSize:]
	end  uint64 // the arrays' end
	tags []byte // sealTagSize bytes per page
	key  [32]byte
	done []atomic.Uint64 // bit p: page p checked and good
	bad  []atomic.Uint64 // bit p: page p checked and damaged
	// damaged is set once a page fails its check.
	damaged atomic.Bool
}

// newSealChecker returns the checker of the arrays data[base:end], whose
// page tags are tags (len checked by the caller). With trust, every page
// counts as checked (FuzzParseSealed, which cannot forge tags, looks at
// what the lookups do with any content).
func newSealChecker(data []byte, base, end uint64, tags []byte, key [32]byte, trust bool) *sealChecker {
	pages := (end - base + sealPageSize - 1) / sealPageSize
	words := (pages + 63) / 64
	c := &sealChecker{data: data, base: base, end: end, tags: tags, key: key,
		done: make([]atomic.Uint64, words), bad: make([]atomic.Uint64, words)}
	if trust {
		for i := range c.done {
			c.done[i].Store(^uint64(0))
		}
	}
	return c
}

// ok reports whether the page holding byte rel of the arrays (an offset
// from base) is good, checking it if it was not yet.
func (c *sealChecker) ok(rel uint64) bool {
	p := rel >> sealPageLog
	return c.done[p>>6].Load()&(1<<(p&63)) != 0 || c.check(p)
}

// check checks page p against its tag.
func (c *sealChecker) check(p uint64) bool {
	bit := uint64(1) << (p & 63)
	if c.bad[p>>6].Load()&bit != 0 {
		return false
	}
	from := c.base + p*sealPageSize
	to := min(from+sealPageSize, c.end)
	h := hmac.New(sha256.New, c.key[:])
	var pn [8]byte
	binary.LittleEndian.PutUint64(pn[:], p)
	h.Write(pn[:])
	h.Write(c.data[from:to])
	var sum [sha256.Size]byte
	if !hmac.Equal(h.Sum(sum[:0])[:sealTagSize], c.tags[p*sealTagSize:(p+1)*sealTagSize]) {
		c.bad[p>>6].Or(bit)
		c.damaged.Store(true)
		return false
	}
	c.done[p>>6].Or(bit)
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
	for _, p := range m.parts {
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
	for _, p := range m.parts {
		p.CheckIntegrity()
	}
	if c := m.sealChk; c != nil {
		c.okRange(c.base, c.end-c.base)
	}
	return m.IntegrityErr()
}
