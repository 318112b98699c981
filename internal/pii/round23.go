package pii

import (
	"bytes"
	"path"

	"github.com/privscan/privscan/scanner"
)

// The rules built after held-out round 23 (bench/results/precision.md,
// "Rules built after round 23"; docs/design/pii-precision.md, "Round 23's
// shapes").

// round23 is the per-fragment state of the severity rules built after
// round 23, each gated by the file's kind, decided once per fragment.
type round23 struct {
	// chart: a Helm chart's Chart.yaml outside fixtures, for its
	// maintainers' email fields.
	chart bool
	// pear: a PEAR or PECL package.xml outside fixtures, for an <email>
	// whose people element opens above the fragment.
	pear bool
}

// newRound23 returns the state of round 23's rules for a fragment of the
// file p ("" for a commit message or stdin).
func newRound23(p string, message bool) round23 {
	if message || p == "" || inFixtureDir(p) {
		return round23{}
	}
	return round23{
		chart: equalFold([]byte(path.Base(p)), "chart.yaml"),
		pear:  manifestOf(p) == manifestPEAR,
	}
}

// lower returns the description of a note for an email finding at
// lines[i].Text[start:end] that a round-23 rule reads as published, or
// "" when none does.
func (r *round23) lower(k kind, lines []scanner.Line, i, start, end int) string {
	if k != kindEmail {
		return ""
	}
	if r.chart && chartMaintainerEmail(lines[i].Text, start, end) {
		return attributionDescription
	}
	if r.pear && pearElementCloses(lines, i, start) {
		return attributionDescription
	}
	return ""
}

// chartMaintainerEmail reports, in a Helm chart's Chart.yaml, an address
// that is the whole value of an indented email field ("    email: <a>",
// "  - email: <a>", the value bare or quoted). Chart.yaml's schema
// (Helm's chart file, apiVersion v1 and v2) has one email field, a
// maintainers item's, so the field names a chart maintainer, published
// on the chart's page, whether or not the diff shows the "maintainers:"
// key above it (a hunk that adds an item, or changes an item's email,
// shows the key only as context or in the hunk header, which the
// fragment does not carry). The schema has no top-level email, so an
// unindented "email:" keeps the warning, as does an address in another
// field (a description, an annotation), in a comment, or with text after
// it in the value.
func chartMaintainerEmail(text []byte, start, end int) bool {
	t := bytes.TrimLeft(text, " ")
	indent := len(text) - len(t)
	if indent == 0 {
		return false
	}
	if bytes.HasPrefix(t, []byte("- ")) {
		t = bytes.TrimLeft(t[2:], " ")
	}
	if !bytes.HasPrefix(t, []byte("email:")) {
		return false
	}
	v := bytes.TrimLeft(t[len("email:"):], " \t")
	off := len(text) - len(v)
	q := byte(0)
	if len(v) > 0 && (v[0] == '"' || v[0] == '\'') {
		q = v[0]
		off++
	}
	if start != off {
		return false
	}
	rest := text[end:]
	if q != 0 {
		if len(rest) == 0 || rest[0] != q {
			return false
		}
		rest = rest[1:]
	}
	return len(bytes.TrimRight(rest, " \t\r")) == 0
}

// pearLookahead bounds how many lines after an <email> element its
// people element's closing tag is looked for: an element of a PEAR
// package.xml holds at most a handful of children (<name>, <user>,
// <email>, <active>, <role>).
const pearLookahead = 6

// pearElementCloses reports, in a PEAR or PECL package.xml, an address
// that is the value of an <email> element on its own line, when one of
// the following added lines of the file, consecutive with it and within
// pearLookahead lines, closes a people element (</maintainer>, </lead>,
// </developer>, </contributor>, </helper>; pearPeople) before any
// element opens: the <email> is that element's child, its opening tag
// context the diff does not show (a change to one maintainer's address).
// manifestState.element reads the same when the opening tag is an added
// line. An <email> followed by a gap, by another element's opening tag
// first, or by no closing tag within reach, and an address outside an
// <email> element, keep the warning.
func pearElementCloses(lines []scanner.Line, i, start int) bool {
	t := bytes.TrimLeft(lines[i].Text, " \t")
	if !hasPrefixFold(t, "<email>") || start != len(lines[i].Text)-len(t)+len("<email>") {
		return false
	}
	for k := i + 1; k < len(lines) && k-i <= pearLookahead; k++ {
		if lines[k].Number != lines[k-1].Number+1 {
			return false
		}
		u := bytes.TrimSpace(lines[k].Text)
		for _, tag := range pearPeople {
			if hasPrefixFold(u, "</"+tag+">") {
				return true
			}
			if hasPrefixFold(u, "<"+tag+">") || hasPrefixFold(u, "<"+tag+" ") {
				return false
			}
		}
	}
	return false
}

// hasPrefixFold reports whether b begins with s (ASCII, s in lower case),
// ignoring case.
func hasPrefixFold(b []byte, s string) bool {
	return len(b) >= len(s) && equalFold(b[:len(s)], s)
}
