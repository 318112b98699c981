package catalog

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"unsafe"
)

// A sealed catalog (docs/catalog.md, "Sealed catalogs") is a compiled
// Matcher written to a file: the keyed hash tables, Bloom filters and
// prefilter of its literal and identifier rules, the rules' value-free
// metadata, and the catalog's fingerprint key encrypted under the seal key.
// It holds no value in any form that can be recovered or confirmed without
// the seal key.
//
// Layout (every integer little-endian):
//
//	header      sealHeaderSize bytes (see the sealHdr* offsets)
//	meta        rule metadata and the matcher's scalars (sealMeta)
//	directory   sealArrays entries of 24 bytes: id u32, elem size u32,
//	            offset u64, count u64
//	arrays      the tables and bitsets, each at a 64-byte aligned offset,
//	            so that a loader can use them in place from a mapping
//	            — encrypted: each page of sealPageSize bytes (the last may
//	            be short) is AES-256-GCM ciphertext under the file's page
//	            key, with the page number as nonce (u64, then 4 zero
//	            bytes)
//	page tags   the GCM tag (sealTagSize bytes) of each page, in order
//	mac         HMAC-SHA256 of the header, meta, directory (with their
//	            padding: every byte before the arrays), then, in version
//	            3 only, of the page tags (32 bytes)
//
// A loader checks the mac and decrypts and authenticates a page of the
// arrays, with its tag, into memory the first time a lookup reads it
// (sealChecker), so a load does not read the whole file, and no lookup
// reads the file itself after that. In version 5 the mac leaves the page
// tags out: each tag is authenticated with its page by AES-GCM, under a
// key of the file's own (from its salt) and the page number as nonce, so
// a tag or page that is changed, moved or taken from another file fails
// there as surely as under the mac, and the load reads no tag at all: its
// cost does not grow with the file. Version 3 macs the tags too (1/256 of
// the arrays, read at every load), as privscan wrote it before.
//
// Every value-derived byte of the file is in the arrays, so what a file
// without the key shows of its values is AES ciphertext (a keyed PRF's
// output XORed with the tables): the fast hashes the scan loop uses
// (murmur3's finalizer, FNV chains, the multiply-shift prefilter) are
// never stored in clear. The rest (header, rule metadata, directory,
// tags) holds rule IDs, categories, descriptions, settings, value counts
// per rule and array sizes, nothing computed from a value's content.
// Every key comes from the 256-bit seal key and the file's random salt
// through HMAC-SHA256 with a distinct label (sealKeys): the hash key of the
// tables (so the same catalog sealed twice shares no hash), a key check
// (so a wrong key is told apart from a damaged file), the integrity keys
// (of the mac), the AES-256-GCM key of the arrays' pages and the one of
// the fingerprint key.

// SealKeySize is the size of a seal key in bytes (256 bits).
const SealKeySize = 32

// MaxSealedSize is the largest sealed catalog loaded: 2 GiB.
const MaxSealedSize = 2 << 30

// SealVersion is the newest format version Seal writes and LoadSealed
// reads: 5, with record rules (record.go), and a mac that leaves the page
// tags out. A catalog without record rules (every Markdown catalog) is
// written as version 3, byte for byte as before, so that an older privscan
// still reads it; LoadSealed reads both.
const SealVersion = 5

// sealVersionNoRecords is the version of a sealed catalog without record
// rules: no record arrays, no record metadata, page tags under the mac.
const sealVersionNoRecords = 3

// sealMACsTags reports whether the mac of a file of version v covers its
// page tags.
func sealMACsTags(v uint32) bool { return v == sealVersionNoRecords }

// sealVersionRecordsV4 was version 5 with the page tags under the mac, as
// a development build of privscan wrote it: no longer read (seal again).
const sealVersionRecordsV4 = 4

// MatcherVersion names what a catalog compiles to (the tokenizer, the
// hashes, the table layout). Bump it with any change that makes the same
// catalog compile to other tables without a new SealVersion: caches of
// compiled catalogs are keyed by it.
const MatcherVersion = 1

// sealMagic starts every sealed catalog.
var sealMagic = [8]byte{'P', 'R', 'I', 'V', 'S', 'E', 'A', 'L'}

// Header layout.
const (
	sealHdrMagic     = 0   // [8]byte
	sealHdrVersion   = 8   // u32
	sealHdrSize      = 12  // u32: sealHeaderSize
	sealHdrFileSize  = 16  // u64
	sealHdrSalt      = 24  // [16]byte
	sealHdrKeyCheck  = 40  // [32]byte
	sealHdrNonce     = 72  // [12]byte
	sealHdrFPKey     = 84  // [48]byte: the fingerprint key, sealed (AES-256-GCM)
	sealHdrMetaOff   = 136 // u64
	sealHdrMetaLen   = 144 // u64
	sealHdrDirOff    = 152 // u64
	sealHdrDirCount  = 160 // u32
	sealHdrReserved  = 164 // u32: zero
	sealHdrArrOff    = 168 // u64: the arrays' start (sealAlign aligned)
	sealHdrTagOff    = 176 // u64: the page tags' start, the arrays' end
	sealHdrReserved2 = 184 // zero up to sealHeaderSize
	sealHeaderSize   = 192
	sealSaltSize     = 16
	sealMACSize      = sha256.Size
	sealAlign        = 64
	sealDirEntrySize = 24
	sealPageLog      = 12
	sealPageSize     = 1 << sealPageLog
	sealTagSize      = 16
)

// The arrays of a sealed catalog, by directory id.
const (
	arrLitFirst = iota
	arrLitPrefix
	arrLitFull
	arrLitKeys
	arrLitVals
	arrCSKeys
	arrCSVals
	arrIDFirst
	arrIDPrefix
	arrIDFull
	arrIDKeys
	arrIDVals
	arrPre
	arrSubPrefix
	arrSubFull
	arrSubFoldKeys
	arrSubFoldVals
	arrSubExactKeys
	arrSubExactVals
	arrMultiOff
	arrMultiRules
	// arrScalars holds the matcher's scalars that come from values: the
	// longest literal, identifier and substring value (in tokens or
	// characters), then the separators that start a literal value (a
	// 128-bit set, two words): encrypted with the arrays, not in the
	// metadata.
	arrScalars
	// sealArraysV3 is the array count of a version 3 file.
	sealArraysV3
	// arrRecKeys and arrRecIDs (version 5) are the record arrays: a keyed
	// hash of (rule, normalised value) per (value, row) pair, sorted, and
	// the pair's keyed row identifier (record.go).
	arrRecKeys = sealArraysV3
	arrRecIDs  = sealArraysV3 + 1
	sealArrays = sealArraysV3 + 2
)

// sealScalars is the length of arrScalars.
const sealScalars = 5

// sealArrayElem is the element size of each array.
var sealArrayElem = [sealArrays]uint32{
	arrLitFirst: 8, arrLitPrefix: 8, arrLitFull: 8, arrLitKeys: 8, arrLitVals: 4,
	arrCSKeys: 8, arrCSVals: 4,
	arrIDFirst: 8, arrIDPrefix: 8, arrIDFull: 8, arrIDKeys: 8, arrIDVals: 4,
	arrPre:       8,
	arrSubPrefix: 8, arrSubFull: 8, arrSubFoldKeys: 8, arrSubFoldVals: 4, arrSubExactKeys: 8, arrSubExactVals: 4,
	arrMultiOff: 4, arrMultiRules: 4,
	arrScalars: 8,
	arrRecKeys: 8, arrRecIDs: 8,
}

// Bits of the meta flags.
const (
	sealHasLit = 1 << iota
	sealHasCS
	sealHasID
	sealHasSub
	sealSubHasCS
)

// Bits of a sealed rule's flags.
const (
	sealRuleCS = 1 << iota
	sealRuleNoBoundary
)

// ErrSealKeyWrong is returned (wrapped) by LoadSealed when the seal key
// given is not the key the catalog was sealed with.
var ErrSealKeyWrong = errors.New("the seal key does not open this sealed catalog")

// ErrSealedInvalid is returned (wrapped, with a value-free reason) by
// LoadSealed for a file that is not a sealed catalog this version reads,
// or that is damaged.
var ErrSealedInvalid = errors.New("invalid sealed catalog")

// SealRegexError is returned by Seal for a regex rule, which cannot be
// sealed: keep regex rules in a Markdown catalog combined with the sealed
// one.
type SealRegexError struct{ ID string }

func (e *SealRegexError) Error() string {
	return "rule " + e.ID + ": regex rules cannot be sealed; keep them in a Markdown catalog combined with the sealed one"
}

// SealedRule is the value-free description of a sealed catalog's rule.
type SealedRule struct {
	RuleInfo
	Match         MatchKind
	CaseSensitive bool
	NoBoundary    bool
	// Values is the number of values the rule had when it was sealed.
	Values int
	// Record is the rule's part in record rules (format 5), or nil.
	Record *RecordRule
}

// Sealed describes a loaded sealed catalog; it holds no value.
type Sealed struct {
	Version int
	Size    int64 // of every part
	Rules   []SealedRule
	// Parts is the number of files of a catalog sealed in parts
	// (SealTable), 0 for a whole one; Part is the index (from 1) of a part
	// loaded alone (LoadSealedPart), 0 once joined.
	Parts, Part int

	part *partHeader // of a part loaded alone

	regex []byte // encrypted regex patterns, until LoadSealed compiles them
}

// Counts returns the number of rules and values, in total, per category
// and per severity, as Catalog.Counts does for a Markdown catalog.
func (s *Sealed) Counts() Counts {
	if s == nil {
		return Counts{}
	}
	return countRules(len(s.Rules), func(i int) (string, Severity, int) {
		r := &s.Rules[i]
		return r.Category, r.Severity, r.Values
	})
}

// SealOptions tunes Seal. A nil *SealOptions means the defaults.
type SealOptions struct {
	// Rand is the source of the salt and nonces; nil: crypto/rand.
	Rand io.Reader
	// Regex seals regex rules too instead of refusing them: their patterns
	// are kept encrypted under the seal key (AES-256-GCM) and compiled when
	// the file is loaded. The compiled-catalog cache, whose key stays
	// beside it, uses it; "privscan catalog seal" does not, so a sealed file
	// meant to travel holds no pattern at all.
	Regex bool
}

// sealKeys are the keys of one sealed file.
type sealKeys struct {
	hash, check, mac, page, aead, regex [32]byte
	rec                                 recordKeys
}

func deriveSealKeys(sealKey, salt []byte) sealKeys {
	one := func(label string) (out [32]byte) {
		h := hmac.New(sha256.New, sealKey)
		h.Write([]byte("privscan/sealed/v1/" + label + "\x00"))
		h.Write(salt)
		h.Sum(out[:0])
		return out
	}
	return sealKeys{hash: one("hash-key"), check: one("key-check"), mac: one("mac"), page: one("page-aead"), aead: one("fingerprint-key"),
		regex: one("regex-rules"), rec: recordKeys{field: one("record-field"), row: one("record-id")}}
}

// littleEndian reports whether the host stores integers little-endian, so
// that the arrays of a sealed file are used in place.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Seal compiles the literal and identifier rules of c and writes them to w
// as a sealed catalog keyed by sealKey (SealKeySize random bytes). A regex
// rule is a *SealRegexError naming it, unless opts.Regex; c must have at
// least one rule.
// Compile errors are returned as Compile returns them (value-free). The
// fingerprint key of the sealed catalog is c's, so its findings have the
// fingerprints of c's.
func Seal(w io.Writer, c *Catalog, sealKey []byte, opts *SealOptions) error {
	_, err := seal(w, c, sealKey, opts, nil)
	return err
}

// seal is Seal, of part p of a catalog in parts when p is not nil; it
// returns the file's size.
func seal(w io.Writer, c *Catalog, sealKey []byte, opts *SealOptions, p *partHeader) (uint64, error) {
	if len(sealKey) != SealKeySize {
		return 0, fmt.Errorf("seal: the seal key must be %d bytes", SealKeySize)
	}
	if c == nil || len(c.Rules) == 0 {
		return 0, errors.New("seal: the catalog has no rule")
	}
	hasRegex := false
	for i := range c.Rules {
		if c.Rules[i].Match == MatchRegex {
			if opts == nil || !opts.Regex {
				return 0, &SealRegexError{ID: c.Rules[i].ID}
			}
			hasRegex = true
		}
	}
	rnd := io.Reader(rand.Reader)
	if opts != nil && opts.Rand != nil {
		rnd = opts.Rand
	}
	var salt [sealSaltSize]byte
	var nonce [12]byte
	var keys sealKeys
	var m *Matcher
	for attempt := 0; ; attempt++ {
		if _, err := io.ReadFull(rnd, salt[:]); err != nil {
			return 0, fmt.Errorf("seal: random salt: %w", err)
		}
		if _, err := io.ReadFull(rnd, nonce[:]); err != nil {
			return 0, fmt.Errorf("seal: random nonce: %w", err)
		}
		keys = deriveSealKeys(sealKey, salt[:])
		var err error
		if m, err = Compile(c, &CompileOptions{HashKey: keys.hash[:], compact: true, recKeys: &keys.rec}); err != nil {
			return 0, err
		}
		if m.packTables() {
			break
		}
		// Two keys of a table agree in the bits a packed table keeps:
		// another salt gives other hashes.
		if attempt == 3 {
			return 0, errors.New("seal: hash tables cannot be packed (repeated key collisions)")
		}
	}
	counts := make([]int, len(c.Rules))
	noBoundary := make([]bool, len(c.Rules))
	for i := range c.Rules {
		counts[i] = len(c.Rules[i].Values)
		noBoundary[i] = c.Rules[i].NoBoundary
	}
	var regex []byte
	if hasRegex {
		var err error
		if regex, err = sealRegexRules(c, &keys, salt, rnd); err != nil {
			return 0, err
		}
	}
	return writeSealed(w, m, counts, noBoundary, regex, &keys, salt, nonce, p)
}

// sealRegexRules encrypts the patterns of c's regex rules (SealOptions.Regex):
// a random nonce, then AES-256-GCM under the file's regex key of, for each
// regex rule in order, its index and its values (u32 each, then u32-length
// strings), authenticated with the file's salt.
func sealRegexRules(c *Catalog, keys *sealKeys, salt [sealSaltSize]byte, rnd io.Reader) ([]byte, error) {
	var plain []byte
	u32 := func(v int) { plain = binary.LittleEndian.AppendUint32(plain, uint32(v)) }
	for i := range c.Rules {
		r := &c.Rules[i]
		if r.Match != MatchRegex {
			continue
		}
		u32(i)
		u32(len(r.Values))
		for _, v := range r.Values {
			p := v.reveal()
			u32(len(p))
			plain = append(plain, p...)
		}
	}
	aead, err := newGCM(keys.regex[:])
	if err != nil {
		return nil, err
	}
	out := make([]byte, 12, 12+len(plain)+aead.Overhead())
	if _, err := io.ReadFull(rnd, out); err != nil {
		return nil, fmt.Errorf("seal: random nonce: %w", err)
	}
	out = aead.Seal(out, out[:12], plain, salt[:])
	clear(plain)
	return out, nil
}

// packTables packs m's hash tables (table.pack); false on a collision.
func (m *Matcher) packTables() bool {
	for _, t := range m.tables() {
		if len(t.keys) == 0 {
			continue
		}
		p, ok := t.pack(len(m.rules), len(m.multi))
		if !ok {
			return false
		}
		*t = p
	}
	return true
}

// tables returns m's hash tables in the sealed file's order.
func (m *Matcher) tables() []*table {
	ts := []*table{&m.lit.tab, &m.cs, &m.id.tab}
	if m.sub != nil {
		return append(ts, &m.sub.fold, &m.sub.exact)
	}
	return append(ts, new(table), new(table))
}

// sealArraysOf returns the arrays of m by directory id.
func sealArraysOf(m *Matcher) (u64 [sealArrays][]uint64, u32 [sealArrays][]uint32) {
	u64[arrLitFirst], u64[arrLitPrefix], u64[arrLitFull] = m.lit.first.w, m.lit.prefix.w, m.lit.full.w
	u64[arrLitKeys], u32[arrLitVals] = m.lit.tab.keys, m.lit.tab.vals
	u64[arrCSKeys], u32[arrCSVals] = m.cs.keys, m.cs.vals
	u64[arrIDFirst], u64[arrIDPrefix], u64[arrIDFull] = m.id.first.w, m.id.prefix.w, m.id.full.w
	u64[arrIDKeys], u32[arrIDVals] = m.id.tab.keys, m.id.tab.vals
	u64[arrPre] = m.pre.w
	if s := m.sub; s != nil {
		u64[arrSubPrefix], u64[arrSubFull] = s.prefix.w, s.full.w
		u64[arrSubFoldKeys], u32[arrSubFoldVals] = s.fold.keys, s.fold.vals
		u64[arrSubExactKeys], u32[arrSubExactVals] = s.exact.keys, s.exact.vals
	}
	off := make([]uint32, 0, len(m.multi)+1)
	var flat []uint32
	for _, set := range m.multi {
		off = append(off, uint32(len(flat)))
		flat = append(flat, set...)
	}
	// Padded, so that the directory's sizes do not tell how many values
	// rules share: the rule memberships by a set nothing refers to, the
	// sets by empty ones, each to a power of two of at least 16.
	if n := padCount(len(flat)); n > len(flat) {
		off = append(off, uint32(len(flat)))
		flat = append(flat, make([]uint32, n-len(flat))...) // rule 0
	}
	for n := padCount(len(off)); len(off) < n; {
		off = append(off, uint32(len(flat)))
	}
	u32[arrMultiOff] = append(off, uint32(len(flat)))
	u32[arrMultiRules] = flat
	sc := make([]uint64, sealScalars)
	sc[0], sc[1] = uint64(m.lit.maxLen), uint64(m.id.maxLen)
	if m.sub != nil {
		sc[2] = uint64(m.sub.maxLen)
	}
	for c, f := range m.sepTab[:128] {
		if f&sepFirst != 0 {
			sc[3+c/64] |= 1 << (c % 64)
		}
	}
	u64[arrScalars] = sc
	if m.recIdx != nil {
		u64[arrRecKeys], u64[arrRecIDs] = m.recIdx.keys, m.recIdx.ids
	}
	return u64, u32
}

// padCount rounds n up to a power of two of at least 16.
func padCount(n int) int {
	p := 16
	for p < n {
		p <<= 1
	}
	return p
}

// sealMeta encodes the rules and the matcher's scalars, then, when the
// catalog has regex rules, their encrypted patterns (sealRegexRules) after
// a u32 length.
func sealMeta(m *Matcher, counts []int, noBoundary []bool, regex []byte) []byte {
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	str := func(s string) { u32(uint32(len(s))); b = append(b, s...) }
	u32(uint32(len(m.rules)))
	for i, r := range m.rules {
		str(r.ID)
		str(r.Category)
		str(r.Description)
		b = append(b, byte(r.Severity), byte(m.modes[i].match))
		var f byte
		if m.modes[i].cs {
			f |= sealRuleCS
		}
		if noBoundary[i] {
			f |= sealRuleNoBoundary
		}
		b = append(b, f)
		b = binary.LittleEndian.AppendUint64(b, uint64(counts[i]))
	}
	var flags uint32
	if m.hasLit {
		flags |= sealHasLit
	}
	if m.hasCS {
		flags |= sealHasCS
	}
	if m.hasID {
		flags |= sealHasID
	}
	if m.sub != nil {
		flags |= sealHasSub
		if m.sub.hasCS {
			flags |= sealSubHasCS
		}
	}
	u32(flags)
	u32(uint32(m.pre.shift))
	for _, t := range m.tables() {
		b = append(b, t.vbits)
	}
	if m.rec != nil {
		b = appendRecordMeta(b, m.rec)
	}
	if len(regex) > 0 {
		u32(uint32(len(regex)))
		b = append(b, regex...)
	}
	return b
}

func alignUp(n uint64) uint64 { return (n + sealAlign - 1) &^ (sealAlign - 1) }

// writeSealed writes m as a sealed file.
func writeSealed(w io.Writer, m *Matcher, counts []int, noBoundary []bool, regex []byte, keys *sealKeys, salt [sealSaltSize]byte, nonce [12]byte, p *partHeader) (uint64, error) {
	meta := sealMeta(m, counts, noBoundary, regex)
	u64, u32 := sealArraysOf(m)
	version, nArr := uint32(sealVersionNoRecords), uint64(sealArraysV3)
	if m.rec != nil {
		version, nArr = SealVersion, sealArrays
	}
	metaOff := uint64(sealHeaderSize)
	dirOff := alignUp(metaOff + uint64(len(meta)))
	pos := alignUp(dirOff + nArr*sealDirEntrySize)
	dir := make([]byte, 0, nArr*sealDirEntrySize)
	var offs [sealArrays]uint64
	for id := range int(nArr) {
		n := uint64(len(u64[id]))
		if sealArrayElem[id] == 4 {
			n = uint64(len(u32[id]))
		}
		offs[id] = pos
		dir = binary.LittleEndian.AppendUint32(dir, uint32(id))
		dir = binary.LittleEndian.AppendUint32(dir, sealArrayElem[id])
		dir = binary.LittleEndian.AppendUint64(dir, pos)
		dir = binary.LittleEndian.AppendUint64(dir, n)
		pos = alignUp(pos + n*uint64(sealArrayElem[id]))
	}
	arrOff := alignUp(dirOff + nArr*sealDirEntrySize)
	pages := (pos - arrOff + sealPageSize - 1) / sealPageSize
	size := pos + pages*sealTagSize + sealMACSize
	if size > MaxSealedSize {
		return 0, fmt.Errorf("seal: the sealed catalog would be %d bytes, more than the limit of %d", size, uint64(MaxSealedSize))
	}

	hdr := make([]byte, sealHeaderSize)
	copy(hdr[sealHdrMagic:], sealMagic[:])
	binary.LittleEndian.PutUint32(hdr[sealHdrVersion:], version)
	binary.LittleEndian.PutUint32(hdr[sealHdrSize:], sealHeaderSize)
	binary.LittleEndian.PutUint64(hdr[sealHdrFileSize:], size)
	copy(hdr[sealHdrSalt:], salt[:])
	copy(hdr[sealHdrKeyCheck:], keys.check[:])
	copy(hdr[sealHdrNonce:], nonce[:])
	binary.LittleEndian.PutUint64(hdr[sealHdrMetaOff:], metaOff)
	binary.LittleEndian.PutUint64(hdr[sealHdrMetaLen:], uint64(len(meta)))
	binary.LittleEndian.PutUint64(hdr[sealHdrDirOff:], dirOff)
	binary.LittleEndian.PutUint32(hdr[sealHdrDirCount:], uint32(nArr))
	binary.LittleEndian.PutUint64(hdr[sealHdrArrOff:], arrOff)
	binary.LittleEndian.PutUint64(hdr[sealHdrTagOff:], pos)
	if p != nil {
		p.put(hdr)
	}
	aead, err := newSealAEAD(keys)
	if err != nil {
		return 0, err
	}
	fp := m.fpKey
	aead.Seal(hdr[sealHdrFPKey:sealHdrFPKey], nonce[:], fp[:], sealAAD(hdr))
	clear(fp[:])

	pageAEAD, err := newGCM(keys.page[:])
	if err != nil {
		return 0, err
	}
	sw := &sealWriter{w: w, mac: hmac.New(sha256.New, keys.mac[:]), page: pageAEAD, arrOff: arrOff, arrEnd: pos,
		macTags: sealMACsTags(version)}
	sw.tags = make([]byte, 0, pages*sealTagSize)
	sw.write(hdr)
	sw.write(meta)
	sw.pad(dirOff)
	sw.write(dir)
	sw.pad(arrOff)
	for id := range int(nArr) {
		sw.pad(offs[id])
		if sealArrayElem[id] == 4 {
			sw.writeU32(u32[id])
		} else {
			sw.writeU64(u64[id])
		}
	}
	sw.pad(pos)
	sw.endPage()
	if sw.err == nil && uint64(len(sw.tags)) != pages*sealTagSize {
		sw.err = errors.New("page tags miscounted")
	}
	sw.write(sw.tags)
	if sw.err == nil {
		_, sw.err = w.Write(sw.mac.Sum(nil))
	}
	if sw.err != nil {
		return 0, fmt.Errorf("seal: write: %w", sw.err)
	}
	return size, nil
}

func newSealAEAD(keys *sealKeys) (cipher.AEAD, error) { return newGCM(keys.aead[:]) }

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return aead, nil
}

// sealAAD is the header data the fingerprint key's encryption
// authenticates: magic, version, sizes and salt.
func sealAAD(hdr []byte) []byte { return hdr[:sealHdrKeyCheck] }

// sealWriter writes to w, counting bytes and keeping the first error:
// the bytes before arrOff (and the page tags, with macTags) to mac; the arrays one page at
// a time, encrypted with page (sealPageNonce), whose tags it collects in
// tags.
type sealWriter struct {
	w       io.Writer
	mac     hash.Hash
	page    cipher.AEAD
	arrOff  uint64
	arrEnd  uint64
	macTags bool   // the page tags go under the mac too (version 3)
	pageBuf []byte // the plaintext of the current page
	ct      []byte
	tags    []byte
	n       uint64
	err     error
	buf     []byte
}

// sealPageNonce is the nonce of page p: p (u64), then four zero bytes.
// Each file has its own page key (from its salt), so no nonce repeats
// under a key.
func sealPageNonce(p uint64) [12]byte {
	var n [12]byte
	binary.LittleEndian.PutUint64(n[:], p)
	return n
}

func (s *sealWriter) write(b []byte) {
	if s.err != nil || len(b) == 0 {
		return
	}
	if s.n < s.arrOff || s.n >= s.arrEnd {
		if _, s.err = s.w.Write(b); s.err != nil {
			return
		}
		// Before the arrays, or the page tags after them.
		if s.n < s.arrOff && s.n+uint64(len(b)) > s.arrOff {
			s.err = errors.New("a write crosses the arrays' start")
		}
		if s.n < s.arrOff || s.macTags {
			s.mac.Write(b)
		}
		s.n += uint64(len(b))
		return
	}
	if s.n+uint64(len(b)) > s.arrEnd {
		s.err = errors.New("a write crosses the arrays' end")
		return
	}
	for len(b) > 0 {
		k := min(len(b), sealPageSize-len(s.pageBuf))
		s.pageBuf = append(s.pageBuf, b[:k]...)
		s.n += uint64(k)
		b = b[k:]
		if len(s.pageBuf) == sealPageSize {
			s.endPage()
		}
	}
}

// endPage encrypts and writes the page being written, if any, and keeps
// its tag.
func (s *sealWriter) endPage() {
	if len(s.pageBuf) == 0 || s.err != nil {
		return
	}
	p := (s.n - s.arrOff - 1) / sealPageSize
	nonce := sealPageNonce(p)
	s.ct = s.page.Seal(s.ct[:0], nonce[:], s.pageBuf, nil)
	n := len(s.pageBuf)
	if _, s.err = s.w.Write(s.ct[:n]); s.err != nil {
		return
	}
	s.tags = append(s.tags, s.ct[n:]...)
	s.pageBuf = s.pageBuf[:0]
}

var zeroPad [sealAlign]byte

func (s *sealWriter) pad(to uint64) {
	for s.n < to && s.err == nil {
		s.write(zeroPad[:min(to-s.n, sealAlign)])
	}
}

// sealChunk is how many bytes writeU64 and writeU32 convert at a time on a
// big-endian host.
const sealChunk = 1 << 16

func (s *sealWriter) writeU64(v []uint64) {
	if len(v) == 0 {
		return
	}
	if littleEndian {
		s.write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*8))
		return
	}
	for len(v) > 0 {
		n := min(len(v), sealChunk/8)
		s.buf = s.buf[:0]
		for _, x := range v[:n] {
			s.buf = binary.LittleEndian.AppendUint64(s.buf, x)
		}
		s.write(s.buf)
		v = v[n:]
	}
}

func (s *sealWriter) writeU32(v []uint32) {
	if len(v) == 0 {
		return
	}
	if littleEndian {
		s.write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*4))
		return
	}
	for len(v) > 0 {
		n := min(len(v), sealChunk/4)
		s.buf = s.buf[:0]
		for _, x := range v[:n] {
			s.buf = binary.LittleEndian.AppendUint32(s.buf, x)
		}
		s.write(s.buf)
		v = v[n:]
	}
}

// ParseSealKey parses a seal key written as 64 hexadecimal digits, with
// white space around them (a key file's final newline). Errors never
// quote the text.
func ParseSealKey(text []byte) ([]byte, error) {
	t := bytes.TrimSpace(text)
	if len(t) != 2*SealKeySize {
		return nil, fmt.Errorf("a seal key is %d hexadecimal digits, not %d characters", 2*SealKeySize, len(t))
	}
	key := make([]byte, SealKeySize)
	if _, err := hex.Decode(key, t); err != nil {
		return nil, errors.New("a seal key is hexadecimal digits only")
	}
	return key, nil
}

// WeakSealKey reports whether key is visibly not random: one byte
// repeated, a short pattern repeated (a period of at most 16 bytes), or
// fewer than 12 distinct byte values (32 random bytes hold about 30). A
// key typed, derived from a passphrase by hand or copied from an example
// is exactly what an attacker holding the sealed file would try first.
func WeakSealKey(key []byte) bool {
	for p := 1; p <= 16 && p < len(key); p++ {
		periodic := true
		for i := p; i < len(key); i++ {
			if key[i] != key[i%p] {
				periodic = false
				break
			}
		}
		if periodic {
			return true
		}
	}
	var seen [256]bool
	distinct := 0
	for _, b := range key {
		if !seen[b] {
			seen[b] = true
			distinct++
		}
	}
	return distinct < 12
}

// FormatSealKey returns key as ParseSealKey reads it, with a final newline.
func FormatSealKey(key []byte) []byte {
	return append(hex.AppendEncode(nil, key), '\n')
}
