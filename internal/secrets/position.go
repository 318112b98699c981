package secrets

import (
	"sort"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"

	"github.com/privscan/privscan/scanner"
)

// MaxLineBytes is the longest line scanned for secrets. gitleaks' rules run
// on Go's regexp engine at roughly a few hundred KB/s to a few MB/s on
// keyword-dense text, so one multi-megabyte line (a minified bundle, a data
// blob) would stall a scan; longer lines are scanned as if empty.
const MaxLineBytes = 1 << 20

// text is a run of lines joined with "\n", as handed to gitleaks. Lines
// longer than MaxLineBytes are left out (kept as empty lines).
type text struct {
	s      string
	starts []int // byte offset of each line in s
	ends   []int // byte offset just past each line's text in s
}

func newText(lines []scanner.Line) text {
	n := len(lines) - 1
	for _, l := range lines {
		if len(l.Text) <= MaxLineBytes {
			n += len(l.Text)
		}
	}
	var b strings.Builder
	b.Grow(n)
	t := text{starts: make([]int, len(lines)), ends: make([]int, len(lines))}
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		t.starts[i] = b.Len()
		if len(l.Text) <= MaxLineBytes {
			b.Write(l.Text)
		}
		t.ends[i] = b.Len()
	}
	t.s = b.String()
	return t
}

// sub returns the view of lines a..b of t (inclusive) as one text. When
// line b is not t's last line, the newline after it is kept: gitleaks then
// sees the line end as it does in the whole text (a newline, not the end
// of the text, for $, \z and \s).
func (t text) sub(a, b int) text {
	base, end := t.starts[a], t.ends[b]
	if b+1 < len(t.starts) {
		end++
	}
	v := text{s: t.s[base:end], starts: make([]int, b-a+1), ends: make([]int, b-a+1)}
	for k := range v.starts {
		v.starts[k] = t.starts[a+k] - base
		v.ends[k] = t.ends[a+k] - base
	}
	return v
}

// lineOf returns the index of the line holding byte offset pos of t.s, a
// joining newline counting as part of the line it ends.
func (t text) lineOf(pos int) int {
	return max(sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > pos })-1, 0)
}

// secretSpan returns the absolute byte span of a finding's secret in t.
//
// gitleaks reports the match position as a 0-based line and a column that
// is 1-based on the first line but one too high on later lines (it counts
// from the preceding newline, gitleaks issue #1424), and it trims newlines
// from both ends of the match. Rather than trust that arithmetic alone, the
// reported position is used as a hint: match must occur in t at (or near)
// it. The secret is then located inside match by re-running the rule's
// regex on the match the way gitleaks picks the secret group.
func (t text) secretSpan(rule config.Rule, line, col int, match, secret string) (start, end int, ok bool) {
	if match == "" {
		return 0, 0, false
	}
	at := t.locateMatch(line, col, match)
	if at < 0 {
		return 0, 0, false
	}
	off, n := secretInMatch(rule, match, secret)
	start, end = at+off, at+off+n
	// A secret never starts or ends with the joining newline.
	for start < end && t.s[start] == '\n' {
		start++
	}
	for end > start && t.s[end-1] == '\n' {
		end--
	}
	return start, end, true
}

// decodedSpan returns the absolute span of a finding of a decoded pass
// from the position gitleaks reports (same line and column conventions as
// secretSpan's): the original text its match maps back to, which is the
// whole encoded segment when the match lies inside its decoded value. A
// span ending on a later line ends with the start line.
func (t text) decodedSpan(line, col, endLine, endCol int) (start, end int, ok bool) {
	if line < 0 || line >= len(t.starts) {
		return 0, 0, false
	}
	base := 0
	if line > 0 {
		base = t.starts[line] - 1
	}
	start = max(base+col-1, t.starts[line])
	end = t.ends[line]
	if endLine == line && base+endCol > start {
		end = min(base+endCol, end)
	}
	if start >= end {
		return 0, 0, false
	}
	return start, end, true
}

// locateMatch returns the offset of match in t.s nearest the position
// gitleaks reported, or -1 if match does not occur in t.s.
func (t text) locateMatch(line, col int, match string) int {
	hint := 0
	if line >= 0 && line < len(t.starts) {
		// Line 0 counts columns from the text start; line L>0 from the
		// newline ending line L-1, which sits at starts[L]-1.
		base := 0
		if line > 0 {
			base = t.starts[line] - 1
		}
		hint = base + col - 1
		if hint >= 0 && hint <= len(t.s) {
			p := hint
			for p < len(t.s) && t.s[p] == '\n' {
				p++ // gitleaks trims leading newlines off the match
			}
			if strings.HasPrefix(t.s[p:], match) {
				return p
			}
		}
		hint = max(0, min(hint, len(t.s)))
	}
	// Fallback: the occurrence of match nearest the hint.
	best, bestDist := -1, 0
	for from := 0; from <= len(t.s); {
		i := strings.Index(t.s[from:], match)
		if i < 0 {
			break
		}
		p := from + i
		d := p - hint
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestDist {
			best, bestDist = p, d
		}
		if p > hint {
			break // later occurrences are farther still
		}
		from = p + 1
	}
	return best
}

// secretInMatch returns the offset and length of the secret within match,
// choosing the capture group as gitleaks does: rule.SecretGroup if set,
// else the first non-empty group, else the whole match.
func secretInMatch(rule config.Rule, match, secret string) (off, n int) {
	if secret == "" || secret == match {
		return 0, len(match)
	}
	if loc := rule.Regex.FindStringSubmatchIndex(match); len(loc) >= 4 {
		g := -1
		if rule.SecretGroup > 0 {
			if 2*rule.SecretGroup+1 < len(loc) {
				g = rule.SecretGroup
			}
		} else {
			for i := 1; 2*i+1 < len(loc); i++ {
				if loc[2*i] >= 0 && loc[2*i+1] > loc[2*i] {
					g = i
					break
				}
			}
		}
		if g > 0 && loc[2*g] >= 0 && match[loc[2*g]:loc[2*g+1]] == secret {
			return loc[2*g], loc[2*g+1] - loc[2*g]
		}
	}
	if i := strings.Index(match, secret); i >= 0 {
		return i, len(secret)
	}
	return 0, len(match)
}

// lineSpan converts an absolute span into a line index and byte offsets
// within that line, clipping the end to the end of the line.
func (t text) lineSpan(start, end int) (line, s, e int) {
	line = t.lineOf(start)
	s = start - t.starts[line]
	e = min(end, t.ends[line]) - t.starts[line]
	s = min(s, t.ends[line]-t.starts[line])
	e = max(e, s)
	return line, s, e
}
