// Package textpos converts byte offsets in a line of text into the column
// numbers findings report: 1-based Unicode code points (JSON, text) and
// 1-based UTF-16 code units (SARIF).
package textpos

import "unicode/utf8"

// Span is a located match in one line. Columns are 1-based; End columns are
// exclusive.
type Span struct {
	Column, EndColumn     int // Unicode code points
	Column16, EndColumn16 int // UTF-16 code units
}

// Columns returns the span of line[start:end]. Invalid UTF-8 bytes count as
// one code point (U+FFFD) each, as utf8.DecodeRune reports them.
func Columns(line []byte, start, end int) Span {
	if start < 0 {
		start = 0
	}
	if end > len(line) {
		end = len(line)
	}
	if end < start {
		end = start
	}
	cp, u16 := 1, 1
	var s Span
	i := 0
	for i < end {
		if i == start {
			s.Column, s.Column16 = cp, u16
		}
		r, n := rune(line[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(line[i:])
		}
		cp++
		if r >= 0x10000 {
			u16 += 2
		} else {
			u16++
		}
		i += n
	}
	if start == end || s.Column == 0 {
		// start sits inside a multi-byte rune or equals end: clamp.
		if s.Column == 0 {
			s.Column, s.Column16 = cp, u16
		}
	}
	s.EndColumn, s.EndColumn16 = cp, u16
	return s
}
