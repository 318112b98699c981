package secrets

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A plan says where a rule's regex can match, relative to the keyword
// occurrences the keyword matcher finds, so that Detect hands gitleaks only
// the lines around occurrences that can start a match.
//
// The rule's regex (or each branch of a top-level alternation) is split,
// at the top level, into P·S where every string S matches, lowercased,
// begins with one of the rule's keywords. A match of the rule then
// contains an S match that starts at a keyword occurrence, has at most
// nlBefore newlines before that occurrence (in its P part) and at most
// nlAfter from it on. Two anchored tests of an occurrence at offset q
// keep the work small:
//
//   - f, a prefix-closed weakening of S (long and unbounded repetitions
//     cut to their minimum), run as a lazy DFA: if it does not match at q,
//     no match of the rule contains the occurrence;
//   - es, S itself with leftmost-longest semantics: the end of its match at
//     q bounds the end of any match of the rule containing the occurrence
//     (used only when such a match can span lines).
//
// A rule whose regex does not split so is planned as wholeRun: it is run
// over every run of lines holding one of its keywords, as gitleaks does.
type plan struct {
	wholeRun bool
	secret   secretFilter
	branches []branch
	// before is the most lines any branch's window reaches back; -1 if
	// unbounded.
	before int
	// reach is the most newlines a match holds; -1 if unbounded or
	// unknown (wholeRun).
	reach int
}

// branch is the plan of one alternative of a rule's regex.
type branch struct {
	f        *prefixDFA
	fre      *lazyRegexp // f as a regexp, for when the DFA grows too large
	fMax     int         // longest f match in bytes; -1 if unbounded
	es       *lazyRegexp // leftmost-longest
	esMax    int         // longest es match in bytes; -1 if unbounded
	nlBefore int         // -1 if unbounded
	nlAfter  int         // -1 if unbounded
}

// Limits of the exact-set analysis.
const (
	maxExactStrings = 256
	maxExactClass   = 64 // runes in a character class
	// A repetition longer than this is cut to its minimum in f.
	maxKeptRepeat = 32
)

// newPlan analyses the regex pattern of a rule with the given lowercase
// keywords. It never fails: a pattern it cannot split is planned as
// wholeRun.
func newPlan(pattern string, keywords []string, entropy float64, secretGroup int) plan {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return plan{wholeRun: true, reach: -1}
	}
	whole := plan{wholeRun: true, secret: newSecretFilter(re, entropy, secretGroup), reach: -1}
	if len(keywords) == 0 {
		return whole
	}
	alts := [][]*syntax.Regexp{flatten(re, nil)}
	if top := alts[0]; len(top) == 1 && top[0].Op == syntax.OpAlternate {
		alts = alts[:0]
		for _, sub := range top[0].Sub {
			alts = append(alts, flatten(sub, nil))
		}
	}
	p := plan{secret: whole.secret}
	for _, el := range alts {
		b, ok := newBranch(el, keywords)
		if !ok {
			return whole
		}
		p.branches = append(p.branches, b)
		if b.nlBefore < 0 || p.before < 0 {
			p.before = -1
		} else {
			p.before = max(p.before, b.nlBefore)
		}
		if b.nlBefore < 0 || b.nlAfter < 0 || p.reach < 0 {
			p.reach = -1
		} else {
			p.reach = max(p.reach, b.nlBefore+b.nlAfter)
		}
	}
	return p
}

// newBranch plans the alternative whose top-level sequence is el.
func newBranch(el []*syntax.Regexp, keywords []string) (branch, bool) {
	i, _, ok := keywordSpan(el, keywords)
	if !ok {
		// No exact prefix: try walking the program of each suffix.
		for i = range el {
			if ok = startsWithKeyword(concat(el[i:]), keywords); ok {
				break
			}
		}
	}
	if !ok {
		return branch{}, false
	}
	b := branch{
		nlBefore: newlines(concat(el[:i])),
		nlAfter:  newlines(concat(el[i:])),
	}
	es := concat(el[i:])
	f, _ := truncate(es)
	b.fMax = maxLen(f) // -1 (unbounded) with x*, x+
	b.fre = &lazyRegexp{expr: `^(?:` + f.String() + `)`}
	if b.f, ok = newPrefixDFA(f); !ok {
		return branch{}, false
	}
	if b.nlAfter > 0 {
		b.esMax = maxLen(es)
		b.es = &lazyRegexp{expr: `^(?:` + es.String() + `)`, longest: true}
	}
	return b, true
}

// lazyRegexp is a regular expression compiled when first used: compiling
// a plan's regexps up front cost more than the rest of the plan, and most
// plans never need them (f's DFA rarely grows too large; es is needed only
// where f matches).
type lazyRegexp struct {
	expr    string // printed from a parsed expression: it compiles
	longest bool

	once sync.Once
	re   *regexp.Regexp // nil if expr does not compile after all
}

// get returns the compiled expression, or nil if it does not compile
// (callers then assume the worst: a match, unbounded).
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() {
		if re, err := regexp.Compile(l.expr); err == nil {
			if l.longest {
				re.Longest()
			}
			l.re = re
		}
	})
	return l.re
}

// flatten appends the top-level sequence of re to out: concatenations are
// spliced in and capture groups dropped (they do not change what matches).
func flatten(re *syntax.Regexp, out []*syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpConcat:
		for _, s := range re.Sub {
			out = flatten(s, out)
		}
		return out
	case syntax.OpCapture:
		return flatten(re.Sub[0], out)
	}
	return append(out, re)
}

func concat(subs []*syntax.Regexp) *syntax.Regexp {
	switch len(subs) {
	case 0:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	case 1:
		return subs[0]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: slices.Clone(subs)}
}

// keywordSpan finds the first el[i:j] whose every match, lowercased,
// begins with a keyword.
func keywordSpan(el []*syntax.Regexp, keywords []string) (i, j int, ok bool) {
	for i = range el {
		set := []string{""}
		for j = i; j < len(el); j++ {
			ex, ok := exactSet(el[j])
			if !ok {
				break
			}
			if set, ok = cross(set, ex, maxExactStrings); !ok {
				break
			}
			if allStartWithKeyword(set, keywords) {
				return i, j + 1, true
			}
		}
	}
	return 0, 0, false
}

func allStartWithKeyword(set []string, keywords []string) bool {
	for _, s := range set {
		if !slices.ContainsFunc(keywords, func(k string) bool { return strings.HasPrefix(s, k) }) {
			return false
		}
	}
	return len(set) > 0
}

// exactSet returns every string re matches, lowercased as strings.ToLower
// would lowercase the text it matched, if there are few and re holds no
// assertion. Case-folded literals and classes are taken to match only
// text that lowercases to their lowercase form (true but for U+017F ſ,
// which (?i)s matches and which lowercases to itself).
func exactSet(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		var set []string
		n := 0
		for k := 0; k+1 < len(re.Rune); k += 2 {
			lo, hi := re.Rune[k], re.Rune[k+1]
			n += int(hi-lo) + 1
			if n > maxExactClass {
				return nil, false
			}
			for r := lo; r <= hi; r++ {
				s := strings.ToLower(string(r))
				if !slices.Contains(set, s) {
					set = append(set, s)
				}
			}
		}
		return set, len(set) > 0
	case syntax.OpCapture:
		return exactSet(re.Sub[0])
	case syntax.OpConcat:
		set := []string{""}
		for _, s := range re.Sub {
			ex, ok := exactSet(s)
			if !ok {
				return nil, false
			}
			if set, ok = cross(set, ex, maxExactStrings); !ok {
				return nil, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		var set []string
		for _, s := range re.Sub {
			ex, ok := exactSet(s)
			if !ok {
				return nil, false
			}
			set = union(set, ex)
			if len(set) > maxExactStrings {
				return nil, false
			}
		}
		return set, true
	case syntax.OpQuest:
		ex, ok := exactSet(re.Sub[0])
		if !ok {
			return nil, false
		}
		set := union([]string{""}, ex)
		return set, len(set) <= maxExactStrings
	case syntax.OpRepeat:
		if re.Max < 0 || re.Max > 8 {
			return nil, false
		}
		ex, ok := exactSet(re.Sub[0])
		if !ok {
			return nil, false
		}
		var set []string
		pow := []string{""}
		for n := 0; n <= re.Max; n++ {
			if n >= re.Min {
				set = union(set, pow)
			}
			if pow, ok = cross(pow, ex, maxExactStrings); !ok || len(set) > maxExactStrings {
				return nil, false
			}
		}
		return set, true
	}
	return nil, false
}

// cross returns the concatenations of a string of a and one of b, or
// false if there could be more than limit.
func cross(a, b []string, limit int) ([]string, bool) {
	if len(a)*len(b) > limit {
		return nil, false
	}
	var out []string
	for _, x := range a {
		for _, y := range b {
			if s := x + y; !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, true
}

// union appends to a the strings of b it lacks.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// newlines returns the most newlines a match of re can hold, or -1 if
// that is unbounded.
func newlines(re *syntax.Regexp) int {
	return mostOver(re, func(re *syntax.Regexp) int {
		switch re.Op {
		case syntax.OpLiteral:
			n := 0
			for _, r := range re.Rune {
				if r == '\n' {
					n++
				}
			}
			return n
		case syntax.OpCharClass:
			for k := 0; k+1 < len(re.Rune); k += 2 {
				if re.Rune[k] <= '\n' && '\n' <= re.Rune[k+1] {
					return 1
				}
			}
		case syntax.OpAnyChar:
			return 1
		}
		return 0 // assertions, empty match, any char but newline
	})
}

// maxLen returns the most bytes a match of re can hold, or -1 if that is
// unbounded.
func maxLen(re *syntax.Regexp) int {
	return mostOver(re, func(re *syntax.Regexp) int {
		switch re.Op {
		case syntax.OpLiteral:
			n := 0
			for _, r := range re.Rune {
				if re.Flags&syntax.FoldCase != 0 {
					n += maxFoldLen(r)
				} else {
					n += utf8.RuneLen(r)
				}
			}
			return n
		case syntax.OpCharClass:
			if len(re.Rune) == 0 {
				return 0
			}
			if n := utf8.RuneLen(re.Rune[len(re.Rune)-1]); n > 0 {
				return n
			}
			return utf8.UTFMax
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			return utf8.UTFMax
		}
		return 0
	})
}

// mostOver returns the largest total of leaf over the leaves of one match
// of re (leaf measures literals, classes and any-char nodes), or -1 if a
// repetition makes it unbounded.
func mostOver(re *syntax.Regexp, leaf func(*syntax.Regexp) int) int {
	switch re.Op {
	case syntax.OpCapture, syntax.OpQuest:
		return mostOver(re.Sub[0], leaf)
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			m := mostOver(s, leaf)
			if m < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n
	case syntax.OpStar, syntax.OpPlus:
		if mostOver(re.Sub[0], leaf) != 0 {
			return -1
		}
		return 0
	case syntax.OpRepeat:
		m := mostOver(re.Sub[0], leaf)
		switch {
		case m == 0:
			return 0
		case m < 0 || re.Max < 0:
			return -1
		}
		return m * re.Max
	}
	return leaf(re)
}

// maxFoldLen is the longest UTF-8 encoding among the runes r matches
// case-insensitively.
func maxFoldLen(r rune) int {
	n := utf8.RuneLen(r)
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		n = max(n, utf8.RuneLen(f))
	}
	return max(n, 1)
}

// truncate returns a regex t such that every match of re begins with a
// match of t, cutting counted repetitions longer than maxKeptRepeat (or
// unbounded, like x{8,}) to their minimum and dropping whatever follows
// the first cut. complete reports whether nothing was cut (t is re).
func truncate(re *syntax.Regexp) (t *syntax.Regexp, complete bool) {
	empty := &syntax.Regexp{Op: syntax.OpEmptyMatch}
	switch re.Op {
	case syntax.OpCapture:
		return truncate(re.Sub[0])
	case syntax.OpConcat:
		var subs []*syntax.Regexp
		for _, s := range re.Sub {
			ts, ok := truncate(s)
			subs = append(subs, ts)
			if !ok {
				return concat(subs), false
			}
		}
		return re, true
	case syntax.OpAlternate:
		subs := make([]*syntax.Regexp, len(re.Sub))
		all := true
		for k, s := range re.Sub {
			var ok bool
			subs[k], ok = truncate(s)
			all = all && ok
		}
		if all {
			return re, true
		}
		return &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs, Flags: re.Flags}, false
	case syntax.OpQuest, syntax.OpStar, syntax.OpPlus:
		// Kept whole: the DFA runs them cheaply and stops where no thread
		// is left (a line or a few for .*).
		if _, ok := truncate(re.Sub[0]); ok {
			return re, true
		}
		if re.Op == syntax.OpPlus {
			return repeatMin(re.Sub[0], 1, re.Flags), false
		}
		return empty, false
	case syntax.OpRepeat:
		_, ok := truncate(re.Sub[0])
		long := (re.Max < 0 && re.Min > 0) || (re.Max > maxKeptRepeat && re.Max != re.Min)
		if ok && !long {
			return re, true
		}
		return repeatMin(re.Sub[0], re.Min, re.Flags), false
	}
	return re, true
}

// repeatMin returns a regex every match of sub{n,} begins with a match of.
func repeatMin(sub *syntax.Regexp, n int, flags syntax.Flags) *syntax.Regexp {
	if n == 0 {
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	ts, ok := truncate(sub)
	if !ok {
		return ts // the first repetition's own prefix
	}
	return &syntax.Regexp{Op: syntax.OpRepeat, Sub: []*syntax.Regexp{sub}, Min: n, Max: n, Flags: flags &^ syntax.NonGreedy}
}

// startsWithKeyword reports whether every match of re, lowercased, begins
// with one of keywords, by walking re's program with the prefix read so far
// (which must stay a prefix of a keyword until it is one). Runes are
// lowercased as strings.ToLower does, but for U+017F (ſ), taken as s (see
// exactSet).
func startsWithKeyword(re *syntax.Regexp, keywords []string) bool {
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return false
	}
	type item struct {
		pc     uint32
		prefix string
	}
	isKeyword := func(p string) bool { return slices.Contains(keywords, p) }
	// next returns the bytes that extend p towards a keyword.
	next := func(p string) []byte {
		var out []byte
		for _, k := range keywords {
			if len(k) > len(p) && strings.HasPrefix(k, p) && !slices.Contains(out, k[len(p)]) {
				out = append(out, k[len(p)])
			}
		}
		return out
	}
	seen := map[item]bool{}
	stack := []item{{uint32(prog.Start), ""}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[it] || len(seen) > 1<<16 {
			if len(seen) > 1<<16 {
				return false
			}
			continue
		}
		seen[it] = true
		in := &prog.Inst[it.pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, item{in.Out, it.prefix}, item{in.Arg, it.prefix})
		case syntax.InstNop, syntax.InstCapture, syntax.InstEmptyWidth:
			stack = append(stack, item{in.Out, it.prefix})
		case syntax.InstMatch:
			return false // a match that is no keyword's extension
		case syntax.InstFail:
		case syntax.InstRune, syntax.InstRune1:
			runes, ok := instRunes(in)
			if !ok {
				return false
			}
			allowed := next(it.prefix)
			for _, r := range runes {
				l := unicode.ToLower(r)
				if r == 'ſ' {
					l = 's'
				}
				if l >= utf8.RuneSelf || !slices.Contains(allowed, byte(l)) {
					return false
				}
				if p := it.prefix + string(l); !isKeyword(p) {
					stack = append(stack, item{in.Out, p})
				}
			}
		default:
			return false // any character
		}
	}
	return true
}

// instRunes lists the runes a rune instruction matches, if few.
func instRunes(in *syntax.Inst) ([]rune, bool) {
	var out []rune
	for k := 0; k+1 < len(in.Rune); k += 2 {
		if int(in.Rune[k+1]-in.Rune[k]) >= maxExactClass {
			return nil, false
		}
		for r := in.Rune[k]; r <= in.Rune[k+1]; r++ {
			out = append(out, r)
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					out = append(out, f)
				}
			}
		}
		if len(out) > maxExactClass {
			return nil, false
		}
	}
	if len(in.Rune) == 1 { // InstRune1 or a single folded rune
		out = []rune{in.Rune[0]}
		if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(in.Rune[0]); f != in.Rune[0]; f = unicode.SimpleFold(f) {
				out = append(out, f)
			}
		}
	}
	return out, len(out) > 0
}

// secretFilter is a necessary condition for a rule with an entropy
// threshold to report a finding in a text: gitleaks keeps a secret only if
// its Shannon entropy exceeds the threshold, and an ASCII secret with d
// distinct bytes has entropy at most log2(d). The secret is a substring
// made of the bytes its capture group (or the regex) can match, so the
// text must hold a run of such bytes with enough distinct ones.
type secretFilter struct {
	minDistinct int       // 0: no filter
	class       [2]uint64 // ASCII bytes the secret can hold
	nonASCII    bool      // the secret can hold other runes
}

// newSecretFilter derives the filter from a rule's parsed regex, entropy
// threshold and secret group.
func newSecretFilter(re *syntax.Regexp, entropy float64, secretGroup int) secretFilter {
	if entropy <= 0 {
		return secretFilter{}
	}
	var f secretFilter
	f.minDistinct = 1
	for math.Log2(float64(f.minDistinct)) <= entropy-1e-9 {
		f.minDistinct++
	}
	// The secret: group secretGroup; else the first non-empty group,
	// which is group 1 if it always takes part and is never empty; else
	// any group or the whole match.
	groups := map[int]*syntax.Regexp{}
	collectCaptures(re, groups)
	node := re
	switch g1, ok := groups[1]; {
	case secretGroup > 0:
		if node = groups[secretGroup]; node == nil {
			return secretFilter{}
		}
	case ok && minLen(g1) > 0 && alwaysTakesPart(re, g1):
		node = g1
	}
	if !f.addClass(node) {
		return secretFilter{}
	}
	return f
}

func collectCaptures(re *syntax.Regexp, out map[int]*syntax.Regexp) {
	if re.Op == syntax.OpCapture {
		out[re.Cap] = re
	}
	for _, s := range re.Sub {
		collectCaptures(s, out)
	}
}

// alwaysTakesPart reports whether every match of re passes through node.
func alwaysTakesPart(re, node *syntax.Regexp) bool {
	if re == node {
		return true
	}
	switch re.Op {
	case syntax.OpConcat, syntax.OpCapture, syntax.OpPlus:
	case syntax.OpRepeat:
		if re.Min == 0 {
			return false
		}
	default:
		return false
	}
	for _, s := range re.Sub {
		if alwaysTakesPart(s, node) {
			return true
		}
	}
	return false
}

// addClass adds the runes re can match; false if that is any rune.
func (f *secretFilter) addClass(re *syntax.Regexp) bool {
	add := func(r rune) {
		if r < utf8.RuneSelf {
			f.class[r/64] |= 1 << (r % 64)
		} else {
			f.nonASCII = true
		}
	}
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			add(r)
			if re.Flags&syntax.FoldCase != 0 {
				for c := unicode.SimpleFold(r); c != r; c = unicode.SimpleFold(c) {
					add(c)
				}
			}
		}
	case syntax.OpCharClass:
		for k := 0; k+1 < len(re.Rune); k += 2 {
			for r := re.Rune[k]; r <= re.Rune[k+1] && r < utf8.RuneSelf; r++ {
				add(r)
			}
			if re.Rune[k+1] >= utf8.RuneSelf {
				f.nonASCII = true
			}
		}
	}
	for _, s := range re.Sub {
		if !f.addClass(s) {
			return false
		}
	}
	return true
}

// possible reports whether s holds a run of secret bytes with at least
// minDistinct distinct ones (or a non-ASCII rune the secret may hold).
func (f *secretFilter) possible(s string) bool {
	if f.minDistinct <= 1 {
		return true
	}
	var seen [2]uint64
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			if f.nonASCII {
				return true
			}
		} else if f.class[c/64]&(1<<(c%64)) != 0 {
			if bit := uint64(1) << (c % 64); seen[c/64]&bit == 0 {
				seen[c/64] |= bit
				if n++; n >= f.minDistinct {
					return true
				}
			}
			continue
		}
		seen, n = [2]uint64{}, 0
	}
	return false
}

// minLen returns the fewest bytes a match of re can hold.
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(string(re.Rune))
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minLen(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range re.Sub {
			if m := minLen(s); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0
}
