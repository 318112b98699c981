// Checks of catalog values: length, printable text, regex safety. Reasons
// never contain the value they reject.

package catalog

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

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
