package secrets

import (
	"crypto/sha256"
	"errors"
	"reflect"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// The index of the default configuration is generated ahead of time, so
// that a process does not decode the configuration (~100 KB of TOML, ~220
// rules) nor build the keyword automaton: the index holds them as static
// data, and a rule is copied into gitleaks' type when first needed.
// Regenerate it after upgrading gitleaks (a stale index is never used: see
// loadDefaultTable, and TestGeneratedIndex fails):
//
//go:generate go test -run ^TestGeneratedIndex$ -update .

// index is what a table needs up front: the regex rules with their
// keywords, the keyword automaton, and the global path allowlist. It is
// computed from a decoded configuration (indexConfig) or generated for
// config.DefaultConfig (genIndex, in index_gen.go: static data, built by
// the linker, not at init).
type index struct {
	// digest is the SHA-256 of the configuration text a generated index
	// was made from; spans are offsets into that text.
	digest     [sha256.Size]byte
	size       int
	rules      []indexRule
	kw         keywordMatcher
	kwRules    [][]int32 // keyword -> indices into rules
	always     []int32   // rules without keywords
	allowSpans [][2]int32
	// allowlists are the global allowlists, decoded ([allowlist] folded
	// in), if allowData; otherwise they are decoded from allowSpans.
	allowlists []*viperAllowlistData
	allowData  bool

	pathPattern   string
	pathFactors   []string
	pathFactorsOK bool
}

// indexRule is a regex rule as the index knows it.
type indexRule struct {
	id, description string
	vcIndex         int      // index into the configuration's rules
	keywords        []string // lowercase, without duplicates
	span            [2]int32 // the rule's [[rules]] table (and its subtables)
	// data is the rule decoded, or nil if only its table in the
	// configuration text holds it.
	data *viperRuleData
}

// viperRuleData mirrors a rule of gitleaks' config.ViperConfig (of an
// unexported type), so that rules decoded ahead of time can be static data
// (decoding generic-api-key's 1,400 stopwords alone costs milliseconds in
// a fresh process). fillViper copies it into the gitleaks type by field
// name.
type viperRuleData struct {
	ID, Description, Path, Regex string
	SecretGroup                  int
	Entropy                      float64
	Keywords, Tags               []string
	AllowList                    *viperAllowlistData
	Allowlists                   []*viperAllowlistData
	Required                     []*viperRequiredData
	SkipReport                   bool
}

// viperAllowlistData mirrors gitleaks' rule and global allowlists (a
// rule's have no TargetRules).
type viperAllowlistData struct {
	TargetRules            []string
	Description, Condition string
	Commits, Paths         []string
	RegexTarget            string
	Regexes, StopWords     []string
}

// viperRequiredData mirrors gitleaks' required rule.
type viperRequiredData struct {
	ID                         string
	WithinLines, WithinColumns *int
}

// errMirror is fillViper's error when gitleaks' types no longer have a
// field of the mirror types (the data is then decoded from its TOML).
var errMirror = errors.New("gitleaks config types differ from their mirrors")

// fillViper copies src, a value of a mirror type, into dst, a settable
// value of the gitleaks type it mirrors, by field name. Zero fields are
// left alone; slices of identical types are shared, not copied.
func fillViper(dst, src reflect.Value) error {
	switch src.Kind() {
	case reflect.Struct:
		if dst.Kind() != reflect.Struct {
			return errMirror
		}
		st := src.Type()
		for i := range st.NumField() {
			f := src.Field(i)
			if f.IsZero() {
				continue
			}
			if st.Field(i).Anonymous {
				// An embedded struct's fields are the mirror's own.
				if err := fillViper(dst, f); err != nil {
					return err
				}
				continue
			}
			d := dst.FieldByName(st.Field(i).Name)
			if !d.IsValid() || !d.CanSet() {
				return errMirror
			}
			if err := fillViper(d, f); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		if dst.Kind() != reflect.Pointer {
			return errMirror
		}
		if src.IsNil() {
			return nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := fillViper(p.Elem(), src.Elem()); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.Slice:
		if dst.Kind() != reflect.Slice {
			return errMirror
		}
		if src.Type() == dst.Type() {
			dst.Set(src)
			return nil
		}
		s := reflect.MakeSlice(dst.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			if err := fillViper(s.Index(i), src.Index(i)); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	}
	if src.Type() != dst.Type() {
		return errMirror
	}
	dst.Set(src)
	return nil
}

// fits reports whether ix was generated from the configuration text src.
func (ix *index) fits(src string) bool {
	return ix.size == len(src) && digest(src) == ix.digest
}

// digest returns the SHA-256 of s, copying it through a small buffer
// rather than into a new slice of its size (whose fresh pages would cost
// more than hashing).
func digest(s string) [sha256.Size]byte {
	h := sha256.New()
	var buf [4096]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// Bounds of the sets of strings pathFactors works with.
const (
	maxClassFactors = 4  // bytes of a character class
	maxFactors      = 64 // strings of a set
)

// pathFactors returns strings, ASCII lowercase, one of which every ASCII
// text that pattern matches holds, ignoring ASCII case; ok is false if
// there is no such set short of the empty string. It errs on the side of
// ok false: it is used to skip matching paths that cannot match.
func pathFactors(pattern string) (factors []string, ok bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, false
	}
	return regexFactors(re)
}

// regexFactors is pathFactors on a parsed expression. A nil set with ok
// true means that re matches no ASCII text.
func regexFactors(re *syntax.Regexp) ([]string, bool) {
	return factorsWithin(re, maxDistribute)
}

// maxDistribute bounds the nesting of alternations regexFactors
// distributes concatenations over.
const maxDistribute = 2

// factorsWithin is regexFactors distributing concatenations over at most
// depth nested alternations.
func factorsWithin(re *syntax.Regexp, depth int) ([]string, bool) {
	if set, ok := asciiSet(re); ok {
		if slices.Contains(set, "") {
			return nil, false
		}
		return minimalFactors(set), true
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return factorsWithin(re.Sub[0], depth)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return factorsWithin(re.Sub[0], depth)
		}
	case syntax.OpConcat:
		// Every match holds a match of each element, and of each run of
		// elements with finite sets: take the most telling.
		var best []string
		found := false
		consider := func(set []string, ok bool) {
			if ok && !slices.Contains(set, "") && (!found || betterFactors(set, best)) {
				best, found = set, true
			}
		}
		var run []string
		inRun := false
		for _, sub := range re.Sub {
			if set, ok := asciiSet(sub); ok {
				if inRun {
					if p, ok := cross(run, set, maxFactors); ok {
						run = p
						continue
					}
					consider(minimalFactors(run), true) // too many: a new run
				}
				run, inRun = set, true
				continue
			}
			if inRun {
				consider(minimalFactors(run), true)
				inRun = false
			}
			consider(factorsWithin(sub, depth))
		}
		if inRun {
			consider(minimalFactors(run), true)
		}
		// A match also holds a match of the concatenation with one of an
		// alternation element's alternatives in its place: \.(?:doc|.dll)
		// holds .doc or dll, where the element alone gives doc or dll.
		if depth > 0 {
			for i, sub := range re.Sub {
				for sub.Op == syntax.OpCapture {
					sub = sub.Sub[0]
				}
				if sub.Op != syntax.OpAlternate {
					continue
				}
				var union []string
				ok := true
				for _, alt := range sub.Sub {
					mid := []*syntax.Regexp{alt}
					if alt.Op == syntax.OpConcat {
						mid = alt.Sub // so that its ends join their neighbours' runs
					}
					elems := slices.Concat(re.Sub[:i:i], mid, re.Sub[i+1:])
					set, aok := factorsWithin(&syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: elems}, depth-1)
					if ok = aok && len(union)+len(set) <= maxFactors; !ok {
						break
					}
					union = append(union, set...)
				}
				if ok {
					consider(minimalFactors(union), true)
				}
			}
		}
		return best, found
	case syntax.OpAlternate:
		var union []string
		for _, sub := range re.Sub {
			set, ok := factorsWithin(sub, depth)
			if !ok {
				return nil, false
			}
			union = append(union, set...)
		}
		return minimalFactors(union), true
	}
	return nil, false
}

// asciiSet returns the strings, ASCII lowercase, that re can match in an
// ASCII text, reading empty-width assertions as always true (so a
// superset); ok is false if it cannot tell or there are too many.
func asciiSet(re *syntax.Regexp) (set []string, ok bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return nil, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		b := make([]byte, 0, len(re.Rune))
		for _, r := range re.Rune {
			// A non-ASCII rune may fold to an ASCII letter (K, ſ).
			if r >= utf8.RuneSelf {
				return nil, false
			}
			b = append(b, lowerASCII(byte(r)))
		}
		return []string{string(b)}, true
	case syntax.OpCharClass:
		// Runes beyond ASCII are in no ASCII text.
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r < utf8.RuneSelf; r++ {
				s := string(rune(lowerASCII(byte(r))))
				if !slices.Contains(set, s) {
					if len(set) == maxClassFactors {
						return nil, false
					}
					set = append(set, s)
				}
			}
		}
		return set, true
	case syntax.OpCapture:
		return asciiSet(re.Sub[0])
	case syntax.OpQuest:
		set, ok := asciiSet(re.Sub[0])
		if !ok {
			return nil, false
		}
		set = union(set, []string{""})
		return set, len(set) <= maxFactors
	case syntax.OpConcat:
		set = []string{""}
		for _, sub := range re.Sub {
			s, ok := asciiSet(sub)
			if !ok {
				return nil, false
			}
			if set, ok = cross(set, s, maxFactors); !ok {
				return nil, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, ok := asciiSet(sub)
			if !ok {
				return nil, false
			}
			if set = union(set, s); len(set) > maxFactors {
				return nil, false
			}
		}
		return set, true
	}
	return nil, false
}

// minimalFactors drops from a set of factors the strings holding another
// (a text holding them holds the other) and duplicates.
func minimalFactors(set []string) []string {
	var out []string
	for i, s := range set {
		redundant := false
		for j, t := range set {
			if j != i && strings.Contains(s, t) && (len(t) < len(s) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}

// betterFactors reports whether factor set a rules out more texts than b
// is likely to: its shortest string is longer, or as long in fewer strings.
func betterFactors(a, b []string) bool {
	shortest := func(set []string) int {
		if len(set) == 0 {
			return 1 << 30 // no text
		}
		n := len(set[0])
		for _, s := range set[1:] {
			n = min(n, len(s))
		}
		return n
	}
	if sa, sb := shortest(a), shortest(b); sa != sb {
		return sa > sb
	}
	return len(a) < len(b)
}

// holdsFactor reports whether path may match an expression of which
// factors are the pathFactors: whether it holds one of them, ignoring
// ASCII case, or is not ASCII.
func holdsFactor(path string, factors []string) bool {
	var buf [256]byte
	low := buf[:0]
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= utf8.RuneSelf {
			return true
		}
		low = append(low, lowerASCII(c))
	}
	s := string(low)
	for _, f := range factors {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// lowerASCII lowercases an ASCII letter.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
