package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
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

// Parse reads a Markdown catalog (SPEC §3).
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

// Rule settings, indexes into parseRuleState.settingLines.
const (
	settingCategory = iota
	settingSeverity
	settingMatch
	settingCase
	settingBoundary
	settingDescription
	numRuleSettings
)

var settingNames = [numRuleSettings]string{"category", "severity", "match", "case", "boundary", "description"}

const fingerprintKeySetting = "fingerprint-key"

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

// isValuesInfo reports whether a fence's info string names the values block:
// its first word is exactly "values".
func isValuesInfo(info []byte) bool {
	word := info
	if i := bytes.IndexAny(info, " \t"); i >= 0 {
		word = info[:i]
	}
	return string(word) == "values"
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

// blockFacts reports whether the text of a values block (its values and
// the lines between them) is clean: valid UTF-8 without control
// characters other than tab, LF and CR before LF. The values of a clean
// block are valid UTF-8 without control characters, so only their lengths
// need checking. ascii reports a clean block of ASCII text.
func blockFacts(b string) (clean, ascii bool) {
	var acc uint8
	for i := 0; i < len(b); i++ {
		acc |= blockByteTab[b[i]]
	}
	if acc&blockControl != 0 {
		return false, false
	}
	if acc&blockCR != 0 {
		for s := b; ; {
			i := strings.IndexByte(s, '\r')
			if i < 0 {
				break
			}
			if i+1 == len(s) || s[i+1] != '\n' {
				return false, false
			}
			s = s[i+1:]
		}
	}
	if acc&blockHigh == 0 {
		return true, true
	}
	if !utf8.ValidString(b) {
		return false, false
	}
	// C1 controls, U+0080 to U+009F, are encoded as C2 80 to C2 9F.
	for s := b; ; {
		i := strings.IndexByte(s, 0xC2)
		if i < 0 {
			break
		}
		if i+1 < len(s) && s[i+1] <= 0x9F {
			return false, false
		}
		s = s[i+1:]
	}
	return true, false
}

// Bits of blockByteTab.
const (
	blockControl = 1 // C0 controls but tab, LF and CR; DEL
	blockCR      = 2
	blockHigh    = 4 // bytes >= 0x80
)

var blockByteTab = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c == '\r':
			t[c] = blockCR
		case c == '\t' || c == '\n':
		case c < ' ' || c == 0x7f:
			t[c] = blockControl
		case c >= utf8.RuneSelf:
			t[c] = blockHigh
		}
	}
	return t
}()

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

func (p *catParser) preambleSetting(n int, text []byte) {
	key, val, ok := mdSplitSetting(text)
	if !ok || !isKeyShape(key) {
		return // prose
	}
	if string(key) != fingerprintKeySetting {
		reason := "unknown catalog setting before the first rule (the only one is " + fingerprintKeySetting + ")"
		if keyNearMiss(key, fingerprintKeySetting) {
			reason = "unknown catalog setting " + strconv.Quote(string(key)) + " (did you mean " + fingerprintKeySetting + "?)"
		}
		p.errAt(n, reason)
		return
	}
	if p.fpKey != 0 {
		p.errAt(n, "duplicate setting "+fingerprintKeySetting+" (first on line "+strconv.Itoa(p.fpKey)+")")
		return
	}
	p.fpKey = n
	if len(val) != 64 {
		p.errAt(n, fingerprintKeySetting+" must be 64 hexadecimal digits")
		return
	}
	k := make([]byte, 32)
	if _, err := hex.Decode(k, val); err != nil {
		p.errAt(n, fingerprintKeySetting+" must be 64 hexadecimal digits")
		return
	}
	p.cat.FingerprintKey = k
}

func (p *catParser) ruleSetting(n int, text []byte) {
	r := p.r
	key, val, ok := mdSplitSetting(text)
	if !ok {
		p.errAt(n, r.label+": list item is not a \"key: value\" setting")
		return
	}
	idx := slices.Index(settingNames[:], string(key))
	if idx < 0 {
		reason := r.label + ": unknown setting (known: " + strings.Join(settingNames[:], ", ") + ")"
		if isKeyShape(key) {
			for _, known := range settingNames {
				if keyNearMiss(key, known) {
					reason = r.label + ": unknown setting " + strconv.Quote(string(key)) + " (did you mean " + known + "?)"
					break
				}
			}
		}
		p.errAt(n, reason)
		return
	}
	name := settingNames[idx]
	if first := r.settingLines[idx]; first != 0 {
		p.errAt(n, r.label+": duplicate setting "+name+" (first on line "+strconv.Itoa(first)+")")
		return
	}
	r.settingLines[idx] = n
	v := string(val)
	switch idx {
	case settingCategory:
		if !validCategory(val) {
			p.errAt(n, r.label+": category must be a lowercase letter, then up to 31 lowercase letters, digits or '-'")
			return
		}
		r.rule.Category = v
	case settingSeverity:
		s, ok := ParseSeverity(v)
		if !ok {
			p.errAt(n, r.label+": severity must be error, warning or note")
			return
		}
		r.rule.Severity = s
	case settingMatch:
		switch v {
		case "literal":
			r.rule.Match = MatchLiteral
		case "identifier":
			r.rule.Match = MatchIdentifier
		case "regex":
			r.rule.Match = MatchRegex
		default:
			p.errAt(n, r.label+": match must be literal, identifier or regex")
		}
	case settingCase:
		switch v {
		case "insensitive":
			r.rule.CaseSensitive = false
		case "sensitive":
			r.rule.CaseSensitive = true
		default:
			p.errAt(n, r.label+": case must be insensitive or sensitive")
		}
	case settingBoundary:
		switch v {
		case "word":
			r.rule.NoBoundary = false
		case "none":
			r.rule.NoBoundary = true
		default:
			p.errAt(n, r.label+": boundary must be word or none")
		}
	case settingDescription:
		switch {
		case !utf8.Valid(val):
			p.errAt(n, r.label+": description is not valid UTF-8")
		case hasControlChar(val):
			p.errAt(n, r.label+": description contains a control character")
		case len(val) > MaxDescriptionBytes:
			p.errAt(n, r.label+": description is longer than "+strconv.Itoa(MaxDescriptionBytes)+" bytes")
		default:
			r.rule.Description = v
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

// checkValue returns why v is not a valid value for match kind m, or "".
// The reason never contains v.
func checkValue(v string, m MatchKind) string {
	if m != MatchRegex && asciiPrintable(v) {
		// The common case in one pass: valid UTF-8, no control character,
		// one character per byte.
		if len(v) > MaxValueBytes {
			return "value is longer than " + strconv.Itoa(MaxValueBytes) + " bytes"
		}
		if len(v) < MinLiteralRunes {
			return "value is shorter than " + strconv.Itoa(MinLiteralRunes) + " characters"
		}
		return ""
	}
	if !utf8.ValidString(v) {
		return "value is not valid UTF-8"
	}
	if hasControlChar([]byte(v)) {
		return "value contains a control character"
	}
	if m == MatchRegex {
		if len(v) > MaxRegexBytes {
			return "regex value is longer than " + strconv.Itoa(MaxRegexBytes) + " bytes"
		}
		return checkRegex(v)
	}
	if len(v) > MaxValueBytes {
		return "value is longer than " + strconv.Itoa(MaxValueBytes) + " bytes"
	}
	if utf8.RuneCountInString(v) < MinLiteralRunes {
		return "value is shorter than " + strconv.Itoa(MinLiteralRunes) + " characters"
	}
	return ""
}

// asciiPrintable reports whether v holds only ASCII bytes that are not
// control characters (tab allowed).
func asciiPrintable(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c >= 0x7f || (c < ' ' && c != '\t') {
			return false
		}
	}
	return true
}

// checkRegex validates a regex value with Go's RE2 syntax.
func checkRegex(v string) string {
	re, err := syntax.Parse(v, syntax.Perl)
	if err != nil {
		return regexReason(err)
	}
	if regexMinLen(re) == 0 {
		return "regex can match the empty string"
	}
	if _, err := regexp.Compile(v); err != nil {
		return regexReason(err)
	}
	return ""
}

// regexReason rewrites a regexp error without its Expr, which quotes the
// pattern.
func regexReason(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		switch se.Code {
		case syntax.ErrInvalidCharClass, syntax.ErrInvalidCharRange, syntax.ErrInvalidEscape,
			syntax.ErrInvalidNamedCapture, syntax.ErrInvalidPerlOp, syntax.ErrInvalidRepeatOp,
			syntax.ErrInvalidRepeatSize, syntax.ErrInvalidUTF8, syntax.ErrMissingBracket,
			syntax.ErrMissingParen, syntax.ErrMissingRepeatArgument, syntax.ErrTrailingBackslash,
			syntax.ErrUnexpectedParen, syntax.ErrNestingDepth, syntax.ErrLarge:
			return "invalid regex: " + se.Code.String()
		}
	}
	return "invalid regex"
}

// regexInfLen stands for "cannot match": larger than any real minimum.
const regexInfLen = 1 << 30

// regexMinLen returns the length in characters of the shortest text re can
// match (ignoring whether its assertions can hold), or regexInfLen if it can
// match nothing. Zero means it may match the empty string.
func regexMinLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpNoMatch:
		return regexInfLen
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return regexInfLen
		}
		return 1
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return regexMinLen(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		return 0
	case syntax.OpRepeat:
		if re.Min == 0 {
			return 0
		}
		return min(regexInfLen, re.Min*regexMinLen(re.Sub[0]))
	case syntax.OpConcat:
		total := 0
		for _, s := range re.Sub {
			total = min(regexInfLen, total+regexMinLen(s))
		}
		return total
	case syntax.OpAlternate:
		least := regexInfLen
		for _, s := range re.Sub {
			least = min(least, regexMinLen(s))
		}
		return least
	}
	return 0 // unknown operator: assume the worst
}

// descriptionLeak returns the index of a value of r that its description
// contains (as the matcher would find it), or -1.
func descriptionLeak(r *Rule) int {
	fold := !r.CaseSensitive
	desc := lintCanonical(r.Description, fold)
	// have[b] is set for every ASCII byte of the folded description, in
	// canonical and in raw form: a value with a letter or digit outside it
	// (see mayOccurIn) cannot be contained in it, in any spelling, so the
	// costly checks below are skipped.
	var have [utf8.RuneSelf]bool
	for _, d := range []string{lintFold(desc), lintFold(r.Description)} {
		for _, c := range []byte(d) {
			if c < utf8.RuneSelf {
				have[c] = true
			}
		}
	}
	missing := missingLetters(&have)
	var descTokens map[string]bool
	var descWords string
	for k, v := range r.Values {
		s := v.reveal()
		if r.Match != MatchRegex && !mayOccurIn(s, missing) {
			continue
		}
		if r.Match == MatchRegex {
			pat := s
			if fold {
				pat = "(?i)" + s
			}
			re, err := regexp.Compile(pat)
			if strings.Contains(r.Description, s) || (err == nil && re.MatchString(r.Description)) {
				return k
			}
			continue
		}
		if containsWord(desc, lintCanonical(s, fold), !r.NoBoundary) {
			return k
		}
		if r.Match == MatchIdentifier {
			// Identifier spellings: words joined by '-' or '_' (acme_corp,
			// ACME-CORP) and one token with the words run together
			// (AcmeCorp, acmecorp).
			if descTokens == nil {
				descTokens = make(map[string]bool)
				for _, t := range strings.Fields(r.Description) {
					descTokens[identSquash(t)] = true
				}
				descWords = lintCanonical(identSeparators.Replace(r.Description), true)
			}
			if descTokens[identSquash(s)] ||
				containsWord(descWords, lintCanonical(identSeparators.Replace(s), true), !r.NoBoundary) {
				return k
			}
		}
	}
	return -1
}

// missingLetters marks the ASCII letters (in both cases) and digits whose
// lowercase form is not in have.
func missingLetters(have *[utf8.RuneSelf]bool) *[256]bool {
	var m [256]bool
	for c := range utf8.RuneSelf {
		switch {
		case c >= 'A' && c <= 'Z':
			m[c] = !have[c+'a'-'A']
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			m[c] = !have[c]
		}
	}
	return &m
}

// mayOccurIn is false when s holds a letter or digit marked in missing
// (see missingLetters: not in the folded canonical description) which
// canonicalization keeps: one not followed by a non-ASCII byte (which
// could be a combining mark that NFC composes with it). Canonical forms
// only add ASCII letters (U+212A KELVIN SIGN becomes k, ß folds to ss),
// never remove such a letter.
func mayOccurIn(s string, missing *[256]bool) bool {
	for i := 0; i < len(s); i++ {
		if missing[s[i]] && (i+1 == len(s) || s[i+1] < utf8.RuneSelf) {
			return false
		}
	}
	return true
}

// identSeparators turns the word separators of identifiers into spaces.
var identSeparators = strings.NewReplacer("-", " ", "_", " ")

// lintCanonical is the comparison form of a literal: NFC, whitespace runs
// collapsed to one space, case-folded when fold is set.
func lintCanonical(s string, fold bool) string {
	if !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	if needsSpaceCollapse(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if fold {
		s = lintFold(s)
	}
	return s
}

func needsSpaceCollapse(s string) bool {
	prevSpace := true // leading space also needs work
	for _, c := range s {
		sp := unicode.IsSpace(c)
		if sp && (prevSpace || c != ' ') {
			return true
		}
		prevSpace = sp
	}
	return prevSpace && s != ""
}

// lintFold case-folds s (full Unicode folding; an ASCII fast path).
func lintFold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return cases.Fold().String(s)
		}
	}
	return strings.ToLower(s)
}

// identSquash keeps only the letters and digits of s, lowercased: the form in
// which identifier spellings (AcmeCorp, acme_corp, ACME-CORP) coincide.
func identSquash(s string) string {
	var b strings.Builder
	for _, c := range lintFold(s) {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// containsWord reports whether needle occurs in hay, at word boundaries when
// word is set.
func containsWord(hay, needle string, word bool) bool {
	if needle == "" {
		return false
	}
	for from := 0; from <= len(hay)-len(needle); {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		i += from
		if !word {
			return true
		}
		before, _ := utf8.DecodeLastRuneInString(hay[:i])
		after, _ := utf8.DecodeRuneInString(hay[i+len(needle):])
		if (i == 0 || !descWordRune(before)) && (i+len(needle) == len(hay) || !descWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(hay[i:])
		from = i + size
	}
	return false
}

func descWordRune(c rune) bool { return c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) }

// hasControlChar reports C0 controls other than tab, DEL and C1 controls.
func hasControlChar(b []byte) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c < 0x20 && c != '\t', c == 0x7f:
			return true
		case c == 0xC2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9F:
			return true
		}
	}
	return false
}

// trimSpaceIdx returns the bounds of b without leading and trailing Unicode
// white space.
func trimSpaceIdx(b []byte) (int, int) {
	i, j := 0, len(b)
	for i < j {
		if c := b[i]; c < utf8.RuneSelf {
			if !isASCIISpace(c) {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:j])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	for j > i {
		if c := b[j-1]; c < utf8.RuneSelf {
			if !isASCIISpace(c) {
				break
			}
			j--
			continue
		}
		r, size := utf8.DecodeLastRune(b[i:j])
		if !unicode.IsSpace(r) {
			break
		}
		j -= size
	}
	return i, j
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// mdBlockIndent returns the index after a line's indentation when it is at
// most 3 columns (tabs stop every 4 columns), so the line can start a
// heading, mdFence or list item.
func mdBlockIndent(line []byte) (int, bool) {
	col := 0
	for i, c := range line {
		switch c {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return i, col <= 3
		}
		if col > 3 {
			return i, false
		}
	}
	return len(line), true
}

// mdOpeningFence parses a fence opening (indentation already removed): at
// least 3 backticks or tildes and an info string. A backtick mdFence's info
// string may not contain a backtick.
func mdOpeningFence(s []byte) (ch byte, n int, info []byte, ok bool) {
	ch = s[0]
	for n < len(s) && s[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, nil, false
	}
	info = bytes.Trim(s[n:], " \t")
	if ch == '`' && bytes.IndexByte(info, '`') >= 0 {
		return 0, 0, nil, false
	}
	return ch, n, info, true
}

// mdClosingFence reports whether line closes a fence of n ch characters.
func mdClosingFence(line []byte, ch byte, n int) bool {
	i, ok := mdBlockIndent(line)
	if !ok {
		return false
	}
	k := i
	for k < len(line) && line[k] == ch {
		k++
	}
	if k-i < n {
		return false
	}
	for ; k < len(line); k++ {
		if line[k] != ' ' && line[k] != '\t' {
			return false
		}
	}
	return true
}

// mdATXHeading parses an ATX heading (indentation already removed) and
// returns its level and text without the optional closing sequence.
func mdATXHeading(s []byte) (int, []byte, bool) {
	level := 0
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return 0, nil, false
	}
	text := bytes.Trim(s[level:], " \t")
	j := len(text)
	for j > 0 && text[j-1] == '#' {
		j--
	}
	switch {
	case j == 0:
		text = nil
	case text[j-1] == ' ' || text[j-1] == '\t':
		text = bytes.TrimRight(text[:j], " \t")
	}
	return level, text, true
}

// mdThematicBreak reports a line of 3 or more '-', '*' or '_' (one kind),
// optionally separated by spaces or tabs.
func mdThematicBreak(s []byte) bool {
	ch, n := s[0], 0
	for _, c := range s {
		switch c {
		case ch:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// mdListItem returns the text of a bullet list item (indentation already
// removed): a '-', '*' or '+' marker followed by white space.
func mdListItem(s []byte) ([]byte, bool) {
	if len(s) < 2 || (s[1] != ' ' && s[1] != '\t') {
		return nil, false
	}
	i, j := trimSpaceIdx(s[1:])
	return s[1+i : 1+j], true
}

// mdSplitSetting splits "key: value" at the first colon; both sides trimmed.
func mdSplitSetting(text []byte) (key, val []byte, ok bool) {
	key, val, ok = bytes.Cut(text, []byte{':'})
	if !ok {
		return nil, nil, false
	}
	ki, kj := trimSpaceIdx(key)
	vi, vj := trimSpaceIdx(val)
	key, val = key[ki:kj], val[vi:vj]
	return key, val, len(key) > 0
}

// validRuleID reports whether id matches ^[A-Za-z][A-Za-z0-9._-]{0,63}$.
func validRuleID(id []byte) bool {
	if len(id) == 0 || len(id) > 64 || !isASCIILetterByte(id[0]) {
		return false
	}
	for _, c := range id[1:] {
		if !isASCIILetterByte(c) && !isASCIIDigitByte(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// validCategory reports whether c matches ^[a-z][a-z0-9-]{0,31}$.
func validCategory(c []byte) bool {
	if len(c) == 0 || len(c) > 32 || c[0] < 'a' || c[0] > 'z' {
		return false
	}
	for _, b := range c[1:] {
		if (b < 'a' || b > 'z') && !isASCIIDigitByte(b) && b != '-' {
			return false
		}
	}
	return true
}

// isKeyShape reports whether k looks like a setting key: one ASCII word
// (letters, digits, '-', '_') of at most 32 bytes, starting with a letter.
func isKeyShape(k []byte) bool {
	if len(k) == 0 || len(k) > 32 || !isASCIILetterByte(k[0]) {
		return false
	}
	for _, c := range k {
		if !isASCIILetterByte(c) && !isASCIIDigitByte(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// keyNearMiss reports whether key is a likely misspelling of known: equal
// ignoring case and '_' vs '-', or within a small edit distance. Only such
// keys are quoted in errors; anything else might be pasted catalog text.
func keyNearMiss(key []byte, known string) bool {
	k := strings.ReplaceAll(strings.ToLower(string(key)), "_", "-")
	if k == known {
		return true
	}
	limit := 1
	if len(known) >= 6 {
		limit = 2
	}
	return len(k) >= 3 && keyEditDistance(k, known) <= limit
}

// keyEditDistance is the Levenshtein distance between two short ASCII strings.
func keyEditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func isASCIILetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isASCIIDigitByte(c byte) bool  { return c >= '0' && c <= '9' }
