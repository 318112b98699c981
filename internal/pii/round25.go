package pii

import (
	"bytes"

	"github.com/privscan/privscan/scanner"
)

// The shapes held-out round 25 showed (docs/design/pii-precision.md,
// "Round 25's shapes"): a Python module's people dunder holding a list of
// "Name <address>" strings. Each rule runs only where a cheap test (the
// file's kind, '<' before the candidate) lets it.

// round25 holds the per-fragment state of the rules built after round 25.
type round25 struct {
	// python: a Python module outside fixtures (pythonModule).
	python bool
}

// newRound25 returns the round-25 state for a fragment of the file at p
// (messages get none of these rules).
func newRound25(p string, message bool) round25 {
	if message {
		return round25{}
	}
	return round25{python: pythonModule(p)}
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
	return ""
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

// personItem reports a line that is one quoted "Name <…>" item of a list
// and nothing else: indentation, the string, an optional comma.
func personItem(t []byte) bool {
	t = bytes.TrimRight(bytes.TrimLeft(t, " \t"), " \t\r")
	t = bytes.TrimSuffix(t, []byte(","))
	if len(t) < 2 || (t[0] != '"' && t[0] != '\'') || t[len(t)-1] != t[0] {
		return false
	}
	s := t[1 : len(t)-1]
	if bytes.IndexByte(s, t[0]) >= 0 {
		return false
	}
	lt := bytes.Index(s, []byte(" <"))
	return lt > 0 && s[len(s)-1] == '>' && bytes.IndexByte(s[lt+2:], '<') < 0
}

// dunderListItem reports lines[i] as an item of a people dunder's list:
// the opener itself when it holds the item, or an item line after it,
// every line between an item line and all of them adjacent (the list has
// not closed: a closing line is not an item).
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
		if !personItem(lines[j].Text) {
			return false
		}
	}
	return false
}
