package catalog

import (
	"bytes"
	"encoding/binary"
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
	base := len(dst)
	nonASCII := firstNonASCII(line)
	if m.hasLit || m.hasID || m.sub != nil {
		buf := line
		var om offmap
		var sc *scratch
		if i := nonASCII; i < len(line) {
			// An ASCII character never combines with what precedes it, so the
			// NFC check can start at the last ASCII byte before i.
			from := max(i-1, 0)
			if norm.NFC.QuickSpan(line[from:]) != len(line)-from {
				sc = m.pool.Get().(*scratch)
				buf, om = sc.normalize(line)
			}
		}
		if m.hasLit || m.hasID {
			dst = m.scanTokens(buf, &om, dst)
		}
		if m.sub != nil {
			dst = m.scanSub(buf, &om, dst)
		}
		if sc != nil {
			sc.release(&m.pool)
		}
	}
	if len(m.regex) > 0 {
		dst = m.scanRegex(line, nonASCII == len(line), dst)
	}
	if len(dst)-base > 1 {
		dst = finishMatches(dst, base)
	}
	return dst
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
// line b in one pass over its tokens. ASCII words are hashed inline (the
// result equals token's); ASCII separators that start no value and spaces
// are skipped without hashing; everything else goes through token.
func (m *Matcher) scanTokens(b []byte, om *offmap, dst []Match) []Match {
	k := &m.k
	hasLit, hasID := m.hasLit, m.hasID
	var ring identRing
	lastWordEnd := -2 // end of the previous word token
	n := len(b)
	for i := 0; i < n; {
		c := b[i]
		var end int
		var kind uint8
		var hf uint64
		simple, asciiWord := false, false
		if f := wordTab[c]; f != 0 {
			h := feed(k.tokF, uint64(f))
			first := identTab[c]
			var rest uint8
			j := i + 1
			for ; j < n; j++ {
				x := b[j]
				f = wordTab[x]
				if f == 0 {
					break
				}
				rest |= identTab[x]
				h = feed(h, uint64(f))
			}
			if j < n && b[j] >= utf8.RuneSelf {
				end, kind, hf, _ = k.token(b, i, false) // the word may go on
			} else {
				end, kind, hf, asciiWord = j, kindWord, fmix64(h^k.tokFfin), true
				all := first | rest
				simple = all&bitUnder == 0 && (all&bitDigit == 0 || all&(bitUpper|bitLower) == 0) &&
					(rest&bitUpper == 0 || all&bitLower == 0)
			}
		} else if c < utf8.RuneSelf {
			if hasLit && m.sepFirst[c] {
				dst = m.extendLit(b, i, i+1, kindSep, m.sepHash[c], om, dst)
			}
			i++
			continue
		} else {
			end, kind, hf, _ = k.token(b, i, false)
		}

		if hasLit && m.lit.first.has(hf) {
			dst = m.extendLit(b, i, end, kind, hf, om, dst)
		}
		if hasID && kind == kindWord {
			// A word continues the identifier chunk when joined to the
			// previous word by one '-' or '.'; '_' is inside words.
			if i != lastWordEnd+1 || (b[i-1] != '-' && b[i-1] != '.') {
				dst = m.flushIdent(&ring, om, dst)
			}
			switch {
			case simple:
				dst = m.pushIdent(&ring, subwordAt{i, end, hf}, om, dst)
			case asciiWord:
				dst = m.pushSubwordsASCII(&ring, b, i, end, om, dst)
			default:
				for pos := i; ; {
					s, e, h := k.subword(b, pos, end)
					if s == e {
						break
					}
					dst = m.pushIdent(&ring, subwordAt{s, e, h}, om, dst)
					pos = e
				}
			}
			lastWordEnd = end
		}
		i = end
	}
	if hasID {
		dst = m.flushIdent(&ring, om, dst)
	}
	return dst
}

// pushSubwordsASCII splits the ASCII word b[i:end] into sub-words exactly as
// hkeys.subword does, without decoding runes.
func (m *Matcher) pushSubwordsASCII(r *identRing, b []byte, i, end int, om *offmap, dst []Match) []Match {
	k := &m.k
	for pos := i; pos < end; {
		for pos < end && b[pos] == '_' {
			pos++
		}
		if pos >= end {
			break
		}
		s := pos
		prev := identTab[b[pos]]
		for pos++; pos < end; pos++ {
			cl := identTab[b[pos]]
			if cl == bitUnder || (cl == bitDigit) != (prev == bitDigit) || (cl == bitUpper && prev == bitLower) {
				break
			}
			if cl == bitUpper && prev == bitUpper && pos+1 < end && identTab[b[pos+1]] == bitLower {
				break
			}
			prev = cl
		}
		if r.size == 0 {
			// Nothing started before: hash the sub-word only if its first
			// two bytes can start an identifier value.
			p := uint16(wordTab[b[s]]) << 8
			if pos-s > 1 {
				p |= uint16(wordTab[b[s+1]])
			}
			if !m.idPairs.has(p) {
				continue
			}
		}
		h := k.tokF
		for _, c := range b[s:pos] {
			h = feed(h, uint64(wordTab[c]))
		}
		dst = m.pushIdent(r, subwordAt{s, pos, fmix64(h ^ k.tokFfin)}, om, dst)
	}
	return dst
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

// subwordAt is one sub-word of the line: b[s:e] with folded hash h.
type subwordAt struct {
	s, e int
	h    uint64
}

// identRing holds the last sub-words of the current identifier chunk (words
// joined by '_', '-' or '.'); a start is checked once the ring holds the
// longest possible identifier after it, or when the chunk ends.
type identRing struct {
	w          [identMaxWords]subwordAt
	head, size int
}

func (m *Matcher) pushIdent(r *identRing, w subwordAt, om *offmap, dst []Match) []Match {
	if r.size == 0 && !m.id.first.has(w.h) {
		return dst // no identifier can start here, and none started before
	}
	if r.size == m.id.maxLen {
		dst = m.checkIdent(r, om, dst)
		r.head = (r.head + 1) % identMaxWords
		r.size--
	}
	r.w[(r.head+r.size)%identMaxWords] = w
	r.size++
	return dst
}

func (m *Matcher) flushIdent(r *identRing, om *offmap, dst []Match) []Match {
	for r.size > 0 {
		dst = m.checkIdent(r, om, dst)
		r.head = (r.head + 1) % identMaxWords
		r.size--
	}
	r.head = 0
	return dst
}

// checkIdent checks the sub-word sequences starting at the ring's head.
func (m *Matcher) checkIdent(r *identRing, om *offmap, dst []Match) []Match {
	k := &m.k
	first := &r.w[r.head]
	if !m.id.first.has(first.h) {
		return dst
	}
	s := k.spanID
	for n := 0; n < r.size; n++ {
		w := &r.w[(r.head+n)%identMaxWords]
		s = spanStep(s, w.h)
		key := k.spanKey(s)
		if !m.id.prefix.has(key) {
			break
		}
		if m.id.full.has(key) {
			if v, ok := m.id.tab.get(key); ok {
				dst = m.emit(dst, v, om.start(first.s), om.end(w.e))
			}
		}
	}
	return dst
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
