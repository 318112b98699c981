package catalog

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Find appends the catalog matches in line (one line, without its '\n') to
// dst and returns it. Matches are sorted by Start, then End, then Rule;
// Start and End are byte offsets into line.
//
// Every (rule, span) match is reported, across rules even when spans
// overlap. Within one rule, a match contained in another match of the same
// rule is dropped: at a start position the longest match wins (values
// "Jane" and "Jane Doe" of one rule give one match on "Jane Doe"), and a
// shorter match inside an already reported one is not repeated.
//
// Literal and identifier rules match the NFC form of the line (offsets are
// mapped back to the original bytes); regex rules match the line as given.
// Find never panics on invalid UTF-8, runs in time linear in len(line) for
// literal and identifier rules, and does not allocate when nothing matches
// in an ASCII or NFC line. It is safe for concurrent use.
func (m *Matcher) Find(line []byte, dst []Match) []Match {
	if len(line) == 0 {
		return dst
	}
	if m.parts != nil {
		return m.findParts(line, dst)
	}
	if m.set != nil {
		return m.findSet(line, dst)
	}
	base := len(dst)
	// What is known of the line: lineASCII, lineNFC (non-ASCII, already
	// NFC), lineNotNFC, or lineUnknown when nothing needed to look.
	st := lineUnknown
	// The anchor bits of the bytes of an ASCII line, when scanTokens saw it.
	var anchors uint8
	tokens := m.hasLit || m.hasID
	if tokens || m.sub != nil {
		buf := line
		var om offmap
		var sc *scratch
		if tokens {
			// scanTokens checks the line for NFC at its first non-ASCII
			// byte and stops if it is not: the line is then normalized
			// and scanned again.
			dst, anchors, st = m.scanTokens(line, &om, dst, true)
		} else {
			st = classify(line)
		}
		if st == lineNotNFC {
			dst = dst[:base]
			sc = m.pool.Get().(*scratch)
			buf, om = sc.normalize(line)
			if tokens {
				dst, _, _ = m.scanTokens(buf, &om, dst, false)
			}
		}
		if m.sub != nil {
			dst = m.scanSub(buf, &om, dst)
		}
		if sc != nil {
			sc.release(&m.pool)
		}
	}
	if len(m.regex) > 0 {
		if st == lineUnknown {
			st = classify(line)
		}
		anchorsOK := tokens && st == lineASCII
		if !(anchorsOK && m.regexGated && anchors&m.regexAnchors == 0) {
			if !anchorsOK {
				anchors = anchorBits
			}
			dst = m.scanRegex(line, st == lineASCII, anchors, dst)
		}
	}
	if len(dst)-base > 1 {
		dst = finishMatches(dst, base)
	}
	// A sealed catalog's tables may be a file mapping that is released
	// when m is collected: m must outlive every read of them.
	runtime.KeepAlive(m)
	return dst
}

// Line states of Find.
const (
	lineUnknown = iota
	lineASCII
	lineNFC
	lineNotNFC
)

// classify returns lineASCII, lineNFC or lineNotNFC for line.
func classify(line []byte) int {
	i := firstNonASCII(line)
	if i == len(line) {
		return lineASCII
	}
	return nfcFrom(line, i)
}

// nfcFrom returns lineNFC or lineNotNFC for line, whose first non-ASCII
// byte is line[i]. An ASCII character never combines with what precedes
// it, so the NFC check can start at the last ASCII byte before i.
func nfcFrom(line []byte, i int) int {
	from := max(i-1, 0)
	if norm.NFC.QuickSpan(line[from:]) != len(line)-from {
		return lineNotNFC
	}
	return lineNFC
}

// firstNonASCII returns the index of the first byte >= 0x80, or len(b).
func firstNonASCII(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// scratch holds the NFC form of a line and its offset map.
type scratch struct {
	it     norm.Iter
	buf    []byte
	pieces []piece
}

// piece maps a normalized segment that differs from its input:
// out[outS:outE] is the NFC form of line[inS:inE].
type piece struct{ outS, outE, inS, inE int }

// offmap maps offsets in the normalized line back to the original line.
// Outside the pieces the bytes are identical, shifted by the length change
// of the pieces before.
type offmap struct{ pieces []piece }

func (sc *scratch) normalize(line []byte) ([]byte, offmap) {
	sc.buf, sc.pieces = sc.buf[:0], sc.pieces[:0]
	sc.it.Init(norm.NFC, line)
	for !sc.it.Done() {
		in := sc.it.Pos()
		seg := sc.it.Next()
		inE := sc.it.Pos()
		out := len(sc.buf)
		sc.buf = append(sc.buf, seg...)
		if !bytes.Equal(seg, line[in:inE]) {
			sc.pieces = append(sc.pieces, piece{out, len(sc.buf), in, inE})
		}
	}
	return sc.buf, offmap{sc.pieces}
}

func (sc *scratch) release(p interface{ Put(any) }) {
	if cap(sc.buf) > 1<<20 {
		return // do not pin a huge line's buffers
	}
	sc.it = norm.Iter{}
	p.Put(sc)
}

// start maps the start offset x of a match.
func (o *offmap) start(x int) int {
	if len(o.pieces) == 0 {
		return x
	}
	i := sort.Search(len(o.pieces), func(i int) bool { return o.pieces[i].outS > x }) - 1
	if i < 0 {
		return x
	}
	p := &o.pieces[i]
	if x < p.outE {
		return p.inS
	}
	return x + p.inE - p.outE
}

// end maps the exclusive end offset x of a match.
func (o *offmap) end(x int) int {
	if len(o.pieces) == 0 {
		return x
	}
	i := sort.Search(len(o.pieces), func(i int) bool { return o.pieces[i].outS >= x }) - 1
	if i < 0 {
		return x
	}
	p := &o.pieces[i]
	if x <= p.outE {
		return p.inE
	}
	return x + p.inE - p.outE
}

// emit appends a match for every rule of table value v.
func (m *Matcher) emit(dst []Match, v uint32, start, end int) []Match {
	if v < multiFlag {
		return append(dst, Match{Rule: int(v), Start: start, End: end})
	}
	for _, r := range m.multi[v-multiFlag] {
		dst = append(dst, Match{Rule: int(r), Start: start, End: end})
	}
	return dst
}

// finishMatches sorts dst[base:] by Start, End, Rule and drops, per rule,
// matches contained in another match of the same rule.
func finishMatches(dst []Match, base int) []Match {
	ms := dst[base:]
	slices.SortFunc(ms, func(a, b Match) int {
		if a.Rule != b.Rule {
			return a.Rule - b.Rule
		}
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	w, maxEnd := 0, 0
	for i, x := range ms {
		if i > 0 && x.Rule == ms[w-1].Rule && x.End <= maxEnd {
			continue
		}
		if w == 0 || x.Rule != ms[w-1].Rule || x.End > maxEnd {
			maxEnd = x.End
		}
		ms[w] = x
		w++
	}
	ms = ms[:w]
	slices.SortFunc(ms, func(a, b Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if a.End != b.End {
			return a.End - b.End
		}
		return a.Rule - b.Rule
	})
	return dst[:base+w]
}

// token scans the text token starting at b[i]: a maximal run of word
// characters, a run of spaces and tabs, or any other single character. It
// returns the token's end, kind and folded hash, and its exact hash when ex.
func (k *hkeys) token(b []byte, i int, ex bool) (end int, kind uint8, hf, he uint64) {
	c := b[i]
	if c < utf8.RuneSelf {
		switch asciiTab[c].kind {
		case kindSpace:
			end = i + 1
			for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
				end++
			}
			return end, kindSpace, k.spaceF, k.spaceE
		case kindSep:
			hf = fmix64(feed(k.tokF, uint64(c)) ^ k.tokFfin)
			if ex {
				he = fmix64(feed(k.tokE, uint64(c)) ^ k.tokEfin)
			}
			return i + 1, kindSep, hf, he
		}
	} else if r, n := decode(b, i); !isWordRune(r) {
		hf = fmix64(feed(k.tokF, uint64(foldRune(r))) ^ k.tokFfin)
		if ex {
			he = fmix64(feed(k.tokE, uint64(r)) ^ k.tokEfin)
		}
		return i + n, kindSep, hf, he
	}
	// A word.
	h, h2 := k.tokF, k.tokE
	j := i
	for j < len(b) {
		c := b[j]
		if c >= utf8.RuneSelf {
			break
		}
		e := asciiTab[c]
		if e.kind != kindWord {
			return j, kindWord, fmix64(h ^ k.tokFfin), k.exactWord(b, i, j, ex)
		}
		h = feed(h, uint64(e.fold))
		j++
	}
	for j < len(b) {
		r, n := decode(b, j)
		if !isWordRune(r) {
			break
		}
		h = feed(h, uint64(foldRune(r)))
		j += n
	}
	if ex {
		for x := i; x < j; {
			r, n := decode(b, x)
			h2 = feed(h2, uint64(r))
			x += n
		}
		he = fmix64(h2 ^ k.tokEfin)
	}
	return j, kindWord, fmix64(h ^ k.tokFfin), he
}

// exactWord hashes the ASCII word b[i:j] without folding, when ex.
func (k *hkeys) exactWord(b []byte, i, j int, ex bool) uint64 {
	if !ex {
		return 0
	}
	h := k.tokE
	for ; i < j; i++ {
		h = feed(h, uint64(b[i]))
	}
	return fmix64(h ^ k.tokEfin)
}

// prevIsWord reports whether a word character ends at b[i-1].
func prevIsWord(b []byte, i int) bool {
	if i <= 0 {
		return false
	}
	if c := b[i-1]; c < utf8.RuneSelf {
		return wordTab[c] != 0
	}
	r, n := utf8.DecodeLastRune(b[:i])
	return !(r == utf8.RuneError && n <= 1) && isWordRune(r)
}

// nextIsWord reports whether a word character starts at b[i].
func nextIsWord(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	r, _ := decode(b, i)
	return isWordRune(r)
}

// scanTokens runs the literal and identifier matchers over the normalized
// line b in one pass over its tokens. An ASCII word is hashed only when its
// prefilter key (wordKey) has a bit in the prefilter; the result equals
// token's. ASCII separators that start no value and spaces are skipped
// without hashing; non-ASCII tokens go through token. It also returns the
// union of the anchor bits (see setAnchorBits) of the ASCII bytes of b,
// and lineASCII or lineNFC for b. With check, b is checked for NFC at its
// first non-ASCII byte: when it is not NFC, scanTokens stops there and
// returns lineNotNFC (and matches to be dropped).
func (m *Matcher) scanTokens(b []byte, om *offmap, dst []Match, check bool) ([]Match, uint8, int) {
	k := &m.k
	n := len(b)
	var anchors uint8
	var qs scanState
	st := lineASCII
	var split uint8
	if m.hasID {
		split = bitSplit
	}
	for i := 0; ; {
		s, j, first, rest, pre, anch := m.scanQuiet(b, i, split, anchors, &qs)
		anchors = anch
		if s >= n {
			break
		}
		i = s
		if first == 0 {
			if c := b[i]; c < utf8.RuneSelf {
				f := m.sepTab[c]
				anchors |= f
				if f&sepFirst != 0 {
					dst = m.extendLit(b, i, i+1, kindSep, m.sepHash[c], om, dst)
				}
				i++
				continue
			}
			j = i
		}
		if j < n && b[j] >= utf8.RuneSelf {
			// A non-ASCII character (j == i), or one after the ASCII word
			// b[i:j], which may go on.
			if st == lineASCII {
				if st = lineNFC; check {
					if st = nfcFrom(b, j); st == lineNotNFC {
						return dst, 0, st
					}
				}
			}
			end, kind, hf, _ := k.token(b, i, false)
			dst = m.slowToken(b, i, end, kind, hf, om, dst)
			i = end
			continue
		}
		// An ASCII word b[i:j] with a prefilter hit (pre) or which can
		// split into sub-words.
		var hf uint64
		if pre != 0 {
			hf = k.asciiWordHash(b, i, j)
			if pre&preLit != 0 && m.lit.first.has(hf) {
				dst = m.extendLit(b, i, j, kindWord, hf, om, dst)
			}
		}
		if m.hasID {
			all := first | rest
			if oneSubword(all, rest) {
				if pre&preID != 0 && m.id.first.has(hf) {
					dst = m.identAt(b, i, j, j, hf, om, dst)
				}
			} else if markedShape(all, j-i) == markedNo {
				dst = m.subwordsASCII(b, i, j, om, dst)
			} else {
				dst = m.subwordsMarked(b, i, j, all&bitUnder != 0, om, dst)
			}
		}
		i = j
	}
	return dst, anchors & anchorBits, st
}

// scanQuiet is the inner loop of scanTokens: from b[i] on, it skips the
// ASCII separators without sepTab bits and the ASCII words that need no
// more work: those whose prefilter cell (wordKey) is empty and that have
// no byte of split (bitSplit when identifier rules can split them into
// sub-words, else 0). It returns at the first token that needs more, from
// s on: first == 0 for a separator with sepTab bits or a non-ASCII byte
// at b[s] (s == len(b) at the end of b); else an ASCII word b[s:e] with
// the classes of its first and other bytes, followed by a non-ASCII byte
// or with its prefilter cell pre. anchors accumulates the anchor bits of
// the words skipped and returned. It makes no calls, so that its state
// stays in registers. scanQuiet runs it, or the same loop in assembly.
func (m *Matcher) scanQuietGo(b []byte, i int, split, anchors uint8) (s, e int, first, rest uint8, pre uint64, anch uint8) {
	stop, class := &m.stopTab, &m.wordClass
	n := len(b)
	b = b[:n:n] // no separate capacity to keep in a register
	for {
		for i < n && !stop[b[i]] {
			i++
		}
		if i >= n {
			return n, n, 0, 0, 0, anchors
		}
		first = class[b[i]]
		if first == 0 {
			return i, i, 0, 0, 0, anchors
		}
		j := i + 1
		rest = 0
		for j < n {
			x := class[b[j]]
			if x == 0 {
				break
			}
			rest |= x
			j++
		}
		anchors |= first | rest
		if j < n && b[j] >= utf8.RuneSelf {
			return i, j, first, rest, 0, anchors
		}
		var p uint32
		if i+4 <= n {
			p = binary.LittleEndian.Uint32(b[i : i+4])
		} else {
			p = shortPrefixCall(b[i:j])
		}
		if pre = m.preCell(p, j-i); pre != 0 {
			return i, j, first, rest, pre, anchors
		}
		if all := first | rest; all&split != 0 && m.splitHit(b, i, j, all, rest) {
			return i, j, first, rest, pre, anchors
		}
		i = j
	}
}

// splitHit reports whether scanTokens must look at the ASCII word b[i:j]
// (classes all, and rest for all but its first byte), whose prefilter
// cell is empty, for its sub-words: whether one of them has the preID bit
// in its prefilter cell, or the quick probes cannot tell. It runs the
// probes of subwordsASCII or subwordsMarked, whichever scanTokens would
// take.
func (m *Matcher) splitHit(b []byte, i, j int, all, rest uint8) bool {
	if oneSubword(all, rest) {
		return false
	}
	if markedShape(all, j-i) != markedYes {
		return m.asciiSubHit(b, i, j)
	}
	if i+16 > len(b) {
		return true
	}
	x0, x1, mm := markers(b[i:i+16], j-i)
	under := all&bitUnder != 0
	if !under && mm&(mm>>1) != 0 {
		return true
	}
	return m.markedProbe(x0, x1, mm, j-i, under) != 0
}

// oneSubword reports whether an ASCII word whose bytes have the classes
// all (rest: all but the first byte) is one sub-word.
func oneSubword(all, rest uint8) bool {
	return all&bitUnder == 0 && (all&bitDigit == 0 || all&(bitUpper|bitLower) == 0) &&
		(rest&bitUpper == 0 || all&bitLower == 0)
}

// markedShape tells whether an ASCII word of n bytes, classes all, that is
// not one sub-word goes to subwordsMarked (markedYes) or subwordsASCII.
func markedShape(all uint8, n int) int {
	if all&bitDigit != 0 || all&bitLower == 0 || all&(bitUpper|bitUnder) == bitUpper|bitUnder || n > 16 {
		return markedNo
	}
	return markedYes
}

const (
	markedNo = iota
	markedYes
)

// markers returns the 16 bytes of w (the first n of them a word of
// subwordsMarked) as x0:x1, bytes past n set to 0xff, and the word's
// markers: bit k set when byte k has bit 0x20 clear.
func markers(w []byte, n int) (x0, x1 uint64, mm uint32) {
	x0 = binary.LittleEndian.Uint64(w[:8])
	x1 = binary.LittleEndian.Uint64(w[8:16])
	if n < 8 {
		x0 |= ^uint64(0) << (8 * uint(n) & 63)
		x1 = ^uint64(0)
	} else if n < 16 {
		x1 |= ^uint64(0) << (8 * uint(n-8) & 63)
	}
	mm = uint32(gather20(^x0)) | uint32(gather20(^x1))<<8
	return x0, x1, mm
}

// shortPrefixCall is shortPrefix, not inlined (a rare case in scanQuiet).
//
//go:noinline
func shortPrefixCall(w []byte) uint32 { return shortPrefix(w) }

// bitSplit marks the word bytes that can make a word split into several
// sub-words; a word without any is one sub-word, or several only in the
// shape UPPERlower... which the upper-case bit covers.
const bitSplit = bitUpper | bitDigit | bitUnder

// asciiWordHash is the folded token hash of the ASCII word b[i:j].
func (k *hkeys) asciiWordHash(b []byte, i, j int) uint64 {
	h := k.tokF
	for _, c := range b[i:j] {
		h = feed(h, uint64(wordTab[c]))
	}
	return fmix64(h ^ k.tokFfin)
}

// slowToken handles a token of scanTokens that is not an ASCII word: a
// non-ASCII separator or a word holding non-ASCII characters.
func (m *Matcher) slowToken(b []byte, i, end int, kind uint8, hf uint64, om *offmap, dst []Match) []Match {
	if m.hasLit && m.lit.first.has(hf) {
		dst = m.extendLit(b, i, end, kind, hf, om, dst)
	}
	if !m.hasID || kind != kindWord {
		return dst
	}
	for pos := i; ; {
		s, e, h := m.k.subword(b, pos, end)
		if s == e {
			break
		}
		if m.id.first.has(h) {
			dst = m.identAt(b, s, e, end, h, om, dst)
		}
		pos = e
	}
	return dst
}

// subwordsASCII splits the ASCII word b[i:end] into sub-words exactly as
// hkeys.subword does, without decoding runes, and checks the identifier
// spellings starting at each.
func (m *Matcher) subwordsASCII(b []byte, i, end int, om *offmap, dst []Match) []Match {
	k := &m.k
	for pos := i; ; {
		var s int
		if s, pos = nextSubwordASCII(b, pos, end); s == pos {
			break
		}
		if m.preCell(wordPrefix(b, s, pos), pos-s)&preID == 0 {
			continue
		}
		if h := k.asciiWordHash(b, s, pos); m.id.first.has(h) {
			dst = m.identAt(b, s, pos, end, h, om, dst)
		}
	}
	return dst
}

// nextSubwordASCII returns the next sub-word b[s:e] of the ASCII word
// ending at end, from pos on, split exactly as hkeys.subword splits:
// underscores separate sub-words and are skipped; a sub-word also ends at a
// letter/digit change and before an upper-case letter that follows a
// lower-case one or (HTTPServer) that starts an upper-lower pair. s == e
// when no sub-word is left.
func nextSubwordASCII(b []byte, pos, end int) (s, e int) {
	for pos < end && b[pos] == '_' {
		pos++
	}
	if pos >= end {
		return end, end
	}
	s = pos
	prev := subIdx[b[pos]]
	for pos++; pos < end; pos++ {
		cl := subIdx[b[pos]]
		if a := splitAct[(prev<<2|cl)&15]; a != 0 {
			// a == 2: an upper-case letter after another one starts a
			// sub-word when a lower-case letter follows (HTTPServer).
			if a == 1 || pos+1 < end && subIdx[b[pos+1]] == subIdxLower {
				break
			}
		}
		prev = cl
	}
	return s, pos
}

// asciiSubHit reports whether a sub-word of the ASCII word b[i:end], split
// as subwordsASCII does, has the preID bit in its prefilter cell.
func (m *Matcher) asciiSubHit(b []byte, i, end int) bool {
	for pos := i; ; {
		var s int
		if s, pos = nextSubwordASCII(b, pos, end); s == pos {
			return false
		}
		if m.preCell(wordPrefix(b, s, pos), pos-s)&preID != 0 {
			return true
		}
	}
}

// subwordsMarked is subwordsASCII for an ASCII word b[i:end] of at most 16
// bytes with lower-case letters, no digits, and either upper-case letters
// (camelCase, when under is false) or underscores (snake_case, when under
// is true) but not both. Such a word's only bytes with bit 0x20 clear are
// its upper-case letters or underscores, found eight bytes at a time:
// sub-words start at each upper-case letter (unless two are adjacent, as in
// HTTPServer, which subwordsASCII handles) or lie between underscores.
func (m *Matcher) subwordsMarked(b []byte, i, end int, under bool, om *offmap, dst []Match) []Match {
	w := b[i:]
	if len(w) < 16 {
		var t [16]byte
		copy(t[:], b[i:end])
		w = t[:]
	}
	n := end - i
	x0, x1, mm := markers(w, n)
	if !under && mm&(mm>>1) != 0 {
		return m.subwordsASCII(b, i, end, om, dst)
	}
	hits := m.markedProbe(x0, x1, mm, n, under)
	for hits != 0 {
		s := bits.TrailingZeros32(hits)
		hits &= hits - 1
		// The sub-word starting at s ends at the next marker, or at n.
		e := n
		if rest := mm &^ (1<<(s+1) - 1); rest != 0 {
			e = bits.TrailingZeros32(rest)
		}
		dst = m.subwordAt(b, i+s, i+e, end, om, dst)
	}
	return dst
}

// gather20 returns the bits 0x20 of the eight bytes of x as bits 0-7.
func gather20(x uint64) uint8 {
	return uint8((x >> 5 & 0x0101010101010101) * 0x0102040810204080 >> 56)
}

// markedProbe returns, for the word of subwordsMarked (x0:x1 holds its n
// bytes, mm its markers), bit s set for each sub-word starting at offset
// s whose prefilter cell (wordKey) has the preID bit. It makes no calls,
// so that its state stays in registers.
func (m *Matcher) markedProbe(x0, x1 uint64, mm uint32, n int, under bool) (hits uint32) {
	adv := 0
	if under {
		adv = 1
	}
	for s := 0; ; {
		e, last := n, mm == 0
		if !last {
			e = bits.TrailingZeros32(mm)
			mm &= mm - 1
		}
		if l := e - s; l > 0 {
			// A sub-word's bytes past its end are cut off by preCell.
			if m.preCell(uint32(wordBytes(x0, x1, uint(s))), l)&preID != 0 {
				hits |= 1 << (uint(s) & 31)
			}
		}
		if last {
			return hits
		}
		s = e + adv
	}
}

// wordBytes returns the bytes of the 16-byte little-endian value x1:x0
// from byte o (o < 16) on, in the low bytes of the result.
func wordBytes(x0, x1 uint64, o uint) uint64 {
	if o < 8 {
		return x0>>(8*o&63) | x1<<(64-8*o)
	}
	return x1 >> (8 * (o - 8) & 63)
}

// subwordAt checks the identifier spellings that start with the ASCII
// sub-word b[s:e] of the word ending at wordEnd, whose prefilter cell has
// the preID bit.
func (m *Matcher) subwordAt(b []byte, s, e, wordEnd int, om *offmap, dst []Match) []Match {
	k := &m.k
	if h := k.asciiWordHash(b, s, e); m.id.first.has(h) {
		dst = m.identAt(b, s, e, wordEnd, h, om, dst)
	}
	return dst
}

// Sub-word classes of ASCII word bytes for subwordsASCII (0 for other
// bytes), and splitAct[prev<<2|cur]: 0 when cur continues the sub-word,
// 1 when it starts a new one, 2 when it does if a lower-case letter follows.
const (
	subIdxUpper = 1
	subIdxLower = 2
	subIdxDigit = 3
	subIdxUnder = 0 // '_' is skipped before a sub-word and ends one
)

var subIdx = func() (t [256]uint8) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = subIdxUpper
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = subIdxLower
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = subIdxDigit
	}
	return t
}()

var splitAct = func() (t [16]uint8) {
	for prev := 1; prev <= 3; prev++ {
		for cur := 0; cur <= 3; cur++ {
			var a uint8
			switch {
			case cur == subIdxUnder:
				a = 1
			case (cur == subIdxDigit) != (prev == subIdxDigit):
				a = 1
			case cur == subIdxUpper && prev == subIdxLower:
				a = 1
			case cur == subIdxUpper && prev == subIdxUpper:
				a = 2
			}
			t[prev<<2|cur] = a
		}
	}
	return t
}()

// identAt checks the identifier spellings that start with the sub-word
// b[s:e] (folded hash h, in the word ending at wordEnd): its sequences with
// the sub-words that follow in the same identifier chunk, that is in the
// same word or in words joined to it by one '-' or '.' ('_' is inside
// words), up to the longest stored sequence.
func (m *Matcher) identAt(b []byte, s, e, wordEnd int, h uint64, om *offmap, dst []Match) []Match {
	k := &m.k
	span := spanStep(k.spanID, h)
	pos := e
	for n := 1; ; n++ {
		key := k.spanKey(span)
		if !m.id.prefix.has(key) {
			return dst
		}
		if m.id.full.has(key) {
			if v, ok := m.id.tab.get(key); ok {
				dst = m.emit(dst, v, om.start(s), om.end(pos))
			}
		}
		if n >= m.id.maxLen {
			return dst
		}
		// The next sub-word of the chunk.
		var ns, ne int
		for {
			ns, ne, h = k.subword(b, pos, wordEnd)
			if ns < ne {
				break
			}
			if wordEnd+1 >= len(b) || (b[wordEnd] != '-' && b[wordEnd] != '.') || !nextIsWord(b, wordEnd+1) {
				return dst
			}
			pos, wordEnd = wordEnd+1, wordEndAt(b, wordEnd+1)
		}
		span = spanStep(span, h)
		pos = ne
	}
}

// wordEndAt returns the end of the word token starting at b[i].
func wordEndAt(b []byte, i int) int {
	for i < len(b) {
		r, n := decode(b, i)
		if !isWordRune(r) {
			break
		}
		i += n
	}
	return i
}

// extendLit checks the spans starting with the token b[start:end], whose
// one-token prefix is in the literal prefix filter.
func (m *Matcher) extendLit(b []byte, start, end int, first uint8, hf uint64, om *offmap, dst []Match) []Match {
	if first == kindSep && prevIsWord(b, start) {
		return dst // the character before the match is a word character
	}
	k := &m.k
	s := spanStep(k.spanLit, hf)
	key := k.spanKey(s)
	var se uint64
	if m.hasCS {
		_, _, _, he := k.token(b, start, true)
		se = spanStep(k.spanCS, he)
	}
	last := first
	for n := 1; ; n++ {
		if last != kindSpace && m.lit.full.has(key) && (last != kindSep || !nextIsWord(b, end)) {
			if v, ok := m.lit.tab.get(key); ok {
				dst = m.emit(dst, v, om.start(start), om.end(end))
			}
			if m.hasCS {
				if v, ok := m.cs.get(k.spanKey(se)); ok {
					dst = m.emit(dst, v, om.start(start), om.end(end))
				}
			}
		}
		if n >= m.lit.maxLen || end >= len(b) {
			return dst
		}
		e2, kind2, hf2, he2 := k.token(b, end, m.hasCS)
		s = spanStep(s, hf2)
		key = k.spanKey(s)
		if !m.lit.prefix.has(key) {
			return dst
		}
		se = spanStep(se, he2)
		end, last = e2, kind2
	}
}

// Normalize appends to dst the form of text that rule ruleIdx compares:
// NFC, case-folded unless the rule is case-sensitive, white-space runs as
// one space; for identifier rules only the letters and digits of the words
// (so AcmeCorp and acme_corp normalize alike). Use it to group equal
// matches. An out-of-range ruleIdx appends the NFC form only. The result
// holds matched text: keep it in memory.
func (m *Matcher) Normalize(dst, text []byte, ruleIdx int) []byte {
	if ruleIdx < 0 || ruleIdx >= len(m.modes) {
		return norm.NFC.Append(dst, text...)
	}
	mode := m.modes[ruleIdx]
	nfc := norm.NFC.Bytes(text)
	space := false
	for i := 0; i < len(nfc); {
		r, n := decode(nfc, i)
		i += n
		if r >= invalidUT {
			dst = append(dst, byte(r-invalidUT))
			continue
		}
		if !mode.cs {
			r = foldRune(r)
		}
		switch {
		case mode.match == MatchIdentifier:
			if r == '_' || !isWordRune(r) {
				continue
			}
		case unicode.IsSpace(r) && mode.match == MatchLiteral:
			if !space {
				dst = append(dst, ' ')
			}
			space = true
			continue
		}
		space = false
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// ruleMode is what Normalize needs to know about a rule.
type ruleMode struct {
	match MatchKind
	cs    bool
}
