package catalog

import (
	"bytes"
	"unicode/utf8"
)

// maxRegexRetries bounds, per line and compiled regex, how often a match
// that fails the word-boundary check is retried one character further on
// (each retry searches the rest of the line again); after that the rest of
// the line is searched for non-overlapping matches only, which keeps a
// pathological line linear.
const maxRegexRetries = 256

// scanRegex runs the regex rules over the original line. With a word
// boundary, the characters just before and after a match must not be word
// characters (Unicode-aware; Go's \b is ASCII-only). A match that fails the
// check is retried from its next character, so `x12345 123456` still finds
// the second number; patterns with anchors or \b/\B are searched over the
// whole line at once (their context must stay intact) and failing matches
// are dropped.
func (m *Matcher) scanRegex(line []byte, dst []Match) []Match {
	ascii := firstNonASCII(line) == len(line)
	var stack [512]byte
	var low []byte // line with ASCII folded, made on first use
	var sc *scratch
	for i := range m.regex {
		rr := &m.regex[i]
		if ascii && !rr.always {
			hit := false
			for _, tg := range rr.triggers {
				hay := line
				if tg.fold {
					if low == nil {
						if len(line) <= len(stack) {
							low = stack[:len(line)]
						} else {
							sc = m.pool.Get().(*scratch)
							sc.low = append(sc.low[:0], line...)
							low = sc.low
						}
						for j, c := range line {
							low[j] = asciiTab[c].fold
						}
					}
					hay = low
				}
				if bytes.Contains(hay, tg.lit) {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
		}
		if rr.context || !rr.boundary {
			for _, loc := range rr.re.FindAllIndex(line, -1) {
				if !rr.boundary || boundaryOK(line, loc[0], loc[1]) {
					dst = append(dst, Match{Rule: rr.rule, Start: loc[0], End: loc[1]})
				}
			}
			continue
		}
		retries := 0
		for pos := 0; pos < len(line); {
			if retries >= maxRegexRetries {
				for _, loc := range rr.re.FindAllIndex(line[pos:], -1) {
					s, e := pos+loc[0], pos+loc[1]
					if boundaryOK(line, s, e) {
						dst = append(dst, Match{Rule: rr.rule, Start: s, End: e})
					}
				}
				break
			}
			loc := rr.re.FindIndex(line[pos:])
			if loc == nil {
				break
			}
			s, e := pos+loc[0], pos+loc[1]
			if e > s && boundaryOK(line, s, e) {
				dst = append(dst, Match{Rule: rr.rule, Start: s, End: e})
				pos = e
				continue
			}
			retries++
			pos = s + 1
			if s < len(line) {
				_, n := decode(line, s)
				pos = s + n
			}
		}
	}
	if sc != nil {
		sc.release(&m.pool)
	}
	return dst
}

// boundaryOK reports whether line[s:e] is not glued to word characters.
func boundaryOK(line []byte, s, e int) bool {
	if s > 0 {
		r, n := utf8.DecodeLastRune(line[:s])
		if r == utf8.RuneError && n <= 1 {
			r = invalidUT
		}
		if isWordRune(r) {
			return false
		}
	}
	return !nextIsWord(line, e)
}
