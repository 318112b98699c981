package catalog

import (
	_ "embed"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
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
	var out Counts
	if c == nil {
		return out
	}
	cats := make(map[string]int) // category -> index in out.Categories
	var sev [SeverityError + 1]SeverityCount
	for i := range c.Rules {
		r := &c.Rules[i]
		n := len(r.Values)
		out.Rules++
		out.Values += n
		k, ok := cats[r.Category]
		if !ok {
			k = len(out.Categories)
			cats[r.Category] = k
			out.Categories = append(out.Categories, CategoryCount{Category: r.Category})
		}
		out.Categories[k].Rules++
		out.Categories[k].Values += n
		if r.Severity >= SeverityNote && r.Severity <= SeverityError {
			sev[r.Severity].Severity = r.Severity
			sev[r.Severity].Rules++
			sev[r.Severity].Values += n
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
