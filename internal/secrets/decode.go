package secrets

import (
	"encoding/base64"
	"strings"

	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// maxDecodeDepth is how many decoding passes gitleaks makes by default
// (the --max-decode-depth of gitleaks git, dir and stdin).
const maxDecodeDepth = 5

// Decoding. gitleaks, after running its rules on a text, decodes the
// segments of it that look encoded (percent-encoding, \u and U+ escapes,
// hex, base64) in place and runs the rules again on the result, up to
// maxDecodeDepth times; a match found in a decoded pass counts only if it
// overlaps a segment decoded in that pass, and it is reported at the
// original span of the encoded text it came from. The adapter leaves that
// work to gitleaks (its codec and a detector of the rule with decoding
// on), but only around the lines where gitleaks' decoder finds a segment:
//
//   - mayDecode, a byte loop, rejects almost every line; a line it lets
//     through is decoded with gitleaks' codec, and kept if that finds a
//     segment. Segments never span lines (but for chains of U+ escapes,
//     whose every line holds one), so the lines of the run with a segment
//     are those lines.
//   - A match of a decoded pass holds a keyword occurrence (see plan): in
//     the decoded text of a segment line, or in text decoding leaves as it
//     is, near a segment line, where the rule's prefix DFA matches. A rule
//     is run with decoding only over the lines within its reach (the most
//     newlines a match holds; a block of segment lines counts as one) of
//     such occurrences. Findings of the decoded passes are kept; those of
//     the first pass are the ordinary path's.

// Byte classes of the pre-check, after gitleaks' codec patterns.
const (
	cRun    = 1 << iota // in a base64 run: [\w/+-]
	cHex                // a hex digit
	cLikely             // base64 is tried only on runs holding one: 0-9 + / - _
	cMark               // may start an escape: % \ U
)

var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || strings.IndexByte("_/+-", b) >= 0 {
			t[c] |= cRun
		}
		if isHex(b) {
			t[c] |= cHex
		}
		if '0' <= b && b <= '9' || strings.IndexByte("+/-_", b) >= 0 {
			t[c] |= cLikely
		}
		if strings.IndexByte("%\\U", b) >= 0 {
			t[c] |= cMark
		}
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// mayDecode reports whether gitleaks' decoder may find an encoded segment
// in line: it is false only if it finds none. It is exact for lines whose
// only candidates are base64 (the common case: long identifiers and
// paths), which it decodes as gitleaks does; a line with %XX, a \u or U+
// escape or 32 hex digits in a row is left to the codec.
func mayDecode(line []byte) bool {
	n := len(line)
	for i := 0; i < n; {
		c := byteClass[line[i]]
		if c&cRun == 0 {
			if c&cMark != 0 && escapeAt(line, i) {
				return true
			}
			i++
			continue
		}
		// A maximal run of base64 bytes: gitleaks' base64 pattern is
		// [\w/+-]{16,}={0,2}, tried after hex at each position.
		j, hexRun, seen := i, 0, uint8(0)
		for ; j < n; j++ {
			c := byteClass[line[j]]
			if c&cRun == 0 {
				break
			}
			seen |= c
			if c&cHex != 0 {
				if hexRun++; hexRun >= 32 {
					return true
				}
				continue
			}
			hexRun = 0
			if c&cMark != 0 && escapeAt(line, j) {
				return true
			}
		}
		if j-i >= 16 && seen&cLikely != 0 {
			end := j
			for k := 0; k < 2 && end < n && line[end] == '='; k++ {
				end++
			}
			if decodesBase64(line[i:end]) {
				return true
			}
		}
		i = j
	}
	return false
}

// escapeAt reports whether line[i:] starts with an escape gitleaks'
// decoder takes: %XX, \uXXXX or \UXXXX, U+XXXX.
func escapeAt(line []byte, i int) bool {
	switch line[i] {
	case '%':
		return i+2 < len(line) && isHex(line[i+1]) && isHex(line[i+2])
	case '\\':
		return i+5 < len(line) && (line[i+1] == 'u' || line[i+1] == 'U') && hex4(line[i+2:])
	case 'U':
		return i+5 < len(line) && line[i+1] == '+' && hex4(line[i+2:])
	}
	return false
}

// hex4 reports whether b starts with 4 hex digits.
func hex4(b []byte) bool {
	return len(b) >= 4 && isHex(b[0]) && isHex(b[1]) && isHex(b[2]) && isHex(b[3])
}

// decodesBase64 reports whether gitleaks' base64 decoder decodes s to a
// non-empty value: standard encoding, else unpadded URL encoding, to
// printable ASCII (tab to tilde).
func decodesBase64(s []byte) bool {
	var arr [192]byte
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
		var buf []byte
		if m := enc.DecodedLen(len(s)); m <= len(arr) {
			buf = arr[:m]
		} else {
			buf = make([]byte, m)
		}
		n, err := enc.Decode(buf, s)
		if err == nil && n > 0 && printable(buf[:n]) {
			return true
		}
	}
	return false
}

func printable(b []byte) bool {
	for _, c := range b {
		if c <= '\x08' || c >= '\x7f' {
			return false
		}
	}
	return true
}

// decodeLine reports whether gitleaks' decoder finds a segment in line and
// calls fn with the text of each decoding pass after the first (at most
// maxDecodeDepth).
func decodeLine(line []byte, fn func(decoded string)) bool {
	if !mayDecode(line) {
		return false
	}
	dec := codec.NewDecoder()
	cur := string(line)
	var segs []*codec.EncodedSegment
	for depth := 1; depth <= maxDecodeDepth; depth++ {
		cur, segs = dec.Decode(cur, segs)
		if len(segs) == 0 {
			return depth > 1
		}
		if fn != nil {
			fn(cur)
		}
	}
	return true
}

// decodedTag is the tag gitleaks gives findings of a decoded pass.
const decodedTag = "decode-depth:"

func isDecodedFinding(tags []string) bool {
	for _, t := range tags {
		if strings.HasPrefix(t, decodedTag) {
			return true
		}
	}
	return false
}
