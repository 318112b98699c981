package catalog

import (
	_ "embed"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Warning is a value-free lint finding about a catalog: it names the rule
// and the line, never the value.
type Warning struct {
	RuleID string
	Line   int // 1-based catalog line, 0 when unknown
	Reason string
}

// String renders "catalog line N: rule ID: reason".
func (w Warning) String() string {
	return "catalog line " + strconv.Itoa(w.Line) + ": rule " + w.RuleID + ": " + w.Reason
}

// MinNoBoundaryRunes is the shortest literal Lint accepts without a warning
// when the rule has `boundary: none`.
const MinNoBoundaryRunes = 5

//go:embed commonwords.txt
var commonWordsText string

// commonWords is the immutable set of words in commonwords.txt.
var commonWords = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 400)
	for line := range strings.Lines(commonWordsText) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, w := range strings.Fields(line) {
			set[strings.ToLower(w)] = struct{}{}
		}
	}
	return set
})

// lintValueRef locates a value for duplicate reports.
type lintValueRef struct {
	rule int // index in Catalog.Rules
	line int
}

// Lint reports catalog entries that are legal but likely mistakes: duplicate
// values within and across rules (compared case-folded when either rule is
// case-insensitive), literals that are common English words, regexes that
// can match a single character or nothing at all, short literals with
// `boundary: none`, and descriptions that contain a value. Warnings are in
// line order and never contain a value.
func Lint(c *Catalog) []Warning {
	if c == nil {
		return nil
	}
	var ws []Warning
	exact := make(map[string]lintValueRef)        // lintCanonical text, any rule
	foldedAny := make(map[string]lintValueRef)    // folded text, any rule
	foldedInsens := make(map[string]lintValueRef) // folded text, case-insensitive rules
	regexes := make(map[string]lintValueRef)
	words := commonWords()

	for ri := range c.Rules {
		r := &c.Rules[ri]
		warn := func(line int, reason string) {
			ws = append(ws, Warning{RuleID: r.ID, Line: line, Reason: reason})
		}
		dup := func(line int, first lintValueRef, how string) {
			where := "line " + strconv.Itoa(first.line)
			if first.rule != ri {
				where += " (rule " + c.Rules[first.rule].ID + ")"
			}
			warn(line, "duplicate value"+how+": same as the value on "+where)
		}
		for k, v := range r.Values {
			line := r.Line
			if k < len(r.ValueLines) {
				line = int(r.ValueLines[k])
			}
			s := v.reveal()
			if reason := checkValue(s, r.Match); reason != "" {
				warn(line, reason)
				continue
			}
			ref := lintValueRef{rule: ri, line: line}
			if r.Match == MatchRegex {
				if first, ok := regexes[s]; ok {
					dup(line, first, "")
				} else {
					regexes[s] = ref
				}
				re, err := syntax.Parse(s, syntax.Perl)
				if err != nil {
					continue // checkValue already accepted it; unreachable
				}
				switch regexMinLen(re) {
				case 1:
					warn(line, "regex can match a single character (expect many false positives)")
				case regexInfLen:
					warn(line, "regex can never match")
				}
				continue
			}

			canon := lintCanonical(s, false)
			folded := lintFold(canon)
			switch first, ok := exact[canon]; {
			case ok:
				dup(line, first, "")
			default:
				exact[canon] = ref
				if first, ok := foldedInsens[folded]; ok {
					dup(line, first, " (ignoring case)")
				} else if first, ok := foldedAny[folded]; ok && !r.CaseSensitive {
					dup(line, first, " (ignoring case)")
				}
			}
			if _, ok := foldedAny[folded]; !ok {
				foldedAny[folded] = ref
			}
			if _, ok := foldedInsens[folded]; !ok && !r.CaseSensitive {
				foldedInsens[folded] = ref
			}

			if _, ok := words[folded]; ok {
				warn(line, "value is a common English word (expect many false positives)")
			}
			if r.NoBoundary && utf8.RuneCountInString(canon) < MinNoBoundaryRunes {
				warn(line, "value is shorter than "+strconv.Itoa(MinNoBoundaryRunes)+
					" characters and the rule has boundary: none (it will match inside other words)")
			}
		}
		if r.Description != "" {
			if k := descriptionLeak(r); k >= 0 {
				line := r.Line
				if k < len(r.ValueLines) {
					line = int(r.ValueLines[k])
				}
				warn(r.Line, "description contains the value on line "+strconv.Itoa(line)+" (descriptions are shown in findings)")
			}
		}
	}
	slices.SortStableFunc(ws, func(a, b Warning) int { return a.Line - b.Line })
	return ws
}

// Counts is a value-free summary of a catalog, as `privscan catalog check`
// prints it.
type Counts struct {
	Rules, Values int
	// Categories is sorted by category name.
	Categories []CategoryCount
	// Severities lists error, warning and note, in that order, omitting
	// severities no rule has.
	Severities []SeverityCount
}

// CategoryCount is the number of rules and values in one category.
type CategoryCount struct {
	Category      string
	Rules, Values int
}

// SeverityCount is the number of rules and values with one severity.
type SeverityCount struct {
	Severity      Severity
	Rules, Values int
}

// Counts returns the number of rules and values, in total, per category and
// per severity.
func (c *Catalog) Counts() Counts {
	if c == nil {
		return Counts{}
	}
	return countRules(len(c.Rules), func(i int) (string, Severity, int) {
		r := &c.Rules[i]
		return r.Category, r.Severity, len(r.Values)
	})
}

// countRules sums n rules, rule i having category, severity and values
// as rule(i) says.
func countRules(n int, rule func(i int) (category string, sev Severity, values int)) Counts {
	var out Counts
	cats := make(map[string]int) // category -> index in out.Categories
	var sev [SeverityError + 1]SeverityCount
	for i := range n {
		cat, s, n := rule(i)
		out.Rules++
		out.Values += n
		k, ok := cats[cat]
		if !ok {
			k = len(out.Categories)
			cats[cat] = k
			out.Categories = append(out.Categories, CategoryCount{Category: cat})
		}
		out.Categories[k].Rules++
		out.Categories[k].Values += n
		if s >= SeverityNote && s <= SeverityError {
			sev[s].Severity = s
			sev[s].Rules++
			sev[s].Values += n
		}
	}
	slices.SortFunc(out.Categories, func(a, b CategoryCount) int { return strings.Compare(a.Category, b.Category) })
	for s := SeverityError; s >= SeverityNote; s-- {
		if sev[s].Rules > 0 {
			out.Severities = append(out.Severities, sev[s])
		}
	}
	return out
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
