package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// The shapes held-out round 25 showed (docs/design/pii-precision.md,
// "Round 25's shapes"): a Python module's people dunder holding a list of
// "Name <address>" strings; a Javadoc or KDoc @author tag whose address
// wraps onto the next comment line. Each rule runs only where a cheap test (the
// file's kind, '<' before the candidate) lets it.

// round25 holds the per-fragment state of the rules built after round 25.
type round25 struct {
	// python: a Python module outside fixtures (pythonModule).
	python bool
	// code: a file outside fixtures.
	code bool
	// composer: a Composer manifest named composer-*.json or
	// composer_*.json outside fixtures (Composer reads any name through
	// its COMPOSER variable).
	composer bool
}

// newRound25 returns the round-25 state for a fragment of the file at p
// (messages get none of these rules).
func newRound25(p string, message bool) round25 {
	if message {
		return round25{}
	}
	code := p != "" && !inFixtureDir(p)
	base := strings.ToLower(path.Base(p))
	return round25{python: pythonModule(p), code: code,
		composer: code && (strings.HasPrefix(base, "composer-") || strings.HasPrefix(base, "composer_")) && strings.HasSuffix(base, ".json")}
}

// lower returns the description of a note for an email finding at
// lines[i].Text[start:end] that a round-25 rule reads as published, or ""
// when none does.
func (r *round25) lower(k kind, lines []scanner.Line, i, start, end int) string {
	if k != kindEmail {
		return ""
	}
	text := lines[i].Text
	if r.python && before(text, start) == '<' && at(text, end) == '>' && dunderListItem(lines, i) {
		return attributionDescription
	}
	if r.code && i > 0 && lines[i-1].Number+1 == lines[i].Number && aloneOnCommentLine(text, start, end) && authorTagLine(lines[i-1].Text) {
		return attributionDescription
	}
	if r.composer && composerAuthor(lines, i, start) {
		return attributionDescription
	}
	if r.code && i > 0 && lines[i-1].Number+1 == lines[i].Number && byLineCredit(text, start, end) && titledBy(lines, i) {
		return attributionDescription
	}
	return ""
}

// aloneOnCommentLine reports an address that is all a doc comment's line
// holds (" *   address", optionally in <…> or (…)).
func aloneOnCommentLine(text []byte, start, end int) bool {
	pre := bytes.TrimRight(text[:start], " \t")
	post := bytes.TrimRight(text[end:], " \t\r")
	if n := len(pre); n > 0 && (pre[n-1] == '<' || pre[n-1] == '(') {
		closer := byte('>')
		if pre[n-1] == '(' {
			closer = ')'
		}
		if len(post) != 1 || post[0] != closer {
			return false
		}
		pre = bytes.TrimRight(pre[:n-1], " \t")
	} else if len(post) != 0 {
		return false
	}
	pre = bytes.TrimLeft(pre, " \t")
	return string(pre) == "*" || string(pre) == "//"
}

// authorTagLine reports a doc comment's line that is a Javadoc or KDoc
// "@author Name" tag with a name and no address (" * @author Name").
func authorTagLine(t []byte) bool {
	t = bytes.TrimLeft(t, " \t")
	switch {
	case bytes.HasPrefix(t, []byte("*")):
		t = t[1:]
	case bytes.HasPrefix(t, []byte("//")):
		t = t[2:]
	default:
		return false
	}
	t = bytes.TrimLeft(t, " \t")
	if !bytes.HasPrefix(t, []byte("@author")) {
		return false
	}
	name := bytes.TrimSpace(t[len("@author"):])
	if len(name) == 0 || len(t) == len("@author") || (t[len("@author")] != ' ' && t[len("@author")] != '\t') {
		return false
	}
	return bytes.IndexByte(name, '@') < 0 && bytes.IndexByte(name, '<') < 0 && (isUpper(name[0]) || isLower(name[0]) || name[0] >= 0x80)
}

// dunderPeopleLists are the module dunders whose list or tuple names the
// module's people, one "Name <address>" string an item, as __author__
// names one.
var dunderPeopleLists = []string{"__contributors__", "__credits__", "__maintainers__"}

// dunderListOpener reports a line that assigns a people dunder a list or
// tuple at the module's top level ("__contributors__ = [").
func dunderListOpener(t []byte) bool {
	if len(t) == 0 || t[0] != '_' {
		return false
	}
	for _, n := range dunderPeopleLists {
		if !bytes.HasPrefix(t, []byte(n)) {
			continue
		}
		rest := bytes.TrimLeft(t[len(n):], " \t")
		if len(rest) == 0 || rest[0] != '=' {
			return false
		}
		rest = bytes.TrimLeft(rest[1:], " \t")
		return len(rest) > 0 && (rest[0] == '[' || rest[0] == '(')
	}
	return false
}

// stringItem returns the string of a line that is one quoted item of a
// list and nothing else (indentation, the string, an optional comma), or
// nil.
func stringItem(t []byte) []byte {
	t = bytes.TrimRight(bytes.TrimLeft(t, " \t"), " \t\r")
	t = bytes.TrimSuffix(t, []byte(","))
	if len(t) < 2 || (t[0] != '"' && t[0] != '\'') || t[len(t)-1] != t[0] {
		return nil
	}
	s := t[1 : len(t)-1]
	if bytes.IndexByte(s, t[0]) >= 0 {
		return nil
	}
	return s
}

// personItem reports a line that is one quoted "Name <…>" item of a list
// and nothing else.
func personItem(t []byte) bool {
	s := stringItem(t)
	lt := bytes.Index(s, []byte(" <"))
	return lt > 0 && s[len(s)-1] == '>' && bytes.IndexByte(s[lt+2:], '<') < 0
}

// dunderListItem reports lines[i] as an item of a people dunder's list:
// the opener itself when it holds the item, or a "Name <…>" item line
// after it, every line between a one-string item (a name alone is one)
// and all of them adjacent (the list has not closed: a closing line is
// not an item).
func dunderListItem(lines []scanner.Line, i int) bool {
	if dunderListOpener(lines[i].Text) {
		return true
	}
	if !personItem(lines[i].Text) {
		return false
	}
	for j := i - 1; j >= 0 && lines[j].Number+1 == lines[j+1].Number; j-- {
		if dunderListOpener(lines[j].Text) {
			return true
		}
		if stringItem(lines[j].Text) == nil {
			return false
		}
	}
	return false
}

// byLineCredit reports an address in <…> or (…) on a line that is only
// "by Name <address>" (a comment marker before it allowed, a '.' or ','
// after it).
func byLineCredit(line []byte, start, end int) bool {
	o, c := before(line, start), at(line, end)
	if !((o == '(' && c == ')') || (o == '<' && c == '>')) {
		return false
	}
	h := bytes.TrimSpace(line[:start-1])
	if commentStart(h) {
		h = stripCommentEnds(h)
	}
	if !bytes.HasPrefix(h, []byte("by ")) || !personName(h[3:]) {
		return false
	}
	r := bytes.TrimSpace(line[end+1:])
	return len(r) == 0 || ((r[0] == '.' || r[0] == ',') && len(bytes.TrimSpace(r[1:])) == 0)
}

// titledBy reports the line before lines[i] (adjacent) as a work's title
// that the "by" line credits: a Python docstring's opening summary line
// ("""Title), or a title line (no address) after a "Based on:" line, all
// three lines adjacent.
func titledBy(lines []scanner.Line, i int) bool {
	prev := bytes.TrimSpace(lines[i-1].Text)
	if len(prev) == 0 || bytes.IndexByte(prev, '@') >= 0 {
		return false
	}
	if bytes.HasPrefix(prev, []byte(`"""`)) || bytes.HasPrefix(prev, []byte("'''")) {
		return len(bytes.TrimSpace(prev[3:])) > 0 && !bytes.Contains(prev[3:], prev[:3])
	}
	if i < 2 || lines[i-2].Number+1 != lines[i-1].Number {
		return false
	}
	b := bytes.TrimSpace(lines[i-2].Text)
	if commentStart(b) {
		b = stripCommentEnds(b)
	}
	return len(b) == len("based on:") && equalFold(b, "based on:")
}

// composerAuthor reports an address that is the value of an "email" key
// inside a Composer manifest's "authors" array: the lines from the
// array's opener ("authors": [) to the address adjacent, none of them
// closing the array.
func composerAuthor(lines []scanner.Line, i, start int) bool {
	t := bytes.TrimSpace(lines[i].Text[:start])
	if !bytes.HasPrefix(t, []byte(`"email"`)) || !bytes.HasSuffix(t, []byte(`"`)) {
		return false
	}
	for j := i - 1; j >= 0 && lines[j].Number+1 == lines[j+1].Number; j-- {
		l := bytes.TrimSpace(lines[j].Text)
		if bytes.HasPrefix(l, []byte(`"authors"`)) {
			return bytes.HasSuffix(l, []byte("["))
		}
		if bytes.IndexByte(l, ']') >= 0 {
			return false
		}
	}
	return false
}
