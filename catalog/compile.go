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
	// MaxRegexSourceBytes bounds the total size of a catalog's regex values,
	// which bounds the time Compile spends compiling them.
	MaxRegexSourceBytes = 4 << 20
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

	// Literal values with word boundaries, as token sequences. lit's prefix
	// and full filters are keyed by folded span hashes of every such value;
	// lit.tab holds case-insensitive rules, cs (exact span hashes) the
	// case-sensitive ones.
	lit    spanIndex
	cs     table
	hasLit bool
	hasCS  bool

	// Identifier spellings, as sub-word sequences (folded).
	id    spanIndex
	hasID bool

	// Literal values with `boundary: none`.
	sub *subIndex

	regex []regexRule
	multi [][]uint32

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
}

// trigger is a literal that a regex match must contain; fold: compare
// with ASCII case folded (lit is lower case).
type trigger struct {
	lit  []byte
	fold bool
}

// Compile validates c and compiles it into a Matcher. Errors name the rule
// (IDs are not secret) and the value's position in it, never the value.
func Compile(c *Catalog, opts *CompileOptions) (*Matcher, error) {
	if c == nil {
		return nil, errors.New("compile: nil catalog")
	}
	var key []byte
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
		h := sha256.New()
		h.Write([]byte("privscan/fingerprint/v1\x00"))
		h.Write(c.Digest[:])
		h.Sum(m.fpKey[:0])
	case 32:
		copy(m.fpKey[:], c.FingerprintKey)
	default:
		return nil, errors.New("compile: fingerprint key must be 32 bytes")
	}
	m.pool.New = func() any { return new(scratch) }

	// Pass 1: validate, and count values and tokens to size the tables.
	var nLit, litTok, nID, idTok, nSub, subSym, nRegex, regexBytes int
	norms := make([][]string, len(c.Rules))
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
		ns := make([]string, len(r.Values))
		for vi, v := range r.Values {
			s := strings.TrimSpace(norm.NFC.String(v.reveal()))
			if utf8.RuneCountInString(s) < MinLiteralRunes {
				return nil, fmt.Errorf("rule %s: value %d: literal shorter than %d characters", r.ID, vi+1, MinLiteralRunes)
			}
			ns[vi] = s
			est := tokenEstimate(s)
			if r.NoBoundary {
				nSub++
				subSym += utf8.RuneCountInString(s)
			} else {
				nLit++
				litTok += est
			}
			if r.Match == MatchIdentifier {
				nID += 2
				idTok += est + 1
			}
		}
		norms[ri] = ns
	}
	if nRegex > MaxRegexValues {
		return nil, fmt.Errorf("compile: catalog has %d regex values, more than the limit of %d", nRegex, MaxRegexValues)
	}
	if regexBytes > MaxRegexSourceBytes {
		return nil, fmt.Errorf("compile: catalog's regex values total %d bytes, more than the limit of %d", regexBytes, MaxRegexSourceBytes)
	}

	// Pass 2: build.
	if nLit > 0 {
		m.hasLit = true
		m.lit = newSpanIndex(nLit, litTok)
	}
	if nID > 0 {
		m.hasID = true
		m.id = newSpanIndex(nID, idTok)
	}
	if nSub > 0 {
		m.sub = &subIndex{
			prefix: newBitset(subSym, 8),
			full:   newBitset(nSub, 16),
			fold:   newTable(nSub),
		}
	}
	var csCount int
	for ri := range c.Rules {
		r := &c.Rules[ri]
		if r.CaseSensitive && !r.NoBoundary && r.Match != MatchRegex {
			csCount += len(r.Values)
		}
		if r.CaseSensitive && r.NoBoundary && r.Match != MatchRegex && m.sub != nil {
			m.sub.hasCS = true
		}
	}
	if csCount > 0 {
		m.hasCS = true
		m.cs = newTable(csCount)
	}
	if m.sub != nil && m.sub.hasCS {
		m.sub.exact = newTable(nSub)
	}

	var toks []vtok
	var words []uint64
	for ri := range c.Rules {
		r := &c.Rules[ri]
		if r.Match == MatchRegex {
			if err := m.compileRegexRule(ri, r); err != nil {
				return nil, err
			}
			continue
		}
		for _, s := range norms[ri] {
			b := []byte(s)
			if r.NoBoundary {
				m.addSub(b, uint32(ri), r.CaseSensitive)
			} else {
				toks = m.k.valueTokens(b, toks[:0])
				m.addLit(toks, uint32(ri), r.CaseSensitive)
			}
			if r.Match == MatchIdentifier {
				words = m.addIdent(b, uint32(ri), words[:0])
			}
		}
		norms[ri] = nil // drop normalized copies as we go
	}
	return m, nil
}

// tokenEstimate is an upper bound on the tokens of s, for sizing filters.
func tokenEstimate(s string) int {
	n := 1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf && asciiTab[c].kind != kindWord {
			n += 2
		}
	}
	return min(n, len(s))
}

// Rules returns the value-free descriptions of the rules; the index is
// Match.Rule.
func (m *Matcher) Rules() []RuleInfo { return append([]RuleInfo(nil), m.rules...) }

// FingerprintKey returns the key for finding fingerprints: the catalog's
// fingerprint-key setting when present, else SHA-256 of
// "privscan/fingerprint/v1\x00" followed by the catalog digest.
func (m *Matcher) FingerprintKey() [32]byte { return m.fpKey }

// vtok is one token of a value: its kind and folded and exact hashes.
type vtok struct {
	kind uint8
	f, e uint64
}

// valueTokens tokenizes a normalized value exactly as the scanner tokenizes
// text, except that any run of Unicode white space is one space token.
func (k *hkeys) valueTokens(b []byte, dst []vtok) []vtok {
	for i := 0; i < len(b); {
		r, n := decode(b, i)
		switch {
		case r < invalidUT && unicode.IsSpace(r):
			for i < len(b) {
				r, n = decode(b, i)
				if r >= invalidUT || !unicode.IsSpace(r) {
					break
				}
				i += n
			}
			dst = append(dst, vtok{kind: kindSpace, f: k.spaceF, e: k.spaceE})
		case isWordRune(r):
			hf, he := k.tokF, k.tokE
			for i < len(b) {
				r, n = decode(b, i)
				if !isWordRune(r) {
					break
				}
				hf, he = feed(hf, uint64(foldRune(r))), feed(he, uint64(r))
				i += n
			}
			dst = append(dst, vtok{kind: kindWord, f: fmix64(hf ^ k.tokFfin), e: fmix64(he ^ k.tokEfin)})
		default:
			dst = append(dst, vtok{kind: kindSep,
				f: fmix64(feed(k.tokF, uint64(foldRune(r))) ^ k.tokFfin),
				e: fmix64(feed(k.tokE, uint64(r)) ^ k.tokEfin)})
			i += n
		}
	}
	return dst
}

func (m *Matcher) addLit(toks []vtok, rule uint32, cs bool) {
	if len(toks) == 0 {
		return
	}
	s, se := m.k.spanLit, m.k.spanCS
	var key uint64
	for _, t := range toks {
		s = spanStep(s, t.f)
		se = spanStep(se, t.e)
		key = m.k.spanKey(s)
		m.lit.prefix.set(key)
	}
	m.lit.full.set(key)
	if cs {
		m.cs.insert(m.k.spanKey(se), rule, &m.multi)
	} else {
		m.lit.tab.insert(key, rule, &m.multi)
	}
	m.lit.maxLen = max(m.lit.maxLen, len(toks))
}

// addIdent registers the identifier spellings of a normalized value: its
// sub-words in sequence (AcmeCorp, acme_corp, ACME-CORP, acme.corp) and their
// concatenation as one sub-word (acmecorp, ACMECORP).
func (m *Matcher) addIdent(b []byte, rule uint32, words []uint64) []uint64 {
	cat := m.k.tokF
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
				cat = feed(cat, uint64(foldRune(r)))
				j += n
			}
			pos = e
		}
		i = end
	}
	if len(words) == 0 || len(words) > identMaxWords {
		return words
	}
	s := m.k.spanID
	var key uint64
	for _, w := range words {
		s = spanStep(s, w)
		key = m.k.spanKey(s)
		m.id.prefix.set(key)
	}
	m.id.full.set(key)
	m.id.tab.insert(key, rule, &m.multi)
	m.id.maxLen = max(m.id.maxLen, len(words))
	if len(words) > 1 {
		key = m.k.spanKey(spanStep(m.k.spanID, fmix64(cat^m.k.tokFfin)))
		m.id.prefix.set(key)
		m.id.full.set(key)
		m.id.tab.insert(key, rule, &m.multi)
	}
	return words
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
func (m *Matcher) addSub(b []byte, rule uint32, cs bool) {
	x := m.sub
	hf, he := uint64(0), uint64(0)
	n := 0
	var key uint64
	for i := 0; i < len(b); {
		r, w := decode(b, i)
		i += w
		f, e := foldRune(r), r
		if r < invalidUT && unicode.IsSpace(r) {
			f, e = ' ', ' '
			for i < len(b) {
				r, w = decode(b, i)
				if r >= invalidUT || !unicode.IsSpace(r) {
					break
				}
				i += w
			}
		}
		hf = polyStep(hf, m.k.subBase, f)
		he = polyStep(he, m.k.subBase, e)
		n++
		key = m.k.subKey(hf, n, false)
		if n >= MinLiteralRunes {
			x.prefix.set(key)
		}
	}
	if n < MinLiteralRunes {
		return // cannot happen: Compile checked the length
	}
	x.full.set(key)
	if cs {
		x.exact.insert(m.k.subKey(he, n, true), rule, &m.multi)
	} else {
		x.fold.insert(key, rule, &m.multi)
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
		m.regex = append(m.regex, regexRule{rule: ri, re: re, boundary: !r.NoBoundary, context: context,
			triggers: trig, always: always})
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

// requiredLiterals returns literals one of which occurs in every match of
// t, or ok == false when it cannot tell. Case-folded literals must be ASCII
// (the prefilter folds ASCII only).
func requiredLiterals(t *syntax.Regexp) (ts []trigger, ok bool) {
	switch t.Op {
	case syntax.OpLiteral:
		fold := t.Flags&syntax.FoldCase != 0
		b := []byte(string(t.Rune))
		for i, c := range b {
			if fold && c >= utf8.RuneSelf {
				return nil, false
			}
			if fold {
				b[i] = asciiTab[c].fold
			}
		}
		return []trigger{{lit: b, fold: fold}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return requiredLiterals(t.Sub[0])
		}
	case syntax.OpConcat:
		best := -1
		for _, s := range t.Sub {
			if sub, ok := requiredLiterals(s); ok && minTriggerLen(sub) > best {
				ts, best = sub, minTriggerLen(sub)
			}
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
