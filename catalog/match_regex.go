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
//
// anchors holds the anchor bits of the line's bytes (see setAnchorBits), or
// all of them when they are unknown: a rule with triggers is searched only
// when the line has one of its anchor bits and one of its triggers.
func (m *Matcher) scanRegex(line []byte, ascii bool, anchors uint8, dst []Match) []Match {
	for i := range m.regex {
		rr := &m.regex[i]
		if !rr.always && (ascii || !rr.asciiOnly) {
			if anchors&rr.anchors == 0 {
				continue
			}
			hit := false
			for j := range rr.triggers {
				if hit = rr.triggers[j].in(line); hit {
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
	return dst
}

// in reports whether the trigger occurs in the line: it is found by its
// anchor byte (in both cases when the trigger is folded and the anchor is a
// letter) and compared around it, with ASCII case folded when t.fold.
func (t *trigger) in(line []byte) bool {
	c := t.lit[t.anchor]
	if t.scan(line, c) {
		return true
	}
	if t.fold && asciiTab[c].sub == subLower {
		return t.scan(line, c-'a'+'A')
	}
	return false
}

func (t *trigger) scan(line []byte, c byte) bool {
	for off := 0; ; {
		p := bytes.IndexByte(line[off:], c)
		if p < 0 {
			return false
		}
		p += off
		if s := p - t.anchor; s >= 0 && s+len(t.lit) <= len(line) {
			x := line[s : s+len(t.lit)]
			if t.fold && equalFoldASCII(x, t.lit) || !t.fold && bytes.Equal(x, t.lit) {
				return true
			}
		}
		off = p + 1
	}
}

// equalFoldASCII reports whether x equals the lower-case ASCII lit with
// ASCII case folded.
func equalFoldASCII(x, lit []byte) bool {
	for i, c := range x {
		if c >= utf8.RuneSelf || asciiTab[c].fold != lit[i] {
			return false
		}
	}
	return true
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
