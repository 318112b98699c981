// Sealed catalogs in parts (docs/catalog.md, "Catalogs in parts"): a table
// too large for one sealed file, or for the memory of one seal, is sealed
// in parts of at most PartRows rows, each a sealed file of its own (own
// salt, same seal key) whose header binds it to its set: a random set ID,
// its index and the part count, covered by the file's MAC. The loader
// joins the parts into one catalog (JoinSealed) and refuses a missing,
// extra, swapped or foreign part.

package catalog

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// Header fields of a part, in bytes that a whole catalog leaves zero (so
// that a privscan without parts refuses a part rather than load it alone).
const (
	sealHdrPart  = sealHdrReserved  // u16 part index (1-based), u16 part count
	sealHdrSetID = sealHdrReserved2 // [8]byte: the random ID of the set
)

// DefaultPartRows is the most rows a part of a table sealed in parts holds
// by default: with a few columns, a part's file stays well under
// MaxSealedSize and its seal under 2 GB of memory.
const DefaultPartRows = 10_000_000

// MaxParts is the most parts a sealed catalog may have.
const MaxParts = 1<<16 - 1

// maxPartValues is the most values a part holds whatever its row count: at
// about 40 bytes of file per value (tables and record arrays), a part stays
// under MaxSealedSize.
const maxPartValues = 1 << 25

// maxPartValueBytes is the most bytes of values a part holds in memory.
const maxPartValueBytes = 1 << 30

// partHeader binds a part to its set.
type partHeader struct {
	setID        [8]byte
	index, count int
}

func (p *partHeader) put(hdr []byte) {
	binary.LittleEndian.PutUint16(hdr[sealHdrPart:], uint16(p.index))
	binary.LittleEndian.PutUint16(hdr[sealHdrPart+2:], uint16(p.count))
	copy(hdr[sealHdrSetID:sealHdrSetID+8], p.setID[:])
}

// readPartHeader reads the part fields of a checked header: nil for a whole
// catalog, an error when they are inconsistent.
func readPartHeader(hdr []byte) (*partHeader, error) {
	p := &partHeader{index: int(binary.LittleEndian.Uint16(hdr[sealHdrPart:])), count: int(binary.LittleEndian.Uint16(hdr[sealHdrPart+2:]))}
	copy(p.setID[:], hdr[sealHdrSetID:sealHdrSetID+8])
	var zero [8]byte
	if p.index == 0 && p.count == 0 && p.setID == zero {
		return nil, nil
	}
	if p.count < 2 || p.index < 1 || p.index > p.count || p.setID == zero {
		return nil, sealedErr("part header is inconsistent")
	}
	return p, nil
}

// PartName returns the file name of part i (from 1) of the sealed catalog
// named name: name itself for the first, else name with ".partI" before
// its ".sealed" suffix (people.sealed, people.part2.sealed, ...), so that
// every part keeps the suffix privscan reads sealed catalogs by.
func PartName(name string, i int) string {
	if i <= 1 {
		return name
	}
	base, ext := name, ""
	if n := len(name) - len(".sealed"); n >= 0 && strings.EqualFold(name[n:], ".sealed") {
		base, ext = name[:n], name[n:]
	}
	return base + ".part" + strconv.Itoa(i) + ext
}

// PartFile is where SealTable writes a part: written in order, then its
// header rewritten in place once the part count is known.
type PartFile interface {
	io.Writer
	io.ReaderAt
	io.WriterAt
}

// SealTableOptions tunes SealTable. A nil *SealTableOptions means the
// defaults.
type SealTableOptions struct {
	Table *TableOptions
	// Rand is the source of salts, nonces and the set ID; nil: crypto/rand.
	Rand io.Reader
	// PartRows is the most rows of a part; 0: DefaultPartRows.
	PartRows int
}

// SealTableResult describes what SealTable wrote: no value.
type SealTableResult struct {
	Parts    int     // files written: part i is create(i), i from 1
	Sizes    []int64 // their sizes
	PartRows []int   // the table rows of each part
	Rules    []Rule  // the rules (value-free copies: IDs, settings, no values)
	Values   []int   // the value count of each rule, over every part
}

// SealTable reads the table r with schema s (as ReadTable) and seals it
// with sealKey as Seal does, streaming: the values of at most PartRows rows
// (and at most a few tens of millions of values) are held at a time, and
// each such part is sealed, written to create(i) and freed before the next
// is read. A table that fits in one part is sealed to create(1) exactly as
// Seal seals ReadTable's catalog. Otherwise part i is written to create(i)
// and, once the table is read, each part's header is rewritten in place
// with the part count and the catalog's fingerprint key (the table's
// digest's when the schema has none) and its MAC computed again. On error
// the files created may hold partial parts: remove them.
func SealTable(r io.Reader, s *Schema, sealKey []byte, opts *SealTableOptions, create func(i int) (PartFile, error)) (*SealTableResult, *TableReport, error) {
	if len(sealKey) != SealKeySize {
		return nil, nil, fmt.Errorf("seal: the seal key must be %d bytes", SealKeySize)
	}
	var o SealTableOptions
	if opts != nil {
		o = *opts
	}
	if o.PartRows <= 0 {
		o.PartRows = DefaultPartRows
	}
	rnd := io.Reader(rand.Reader)
	if o.Rand != nil {
		rnd = o.Rand
	}
	sopts := &SealOptions{Rand: rnd}
	res := &SealTableResult{}
	var ph partHeader
	if _, err := io.ReadFull(rnd, ph.setID[:]); err != nil {
		return nil, nil, fmt.Errorf("seal: random set ID: %w", err)
	}
	if ph.setID == [8]byte{} {
		ph.setID[0] = 1
	}
	var files []PartFile
	t := &tableReader{s: s, partRows: o.PartRows, partValueBytes: maxPartValueBytes, partValueCap: maxPartValues}
	addRules := func(c *Catalog, first bool) {
		for i := range c.Rules {
			if first {
				r := c.Rules[i]
				r.Values, r.ValueLines = nil, nil
				res.Rules = append(res.Rules, r)
				res.Values = append(res.Values, 0)
			}
			res.Values[i] += len(c.Rules[i].Values)
		}
	}
	sealPart := func(rows int) error {
		if len(files) == MaxParts {
			return fmt.Errorf("seal: more than %d parts: raise --part-rows", MaxParts)
		}
		c := t.catalog(true)
		if s.FingerprintKey == nil {
			c.FingerprintKey = make([]byte, 32) // rewritten once the digest is known
		}
		f, err := create(len(files) + 1)
		if err != nil {
			return err
		}
		p := ph
		p.index = len(files) + 1
		size, err := seal(f, c, sealKey, sopts, &p)
		if err != nil {
			return err
		}
		addRules(c, len(files) == 0)
		files = append(files, f)
		res.Sizes = append(res.Sizes, int64(size))
		res.PartRows = append(res.PartRows, rows)
		// The part's tables are garbage now: collect them and hand the
		// memory back before the next part is read, so that the peak is
		// one part's, not one part's plus the last one's garbage.
		debug.FreeOSMemory()
		return nil
	}
	t.flush = func() error { return sealPart(t.rep.Rows - 1 - t.partStart) }
	if err := t.read(r, o.Table); err != nil {
		return nil, &t.rep, err
	}
	if len(files) == 0 {
		// One part: a whole catalog, as Seal writes it.
		c := t.catalog(false)
		if t.digest != nil {
			t.digest.Sum(c.Digest[:0])
		}
		f, err := create(1)
		if err != nil {
			return nil, &t.rep, err
		}
		size, err := seal(f, c, sealKey, sopts, nil)
		if err != nil {
			return nil, &t.rep, err
		}
		addRules(c, true)
		res.Parts, res.Sizes, res.PartRows = 1, []int64{int64(size)}, []int{t.rep.Rows}
		return res, &t.rep, nil
	}
	if t.partValues > 0 {
		if err := sealPart(t.rep.Rows - t.partStart); err != nil {
			return nil, &t.rep, err
		}
	} else {
		// The last rows hold no value: they count with the last part.
		res.PartRows[len(res.PartRows)-1] += t.rep.Rows - t.partStart
	}
	fp := s.FingerprintKey
	if fp == nil {
		var c Catalog
		t.digest.Sum(c.Digest[:0])
		fp = fingerprintKeyOf(&c)
	}
	for i, f := range files {
		if err := finishPart(f, uint64(res.Sizes[i]), sealKey, len(files), fp, rnd); err != nil {
			return nil, &t.rep, err
		}
	}
	res.Parts = len(files)
	return res, &t.rep, nil
}

// finishPart rewrites the header of a part written by seal: the part count,
// the fingerprint key fp (under a new nonce) and the MAC.
func finishPart(f PartFile, size uint64, sealKey []byte, count int, fp []byte, rnd io.Reader) error {
	hdr := make([]byte, sealHeaderSize)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return fmt.Errorf("seal: rereading a part: %w", err)
	}
	arrOff, tagOff := sealedRegions(hdr)
	if arrOff > size || tagOff > size-sealMACSize || binary.LittleEndian.Uint64(hdr[sealHdrFileSize:]) != size {
		return errors.New("seal: a part changed while it was written")
	}
	head := make([]byte, arrOff)
	if _, err := f.ReadAt(head, 0); err != nil {
		return fmt.Errorf("seal: rereading a part: %w", err)
	}
	var tags []byte
	if sealMACsTags(binary.LittleEndian.Uint32(head[sealHdrVersion:])) {
		tags = make([]byte, size-sealMACSize-tagOff)
		if _, err := f.ReadAt(tags, int64(tagOff)); err != nil {
			return fmt.Errorf("seal: rereading a part: %w", err)
		}
	}
	keys := deriveSealKeys(sealKey, head[sealHdrSalt:sealHdrSalt+sealSaltSize])
	binary.LittleEndian.PutUint16(head[sealHdrPart+2:], uint16(count))
	if _, err := io.ReadFull(rnd, head[sealHdrNonce:sealHdrNonce+12]); err != nil {
		return fmt.Errorf("seal: random nonce: %w", err)
	}
	aead, err := newSealAEAD(&keys)
	if err != nil {
		return err
	}
	aead.Seal(head[sealHdrFPKey:sealHdrFPKey], head[sealHdrNonce:sealHdrNonce+12], fp, sealAAD(head[:sealHeaderSize]))
	mac := hmac.New(sha256.New, keys.mac[:])
	mac.Write(head)
	mac.Write(tags)
	if _, err := f.WriteAt(head[:sealHeaderSize], 0); err != nil {
		return fmt.Errorf("seal: rewriting a part's header: %w", err)
	}
	if _, err := f.WriteAt(mac.Sum(nil), int64(size-sealMACSize)); err != nil {
		return fmt.Errorf("seal: rewriting a part's header: %w", err)
	}
	return nil
}

// JoinSealed joins the parts of a sealed catalog in parts, loaded in order
// (ms[i], ss[i] is part i+1, each loaded with OpenSealedPart or
// LoadSealedPart), into one catalog: the rules of the parts (every part
// has the same), the matches of every part with a match found by two parts
// reported once, the record identifiers of every part. One whole catalog
// is returned unchanged. A missing, extra, swapped or foreign part is
// ErrSealedInvalid.
func JoinSealed(ms []*Matcher, ss []*Sealed) (*Matcher, *Sealed, error) {
	if len(ms) == 0 || len(ms) != len(ss) {
		return nil, nil, errors.New("join sealed: no part")
	}
	first := ss[0].part
	if first == nil {
		if len(ms) != 1 {
			return nil, nil, sealedErr("a whole sealed catalog joined with others")
		}
		return ms[0], ss[0], nil
	}
	if first.index != 1 {
		return nil, nil, sealedErr("the file is part %d of a sealed catalog in %d parts, not its first: name the first part", first.index, first.count)
	}
	if len(ms) != first.count {
		return nil, nil, sealedErr("%d parts of a sealed catalog in %d parts", len(ms), first.count)
	}
	join := &Matcher{rules: ms[0].rules, modes: ms[0].modes, fpKey: ms[0].fpKey, rec: ms[0].rec, set: ms}
	out := &Sealed{Version: ss[0].Version, Parts: first.count}
	out.Rules = slices.Clone(ss[0].Rules)
	for i, s := range ss {
		p := s.part
		if p == nil || subtle.ConstantTimeCompare(p.setID[:], first.setID[:]) != 1 || p.count != first.count {
			return nil, nil, sealedErr("part %d belongs to another sealed catalog (sealed apart from the first part): seal the table again", i+1)
		}
		if p.index != i+1 {
			return nil, nil, sealedErr("the file in the place of part %d is part %d: parts were renamed", i+1, p.index)
		}
		m := ms[i]
		if m.fpKey != join.fpKey || !sameRules(ms[0], m) {
			return nil, nil, sealedErr("part %d does not have the rules of the first part", i+1)
		}
		out.Size += s.Size
		if i > 0 {
			for k := range out.Rules {
				out.Rules[k].Values += s.Rules[k].Values
			}
		}
	}
	return join, out, nil
}

// sameRules reports whether a and b have the same rules and record rules.
func sameRules(a, b *Matcher) bool {
	if !slices.Equal(a.rules, b.rules) || !slices.Equal(a.modes, b.modes) || (a.rec == nil) != (b.rec == nil) {
		return false
	}
	for i := range a.rec {
		x, y := a.rec[i], b.rec[i]
		if (x == nil) != (y == nil) {
			return false
		}
		if x != nil && (x.Within != y.Within || x.Hidden != y.Hidden || x.Uncorroborated != y.Uncorroborated || !slices.Equal(x.By, y.By)) {
			return false
		}
	}
	return true
}

// findSet is Find for the parts of one catalog: the matches of every part,
// in Find's order, each (rule, span) once and, within a rule, a match
// contained in another dropped, as one Matcher of all the values does.
func (m *Matcher) findSet(line []byte, dst []Match) []Match {
	base := len(dst)
	hits := 0
	for _, p := range m.set {
		n := len(dst)
		dst = p.Find(line, dst)
		if len(dst) > n {
			hits++
		}
	}
	if hits < 2 {
		return dst
	}
	// A value in two parts matches twice: finishMatches keeps each (rule,
	// span) once and drops, per rule, a match contained in another.
	return finishMatches(dst, base)
}

// recordsSet is Records for the parts of one catalog: the identifiers of
// every part (a row is in one part only).
func (m *Matcher) recordsSet(i int, text []byte, dst []uint64) []uint64 {
	for _, p := range m.set {
		dst = p.Records(i, text, dst)
	}
	return dst
}
