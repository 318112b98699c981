package catalog

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits enforced by Compile.
const (
	// MaxRegexValues is the largest number of regex values a catalog may hold.
	MaxRegexValues = 10000
	// maxRegexSourceBytes bounds the total size of a catalog's regex values,
	// which bounds the time Compile spends compiling them (about 0.1 s for
	// the largest catalog allowed).
	maxRegexSourceBytes = 4 << 20
	// identMaxWords is the most words an identifier value may have for its
	// code-identifier spellings to be matched (its literal spelling always is).
	identMaxWords = 16
	// regexChunk is how many regex values of a rule share one compiled
	// alternation.
	regexChunk     = 64
	regexChunkSize = 16 << 10
)

// CompileOptions tunes Compile. A nil *CompileOptions means the defaults.
type CompileOptions struct {
	// HashKey keys the span hashes. nil: 32 random bytes per process
	// (crypto/rand). Tests fix it.
	HashKey []byte

	// compact sizes the literal and identifier filters with fewer bits
	// per entry (Seal: a smaller file, for slightly more false probes).
	compact bool
	// recKeys keys the record arrays (Seal: from the seal key and salt);
	// nil: derived from the hash key.
	recKeys *recordKeys
}

// Matcher is a compiled catalog. It holds no catalog plaintext for literal
// and identifier rules: only keyed 64-bit hashes of normalized token
// sequences (see compile_hash.go). Regex rules keep their compiled patterns
// in memory (unexported, never printed). A Matcher is safe for concurrent use.
type Matcher struct {
	rules []RuleInfo
	modes []ruleMode
	fpKey [32]byte
	k     hkeys

	// parts, when set, makes m a combination of catalogs (Combine): rule
	// i of parts[j] is rule partBase[j]+i of m, and m has no tables of
	// its own.
	parts    []*Matcher
	partBase []int

	// Literal values with word boundaries, as token sequences. lit's prefix
	// and full filters are keyed by folded span hashes of every such value;
	// lit.tab holds case-insensitive rules, cs (exact span hashes) the
	// case-sensitive ones.
	lit       spanIndex
	sepTab    [256]uint8 // ASCII separators: sepFirst, anchor bits
	wordClass [256]uint8 // ASCII word bytes: identTab bits, anchor bits
	// stopTab marks the bytes scanTokens must look at: word bytes, bytes
	// >= 0x80 and separators with sepTab bits. Others are skipped.
	stopTab [256]bool
	asm     asmTabs     // what scanQuiet's assembly needs (amd64)
	sepHash [128]uint64 // folded token hash of each ASCII separator
	cs      table
	hasLit  bool
	hasCS   bool

	// Identifier spellings, as sub-word sequences (folded).
	id    spanIndex
	hasID bool

	// Prefilter on the ASCII words of the text, keyed by wordKey (the
	// first four folded bytes and the length): preLit is set for the first
	// token of every literal value whose folded form is ASCII, preID for
	// every sub-word that can start an identifier match. A word with
	// neither bit is not hashed.
	pre prefilter

	// Literal values with `boundary: none`.
	sub *subIndex

	regex []regexRule
	// regexAnchors is the union of the regex rules' anchors; regexGated
	// reports that no rule is searched unconditionally (always), so an
	// ASCII line without any of regexAnchors needs no regex search.
	regexAnchors uint8
	regexGated   bool
	multi        [][]uint32
	// sealChk checks the pages of a sealed catalog's tables (nil when m
	// is not sealed).
	sealChk *sealChecker
	// set, when set, makes m one catalog sealed in parts (JoinSealed):
	// every part has m's rules, and m has no tables of its own.
	set []*Matcher

	// rec holds each rule's part in record rules (nil: none takes part),
	// recIdx the record arrays (record.go).
	rec    []*RecordInfo
	recIdx *recordIndex

	pool sync.Pool // *scratch, for lines that need NFC normalization
}

// subIndex holds the `boundary: none` values as polynomial hashes of their
// folded symbol strings (whitespace runs count as one symbol).
type subIndex struct {
	prefix bitset // every prefix of at least 3 symbols (folded hash)
	full   bitset // complete values (folded hash)
	fold   table  // case-insensitive rules
	exact  table  // case-sensitive rules, keyed by the exact hash
	hasCS  bool
	maxLen int
}

type regexRule struct {
	rule     int
	re       *regexp.Regexp
	boundary bool // check the Unicode word boundary around each match
	context  bool // the pattern has ^ $ \b \B \A \z: search the whole line only
	// Every match contains one of triggers (unless always): an ASCII line
	// containing none of them is not searched.
	triggers []trigger
	always   bool
	// Under (?i), U+212A (Kelvin) matches k and U+017F (long s) matches s:
	// a folded trigger holding k or s only filters ASCII lines.
	asciiOnly bool
	// anchors holds the anchor bits (see setAnchorBits) of the triggers'
	// anchor bytes: an ASCII line none of whose bytes has one of them is
	// not searched.
	anchors uint8
}

// trigger is a literal that a regex match must contain; fold: compare
// with ASCII case folded (lit is lower case).
type trigger struct {
	lit    []byte
	fold   bool
	anchor int // index in lit of the byte searched for first
}

// letterRank orders lower-case letters from common to rare in source text.
// A trigger is anchored on its rarest byte: punctuation and non-ASCII bytes
// first, then (in a case-sensitive trigger) upper-case letters, which are
// rarer than lower-case ones, then letters by this order.
const letterRank = "etaoinsrlcdumphgfbyvwkxjqz"

func (t *trigger) setAnchor() {
	best := -1
	for i, c := range t.lit {
		var r int
		switch {
		case c >= '0' && c <= '9':
			r = 5
		case c >= 'a' && c <= 'z':
			r = strings.IndexByte(letterRank, c)
		case c >= 'A' && c <= 'Z':
			r = 10 + strings.IndexByte(letterRank, c+'a'-'A')
		default:
			r = 40 // punctuation and non-ASCII bytes
		}
		if r > best {
			t.anchor, best = i, r
		}
	}
}

// Compile validates c and compiles it into a Matcher. Errors name the rule
// (IDs are not secret) and the value's position in it, never the value.
//
// Literal and identifier values are compiled in canonical form: NFC,
// trimmed, every run of white space as one space; one shorter than
// MinLiteralRunes characters in that form is an error. Case folding is
// simple Unicode folding, rune by rune, on both sides. An identifier rule's
// code spellings (AcmeCorp, acme_corp, ACME-CORP, acme.corp, acmecorp) are
// always matched case-insensitively, since they differ in case by nature;
// `case: sensitive` applies to its literal spelling. Values of more than 16
// words get no identifier spellings. Regex values are compiled per rule in
// alternations of up to 64 values; at most MaxRegexValues regex values are
// accepted.
func Compile(c *Catalog, opts *CompileOptions) (*Matcher, error) {
	if c == nil {
		return nil, errors.New("compile: nil catalog")
	}
	var key []byte
	bits := spanBits{first: 16, prefix: 8, full: 16}
	if opts != nil && opts.compact {
		bits = spanBits{first: 12, prefix: 7, full: 10}
	}
	if opts != nil && opts.HashKey != nil {
		key = opts.HashKey
	} else {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("compile: random hash key: %w", err)
		}
	}
	m := &Matcher{k: deriveKeys(key)}
	switch len(c.FingerprintKey) {
	case 0:
		copy(m.fpKey[:], fingerprintKeyOf(c))
	case 32:
		copy(m.fpKey[:], c.FingerprintKey)
	default:
		return nil, errors.New("compile: fingerprint key must be 32 bytes")
	}
	m.pool.New = func() any { return new(scratch) }
	for c := range m.sepHash {
		m.sepHash[c] = fmix64(feed(m.k.tokF, uint64(asciiTab[c].fold)) ^ m.k.tokFfin)
	}

	// Pass 1: check kinds and count values and tokens to size the tables.
	// simpleVals marks the literal and identifier values (numbered in
	// order, regex rules skipped) that are already in canonical form.
	var nLit, litTok, nID, idTok, nSub, subSym, nCS, nRegex, regexBytes, nVals int
	total := 0
	for ri := range c.Rules {
		total += len(c.Rules[ri].Values)
	}
	simpleVals := make([]uint64, (total+63)/64)
	for ri := range c.Rules {
		r := &c.Rules[ri]
		m.rules = append(m.rules, RuleInfo{ID: r.ID, Category: r.Category, Severity: r.Severity, Description: r.Description})
		m.modes = append(m.modes, ruleMode{match: r.Match, cs: r.CaseSensitive})
		switch r.Match {
		case MatchRegex:
			nRegex += len(r.Values)
			for _, v := range r.Values {
				regexBytes += v.Len()
			}
			continue
		case MatchLiteral, MatchIdentifier:
		default:
			return nil, fmt.Errorf("rule %s: unknown match kind %d", r.ID, uint8(r.Match))
		}
		for _, v := range r.Values {
			s := v.reveal()
			est, simple := scanValue(s)
			if simple {
				simpleVals[nVals>>6] |= 1 << (nVals & 63)
			}
			nVals++
			switch {
			case r.NoBoundary:
				nSub++
				subSym += utf8.RuneCountInString(s)
			case r.CaseSensitive:
				nCS++
				fallthrough
			default:
				nLit++
				litTok += est
			}
			if r.Match == MatchIdentifier {
				nID += 2
				idTok += est + 1
			}
		}
	}
	if nRegex > MaxRegexValues {
		return nil, fmt.Errorf("compile: catalog has %d regex values, more than the limit of %d", nRegex, MaxRegexValues)
	}
	if regexBytes > maxRegexSourceBytes {
		return nil, fmt.Errorf("compile: catalog's regex values total %d bytes, more than the limit of %d", regexBytes, maxRegexSourceBytes)
	}

	// Pass 2: validate and build.
	if nLit > 0 {
		m.hasLit = true
		m.lit = newSpanIndex(nLit, litTok, bits)
	}
	if nCS > 0 {
		m.hasCS = true
		m.cs = newTable(nCS)
	}
	if nID > 0 {
		m.hasID = true
		m.id = newSpanIndex(nID, idTok, bits)
	}
	if nLit > 0 || nID > 0 {
		m.pre = newPrefilter(nLit + nID)
	}
	if nSub > 0 {
		m.sub = &subIndex{
			prefix: newBitset(subSym, 8),
			full:   newBitset(nSub, 16),
			fold:   newTable(nSub),
		}
	}
	var buf []byte
	var words []uint64
	bw := bitWriter{multi: &m.multi}
	bw.attach(sinkLitFirst, &m.lit.first)
	bw.attach(sinkLitPrefix, &m.lit.prefix)
	bw.attach(sinkLitFull, &m.lit.full)
	bw.attach(sinkIDFirst, &m.id.first)
	bw.attach(sinkIDPrefix, &m.id.prefix)
	bw.attach(sinkIDFull, &m.id.full)
	if m.sub != nil {
		bw.attach(sinkSubPrefix, &m.sub.prefix)
		bw.attach(sinkSubFull, &m.sub.full)
	}
	nVals = 0
	for ri := range c.Rules {
		r := &c.Rules[ri]
		if r.Match == MatchRegex {
			if err := m.compileRegexRule(ri, r); err != nil {
				return nil, err
			}
			continue
		}
		for vi, v := range r.Values {
			s := v.reveal()
			nRunes := len(s)
			if simpleVals[nVals>>6]&(1<<(nVals&63)) != 0 {
				buf = append(buf[:0], s...)
			} else {
				buf = canonicalValue(buf[:0], s)
				nRunes = utf8.RuneCount(buf)
			}
			nVals++
			if nRunes < MinLiteralRunes {
				return nil, fmt.Errorf("rule %s: value %d: literal shorter than %d characters", r.ID, vi+1, MinLiteralRunes)
			}
			if r.NoBoundary {
				if r.CaseSensitive && !m.sub.hasCS {
					m.sub.hasCS = true
					m.sub.exact = newTable(nSub)
				}
				m.addSub(&bw, buf, uint32(ri), r.CaseSensitive)
			} else {
				m.addLit(&bw, buf, uint32(ri), r.CaseSensitive)
			}
			if r.Match == MatchIdentifier {
				words = m.addIdent(&bw, buf, uint32(ri), words[:0])
			}
		}
	}
	bw.flush()
	clear(buf)
	m.setAnchorBits()
	rk := deriveRecordKeys(key)
	if opts != nil && opts.recKeys != nil {
		rk = *opts.recKeys
	}
	if err := m.compileRecords(c, rk); err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	return m, nil
}

// Bits of Matcher.sepTab and Matcher.wordClass. The anchor bits are those
// identTab leaves free; sepFirst is only used in sepTab.
const (
	sepFirst   = 0x02
	anchorBits = 0x01 | 0x08 | 0x40 | 0x80
)

// setAnchorBits fills wordClass, sepTab's anchor bits and the regex rules'
// anchors: each distinct ASCII anchor byte of a trigger (in both cases for
// a folded letter) gets one of the four anchor bits, shared round-robin
// when there are more. A rule with a non-ASCII anchor byte gets all bits:
// scanTokens only sees ASCII bytes.
func (m *Matcher) setAnchorBits() {
	copy(m.wordClass[:], identTab[:])
	bits := [...]uint8{0x01, 0x08, 0x40, 0x80}
	var bit [256]uint8
	next := 0
	for i := range m.regex {
		rr := &m.regex[i]
		for _, t := range rr.triggers {
			c := t.lit[t.anchor]
			if c >= utf8.RuneSelf {
				rr.anchors = anchorBits
				continue
			}
			cs := []byte{c}
			if t.fold && asciiTab[c].sub == subLower {
				cs = append(cs, c-'a'+'A')
			}
			for _, c := range cs {
				if bit[c] == 0 {
					bit[c] = bits[next%len(bits)]
					next++
					if identTab[c] != 0 {
						m.wordClass[c] |= bit[c]
					} else {
						m.sepTab[c] |= bit[c]
					}
				}
				rr.anchors |= bit[c]
			}
		}
	}
	for c := range m.stopTab {
		m.stopTab[c] = c >= utf8.RuneSelf || m.wordClass[c] != 0 || m.sepTab[c] != 0
	}
	m.asm.init(m)
	m.regexGated = true
	for i := range m.regex {
		m.regexAnchors |= m.regex[i].anchors
		m.regexGated = m.regexGated && !m.regex[i].always
	}
}

// canonicalValue appends the form of s that is compiled: NFC, trimmed, and
// every run of Unicode white space replaced by one space, so values are
// tokenized by the same code as text (where spaces and tabs are white space).
//
// dst must be empty (its capacity is reused).
func canonicalValue(dst []byte, s string) []byte {
	// One pass for the common case: printable ASCII (and tabs), which is
	// in NFC and whose only white space is ' ' and '\t'.
	w, space := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c < ' ' && c != '\t') || c == 0x7f {
			dst = dst[:0]
			return canonicalValueSlow(dst, s)
		}
		if c == ' ' || c == '\t' {
			if !space {
				dst = append(dst, ' ')
				w++
			}
			space = true
			continue
		}
		dst = append(dst, c)
		w++
		space = false
	}
	if w > 0 && dst[w-1] == ' ' {
		w--
	}
	return dst[:w]
}

// canonicalValueSlow is canonicalValue for values with non-ASCII or
// control characters.
func canonicalValueSlow(dst []byte, s string) []byte {
	dst = norm.NFC.AppendString(dst, s)
	// Runes other than white space are copied as they are: a valid
	// encoding is the only encoding of its rune, an invalid byte stays.
	out := dst[len(dst):]
	space := true
	for i := 0; i < len(dst); {
		n, sp := 1, false
		if c := dst[i]; c < utf8.RuneSelf {
			sp = isASCIISpace(c)
		} else {
			var r rune
			r, n = decode(dst, i)
			sp = r < invalidUT && unicode.IsSpace(r)
		}
		if sp {
			if !space {
				out = append(out, ' ')
			}
			space = true
			i += n
			continue
		}
		space = false
		out = append(out, dst[i:i+n]...)
		i += n
	}
	if len(out) > 0 && out[len(out)-1] == ' ' {
		out = out[:len(out)-1]
	}
	return append(dst[:0], out...)
}

// scanValue returns an upper bound on the tokens of s, for sizing filters,
// and whether s is simple: printable ASCII without tabs, leading or
// trailing spaces or runs of spaces, so that canonicalValue(s) is s.
func scanValue(s string) (est int, simple bool) {
	n := 1
	var flags, runs, prev uint8
	for i := 0; i < len(s); i++ {
		f := valueScanTab[s[i]]
		n += int(f & scanWeight)
		flags |= f
		sp := f & scanSpace
		runs |= sp & prev
		prev = sp
	}
	simple = flags&scanNotSimple == 0 && runs == 0 &&
		(len(s) == 0 || (s[0] != ' ' && s[len(s)-1] != ' '))
	return min(n, len(s)), simple
}

// Bits of valueScanTab.
const (
	scanWeight    = 0x03 // tokens an ASCII non-word byte may add (2)
	scanSpace     = 0x04 // ' '
	scanNotSimple = 0x08 // a byte canonicalValue may change or drop
)

// valueScanTab classifies bytes for scanValue.
var valueScanTab = func() (t [256]uint8) {
	for c := range t {
		if c < utf8.RuneSelf && asciiTab[c].kind != kindWord {
			t[c] |= 2
		}
		if c == ' ' {
			t[c] |= scanSpace
		}
		if c >= 0x7f || c < ' ' {
			t[c] |= scanNotSimple
		}
	}
	return t
}()

// Rules returns the value-free descriptions of the rules; the index is
// Match.Rule.
func (m *Matcher) Rules() []RuleInfo { return append([]RuleInfo(nil), m.rules...) }

// FingerprintKey returns the key for finding fingerprints: the catalog's
// fingerprint-key setting when present, else SHA-256 of
// "privscan/fingerprint/v1\x00" followed by the catalog digest.
func (m *Matcher) FingerprintKey() [32]byte { return m.fpKey }

// addLit registers a canonical value with word boundaries: every prefix of
// its token sequence in the prefix filter, the whole in the full filter and
// its rule in the folded or exact table.
func (m *Matcher) addLit(bw *bitWriter, b []byte, rule uint32, cs bool) {
	k := &m.k
	s, se := k.spanLit, k.spanCS
	var key uint64
	n := 0
	for i := 0; i < len(b); n++ {
		end, kind, hf, he := k.token(b, i, cs)
		if n == 0 {
			bw.set(sinkLitFirst, hf)
			if kind == kindSep && b[i] < utf8.RuneSelf {
				m.sepTab[b[i]] |= sepFirst
			}
			switch {
			case kind != kindWord:
			case firstNonASCII(b[i:end]) == end-i:
				// Folding ASCII word bytes changes no bit that
				// wordKey keeps: the raw bytes make the key.
				m.pre.set(k.wordKey(wordPrefix(b, i, end), end-i), preLit)
			default:
				var w wordKeyer
				for j := i; j < end; {
					if c := b[j]; c < utf8.RuneSelf {
						w.add(rune(asciiTab[c].fold))
						j++
						continue
					}
					r, n := decode(b, j)
					w.add(foldRune(r))
					j += n
				}
				if w.ascii {
					m.pre.set(k.wordKey(w.p, w.n), preLit)
				}
			}
		}
		s = spanStep(s, hf)
		se = spanStep(se, he)
		key = k.spanKey(s)
		bw.set(sinkLitPrefix, key)
		i = end
	}
	if n == 0 {
		return
	}
	bw.set(sinkLitFull, key)
	if cs {
		bw.insert(&m.cs, k.spanKey(se), rule)
	} else {
		bw.insert(&m.lit.tab, key, rule)
	}
	m.lit.maxLen = max(m.lit.maxLen, n)
}

// addIdent registers the identifier spellings of a normalized value: its
// sub-words in sequence (AcmeCorp, acme_corp, ACME-CORP, acme.corp) and their
// concatenation as one sub-word (acmecorp, ACMECORP).
func (m *Matcher) addIdent(bw *bitWriter, b []byte, rule uint32, words []uint64) []uint64 {
	cat := m.k.tokF
	var catKey, firstKey wordKeyer // the concatenation, the first sub-word
	for i := 0; i < len(b); {
		r, n := decode(b, i)
		if !isWordRune(r) {
			i += n
			continue
		}
		end := i
		for end < len(b) {
			r, n = decode(b, end)
			if !isWordRune(r) {
				break
			}
			end += n
		}
		for pos := i; ; {
			s, e, h := m.k.subword(b, pos, end)
			if s == e {
				break
			}
			words = append(words, h)
			for j := s; j < e; {
				r, n := decode(b, j)
				f := foldRune(r)
				cat = feed(cat, uint64(f))
				catKey.add(f)
				if len(words) == 1 {
					firstKey.add(f)
				}
				j += n
			}
			pos = e
		}
		i = end
	}
	if len(words) == 0 || len(words) > identMaxWords {
		return words
	}
	bw.set(sinkIDFirst, words[0])
	if firstKey.ascii {
		m.pre.set(m.k.wordKey(firstKey.p, firstKey.n), preID)
	}
	s := m.k.spanID
	var key uint64
	for _, w := range words {
		s = spanStep(s, w)
		key = m.k.spanKey(s)
		bw.set(sinkIDPrefix, key)
	}
	bw.set(sinkIDFull, key)
	bw.insert(&m.id.tab, key, rule)
	m.id.maxLen = max(m.id.maxLen, len(words))
	if len(words) > 1 {
		c := fmix64(cat ^ m.k.tokFfin)
		bw.set(sinkIDFirst, c)
		if catKey.ascii {
			m.pre.set(m.k.wordKey(catKey.p, catKey.n), preID)
		}
		key = m.k.spanKey(spanStep(m.k.spanID, c))
		bw.set(sinkIDPrefix, key)
		bw.set(sinkIDFull, key)
		bw.insert(&m.id.tab, key, rule)
	}
	return words
}

// wordKeyer collects the prefilter key of a word from its folded runes:
// the first four (as bytes, when ASCII) and the count.
type wordKeyer struct {
	p     uint32
	n     int
	ascii bool // every rune so far is ASCII
}

func (w *wordKeyer) add(f rune) {
	if w.n == 0 {
		w.ascii = true
	}
	if f >= utf8.RuneSelf {
		w.ascii = false
	} else if w.n < 4 {
		w.p |= uint32(f) << (8 * w.n)
	}
	w.n++
}

// subword returns the first sub-word of the word token b[pos:end] (or of
// its remainder): underscores separate sub-words and are skipped; a
// sub-word also ends at a letter/digit change, before an upper-case letter
// that follows a lower-case one (camelCase), and before the last of a run
// of upper-case letters followed by a lower-case one (HTTPServer). s == e
// when none is left. h is the folded token hash of the sub-word.
func (k *hkeys) subword(b []byte, pos, end int) (s, e int, h uint64) {
	for pos < end && b[pos] == '_' {
		pos++
	}
	if pos >= end {
		return end, end, 0
	}
	s = pos
	r, n := decode(b, pos)
	prev := subClass(r)
	h = feed(k.tokF, uint64(foldRune(r)))
	pos += n
	for pos < end {
		r, n = decode(b, pos)
		c := subClass(r)
		if c == subUnder {
			break
		}
		if c != subMark {
			if (c == subDigit) != (prev == subDigit) && prev != subMark {
				break
			}
			if c == subUpper && prev == subLower {
				break
			}
			if c == subUpper && prev == subUpper && pos+n < end {
				r2, _ := decode(b, pos+n)
				if subClass(r2) == subLower {
					break
				}
			}
			prev = c
		}
		h = feed(h, uint64(foldRune(r)))
		pos += n
	}
	return s, pos, fmix64(h ^ k.tokFfin)
}

// addSub registers a `boundary: none` value: the polynomial hashes of its
// symbols (folded and exact runes, any run of white space as one ' ').
func (m *Matcher) addSub(bw *bitWriter, b []byte, rule uint32, cs bool) {
	x, k := m.sub, &m.k
	var hf, he, key uint64
	n := 0
	for i := 0; i < len(b); {
		f, e, next := subSym(b, i)
		i = next
		hf = polyStep(hf, k.subBase, f)
		he = polyStep(he, k.subBase, e)
		n++
		key = k.subKey(hf, n, false)
		if n >= MinLiteralRunes {
			bw.set(sinkSubPrefix, key)
		}
	}
	if n < MinLiteralRunes {
		return // cannot happen: Compile checked the length
	}
	bw.set(sinkSubFull, key)
	if cs {
		bw.insert(&x.exact, k.subKey(he, n, true), rule)
	} else {
		bw.insert(&x.fold, key, rule)
	}
	x.maxLen = max(x.maxLen, n)
}

// compileRegexRule compiles a regex rule's values into alternations of at
// most regexChunk values.
func (m *Matcher) compileRegexRule(ri int, r *Rule) error {
	var b strings.Builder
	count, context, always := 0, false, false
	var trig []trigger
	flush := func() error {
		if count == 0 {
			return nil
		}
		re, err := regexp.Compile(b.String())
		if err != nil {
			return fmt.Errorf("rule %s: %s", r.ID, regexReason(err))
		}
		re.Longest()
		if always || len(trig) > maxTriggers {
			trig, always = nil, true
		}
		asciiOnly := false
		for _, t := range trig {
			asciiOnly = asciiOnly || (t.fold && strings.ContainsAny(string(t.lit), "ks"))
		}
		m.regex = append(m.regex, regexRule{rule: ri, re: re, boundary: !r.NoBoundary, context: context,
			triggers: trig, always: always, asciiOnly: asciiOnly})
		b.Reset()
		count, context, always, trig = 0, false, false, nil
		return nil
	}
	for vi, v := range r.Values {
		p := v.reveal()
		t, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			return fmt.Errorf("rule %s: value %d: %s", r.ID, vi+1, regexReason(err))
		}
		if regexMinLen(t) == 0 {
			return fmt.Errorf("rule %s: value %d: regex can match the empty string", r.ID, vi+1)
		}
		if count > 0 && (count >= regexChunk || b.Len()+len(p) > regexChunkSize) {
			if err := flush(); err != nil {
				return err
			}
		}
		if count == 0 {
			if !r.CaseSensitive {
				b.WriteString("(?i)")
			}
		} else {
			b.WriteByte('|')
		}
		b.WriteString("(?:")
		b.WriteString(p)
		b.WriteByte(')')
		count++
		context = context || hasContextOp(t)
		if !always {
			flags := syntax.Perl
			if !r.CaseSensitive {
				flags |= syntax.FoldCase
			}
			if ft, err := syntax.Parse(p, flags); err == nil {
				if tg, ok := requiredLiterals(ft.Simplify()); ok && minTriggerLen(tg) >= minTrigger {
					trig = append(trig, tg...)
				} else {
					always = true
				}
			} else {
				always = true
			}
		}
	}
	return flush()
}

// Regex prefilter limits: triggers shorter than minTrigger bytes filter too
// little; more than maxTriggers per compiled alternation cost more than the
// regex.
const (
	minTrigger  = 3
	maxTriggers = 16
)

func minTriggerLen(ts []trigger) int {
	n := -1
	for _, t := range ts {
		if n < 0 || len(t.lit) < n {
			n = len(t.lit)
		}
	}
	return n
}

// literalTrigger returns the literal t as a trigger without an anchor:
// ASCII-folded to lower case when t folds case, which it may only do for
// ASCII (the prefilter folds ASCII only).
func literalTrigger(t *syntax.Regexp) (trigger, bool) {
	fold := t.Flags&syntax.FoldCase != 0
	b := []byte(string(t.Rune))
	for i, c := range b {
		if fold && c >= utf8.RuneSelf {
			return trigger{}, false
		}
		if fold {
			b[i] = asciiTab[c].fold
		}
	}
	return trigger{lit: b, fold: fold}, true
}

// requiredLiterals returns literals one of which occurs in every match of
// t, or ok == false when it cannot tell. Case-folded literals must be ASCII
// (the prefilter folds ASCII only).
func requiredLiterals(t *syntax.Regexp) (ts []trigger, ok bool) {
	switch t.Op {
	case syntax.OpLiteral:
		lt, ok := literalTrigger(t)
		if !ok {
			return nil, false
		}
		lt.setAnchor()
		return []trigger{lt}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return requiredLiterals(t.Sub[0])
		}
	case syntax.OpConcat:
		// Candidates: the required literals of each part, and the
		// strings of each run of adjacent parts that match one of a few
		// strings (INC- and TKT- for (?:INC|TKT)-), joined.
		best := -1
		consider := func(sub []trigger) {
			if len(sub) > 0 && minTriggerLen(sub) > best {
				ts, best = sub, minTriggerLen(sub)
			}
		}
		var run []trigger
		for _, s := range t.Sub {
			if set, ok := exactStrings(s); ok {
				if joined, ok := joinTriggers(run, set); ok {
					run = joined
					continue
				}
				consider(run)
				run = set
				continue
			}
			consider(run)
			run = nil
			if sub, ok := requiredLiterals(s); ok {
				consider(sub)
			}
		}
		consider(run)
		for i := range ts {
			ts[i].setAnchor()
		}
		return ts, best >= 0
	case syntax.OpAlternate:
		for _, s := range t.Sub {
			sub, ok := requiredLiterals(s)
			if !ok {
				return nil, false
			}
			ts = append(ts, sub...)
		}
		return ts, len(ts) > 0
	}
	return nil, false
}

// maxExactStrings bounds the strings exactStrings and joinTriggers handle.
const maxExactStrings = maxTriggers

// exactStrings returns the strings t matches when they are few literals of
// one case mode (ASCII-folded and lower-case when fold), as triggers
// without anchors.
func exactStrings(t *syntax.Regexp) ([]trigger, bool) {
	switch t.Op {
	case syntax.OpLiteral:
		lt, ok := literalTrigger(t)
		if !ok {
			return nil, false
		}
		return []trigger{lt}, true
	case syntax.OpCapture:
		return exactStrings(t.Sub[0])
	case syntax.OpAlternate:
		var ts []trigger
		for _, s := range t.Sub {
			sub, ok := exactStrings(s)
			if !ok || len(ts)+len(sub) > maxExactStrings || len(ts) > 0 && sub[0].fold != ts[0].fold {
				return nil, false
			}
			ts = append(ts, sub...)
		}
		return ts, len(ts) > 0
	case syntax.OpConcat:
		var ts []trigger
		for _, s := range t.Sub {
			sub, ok := exactStrings(s)
			if !ok {
				return nil, false
			}
			if ts, ok = joinTriggers(ts, sub); !ok {
				return nil, false
			}
		}
		return ts, len(ts) > 0
	}
	return nil, false
}

// joinTriggers returns every string of a followed by one of b (b when a is
// empty), or false when a and b differ in case mode or there would be more
// than maxExactStrings.
func joinTriggers(a, b []trigger) ([]trigger, bool) {
	if len(a) == 0 {
		return b, true
	}
	if len(a)*len(b) > maxExactStrings || a[0].fold != b[0].fold {
		return nil, false
	}
	out := make([]trigger, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			lit := append(append(make([]byte, 0, len(x.lit)+len(y.lit)), x.lit...), y.lit...)
			out = append(out, trigger{lit: lit, fold: x.fold})
		}
	}
	return out, true
}

// hasContextOp reports whether t uses an assertion that depends on the text
// around the match (line/text anchors, \b, \B).
func hasContextOp(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range t.Sub {
		if hasContextOp(s) {
			return true
		}
	}
	return false
}

// fingerprintKeyOf returns the fingerprint key of c: its FingerprintKey, or
// one derived from its digest.
func fingerprintKeyOf(c *Catalog) []byte {
	if len(c.FingerprintKey) > 0 {
		return c.FingerprintKey
	}
	h := sha256.New()
	h.Write([]byte("privscan/fingerprint/v1\x00"))
	h.Write(c.Digest[:])
	return h.Sum(nil)
}
