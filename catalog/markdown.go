// Line-level Markdown recognisers used by Parse: fences, headings, list
// items, thematic breaks. They work on raw bytes and never allocate.

package catalog

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// isValuesInfo reports whether a fence's info string names the values block:
// its first word is exactly "values".
func isValuesInfo(info []byte) bool {
	word := info
	if i := bytes.IndexAny(info, " \t"); i >= 0 {
		word = info[:i]
	}
	return string(word) == "values"
}

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

func isASCIILetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isASCIIDigitByte(c byte) bool { return c >= '0' && c <= '9' }
