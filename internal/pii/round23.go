package pii

import (
	"bytes"
	"path"
	"strings"

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
	// json: a JSON file outside fixtures (not a manifest the manifest
	// reader knows), for an npm people array.
	json bool
	// object: a JSON or JavaScript/TypeScript file outside fixtures, for
	// an npm bugs object's email.
	object bool
	// docs: a documentation file or README outside fixtures, for a list
	// of maintainers with their terms or under "maintained by:".
	docs bool
	// files: a file outside fixtures (not a message), for a wiki
	// heading naming its authors.
	files bool
	// message: a commit message, for a raw commit header's committer
	// line.
	message bool
}

// newRound23 returns the state of round 23's rules for a fragment of the
// file p ("" for a commit message or stdin).
func newRound23(p string, message, docs bool) round23 {
	if message {
		return round23{message: true}
	}
	if p == "" || inFixtureDir(p) {
		return round23{}
	}
	ext := strings.ToLower(path.Ext(p))
	return round23{
		chart:  equalFold([]byte(path.Base(p)), "chart.yaml"),
		pear:   manifestOf(p) == manifestPEAR,
		json:   ext == ".json" && manifestOf(p) == manifestNone,
		docs:   docs,
		files:  true,
		object: ext == ".json" || ext == ".js" || ext == ".ts" || ext == ".mjs" || ext == ".cjs" || ext == ".mts" || ext == ".cts",
	}
}

// lower returns the description of a note for an email finding at
// lines[i].Text[start:end] that a round-23 rule reads as published, or
// "" when none does.
func (r *round23) lower(k kind, lines []scanner.Line, i, start, end int) string {
	if k != kindEmail {
		return ""
	}
	if r.message && rawIdentHeader(lines[i].Text, start, end) {
		return attributionDescription
	}
	if r.chart && chartMaintainerEmail(lines[i].Text, start, end) {
		return attributionDescription
	}
	if r.pear && pearElementCloses(lines, i, start) {
		return attributionDescription
	}
	if r.json && npmPeopleArrayItem(lines, i, start, end) {
		return attributionDescription
	}
	if r.object && npmBugsEmail(lines, i, start, end) {
		return attributionDescription
	}
	if r.docs && (tenureItem(lines[i].Text, start, end) || maintainedByItem(lines, i, start, end)) {
		return attributionDescription
	}
	if r.files && (wikiAuthorHeading(lines, i, start, end) || rdocAuthorsSection(lines, i)) {
		return attributionDescription
	}
	if r.docs && (datedEntryHeader(lines[i].Text, start, end) || hashAuthorNote(lines[i].Text, start, end)) {
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

// npmPeopleKeys are the keys of npm's package metadata whose value is a
// person or an array of people (package.json's "people fields").
var npmPeopleKeys = []string{"author", "contributors", "maintainers"}

// npmPeopleLookback bounds how many added lines an npm people array's
// item is read back across to the array's opening key.
const npmPeopleLookback = 16

// npmPeopleArrayItem reports, in a JSON file outside fixtures that the
// manifest reader does not know (package metadata kept beside
// package.json, such as a build's package-overrides.json merged into
// the published one), an address inside an item of an npm people array:
// the line is one JSON string in npm's person form, `"Name <address>"`
// or `"Name <address> (url)"`, the address the bracketed part, and the
// added lines above it, consecutive in the file and each such an item,
// lead back to a line that opens the array on a people key of npm's
// (`"contributors": [`, `"maintainers": [`, `"author": [`). npm's person
// string and its people keys are the package format, not a list of
// names. An item after a gap, an array on another key ("users"), an
// item that is not a whole person string, and the same lines in a
// fixture keep the warning.
func npmPeopleArrayItem(lines []scanner.Line, i, start, end int) bool {
	if !npmPersonItem(lines[i].Text, start, end) {
		return false
	}
	for k := i - 1; k >= 0 && i-k <= npmPeopleLookback; k-- {
		if lines[k].Number+1 != lines[k+1].Number {
			return false
		}
		t := bytes.TrimSpace(lines[k].Text)
		if key, ok := jsonArrayOpener(t); ok {
			for _, n := range npmPeopleKeys {
				if equalFold(key, n) {
					return true
				}
			}
			return false
		}
		if !npmPersonString(t) {
			return false
		}
	}
	return false
}

// jsonArrayOpener returns the key of a line that is only `"key": [`.
func jsonArrayOpener(t []byte) ([]byte, bool) {
	if len(t) < 5 || t[0] != '"' || t[len(t)-1] != '[' {
		return nil, false
	}
	e := bytes.IndexByte(t[1:], '"')
	if e < 0 {
		return nil, false
	}
	rest := bytes.TrimSpace(t[2+e : len(t)-1])
	if string(rest) != ":" {
		return nil, false
	}
	return t[1 : 1+e], true
}

// npmPersonItem reports a line that is one JSON string in npm's person
// form whose bracketed address is text[start:end].
func npmPersonItem(text []byte, start, end int) bool {
	if start < 1 || end >= len(text) || text[start-1] != '<' || text[end] != '>' {
		return false
	}
	return npmPersonString(bytes.TrimSpace(text))
}

// npmPersonString reports t (trimmed) as `"Name <address>"` or
// `"Name <address> (url)"`, a comma after it allowed: a name of at least
// one character holding no quote or bracket, one address in angle
// brackets, and optionally a parenthesised URL.
func npmPersonString(t []byte) bool {
	t = bytes.TrimSuffix(t, []byte(","))
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' {
		return false
	}
	t = t[1 : len(t)-1]
	lt := bytes.IndexByte(t, '<')
	gt := bytes.IndexByte(t, '>')
	if lt < 1 || gt < lt+3 || bytes.IndexByte(t[lt+1:gt], '@') < 0 {
		return false
	}
	name := bytes.TrimSpace(t[:lt])
	if len(name) == 0 || bytes.ContainsAny(name, "\"<>()") || bytes.ContainsAny(t[lt+1:gt], " <\"") {
		return false
	}
	rest := bytes.TrimSpace(t[gt+1:])
	if len(rest) == 0 {
		return true
	}
	return rest[0] == '(' && rest[len(rest)-1] == ')' && !bytes.ContainsAny(rest[1:len(rest)-1], "()<>\" ")
}

// npmBugsLookback bounds how many added lines above an email field the
// bugs object's opener is looked for (the object holds url and email).
const npmBugsLookback = 3

// npmBugsEmail reports, in a JSON or JavaScript/TypeScript file outside
// fixtures, an address that is the whole string value of an `email`
// field (`"email": "<a>"`, `email: "<a>"`, `email: '<a>'`) inside an npm
// `bugs` object: a line opening `bugs: {` (or `"bugs": {`) is among the
// npmBugsLookback added lines above it, consecutive in the file, with no
// closing brace between. package.json's bugs object is the package's
// bug-report contact ({url, email}), published with the package, and a
// build script that writes package.json as an object literal writes the
// same object. An email field in another object, one after the object
// closes, a gap, and text beside the address keep the warning.
func npmBugsEmail(lines []scanner.Line, i, start, end int) bool {
	if !quotedFieldValue(lines[i].Text, "email", start, end) {
		return false
	}
	for k := i - 1; k >= 0 && i-k <= npmBugsLookback; k-- {
		if lines[k].Number+1 != lines[k+1].Number {
			return false
		}
		t := bytes.TrimSpace(lines[k].Text)
		if bytes.IndexByte(t, '}') >= 0 {
			return false
		}
		if bytes.HasSuffix(t, []byte("{")) {
			key := bytes.TrimSpace(bytes.TrimSuffix(t[:len(t)-1], []byte(" ")))
			key = bytes.TrimSuffix(key, []byte(":"))
			key = bytes.Trim(bytes.TrimSpace(key), "\"'")
			return string(key) == "bugs"
		}
	}
	return false
}

// quotedFieldValue reports a line that is only `key: "<value>"` (the key
// bare or quoted, the value in single or double quotes, a comma after
// it allowed) whose value is text[start:end].
func quotedFieldValue(text []byte, key string, start, end int) bool {
	t := bytes.TrimLeft(text, " \t")
	off := len(text) - len(t)
	if len(t) > 0 && (t[0] == '"' || t[0] == '\'') {
		if !bytes.HasPrefix(t[1:], []byte(key)) || len(t) < len(key)+2 || t[1+len(key)] != t[0] {
			return false
		}
		off += len(key) + 2
	} else {
		if !bytes.HasPrefix(t, []byte(key)) {
			return false
		}
		off += len(key)
	}
	if off >= len(text) || text[off] != ':' {
		return false
	}
	off++
	for off < len(text) && text[off] == ' ' {
		off++
	}
	if off >= len(text) || (text[off] != '"' && text[off] != '\'') {
		return false
	}
	q := text[off]
	if start != off+1 || end >= len(text) || text[end] != q {
		return false
	}
	rest := bytes.TrimRight(text[end+1:], " \t\r")
	return len(rest) == 0 || string(rest) == ","
}

// identItem returns the text of a list item ("* ", "- ", "+ ") that
// begins with git's ident form whose address is text[start:end], and
// the offset in it just after the ident's closing bracket; ok is false
// for any other line.
func identItem(text []byte, start, end int) (rest []byte, ok bool) {
	t := bytes.TrimLeft(text, " \t")
	if !listItem(t) || before(text, start) != '<' || at(text, end) != '>' {
		return nil, false
	}
	body := text[len(text)-len(t)+2 : end+1]
	if !identLine(body) {
		return nil, false
	}
	return bytes.TrimSpace(text[end+1:]), true
}

// tenureItem reports, in documentation, a list item that is only a
// person in git's ident form and a term in years after it (`* Name
// <address> 2012-2014`, `- Name <address> 2015-`, `* Name <address>
// 2003`): a list of a project's maintainers or authors with their
// terms, the way a copyright line gives a holder and years. A person
// with no term, with a date that is not a year, or with words after
// keeps the warning.
func tenureItem(text []byte, start, end int) bool {
	rest, ok := identItem(text, start, end)
	if !ok {
		return false
	}
	return yearSpan(rest)
}

// yearSpan reports t as YYYY, YYYY- or YYYY-YYYY (a hyphen or an en
// dash).
func yearSpan(t []byte) bool {
	if len(t) < 4 || !allDigits(t[:4]) {
		return false
	}
	t = t[4:]
	switch {
	case len(t) == 0:
		return true
	case t[0] == '-':
		t = t[1:]
	case bytes.HasPrefix(t, []byte("\u2013")):
		t = t[len("\u2013"):]
	default:
		return false
	}
	return len(t) == 0 || (len(t) == 4 && allDigits(t))
}

// maintainedByLookback bounds how many added lines a list item is read
// back across to the line that introduces its list.
const maintainedByLookback = 12

// maintainedByItem reports, in documentation, a list item in git's
// ident form (`* Name <address>`, a term after it allowed) under a line
// that ends with "by:" ("It is maintained by:", "Written by:"): the
// added lines above it, consecutive in the file, are blank or such
// items up to that line. endsWithBy reads the line right after such a
// line; a list reads down from it. A gap, a line of prose between, and
// an item not in the ident form keep the warning.
func maintainedByItem(lines []scanner.Line, i, start, end int) bool {
	rest, ok := identItem(lines[i].Text, start, end)
	if !ok || !(len(rest) == 0 || yearSpan(rest)) {
		return false
	}
	for k := i - 1; k >= 0 && i-k <= maintainedByLookback; k-- {
		if lines[k].Number+1 != lines[k+1].Number {
			return false
		}
		t := bytes.TrimSpace(lines[k].Text)
		switch {
		case len(t) == 0:
		case bytes.HasSuffix(t, []byte(":")) && endsWithBy(t):
			return true
		case listItem(t) && identLine(bytes.TrimSpace(identItemHead(t))):
		default:
			return false
		}
	}
	return false
}

// identItemHead returns a list item's text after its marker up to its
// last closing angle bracket (its ident, a term after it dropped).
func identItemHead(t []byte) []byte {
	gt := bytes.LastIndexByte(t, '>')
	if gt < 2 {
		return nil
	}
	return t[2 : gt+1]
}

// wikiAuthorHeading reports, outside fixtures and commit messages, a
// line that is only a person in git's ident form right under a
// wiki-markup heading (MoinMoin, MediaWiki, Creole: `== Author ==`, the
// same run of equals signs on both sides) whose title is a credit
// section's name (Author(s), Maintainer(s), Contributors, Credits;
// sectionNames): the page's author, as under a Markdown `## Authors`
// heading. The heading on an earlier line, another title, and a line
// with more than the ident keep the warning.
func wikiAuthorHeading(lines []scanner.Line, i, start, end int) bool {
	if i == 0 || lines[i-1].Number+1 != lines[i].Number || !identLine(lines[i].Text) {
		return false
	}
	h := bytes.TrimSpace(lines[i-1].Text)
	n := 0
	for n < len(h) && h[n] == '=' {
		n++
	}
	if n == 0 || n > 6 || len(h) < 2*n+1 {
		return false
	}
	if !bytes.Equal(h[len(h)-n:], h[:n]) || at(h, len(h)-n-1) == '=' {
		return false
	}
	title := bytes.TrimSpace(h[n : len(h)-n])
	for _, s := range sectionNames {
		if equalFold(title, s) {
			return true
		}
	}
	return false
}

// rdocSectionLookback bounds how many lines (empty comment lines and
// other persons) may stand between a doc header's "=== Authors" heading
// and a person of its list (rounds 27 and 28: a list of a dozen
// maintainers, one per line).
const rdocSectionLookback = 32

// rdocAuthorsSection reports, outside fixtures and commit messages, a
// comment line that is only a person in git's ident form (`# Name
// <address>`) under a comment heading in RDoc's markup whose title is a
// credit section's name (`# === Authors`, `# == Author`; sectionNames),
// only empty comment lines (`#`) and other such persons between,
// consecutive in the file: the "Authors" section of a Puppet class's or
// a Ruby file's documentation header. The header rule reads a file's
// leading comment near its top; a class's header comment follows other
// code or comments wherever the class starts. Another heading, prose
// between, a gap and words after the ident keep the warning.
func rdocAuthorsSection(lines []scanner.Line, i int) bool {
	if !rdocPerson(lines[i].Text) {
		return false
	}
	for k := i - 1; k >= 0 && i-k <= rdocSectionLookback+1; k-- {
		if lines[k].Number+1 != lines[k+1].Number {
			return false
		}
		u := bytes.TrimSpace(lines[k].Text)
		if len(u) == 0 || u[0] != '#' {
			return false
		}
		body := bytes.TrimSpace(u[1:])
		switch {
		case len(body) == 0, rdocPerson(u):
			continue
		case body[0] == '=':
			title := bytes.TrimSpace(bytes.TrimLeft(body, "="))
			for _, s := range sectionNames {
				if equalFold(title, s) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// rdocPerson reports a comment line ('#') that is one person in git's
// ident form, maybe as an RDoc list item ("# * Name <address>", "# -
// Name <address>") and maybe with the address as a mailto link ("# *
// Name <mailto:address>", which Puppet's doc headers write).
func rdocPerson(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if len(t) == 0 || t[0] != '#' {
		return false
	}
	if identLine(t) {
		return true
	}
	body := bytes.TrimLeft(t[1:], " \t")
	if len(body) < 2 || (body[0] != '*' && body[0] != '-') || (body[1] != ' ' && body[1] != '\t') {
		if !bytes.Contains(body, []byte("<mailto:")) {
			return false
		}
	} else {
		body = bytes.TrimLeft(body[1:], " \t")
	}
	buf := make([]byte, 0, len(body)+2)
	buf = append(buf, "# "...)
	if j := bytes.Index(body, []byte("<mailto:")); j >= 0 {
		buf = append(buf, body[:j+1]...)
		buf = append(buf, body[j+len("<mailto:"):]...)
	} else {
		buf = append(buf, body...)
	}
	return identLine(buf)
}

// datedEntryHeader reports, in documentation outside fixtures, an
// address in a change log entry's header copied into a README's release
// notes: the line starts with an ISO date, " - ", a name of one to four
// words, then the address (bare or in angle brackets), and after it
// nothing or the entry's first change (`* …`). Change logs generated
// for Puppet modules head each entry so (`2013-01-16 - Name <address>`),
// and a README's "Release Notes" section repeats them. Words that are
// not a name (more than four, or several in lower case), anything else
// after the address, and no date keep the warning.
func datedEntryHeader(text []byte, start, end int) bool {
	t := bytes.TrimLeft(text, " \t")
	off := len(text) - len(t)
	if len(t) < 14 || !isoDate(t[:10]) || !bytes.HasPrefix(t[10:], []byte(" - ")) {
		return false
	}
	head := text[off+13 : start]
	head = bytes.TrimSuffix(head, []byte("<"))
	if !personName(bytes.TrimSpace(head)) || len(head) == 0 || head[len(head)-1] != ' ' {
		return false
	}
	e := end
	if before(text, start) == '<' {
		if at(text, end) != '>' {
			return false
		}
		e++
	}
	rest := bytes.TrimSpace(text[e:])
	return len(rest) == 0 || bytes.HasPrefix(rest, []byte("* "))
}

// isoDate reports b as YYYY-MM-DD.
func isoDate(b []byte) bool {
	return len(b) == 10 && allDigits(b[:4]) && b[4] == '-' && allDigits(b[5:7]) && b[7] == '-' && allDigits(b[8:10])
}

// personName reports a name of one to four words of letters (and `.`,
// `-`, `'`, non-ASCII bytes): one word in any case (a handle), or words
// each starting with a capital or a non-ASCII letter.
func personName(b []byte) bool {
	words := bytes.Fields(b)
	if len(words) == 0 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		for _, c := range w {
			if !(isAlpha(c) || c >= 0x80 || c == '.' || c == '-' || c == '\'') {
				return false
			}
		}
		if len(words) > 1 && !(isUpper(w[0]) || w[0] >= 0x80) {
			return false
		}
	}
	return true
}

// hashAuthorNote reports, in documentation outside fixtures, an address
// that closes a parenthesised commit reference with its author, `(HASH -
// Name address)`: a hexadecimal commit id of 7 to 40 digits, " - ", a
// name (personName), the address (bare or in angle brackets), then the
// closing parenthesis and nothing but a sentence end after it. Release
// notes credit each change's author so, as a change log's entry does.
// Something other than a commit id, words after, and another bracket
// keep the warning.
func hashAuthorNote(text []byte, start, end int) bool {
	e := end
	s := start
	if before(text, start) == '<' {
		if at(text, end) != '>' {
			return false
		}
		e++
		s--
	}
	if at(text, e) != ')' {
		return false
	}
	if rest := bytes.TrimSpace(text[e+1:]); len(rest) > 1 || (len(rest) == 1 && rest[0] != '.' && rest[0] != ',') {
		return false
	}
	open := bytes.LastIndexByte(text[:s], '(')
	if open < 0 {
		return false
	}
	inner := text[open+1 : s]
	dash := bytes.Index(inner, []byte(" - "))
	if dash < 7 || dash > 40 || !hexDigits(inner[:dash]) {
		return false
	}
	name := inner[dash+3:]
	return len(name) > 0 && name[len(name)-1] == ' ' && personName(bytes.TrimSpace(name))
}

func hexDigits(b []byte) bool {
	for _, c := range b {
		if !(isDigit(c) || (c >= 'a' && c <= 'f')) {
			return false
		}
	}
	return len(b) > 0
}

// rawIdentHeader reports, in a commit message, an address in a raw git
// object's ident header pasted into the message: the line is
// `committer Name <address> EPOCH ±HHMM` (or `tagger …`), the form
// `git cat-file -p` prints a commit's or a tag's header in, whose
// `author` line the message attribution rules read already. The
// header's grammar is git's: the keyword at the start of the line, an
// ident, a Unix time in seconds and a time zone offset, nothing after.
// A keyword inside prose, no timestamp, a malformed zone and words
// after keep the warning.
func rawIdentHeader(text []byte, start, end int) bool {
	var rest []byte
	switch {
	case bytes.HasPrefix(text, []byte("committer ")):
		rest = text[len("committer "):]
	case bytes.HasPrefix(text, []byte("tagger ")):
		rest = text[len("tagger "):]
	default:
		return false
	}
	if before(text, start) != '<' || at(text, end) != '>' || !identLine(rest[:len(rest)-len(text[end+1:])]) {
		return false
	}
	f := bytes.Fields(text[end+1:])
	if len(f) != 2 || !allDigits(f[0]) || len(f[0]) > 12 {
		return false
	}
	z := f[1]
	return len(z) == 5 && (z[0] == '+' || z[0] == '-') && allDigits(z[1:])
}

// subjectTrailer reports a commit message whose subject (lines[0]) is a
// people trailer typed as the subject, `Signed-off-by: Name address`
// (the address bare or in angle brackets, a name before it, nothing
// after), when the message's trailer block (lines[from:to], its last
// paragraph) holds a trailer with the same key: the subject repeats the
// block's convention, and is read as the trailers are. A subject
// without a name (`Cc: address`, which the trailer tests keep a
// finding), a key the block does not hold, and words after the address
// keep the finding.
func subjectTrailer(lines []scanner.Line, from, to int) bool {
	if len(lines) == 0 || from <= 0 {
		return false
	}
	t := lines[0].Text
	key := trailerKey(t)
	if key == "" || !namedTrailer(key) {
		return false
	}
	v := bytes.Fields(t[bytes.IndexByte(t, ':')+1:])
	if len(v) < 2 {
		return false
	}
	addr := v[len(v)-1]
	if len(addr) > 2 && addr[0] == '<' && addr[len(addr)-1] == '>' {
		addr = addr[1 : len(addr)-1]
	}
	if bytes.Count(addr, []byte("@")) != 1 || bytes.ContainsAny(addr, "<>") {
		return false
	}
	for _, w := range v[:len(v)-1] {
		if bytes.ContainsAny(w, "@<>") {
			return false
		}
	}
	norm := normalKey(key)
	for k := from; k < to; k++ {
		if kk := trailerKey(lines[k].Text); kk != "" && normalKey(kk) == norm {
			return true
		}
	}
	return false
}
