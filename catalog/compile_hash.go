package catalog

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The compiled matcher keeps no plaintext. Text and values are cut into
// tokens (see tokenizer below); every token is reduced to a 64-bit keyed hash
// of its normalized runes, and sequences of tokens ("spans") to a 64-bit
// keyed hash of their token hashes. Only span hashes are stored.
//
// The token hash is an FNV-1a style chain over folded runes, started from a
// key-derived seed and finished with a key-dependent murmur3 finalizer; the
// span hash chains token hashes with a rotate/xor/multiply step and the same
// finalizer. Without the key the stored hashes cannot be recomputed from a
// guessed value. A hash hit cannot be verified against plaintext (there is
// none), so two different token sequences that collide on all 64 bits are
// reported as a match; for non-adversarial text that happens with
// probability about 2^-64 per lookup (times the number of stored keys).

const (
	fnvPrime  = 0x100000001b3
	spanMul   = 0x9e3779b97f4a7c15
	invalidUT = 0x110000 // symbol base for bytes that are not valid UTF-8
)

// hkeys holds the per-matcher hashing keys, all derived from HashKey.
type hkeys struct {
	tokF, tokFfin   uint64 // folded token hashes: seed, finalizer key
	tokE, tokEfin   uint64 // exact (case-sensitive) token hashes
	spanLit, spanCS uint64 // span seeds: folded literal spans, exact literal spans
	spanID          uint64 // span seed: identifier sub-word sequences
	spanFin         uint64 // span finalizer key
	spaceF, spaceE  uint64 // hash of the space token (folded, exact)
	subBase         uint64 // polynomial base for substring hashing, in [2^32, p)
	subFin          uint64 // substring finalizer key
	preMul          uint64 // prefilter multiplier (wordKey), odd
}

func deriveKeys(key []byte) hkeys {
	word := func(label string, i int) uint64 {
		h := sha256.New()
		h.Write([]byte("privscan/catalog-hash/v1\x00"))
		h.Write(key)
		h.Write([]byte{0})
		h.Write([]byte(label))
		var sum [32]byte
		h.Sum(sum[:0])
		return binary.LittleEndian.Uint64(sum[8*i:])
	}
	k := hkeys{
		tokF: word("tok", 0), tokFfin: word("tok", 1),
		tokE: word("tok", 2), tokEfin: word("tok", 3),
		spanLit: word("span", 0), spanCS: word("span", 1),
		spanID: word("span", 2), spanFin: word("span", 3),
		subFin: word("sub", 1),
		preMul: word("pre", 0) | 1,
	}
	k.spaceF = fmix64(k.tokF ^ 0x5350414345 ^ k.tokFfin)
	k.spaceE = fmix64(k.tokE ^ 0x5350414345 ^ k.tokEfin)
	k.subBase = word("sub", 0)%(mersenne61-(1<<32)) + 1<<32
	return k
}

// fmix64 is murmur3's 64-bit finalizer.
func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func feed(h, sym uint64) uint64 { return (h ^ sym) * fnvPrime }

func spanStep(s, t uint64) uint64 { return (bits.RotateLeft64(s, 29) ^ t) * spanMul }

func (k *hkeys) spanKey(s uint64) uint64 { return fmix64(s ^ k.spanFin) }

// Character classes for tokenizing.
const (
	kindNone  uint8 = iota // before the first token
	kindWord               // maximal run of letters, digits, marks and '_'
	kindSep                // any other single character (or invalid byte)
	kindSpace              // run of spaces and tabs (any Unicode space in a value)
)

// asciiInfo describes one ASCII byte: its token kind and, for word bytes,
// its sub-word class.
type asciiInfo struct {
	kind uint8
	sub  uint8 // subUpper, subLower, subDigit, subUnder (0 for non-word)
	fold uint8 // lower-case form
}

const (
	subNone uint8 = iota
	subUpper
	subLower
	subOther // uncased letters (CJK...) : never split from neighbours
	subDigit
	subUnder
	subMark
)

var asciiTab = func() (t [128]asciiInfo) {
	for c := 0; c < 128; c++ {
		e := asciiInfo{kind: kindSep, fold: uint8(c)}
		switch {
		case c >= 'a' && c <= 'z':
			e.kind, e.sub = kindWord, subLower
		case c >= 'A' && c <= 'Z':
			e.kind, e.sub, e.fold = kindWord, subUpper, uint8(c+'a'-'A')
		case c >= '0' && c <= '9':
			e.kind, e.sub = kindWord, subDigit
		case c == '_':
			e.kind, e.sub = kindWord, subUnder
		case c == ' ' || c == '\t':
			e.kind = kindSpace
		}
		t[c] = e
	}
	return t
}()

// wordTab maps an ASCII word byte to its folded form and every other byte
// (including all bytes >= 0x80) to 0; identTab gives sub-word class bits.
var wordTab, identTab = func() (w, id [256]uint8) {
	for c := 0; c < 128; c++ {
		e := asciiTab[c]
		if e.kind == kindWord {
			w[c] = e.fold
			id[c] = 1 << e.sub
		}
	}
	return w, id
}()

const (
	bitUpper = 1 << subUpper
	bitLower = 1 << subLower
	bitDigit = 1 << subDigit
	bitUnder = 1 << subUnder
)

// isWordRune reports whether r belongs to a word: a letter, a decimal digit,
// '_' or a combining mark (marks extend the word they follow, so a value
// never matches a prefix of an accented word written in decomposed form).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiTab[r].kind == kindWord
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// foldRune maps r to its case-folded form: simple (one rune to one rune)
// Unicode case folding, the same on both sides of a comparison.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(asciiTab[r].fold)
	}
	if r < foldTabSize {
		return rune(foldTab()[r])
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// subClass returns the sub-word class of a word rune.
func subClass(r rune) uint8 {
	if r < utf8.RuneSelf {
		return asciiTab[r].sub
	}
	switch {
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return subUpper
	case unicode.IsLower(r):
		return subLower
	case unicode.IsDigit(r):
		return subDigit
	case unicode.IsMark(r):
		return subMark
	}
	return subOther
}

// decode returns the rune at b[i] and its width; an invalid byte decodes to
// a symbol outside Unicode (invalidUT+byte) so it never equals a real rune.
func decode(b []byte, i int) (rune, int) {
	c := b[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, n := utf8.DecodeRune(b[i:])
	if r == utf8.RuneError && n == 1 {
		return invalidUT + rune(c), 1
	}
	return r, n
}

// wordKey is the prefilter key of an ASCII word: p holds its first four
// bytes (little-endian, 0 past the end) and n is its length. Every byte is
// ORed with 0x20, which folds ASCII letters. The key is a multiply-shift
// hash with a per-matcher odd multiplier (the prefilter uses its top
// bits), so the filter's bits do not reveal value prefixes without it.
func (k *hkeys) wordKey(p uint32, n int) uint64 {
	return (uint64(p|0x20202020) | uint64(uint32(n))<<32) * k.preMul
}

// wordPrefix returns the first four bytes of the word b[i:j] as wordKey
// wants them: the key of an ASCII word of the text is
// wordKey(wordPrefix(b, i, j), j-i).
func wordPrefix(b []byte, i, j int) uint32 {
	if i+4 <= len(b) {
		return binary.LittleEndian.Uint32(b[i:i+4]) & prefixMask[min(j-i, 4)]
	}
	return shortPrefix(b[i:j])
}

// preCell is the prefilter cell of the ASCII word of n bytes whose first
// bytes are p (little-endian; those past n are ignored): the cell of
// wordKey(wordPrefix(...), n).
func (m *Matcher) preCell(p uint32, n int) uint64 {
	return m.pre.get(m.k.wordKey(p&prefixMask[min(n, 4)], n))
}

// prefixMask[n] keeps the first n bytes of a little-endian word.
var prefixMask = [5]uint32{0, 0xff, 0xffff, 0xffffff, 0xffffffff}

func shortPrefix(w []byte) uint32 {
	var p uint32
	for t := 0; t < len(w) && t < 4; t++ {
		p |= uint32(w[t]) << (8 * t)
	}
	return p
}

// prefilter is a one-probe Bloom filter over wordKey keys with two bits
// per cell (preLit, preID), so one load answers both questions. It has
// prefilterBits cells per entry, at most 2^prefilterMaxLog, so that it
// stays in the first cache levels.
type prefilter struct {
	w     []uint64
	shift uint
}

const (
	preLit = 1
	preID  = 2

	prefilterBits   = 16
	prefilterMaxLog = 17
)

func newPrefilter(entries int) prefilter {
	n := min(max(entries*prefilterBits, 1<<12), 1<<prefilterMaxLog)
	lg := bits.Len(uint(n - 1))
	return prefilter{w: make([]uint64, (1<<lg)/32), shift: uint(64 - lg)}
}

func (p *prefilter) set(k, bit uint64) {
	c := k >> (p.shift & 63)
	p.w[c>>5] |= bit << (c & 31 * 2)
}

// get returns the bits of k's cell.
func (p *prefilter) get(k uint64) uint64 {
	c := k >> (p.shift & 63)
	return p.w[c>>5] >> (c & 31 * 2) & 3
}

// bitset is a one-probe Bloom filter over 64-bit keys: key k sets bit
// hi64(k * n) of n bits (multiply-shift on the top bits of k, so n need not
// be a power of two).
type bitset struct {
	w []uint64
	n uint64
	// chk, for a sealed catalog's bitset, checks the page of a word
	// before it is read (w[0] is byte off of the arrays); nil otherwise.
	chk *sealChecker
	off uint64
}

func newBitset(entries, bitsPer int) bitset {
	words := (max(entries*bitsPer, 1<<12) + 63) / 64
	return bitset{w: make([]uint64, words), n: uint64(words) * 64}
}

func (b *bitset) index(k uint64) uint64 {
	hi, _ := bits.Mul64(k, b.n)
	return hi
}

func (b *bitset) has(k uint64) bool {
	i := b.index(k)
	if b.chk != nil {
		return b.hasChecked(i)
	}
	return b.w[i>>6]&(1<<(i&63)) != 0
}

// hasChecked is has for a sealed catalog's bitset: bit i, if its page
// is good (a damaged page holds nothing).
func (b *bitset) hasChecked(i uint64) bool {
	c, p := b.chk, (b.off+i>>6<<3)>>sealPageLog
	if c.done[p>>6].Load()&(1<<(p&63)) == 0 && !c.check(p) {
		return false
	}
	return b.w[i>>6]&(1<<(i&63)) != 0
}

// bitWriter batches the bitset writes and table inserts of Compile: with
// large filters and tables almost every write misses the caches, and
// buffered writes applied in a tight loop (table slots touched in a first
// pass) let many of these misses overlap, instead of one at a time between
// hashing work.
//
// Bitsets are named by sink (see attach). Writes to a large bitset go
// through per-region buckets instead: a full bucket is applied at once, to
// one small region of the bitset, so its writes share cache lines and
// pages.
type bitWriter struct {
	sinks [numSinks]bitSink

	sets [bitBatch]*bitset
	bit  [bitBatch]uint64
	n    int

	tabs  [tabBatch]*table
	keys  [tabBatch]uint64
	rules [tabBatch]uint32
	nt    int
	multi *[][]uint32
	sink  uint64
}

const (
	bitBatch = 256
	tabBatch = 64
)

// The bitsets Compile writes, as bitWriter sinks.
const (
	sinkLitFirst = iota
	sinkLitPrefix
	sinkLitFull
	sinkIDFirst
	sinkIDPrefix
	sinkIDFull
	sinkSubPrefix
	sinkSubFull
	numSinks
)

// bitSink is the bitset of a sink and, when it is large, its buckets:
// bucket i holds up to bucketCap bit indexes of region i (bits
// [i<<bucketRegionLog, (i+1)<<bucketRegionLog)), in buf[i*bucketCap:],
// cnt[i] of them.
type bitSink struct {
	b   *bitset
	cnt []uint16
	buf []uint32 // nil: writes are batched in bitWriter.sets
}

const (
	bucketRegionLog = 15 // 32 Ki bits: one 4 KiB page of a bitset
	bucketCap       = 128
	// bucketMinBits is the size from which a bitset is written through
	// buckets: smaller ones stay in the caches.
	bucketMinBits = 1 << 22
)

// attach makes b the bitset of sink s, bucketed when it is large.
func (w *bitWriter) attach(s int, b *bitset) {
	w.sinks[s] = bitSink{b: b}
	if b.n < bucketMinBits || b.n > 1<<32 {
		return
	}
	nb := (b.n + 1<<bucketRegionLog - 1) >> bucketRegionLog
	w.sinks[s].cnt, w.sinks[s].buf = make([]uint16, nb), make([]uint32, nb*bucketCap)
}

// set sets the bit of key k in the bitset of sink s.
func (w *bitWriter) set(s int, k uint64) {
	sk := &w.sinks[s]
	x := sk.b.index(k)
	if sk.buf != nil {
		sk.set(x)
		return
	}
	w.sets[w.n], w.bit[w.n] = sk.b, x
	w.n++
	if w.n == bitBatch {
		w.flushBits()
	}
}

func (w *bitWriter) insert(t *table, k uint64, rule uint32) {
	w.tabs[w.nt], w.keys[w.nt], w.rules[w.nt] = t, k, rule
	w.nt++
	if w.nt == tabBatch {
		w.flushTabs()
	}
}

func (w *bitWriter) flush() {
	for i := range w.sinks {
		sk := &w.sinks[i]
		for j := range sk.cnt {
			sk.flushBucket(j)
		}
	}
	w.flushBits()
	w.flushTabs()
}

func (bb *bitSink) set(x uint64) {
	j := x >> bucketRegionLog
	c := bb.cnt[j]
	bb.buf[j*bucketCap+uint64(c)] = uint32(x)
	if c++; c == bucketCap {
		bb.cnt[j] = c
		bb.flushBucket(int(j))
		return
	}
	bb.cnt[j] = c
}

func (bb *bitSink) flushBucket(j int) {
	w := bb.b.w
	for _, x := range bb.buf[j*bucketCap : j*bucketCap+int(bb.cnt[j])] {
		w[x>>6] |= 1 << (x & 63)
	}
	bb.cnt[j] = 0
}

func (w *bitWriter) flushBits() {
	for i := range w.sets[:w.n] {
		b, x := w.sets[i], w.bit[i]
		b.w[x>>6] |= 1 << (x & 63)
	}
	w.n = 0
}

func (w *bitWriter) flushTabs() {
	var sink uint64
	for i := range w.tabs[:w.nt] {
		t := w.tabs[i]
		sink ^= t.keys[t.slot(w.keys[i])]
	}
	w.sink ^= sink
	for i := range w.tabs[:w.nt] {
		w.tabs[i].insert(w.keys[i], w.rules[i], w.multi)
	}
	w.nt = 0
}

// table maps 64-bit keys to rule sets with open addressing (linear
// probing, at most 3/4 full; the first slot is picked by multiply-shift, so
// the size need not be a power of two).
// A value v < multiFlag is rule v; otherwise multi[v-multiFlag] lists rules.
//
// A packed table (a sealed catalog's) has no vals: the low vbits bits of
// each key hold its value, v < nRules for rule v, else rule set
// v-nRules, and the other bits hold the key's (see packedKey).
type table struct {
	keys  []uint64
	vals  []uint32
	count int

	vbits  uint8
	vmask  uint64
	nRules uint32

	// chk, for a sealed catalog's table, checks the page of a key or
	// value before it is read (keys[0] and vals[0] are at file offsets
	// koff and voff), and getSealed checks every value against nRules
	// and nMulti; nil otherwise.
	chk        *sealChecker
	koff, voff uint64
	nMulti     uint32
}

// packedKey is the key bits a packed table keeps of k: never zero.
func (t *table) packedKey(k uint64) uint64 {
	if k &^= t.vmask; k == 0 {
		k = t.vmask + 1
	}
	return k
}

// getPacked is get for a packed table.
func (t *table) getPacked(k uint64) (uint32, bool) {
	k = t.packedKey(k)
	for i := t.slot(k); ; {
		x := t.keys[i]
		if x == 0 {
			return 0, false
		}
		if x&^t.vmask == k {
			v := uint32(x & t.vmask)
			if v >= t.nRules {
				v = multiFlag + v - t.nRules
			}
			return v, true
		}
		if i++; i == len(t.keys) {
			i = 0
		}
	}
}

// getSealed is get for a sealed catalog's table, packed or not: every
// slot read is on a checked page, a probe visits each slot at most once
// (a table without a free slot ends), and a value that names no rule or
// rule set is absent, so that no content of the file makes a lookup loop,
// panic or name a rule that does not exist.
func (t *table) getSealed(k uint64) (uint32, bool) {
	n, c := len(t.keys), t.chk
	packed := t.vbits != 0
	if packed {
		k = t.packedKey(k)
	} else if k == 0 {
		k = 1
	}
	i := t.slot(k)
	for range n {
		if p := (t.koff + uint64(i)*8) >> sealPageLog; c.done[p>>6].Load()&(1<<(p&63)) == 0 && !c.check(p) {
			return 0, false
		}
		x := t.keys[i]
		if x == 0 {
			return 0, false
		}
		if packed && x&^t.vmask == k {
			v := uint32(x & t.vmask)
			if v < t.nRules {
				return v, true
			}
			if v-t.nRules >= t.nMulti {
				return 0, false
			}
			return multiFlag + v - t.nRules, true
		}
		if !packed && x == k {
			if !c.ok(t.voff + uint64(i)*4) {
				return 0, false
			}
			v := t.vals[i]
			if v < multiFlag && v >= t.nRules || v >= multiFlag && v-multiFlag >= t.nMulti {
				return 0, false
			}
			return v, true
		}
		if i++; i == n {
			i = 0
		}
	}
	return 0, false
}

// packedLoad is the most a packed table is filled: 7/8.
const packedLoadNum, packedLoadDen = 7, 8

// maxPackedBits bounds the key bits a packed table gives to values: with
// more rules and rule sets (values shared by many rules) the table is kept
// unpacked, so that packed keys keep at least 54 bits.
const maxPackedBits = 10

// pack returns t as a packed table (t's keys are unique): its value in
// each key's low bits, filled to at most 7/8; or t itself when its values
// need more than maxPackedBits bits. ok is false when two keys of t agree
// in every bit the packed table keeps (about once in 2^40 tables of a
// million keys): then the caller seals with another salt.
func (t *table) pack(nRules, nMulti int) (p table, ok bool) {
	vb := uint8(max(bits.Len(uint(nRules+nMulti-1)), 1))
	if vb > maxPackedBits {
		return *t, true
	}
	n := max(t.count*packedLoadDen/packedLoadNum+1, 16)
	p = table{keys: make([]uint64, n), vbits: vb, vmask: 1<<vb - 1, nRules: uint32(nRules)}
	for i, k := range t.keys {
		if k == 0 {
			continue
		}
		v := uint64(t.vals[i])
		if v >= multiFlag {
			v = v - multiFlag + uint64(nRules)
		}
		pk := p.packedKey(k)
		for j := p.slot(pk); ; {
			x := p.keys[j]
			if x == 0 {
				p.keys[j] = pk | v
				p.count++
				break
			}
			if x&^p.vmask == pk {
				return table{}, false
			}
			if j++; j == n {
				j = 0
			}
		}
	}
	return p, true
}

const multiFlag = 1 << 31

// newTable returns a table for at most entries keys.
func newTable(entries int) table {
	n := max(entries+entries/3+1, 16)
	return table{keys: make([]uint64, n), vals: make([]uint32, n)}
}

// slot returns the first slot probed for k.
func (t *table) slot(k uint64) int {
	hi, _ := bits.Mul64(k, uint64(len(t.keys)))
	return int(hi)
}

// insert adds rule for key k; multi collects rule sets.
func (t *table) insert(k uint64, rule uint32, multi *[][]uint32) {
	if k == 0 {
		k = 1
	}
	for i := t.slot(k); ; {
		switch t.keys[i] {
		case 0:
			t.keys[i], t.vals[i] = k, rule
			t.count++
			return
		case k:
			v := t.vals[i]
			if v < multiFlag {
				if v == rule {
					return
				}
				*multi = append(*multi, []uint32{v, rule})
				t.vals[i] = multiFlag + uint32(len(*multi)-1)
				return
			}
			set := (*multi)[v-multiFlag]
			for _, r := range set {
				if r == rule {
					return
				}
			}
			(*multi)[v-multiFlag] = append(set, rule)
			return
		}
		if i++; i == len(t.keys) {
			i = 0
		}
	}
}

func (t *table) get(k uint64) (uint32, bool) {
	if len(t.keys) == 0 {
		return 0, false
	}
	if t.chk != nil {
		return t.getSealed(k)
	}
	if t.vbits != 0 {
		return t.getPacked(k)
	}
	if k == 0 {
		k = 1
	}
	for i := t.slot(k); ; {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case 0:
			return 0, false
		}
		if i++; i == len(t.keys) {
			i = 0
		}
	}
}

// spanIndex is a hashed set of token sequences: every prefix of every stored
// sequence is in prefix (so a scan can stop as soon as a prefix is absent),
// complete sequences are in full and, with their rules, in tab.
type spanIndex struct {
	first  bitset // token hash of every first token (probed with no mixing)
	prefix bitset
	full   bitset
	tab    table
	maxLen int // longest stored sequence, in tokens
}

// spanBits is the bits per entry of a spanIndex's filters.
type spanBits struct{ first, prefix, full int }

func newSpanIndex(values, tokens int, b spanBits) spanIndex {
	return spanIndex{
		first:  newBitset(values, b.first),
		prefix: newBitset(tokens, b.prefix),
		full:   newBitset(values, b.full),
		tab:    newTable(values),
	}
}

// foldTabSize bounds the precomputed folding table: it covers Latin, Greek,
// Cyrillic, Armenian, Georgian and the other alphabets below U+3000.
const foldTabSize = 0x3000

var (
	foldOnce  sync.Once
	foldTable *[foldTabSize]uint16
)

// foldTab returns the immutable folding table for runes below foldTabSize,
// building it on first use.
func foldTab() *[foldTabSize]uint16 {
	foldOnce.Do(func() {
		t := new([foldTabSize]uint16)
		for r := rune(0); r < foldTabSize; r++ {
			f := unicode.ToLower(unicode.ToUpper(r))
			if f >= 1<<16 {
				f = r // cannot happen below U+3000; keep the rune itself
			}
			t[r] = uint16(f)
		}
		foldTable = t
	})
	return foldTable
}

// Substring (boundary: none) hashing: a polynomial hash modulo the Mersenne
// prime 2^61-1 over folded runes, with a key-derived base, so the hash of
// every prefix is available while a candidate is extended rune by rune.
const mersenne61 = 1<<61 - 1

func mulmod61(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a, b < 2^61: the product is < 2^122; fold the high part in.
	r := (hi<<3 | lo>>61) + lo&mersenne61
	if r >= mersenne61 {
		r -= mersenne61
	}
	return r
}

func polyStep(h, base uint64, sym rune) uint64 {
	r := mulmod61(h, base) + uint64(sym) + 1
	if r >= mersenne61 {
		r -= mersenne61
	}
	return r
}

// subKey finishes a substring hash of n symbols into a table key.
func (k *hkeys) subKey(h uint64, n int, exact bool) uint64 {
	x := h ^ uint64(n)<<52 ^ k.subFin
	if exact {
		x ^= 1 << 63
	}
	return fmix64(x)
}
