// Package suggest finds the known name nearest to a mistyped one, for
// "did you mean …?" hints in error messages.
package suggest

import "strings"

// editDistance is the optimal string alignment distance between a and b
// (Levenshtein plus transposition of two adjacent characters), in runes,
// case-insensitive: "difff", "dfif" and "Diff" are all one edit from "diff".
func editDistance(a, b string) int {
	ra, rb := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	// Three rolling rows: the transposition looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Nearest returns the candidate closest to typed, or "" when none is close
// enough to be what the user meant: at most one edit for names of up to
// four runes, two for longer ones; a candidate that typed is a prefix of
// (three runes at least: "--fail" for "--fail-on") counts as close too.
// Ties go to the earlier candidate.
func Nearest(typed string, candidates []string) string {
	if typed == "" {
		return ""
	}
	limit := 2
	if len([]rune(typed)) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		d := editDistance(typed, c)
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" {
		return best
	}
	if len([]rune(typed)) >= 3 {
		for _, c := range candidates {
			if strings.HasPrefix(strings.ToLower(c), strings.ToLower(typed)) {
				return c
			}
		}
	}
	return ""
}
