package catalog

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Limits enforced by Parse.
const (
	// MinLiteralRunes is the shortest literal or identifier value, in
	// characters (code points) after trimming.
	MinLiteralRunes = 3
	// MaxValueBytes is the longest literal or identifier value, in bytes.
	MaxValueBytes = 1024
	// MaxRegexBytes is the longest regex value, in bytes.
	MaxRegexBytes = 1000
	// MaxDescriptionBytes is the longest `description` setting, in bytes.
	MaxDescriptionBytes = 1024
	// MaxParseErrors is how many problems Parse reports before it stops.
	MaxParseErrors = 10
)

// ParseError is one problem found by Parse. Reason never quotes catalog text
// other than rule IDs and setting keys that passed their syntax checks.
type ParseError struct {
	// Line is the 1-based catalog line, or 0 for a problem with the whole
	// catalog.
	Line   int
	Reason string
}

// Error renders "catalog line N: reason" (or "catalog: reason" when Line is 0).
func (e *ParseError) Error() string {
	if e.Line <= 0 {
		return "catalog: " + e.Reason
	}
	return "catalog line " + strconv.Itoa(e.Line) + ": " + e.Reason
}

// Parse reads a Markdown catalog (docs/catalog.md).
//
// The recognised structure, in CommonMark terms but scanned line by line:
//
//   - An ATX level-2 heading (`## ID`, indented at most 3 spaces, optional
//     closing #s) starts a rule; its text is the rule ID. A level-1 heading or
//     the next level-2 heading ends it. Setext headings, level-3+ headings and
//     prose are ignored.
//   - Inside a rule, every list item (`-`, `*` or `+`) is a `key: value`
//     setting, and one fenced block with the info string `values` holds the
//     values, one per line, trimmed, blank lines skipped. Other fenced blocks
//     are skipped; nothing inside any fence is read as a heading or setting.
//   - Before the first rule, list items shaped `word: value` are catalog
//     settings; the only one is `fingerprint-key` (64 hex digits).
//
// On failure Parse returns a nil Catalog and either one *ParseError or, when
// there are several problems, an errors.Join of them in line order (at most
// MaxParseErrors, then a final "too many errors"). Use errors.As to get the
// first. Error texts hold line numbers and reasons, never catalog values.
func Parse(src []byte) (*Catalog, error) {
	p := &catParser{
		src: src,
		cat: &Catalog{},
		ids: make(map[string]int),
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return nil, &ParseError{Line: 1 + bytes.Count(src[:i], []byte{'\n'}), Reason: "NUL byte (is this a text file?)"}
	}
	defer func() {
		if p.digest != nil {
			p.cat.Digest = <-p.digest
		}
	}()
	off := 0
	if bytes.HasPrefix(src, utf8ByteOrderMark) {
		off = len(utf8ByteOrderMark)
	}
	n := 0
	for off < len(src) && !p.full() {
		n++
		end, next := len(src), len(src)
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			end, next = off+i, off+i+1
		}
		line := src[off:end]
		if k := len(line); k > 0 && line[k-1] == '\r' {
			line = line[:k-1]
		}
		p.line(n, off, line)
		off = next
	}
	if !p.full() {
		p.eof()
	}
	p.startDigest()
	if len(p.errs) > 0 {
		return nil, p.err()
	}
	return p.cat, nil
}

var utf8ByteOrderMark = []byte{0xEF, 0xBB, 0xBF}

// parallelDigestBytes is the catalog size from which Parse computes the
// digest in a second goroutine.
const parallelDigestBytes = 1 << 20

// startDigest starts computing the catalog's digest, once, when the
// preamble is over (at the first rule or at the end): only a catalog
// without a fingerprint-key needs it (Compile derives the key from it).
// A large catalog is hashed while the rest of it is parsed.
func (p *catParser) startDigest() {
	if p.digestStarted {
		return
	}
	p.digestStarted = true
	if p.cat.FingerprintKey != nil {
		return
	}
	p.digest = make(chan [32]byte, 1)
	if src := p.src; len(src) >= parallelDigestBytes {
		go func() { p.digest <- sha256.Sum256(src) }()
	} else {
		p.digest <- sha256.Sum256(src)
	}
}

const (
	parseStatePreamble = iota // before the first rule
	parseStateRule            // inside a rule section
	parseStateOutside         // after a level-1 heading ended a rule
)

type catParser struct {
	src      []byte
	cat      *Catalog
	errs     []*ParseError
	ids      map[string]int // rule ID -> heading line
	state    int
	fpKey    int // line of the fingerprint-key setting, 0 if none
	r        *parseRuleState
	fence    mdFence
	spans    spanList // values of the open values block
	spanBase int      // offset in src that spans are relative to
	tooLarge bool     // the open values block is too large to record
	// The digest, when startDigest started computing it.
	digest        chan [32]byte
	digestStarted bool
}

type parseRuleState struct {
	rule         Rule
	label        string // "rule ID", for reasons
	valid        bool   // the heading holds a valid ID; otherwise the section is skipped
	settingLines [numRuleSettings]int
	valuesLine   int // line of the values fence, 0 if none yet
	// The values block's text is clean (see blockFacts), and ASCII.
	blockClean, blockASCII bool
}

type mdFence struct {
	open   bool
	ch     byte
	n      int
	line   int
	values bool // the fence is the current rule's values block
}

// valueSpan is one value of the open values block: src[base+start :
// base+end] on line `line`. 32-bit fields keep a million-value block small.
type valueSpan struct{ start, end, line uint32 }

// maxBlockBytes bounds the size of one values block (spans are 32-bit).
const maxBlockBytes = 1<<32 - 1

// spanList collects the spans of a values block in chunks, which it reuses
// from block to block: a large block's spans are never copied to grow.
type spanList struct {
	chunks [][]valueSpan // chunks[:used] hold the spans; all but the last are full
	used   int
	n      int
}

// maxSpanChunk is the largest chunk of a spanList, in spans (96 KiB);
// chunks start small and double up to it.
const maxSpanChunk = 8192

func (l *spanList) reset() {
	for i := range l.chunks[:l.used] {
		l.chunks[i] = l.chunks[i][:0]
	}
	l.used, l.n = 0, 0
}

func (l *spanList) add(s valueSpan) {
	if l.used == 0 || len(l.chunks[l.used-1]) == cap(l.chunks[l.used-1]) {
		if l.used == len(l.chunks) {
			size := 64
			if l.used > 0 {
				size = min(2*cap(l.chunks[l.used-1]), maxSpanChunk)
			}
			l.chunks = append(l.chunks, make([]valueSpan, 0, size))
		}
		l.used++
	}
	l.chunks[l.used-1] = append(l.chunks[l.used-1], s)
	l.n++
}

// last returns the last span; l is not empty.
func (l *spanList) last() valueSpan {
	c := l.chunks[l.used-1]
	return c[len(c)-1]
}

func (p *catParser) full() bool { return len(p.errs) > MaxParseErrors }

// errAt records a problem. reason must not contain catalog text other than
// validated rule IDs and setting keys.
func (p *catParser) errAt(line int, reason string) {
	if p.full() {
		return
	}
	if len(p.errs) == MaxParseErrors {
		p.errs = append(p.errs, &ParseError{Reason: "too many errors"})
		return
	}
	p.errs = append(p.errs, &ParseError{Line: line, Reason: reason})
}

func (p *catParser) err() error {
	errs := p.errs
	var tail *ParseError
	if len(errs) > MaxParseErrors {
		errs, tail = errs[:MaxParseErrors], errs[MaxParseErrors]
	}
	slices.SortStableFunc(errs, func(a, b *ParseError) int { return a.Line - b.Line })
	if len(errs) == 1 && tail == nil {
		return errs[0]
	}
	joined := make([]error, 0, len(errs)+1)
	for _, e := range errs {
		joined = append(joined, e)
	}
	if tail != nil {
		joined = append(joined, tail)
	}
	return errors.Join(joined...)
}

func (p *catParser) line(n, off int, line []byte) {
	if p.fence.open {
		if mdClosingFence(line, p.fence.ch, p.fence.n) {
			p.closeFence()
			return
		}
		if p.fence.values {
			p.valueLine(n, off, line)
		}
		return
	}
	i, ok := mdBlockIndent(line)
	if !ok {
		return // indented code or a continuation line: prose
	}
	rest := line[i:]
	if len(rest) == 0 {
		return
	}
	switch rest[0] {
	case '`', '~':
		if ch, cnt, info, ok := mdOpeningFence(rest); ok {
			p.openFence(n, ch, cnt, info)
		}
	case '#':
		if level, text, ok := mdATXHeading(rest); ok {
			p.heading(n, level, text)
		}
	case '-', '*', '+':
		if mdThematicBreak(rest) {
			return
		}
		if text, ok := mdListItem(rest); ok {
			p.item(n, text)
		}
	}
}

func (p *catParser) openFence(n int, ch byte, cnt int, info []byte) {
	p.fence = mdFence{open: true, ch: ch, n: cnt, line: n}
	if p.state != parseStateRule || !isValuesInfo(info) {
		return
	}
	r := p.r
	if r.valuesLine != 0 {
		if r.valid {
			p.errAt(n, r.label+": second values block (the first is on line "+strconv.Itoa(r.valuesLine)+")")
		}
		return
	}
	r.valuesLine = n
	p.fence.values = true
	p.spans.reset()
	p.spanBase, p.tooLarge = -1, false
}

func (p *catParser) valueLine(n, off int, line []byte) {
	i, j := trimSpaceIdx(line)
	if i == j {
		return
	}
	if p.spanBase < 0 {
		p.spanBase = off + i
	}
	if off+j-p.spanBase > maxBlockBytes || n > math.MaxInt32 {
		if !p.tooLarge {
			p.tooLarge = true
			p.errAt(n, p.r.label+": values block is larger than 4 GiB or past line 2^31")
		}
		return
	}
	p.spans.add(valueSpan{start: uint32(off + i - p.spanBase), end: uint32(off + j - p.spanBase), line: uint32(n)})
}

func (p *catParser) closeFence() {
	f := p.fence
	p.fence = mdFence{}
	if !f.values {
		return
	}
	r := p.r
	if p.spans.n == 0 {
		if r.valid {
			p.errAt(f.line, r.label+": values block is empty")
		}
		return
	}
	// One string per block holds the values: one copy of the plaintext,
	// shared by the block's Values.
	block := valueData(p.src[p.spanBase : p.spanBase+int(p.spans.last().end)])
	r.blockClean, r.blockASCII = blockFacts(string(block))
	r.rule.Values = slices.Grow(r.rule.Values, p.spans.n)
	r.rule.ValueLines = slices.Grow(r.rule.ValueLines, p.spans.n)
	for _, c := range p.spans.chunks[:p.spans.used] {
		for _, s := range c {
			r.rule.Values = append(r.rule.Values, blockValue(&block, int(s.start), int(s.end-s.start)))
			r.rule.ValueLines = append(r.rule.ValueLines, int32(s.line))
		}
	}
	p.spans.reset()
}

func (p *catParser) heading(n, level int, text []byte) {
	switch level {
	case 1:
		p.endRule()
		if p.state == parseStateRule {
			p.state = parseStateOutside
		}
	case 2:
		p.endRule()
		p.startRule(n, text)
	}
}

func (p *catParser) startRule(n int, text []byte) {
	p.startDigest()
	p.state = parseStateRule
	r := &parseRuleState{rule: Rule{Severity: SeverityError, Line: n}, label: "rule at line " + strconv.Itoa(n)}
	p.r = r
	if !validRuleID(text) {
		p.errAt(n, "level-2 heading is not a valid rule ID (want a letter, then up to 63 letters, digits, '.', '_' or '-'; use a level-1 or level-3 heading for prose)")
		return
	}
	id := string(text)
	r.rule.ID = id
	r.label = "rule " + id
	r.valid = true
	if first, dup := p.ids[id]; dup {
		p.errAt(n, "duplicate rule ID "+strconv.Quote(id)+" (first defined on line "+strconv.Itoa(first)+")")
		return
	}
	p.ids[id] = n
}

func (p *catParser) item(n int, text []byte) {
	switch p.state {
	case parseStatePreamble:
		p.preambleSetting(n, text)
	case parseStateRule:
		if p.r.valid {
			p.ruleSetting(n, text)
		}
	}
}

func (p *catParser) eof() {
	if p.fence.open {
		if p.fence.values {
			p.errAt(p.fence.line, p.r.label+": values block is not closed")
		} else {
			p.errAt(p.fence.line, "code mdFence is not closed (it hides the rest of the catalog)")
		}
		p.fence = mdFence{}
	}
	p.endRule()
	if len(p.errs) == 0 && len(p.cat.Rules) == 0 {
		p.errAt(0, "no rules (a rule is a level-2 heading naming its ID)")
	}
}

// endRule validates the open rule and appends it to the catalog.
func (p *catParser) endRule() {
	r := p.r
	p.r = nil
	if r == nil || !r.valid {
		return
	}
	before := len(p.errs)
	if r.settingLines[settingCategory] == 0 {
		p.errAt(r.rule.Line, r.label+": missing required setting category")
	}
	if r.valuesLine == 0 {
		p.errAt(r.rule.Line, r.label+": missing values block (a fenced block with the info string \"values\")")
	}
	// Settings may follow the values block, so values are checked here,
	// once the match kind is known. The values of a clean block (see
	// blockFacts) are valid UTF-8 without control characters: only a
	// length that may be out of bounds needs checkValue. minLen is a byte
	// length that holds at least MinLiteralRunes characters.
	lengthOnly := r.blockClean && r.rule.Match != MatchRegex
	minLen := MinLiteralRunes * utf8.UTFMax
	if r.blockASCII {
		minLen = MinLiteralRunes
	}
	for k, v := range r.rule.Values {
		if n := v.Len(); lengthOnly && n >= minLen && n <= MaxValueBytes {
			continue
		}
		if reason := checkValue(v.reveal(), r.rule.Match); reason != "" {
			p.errAt(int(r.rule.ValueLines[k]), r.label+": "+reason)
		}
	}
	if len(p.errs) == before && r.rule.Description != "" {
		if k := descriptionLeak(&r.rule); k >= 0 {
			p.errAt(r.settingLines[settingDescription], r.label+": description contains the value on line "+
				strconv.Itoa(int(r.rule.ValueLines[k]))+" (descriptions are shown in findings)")
		}
	}
	if p.ids[r.rule.ID] == r.rule.Line {
		p.cat.Rules = append(p.cat.Rules, r.rule)
	}
}
