package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// The shapes held-out rounds 31 to 33 showed (docs/design/pii-precision.md,
// "Round 31's shapes", "Rounds 32 and 33's shapes"): a documentation
// file's list of people under a credit label or a copyright line, or two
// or more people listed as items; a sentence that names its subject the
// maintainers or authors and then lists them; the same documentation
// text in a gettext catalog that translates it (po4a's entries, whose
// references name documentation files); a third-party notices file;
// git format-patch's author; a validator's test vectors; gem metadata
// and a README's byline; address-shaped path segments and Message-IDs.
// Each rule reads a grammar (a list's items and its label, a clause's
// subject and verb, a catalog entry's references, a file's name) and
// runs only for a finding still at its warning.

// round31 holds the per-fragment state of the rules built after rounds 31
// to 33.
type round31 struct {
	// files: a file outside fixtures (not a message).
	files bool
	// message: a commit message.
	message bool
	// docs: a documentation file or README outside fixtures.
	docs bool
	// notice: a third-party notices file (THIRD_PARTY, ThirdPartyNotices.txt).
	notice bool
	// po: a gettext catalog outside fixtures.
	po bool
	// rst: a reStructuredText file outside fixtures.
	rst bool
	// vectors: a test of address validation (validationTest), fixtures
	// included.
	vectors bool
	// rubyBuild: a gemspec or a Ruby build file (Rakefile) outside
	// fixtures.
	rubyBuild bool
	// readme: a README outside fixtures.
	readme bool
	// oreSpec: ore's gemspec.yml.
	oreSpec bool
}

// newRound31 returns the round-31 state for a fragment of the file at p:
// docs (a documentation file or README) and fixture (inFixtureDir) as
// Detect has read them.
func newRound31(p string, message, docs, fixture bool) round31 {
	if message || p == "" {
		return round31{message: message}
	}
	if fixture {
		return round31{vectors: validationTest(p)}
	}
	base := path.Base(p)
	return round31{files: true, docs: docs, notice: thirdPartyNotices(p), po: poFile(p), rst: strings.EqualFold(path.Ext(p), ".rst"), vectors: validationTest(p),
		rubyBuild: rubyBuildFile(p) || strings.HasSuffix(base, ".gemspec"), readme: readmeName(p), oreSpec: base == "gemspec.yml"}
}

// Descriptions of the notes the round-31 rules give.
const (
	patchAuthorDescription = "An email address in the From: header of a patch git format-patch wrote (the mbox line \"From <commit> Mon Sep 17 00:00:00 2001\" above it): the patch's author, a credit as a commit's author is; reported as a note."
	vectorDescription      = "An email address in a test of address validation (a file named for a validator or for the address grammar it tests: EmailAddressTest, validate_email_address_spec, tests/validators/): a test vector of the grammar under test, reported as a note."
	pathSegmentDescription = "An address-shaped segment of a file path (\"extensions/name@host/install.rdf\"): an identifier, such as a browser add-on's, that names a directory, not a mailbox; reported as a note."
	listNameDescription    = "An email address in git's ident form whose display name ends in \"List\" (\"Project-Talk List <address>\"): a mailing list named so, not a person's mailbox; reported as a note."
)

// lower returns the description of the note the round-31 rules give the
// email finding at start:end of line i, or "".
func (r *round31) lower(k kind, lines []scanner.Line, i, start, end int) string {
	if k != kindEmail {
		return ""
	}
	if r.vectors {
		return vectorDescription
	}
	if pathSegment(lines[i].Text, start, end) {
		return pathSegmentDescription
	}
	if messageIDShape(lines[i].Text[start:end]) {
		return messageIDDescription
	}
	if !(r.files || r.message) {
		return ""
	}
	text := lines[i].Text
	switch {
	case r.notice:
		return attributionDescription
	case r.docs || r.message:
		if docPeopleList(lines, i, start, end, false) || creditClause(paragraphBefore(lines, i, start)) {
			return attributionDescription
		}
	case r.po:
		if poDocCredit(lines, i, start, end) {
			return attributionDescription
		}
	default:
		if commentBody(bytes.TrimLeft(text, " \t")) != nil && docPeopleList(lines, i, start, end, true) {
			return attributionDescription
		}
	}
	if r.files && formatPatchAuthor(lines, i) {
		return patchAuthorDescription
	}
	if listDisplayName(text, start) {
		return listNameDescription
	}
	if r.rst && listTableCredit(lines, i) {
		return attributionDescription
	}
	if r.rubyBuild && (gemSpecValue(text, start, end) || commentedGemDSL(text, start, end)) {
		return attributionDescription
	}
	if r.readme && readmeNameByline(lines, i, start, end) {
		return attributionDescription
	}
	if r.oreSpec && oreSpecPeople(text, start) {
		return attributionDescription
	}
	return ""
}

// gemSpecValue reports an address that is the whole string literal
// assigned to a field only a gem's specification has ("s.homepage =
// \"address\"", gemSpecFields): published as the gem's metadata, as its
// email field is. An email field alone needs the block's other fields to
// say it is a gem's (gemBlock, gemFieldAhead).
func gemSpecValue(text []byte, start, end int) bool {
	q := before(text, start)
	if (q != '"' && q != '\'') || at(text, end) != q {
		return false
	}
	t := bytes.TrimLeft(text[:start-1], " \t")
	v, field := fieldAssignment(t)
	if v == nil || !isGemSpecField(field) {
		return false
	}
	rest := bytes.TrimSpace(t[len(v)+1+len(field):])
	return string(rest) == "=" && len(bytes.TrimSpace(text[end+1:])) <= 1
}

// commentedGemDSL reports, in a Ruby build file, a gem-building DSL call
// commented out ("#   p.developer('Name', 'address')"): the same credit
// as the live call (gemDSLPerson), kept as a comment.
func commentedGemDSL(text []byte, start, end int) bool {
	t := bytes.TrimLeft(text, " \t")
	if len(t) == 0 || t[0] != '#' {
		return false
	}
	off := len(text) - len(bytes.TrimLeft(bytes.TrimLeft(t, "#"), " \t"))
	if start < off {
		return false
	}
	return gemDSLPerson(text[off:], start-off, end-off)
}

// readmeNameByline reports, in a README's first bylineLines lines, an
// address alone on its line right under a line that is only a personal
// name (two to four capitalised words): the byline "Name" / "address" a
// plain-text README writes under its title.
func readmeNameByline(lines []scanner.Line, i, start, end int) bool {
	if lines[i].Number > bylineLines || i == 0 || lines[i-1].Number+1 != lines[i].Number {
		return false
	}
	if len(bytes.TrimSpace(lines[i].Text[:start])) > 0 || len(bytes.TrimSpace(lines[i].Text[end:])) > 0 {
		return false
	}
	words := bytes.Fields(lines[i-1].Text)
	if len(words) < 2 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		if !isUpper(w[0]) {
			return false
		}
		for _, c := range w[1:] {
			if !isAlpha(c) && c != '.' && c != '-' && c != '\'' && c < 0x80 {
				return false
			}
		}
	}
	return true
}

// oreSpecPeople reports, in ore's gemspec.yml, an address on a line of
// its email or authors key ("email: address"): the gem's people, as the
// gemspec's own fields name them.
func oreSpecPeople(text []byte, start int) bool {
	t := bytes.TrimLeft(text[:start], " \t")
	return hasPrefixFold(t, "email:") || hasPrefixFold(t, "authors:") || hasPrefixFold(t, "author:")
}

// thirdPartyNotices reports a file that collects third-party licences
// and notices under a name of its own: THIRD_PARTY, THIRD-PARTY-NOTICES,
// ThirdPartyNotices.txt, third_party_licenses.md (its base name without
// separators, and without a text extension, begins "thirdparty"). A code
// file (third_party.go) is not one.
func thirdPartyNotices(p string) bool {
	base := strings.ToLower(path.Base(p))
	switch path.Ext(base) {
	case "", ".txt", ".md", ".rst":
		base = strings.TrimSuffix(base, path.Ext(base))
	default:
		return false
	}
	// The name, its separators skipped ("third-party", "third_party"),
	// begins "thirdparty".
	const want = "thirdparty"
	n := 0
	for i := 0; i < len(base) && n < len(want); i++ {
		switch c := base[i]; {
		case c == '-' || c == '_' || c == ' ':
		case c != want[n]:
			return false
		default:
			n++
		}
	}
	return n == len(want)
}

// docPersonItem reports whether the address at start:end of t is a person
// item: after blanks and an optional list marker ("*", "-", "+", "•"), a
// name of one to eight words and the address in angle brackets, then
// nothing, closing punctuation, or a description after a dash or in
// parentheses ("* Name <address> - Past maintainer."). bulleted: the item
// has a list marker and every word of its name begins with a capital, a
// non-ASCII letter, a quote or a parenthesis (a personal name, not
// prose).
func docPersonItem(t []byte, start, end int) (ok, bulleted bool) {
	if before(t, start) != '<' || at(t, end) != '>' {
		return false, false
	}
	head := bytes.TrimLeft(t[:start-1], " \t")
	for _, m := range []string{"* ", "- ", "+ ", "• "} {
		if bytes.HasPrefix(head, []byte(m)) {
			bulleted = true
			head = bytes.TrimLeft(head[len(m):], " \t")
			break
		}
	}
	name := bytes.TrimRight(head, " \t")
	words := bytes.Fields(name)
	if len(words) == 0 || len(words) > 8 || bytes.ContainsAny(name, ":@<>/=") {
		return false, false
	}
	if c := name[len(name)-1]; !isAlpha(c) && c < 0x80 && c != ')' && c != '"' && c != '.' {
		return false, false
	}
	tail := bytes.TrimSpace(t[end+1:])
	if len(tail) > 0 && strings.IndexByte(".,;-(", tail[0]) < 0 && !bytes.HasPrefix(tail, []byte("–")) && !bytes.HasPrefix(tail, []byte("—")) {
		return false, false
	}
	if bulleted {
		for _, w := range words {
			if c := w[0]; !isUpper(c) && c < 0x80 && c != '"' && c != '(' {
				bulleted = false
			}
		}
	}
	return true, bulleted
}

// itemLine reports whether line t is a person item (docPersonItem) for the
// last angle-bracketed address on it.
func itemLine(t []byte) (ok, bulleted bool) {
	t = bytes.TrimRight(t, " \t\r")
	gt := bytes.LastIndexByte(t, '>')
	if gt < 0 {
		return false, false
	}
	lt := bytes.LastIndexByte(t[:gt], '<')
	if lt < 0 || bytes.IndexByte(t[lt:gt], '@') < 0 {
		return false, false
	}
	return docPersonItem(t, lt+1, gt)
}

// listReach is how many lines above and below an item docPeopleList reads
// for the list's other items and its label.
const listReach = 16

// docPeopleList reports, in a documentation file, an address that is a
// person item (docPersonItem) of a list of people: the list's label, the
// first line above its items that is neither an item, a blank nor an
// indented continuation, is a credit label or a copyright line
// (creditHeading: "Authors:", "Thanks to:", "- Special Thanks", "##
// Maintainers", "Copyright (c) 1997-2022 by the authors."), or the list
// holds at least two bulleted person items. A single person without such
// a label ("* Ana Example <address>" under "Contact:") keeps the warning.
func docPeopleList(lines []scanner.Line, i, start, end int, comments bool) bool {
	// body: the text the list is written in, a comment's after its
	// leader in code, the whole line in documentation; nil for a line
	// that is not a comment in code (it ends the list).
	body := func(t []byte) []byte {
		if !comments {
			return t
		}
		return commentBody(bytes.TrimLeft(t, " \t"))
	}
	b := body(lines[i].Text)
	off := len(lines[i].Text) - len(b)
	if b == nil || start < off {
		return false
	}
	ok, bulleted := docPersonItem(b, start-off, end-off)
	if !ok {
		return false
	}
	items := 0
	if bulleted {
		items++
	}
	var label []byte
	labelAt := -1
	for j := i - 1; j >= 0 && i-j <= listReach && lines[j].Number+1 == lines[j+1].Number; j-- {
		t := body(lines[j].Text)
		if t == nil {
			break
		}
		if len(bytes.TrimSpace(t)) == 0 {
			continue
		}
		if ok, b := itemLine(t); ok {
			if b {
				items++
			}
			continue
		}
		if creditHeading(t) {
			label, labelAt = t, j
			break
		}
		if t[0] == ' ' || t[0] == '\t' || nameItem(t) {
			continue // an item's description on a line of its own, a person without an address
		}
		label, labelAt = t, j
		break
	}
	if label != nil && setextUnderline(bytes.TrimRight(label, " \t\r")) && labelAt > 0 && lines[labelAt-1].Number+1 == lines[labelAt].Number {
		label = body(lines[labelAt-1].Text)
	}
	if label != nil && creditHeading(label) {
		return true
	}
	for j := i + 1; j < len(lines) && j-i <= listReach && items < 2 && lines[j].Number == lines[j-1].Number+1; j++ {
		t := body(lines[j].Text)
		if t == nil {
			break
		}
		if len(bytes.TrimSpace(t)) == 0 {
			continue
		}
		ok, b := itemLine(t)
		if !ok {
			if t[0] == ' ' || t[0] == '\t' || nameItem(t) {
				continue
			}
			break
		}
		if b {
			items++
		}
	}
	return items >= 2
}

// nameItem reports a list item that is a person without an address: a
// list marker, one to four capitalised words, then nothing or a
// description after " - " ("* Dave Lee", "* Dave Lee - Past
// maintainer."). It continues a list of people; it does not count as one
// of its people.
func nameItem(t []byte) bool {
	t = bytes.TrimSpace(t)
	if len(t) < 3 || (t[0] != '*' && t[0] != '-' && t[0] != '+') || t[1] != ' ' {
		return false
	}
	t = t[2:]
	if k := bytes.Index(t, []byte(" - ")); k > 0 {
		t = t[:k]
	}
	words := bytes.Fields(t)
	if len(words) == 0 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		if c := w[0]; !isUpper(c) && c < 0x80 && c != '(' {
			return false
		}
		if bytes.ContainsAny(w, ":@<>/=") {
			return false
		}
	}
	return true
}

// creditHeading reports a line that introduces a list of people: after
// heading and list markers ('#', '=', '-', '*', '+') and before a closing
// ':' or heading marker, an authors section's title (sectionTitle:
// "Authors", "Current maintainers"), a credit label ("Translators",
// "Original authors"), a thanks ("Thanks", "Thanks to", "Special
// thanks"), or a copyright statement ("Copyright (c) 2012 by the
// authors.", "(c) 2012").
func creditHeading(line []byte) bool {
	t := bytes.TrimSpace(line)
	// A wiki heading's markers balance ("== Authors =="); "== Authors ="
	// is not one.
	if lead, trail := len(t)-len(bytes.TrimLeft(t, "=")), len(t)-len(bytes.TrimRight(t, "=")); lead > 0 && trail > 0 && lead != trail {
		return false
	}
	t = bytes.TrimLeft(t, "#=-*+ \t")
	if hasPrefixFold(t, "copyright") || hasPrefixFold(t, "(c)") || bytes.HasPrefix(t, []byte("©")) {
		return true
	}
	t = bytes.TrimRight(t, "#=:. \t")
	// "Author/s", "Author(s)": the label's plural written as a suffix.
	t = bytes.TrimSuffix(bytes.TrimSuffix(t, []byte("/s")), []byte("(s)"))
	if sectionTitle(t) {
		return true
	}
	for _, l := range creditLabels {
		if equalFold(t, l) {
			return true
		}
	}
	words := bytes.Fields(t)
	if len(words) == 0 || len(words) > 3 {
		return false
	}
	last := words[len(words)-1]
	if equalFold(last, "to") && len(words) >= 2 {
		last = words[len(words)-2]
	}
	return equalFold(last, "thanks")
}

// paragraphLines is how many lines above an address paragraphBefore joins
// to it.
const paragraphLines = 4

// paragraphBefore returns the text of the paragraph before the address at
// start on line i: up to paragraphLines adjacent non-blank lines above it,
// joined by blanks, then the line's text before the address. A sentence
// wrapped across lines ("The current maintainers are Ana Example
// <address> and" / "Bo Example <address>.") is read whole.
func paragraphBefore(lines []scanner.Line, i, start int) []byte {
	first := i
	for first > 0 && i-first < paragraphLines && lines[first-1].Number+1 == lines[first].Number && len(bytes.TrimSpace(lines[first-1].Text)) > 0 {
		first--
	}
	var b []byte
	for j := first; j < i; j++ {
		b = append(b, bytes.TrimSpace(lines[j].Text)...)
		b = append(b, ' ')
	}
	return append(b, lines[i].Text[:start]...)
}

// creditSubjects are the nouns that, as a clause's subject before "is",
// "are", "was" or "were", make the people after the verb its credited
// authors ("The current maintainers are Name <address> and Name
// <address>").
var creditSubjects = []string{"author", "authors", "maintainer", "maintainers", "developer", "developers", "contributor", "contributors", "translator", "translators"}

// creditClause reports prose (the text before an address, the address's
// '<' or '(' included) whose last clause names people as its subject's
// complement: a credit subject (creditSubjects), a copula, then only
// personal names (capitalised words), other addresses in angle brackets
// and "and", ",", "&" up to the address. "The maintainers are happy to
// help Ana <address>" has other words after the verb and keeps the
// warning.
func creditClause(prose []byte) bool {
	t := bytes.TrimRight(prose, " \t")
	if len(t) == 0 || (t[len(t)-1] != '<' && t[len(t)-1] != '(') {
		return false
	}
	words := bytes.Fields(lastClause(t[:len(t)-1]))
	for v := len(words) - 1; v >= 1; v-- {
		w := words[v]
		if !oneOfFold(w, []string{"is", "are", "was", "were"}) {
			if !creditNameToken(w) {
				return false
			}
			continue
		}
		return oneOfFold(bytes.Trim(words[v-1], ",:"), creditSubjects)
	}
	return false
}

// creditNameToken reports a word that may stand in a list of people after
// a credit's verb: a capitalised or non-ASCII name word, a joining "and",
// "&" or ",", or an earlier person's address in angle brackets.
func creditNameToken(w []byte) bool {
	switch {
	case equalFold(w, "and"), string(w) == "&", string(w) == ",":
		return true
	case w[0] == '<' && bytes.IndexByte(w, '@') > 0 && bytes.HasSuffix(bytes.TrimRight(w, ",."), []byte(">")):
		return true
	}
	c := w[0]
	return isUpper(c) || c >= 0x80 || c == '"' || c == '('
}

// poEntryReach is how many lines above an address poDocCredit reads for
// its entry's references.
const poEntryReach = 12

// poDocCredit reports, in a gettext catalog, an address in an entry that
// translates documentation (po4a's catalogs: the entry's "#:" references
// all name documentation files, README.md:255): the entry's string is
// that documentation's text, read by its rules. The address's string is a
// person item (the whole string "Name <address>", a list item of the
// README), or the entry's text up to it is a credit clause
// (creditClause).
func poDocCredit(lines []scanner.Line, i, start, end int) bool {
	refs := -1
	for j := i; j >= 0 && i-j <= poEntryReach; j-- {
		if j < i && lines[j].Number+1 != lines[j+1].Number {
			break
		}
		t := bytes.TrimSpace(lines[j].Text)
		if len(t) == 0 {
			break
		}
		if bytes.HasPrefix(t, []byte("#:")) {
			refs = j
			break
		}
	}
	if refs < 0 || !docReferences(bytes.TrimSpace(lines[refs].Text)[2:]) {
		return false
	}
	// The strings of the entry's msgid or msgstr up to the address.
	line := lines[i].Text
	q := bytes.IndexByte(line, '"')
	if q < 0 || q >= start {
		return false
	}
	first := i
	for first > refs && !poKeywordLine(lines[first].Text) {
		first--
	}
	if first == i {
		// The whole string is one person: a list item of the document.
		if r := bytes.LastIndexByte(line, '"'); r > end {
			if ok, _ := docPersonItem(line[q+1:r], start-q-1, end-q-1); ok {
				return true
			}
		}
	}
	var text []byte
	for j := first; j < i; j++ {
		text = append(text, poString(lines[j].Text)...)
	}
	text = append(text, line[q+1:start]...)
	return creditClause(text)
}

// poKeywordLine reports a catalog line that opens a string: msgid,
// msgstr, msgstr[n], msgctxt or msgid_plural.
func poKeywordLine(t []byte) bool {
	t = bytes.TrimLeft(t, " \t")
	return bytes.HasPrefix(t, []byte("msgid")) || bytes.HasPrefix(t, []byte("msgstr")) || bytes.HasPrefix(t, []byte("msgctxt"))
}

// poString returns the content of a catalog line's string literal (the
// text between its first and last '"'), or nil.
func poString(t []byte) []byte {
	q := bytes.IndexByte(t, '"')
	r := bytes.LastIndexByte(t, '"')
	if q < 0 || r <= q {
		return nil
	}
	return t[q+1 : r]
}

// docReferences reports a "#:" comment's references (path:line, blank
// separated) that all name documentation files.
func docReferences(refs []byte) bool {
	fields := bytes.Fields(refs)
	if len(fields) == 0 {
		return false
	}
	for _, f := range fields {
		p := string(f)
		if k := strings.LastIndexByte(p, ':'); k > 0 {
			p = p[:k]
		}
		p = strings.TrimLeft(p, "./")
		if !docFile(p) && !extensionlessDoc(p) && !readmeName(p) {
			return false
		}
	}
	return true
}

// exampleDirs are the directories of a project's example and sample
// programs: published code, not test data.
var exampleDirs = []string{"example", "examples", "sample", "samples"}

// exampleCode reports a source file under an example or sample directory
// and under no other fixture directory (examples/foo.rb, sample/
// report.py; not test/samples/x.rb, examples/testdata/x.go): a program
// the project publishes for its readers, whose header comment credits
// its author as any source file's does.
func exampleCode(p string) bool {
	if !sourceExt(p) {
		return false
	}
	example := false
	for _, d := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		for _, f := range fixtureDirs {
			if d != f {
				continue
			}
			if !oneOfString(d, exampleDirs) {
				return false
			}
			example = true
		}
	}
	return example
}

// oneOfString reports whether s is one of set.
func oneOfString(s string, set []string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

// sourceExts are the extensions of source files whose comments
// exampleCode reads.
var sourceExts = []string{".rb", ".py", ".js", ".mjs", ".ts", ".go", ".c", ".h", ".cc", ".cpp", ".java", ".kt", ".php", ".rs", ".pl", ".pm", ".sh", ".bash", ".scala", ".swift", ".cs", ".lua", ".ex", ".exs"}

// sourceExt reports a path with a source file's extension.
func sourceExt(p string) bool {
	return oneOfString(strings.ToLower(path.Ext(p)), sourceExts)
}

// formatPatchAuthor reports line i as the From: header of a patch that
// git format-patch wrote: within the three lines above it, adjacent, the
// mbox separator format-patch writes, "From <40 hex digits> Mon Sep 17
// 00:00:00 2001" (a fixed date, git's own marker). The header names the
// commit's author, as a commit's ident does.
func formatPatchAuthor(lines []scanner.Line, i int) bool {
	if !bytes.HasPrefix(lines[i].Text, []byte("From: ")) {
		return false
	}
	for j := i - 1; j >= 0 && i-j <= 3 && lines[j].Number+1 == lines[j+1].Number; j-- {
		t := bytes.TrimRight(lines[j].Text, " \r")
		if len(t) == 5+40+25 && bytes.HasPrefix(t, []byte("From ")) && bytes.HasSuffix(t, []byte(" Mon Sep 17 00:00:00 2001")) {
			for _, c := range t[5:45] {
				if !isHex(c) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// listDisplayName reports an address in git's ident form whose display
// name's last word is "List" ("Ruby-Talk List <address>", "Project Users
// List <address>"): the name a mailing list is announced under.
func listDisplayName(text []byte, start int) bool {
	if before(text, start) != '<' {
		return false
	}
	words := bytes.Fields(bytes.Trim(text[:start-1], " \t\"'"))
	if len(words) < 2 {
		return false
	}
	last := bytes.Trim(words[len(words)-1], "\"'")
	return string(last) == "List" || (string(last) == "list" && isUpper(words[len(words)-2][0]))
}

// listTableReach is how many lines above an address listTableCredit reads
// for its row's first cell.
const listTableReach = 6

// listTableCredit reports, in reStructuredText, an address in a cell of a
// list-table row ("* - Authored by" / "  - Name" / "  - address") whose
// first cell credits the row's person: a participle and "by" (grammar of
// grammarCredit: "Authored by", "Modified by") or an authors label
// (sectionTitle: "Author", "Maintainers").
func listTableCredit(lines []scanner.Line, i int) bool {
	t := bytes.TrimLeft(lines[i].Text, " \t")
	if !bytes.HasPrefix(t, []byte("- ")) && !bytes.HasPrefix(t, []byte("* - ")) {
		return false
	}
	for j := i; j >= 0 && i-j <= listTableReach; j-- {
		if j < i && lines[j].Number+1 != lines[j+1].Number {
			return false
		}
		u := bytes.TrimLeft(lines[j].Text, " \t")
		if !bytes.HasPrefix(u, []byte("* - ")) {
			if !bytes.HasPrefix(u, []byte("- ")) {
				return false
			}
			continue
		}
		if j == i {
			return false // the address is the row's first cell
		}
		cell := bytes.TrimRight(bytes.TrimSpace(u[4:]), ":")
		words := bytes.Fields(cell)
		if len(words) == 2 && equalFold(words[1], "by") {
			return creditParticiple(words[0])
		}
		return sectionTitle(cell)
	}
	return false
}

// addressGrammarNames are the words a test file's base name holds when
// it tests the grammar of email addresses (lower case, separators
// kept): EmailAddressTest.php, is_email_address_spec.rb. "Mailbox" is
// not one of them: an IMAP client's MailboxTest tests a folder.
var addressGrammarNames = []string{"emailaddress", "email_address", "email-address", "addrspec", "addr_spec", "addr-spec"}

// validationTest reports a test file of address validation: a test file
// (under a test directory, or named for a test or a spec) whose base name
// or directory names a validator ("validator_test.go",
// "tests/validators/test_email.py") or whose base name names the
// address grammar (addressGrammarNames). Its addresses are the inputs
// the validator must accept or reject, test vectors; a test of anything
// else (a mailer's, a user store's) keeps its warnings.
func validationTest(p string) bool {
	lp := strings.ToLower(p)
	base := path.Base(lp)
	dir := path.Base(path.Dir(lp))
	if !(testDir(p) || inFixtureDir(p) || strings.Contains(base, "test") || strings.Contains(base, "spec")) {
		return false
	}
	if strings.Contains(base, "validat") || strings.HasPrefix(dir, "validat") {
		return true
	}
	for _, n := range addressGrammarNames {
		if strings.Contains(base, n) {
			return true
		}
	}
	return false
}

// pathSegment reports an address that is a whole segment of a file path:
// a '/' right before it and right after it ("usr/lib/extensions/
// name@host/chrome.manifest"). Browser add-ons and other packages are
// named in the address's form and installed under directories of that
// name; a mailbox is not followed by a path.
func pathSegment(text []byte, start, end int) bool {
	return before(text, start) == '/' && at(text, end) == '/'
}

// messageIDShape reports an address that only a mail system's
// Message-ID has: JavaMail's "<n>.<n>.<n>.JavaMail.<user>@<host>", a
// Message-ID host no mailbox lives at (Gmail's "mail.gmail.com",
// Exchange Online's "*.prod.outlook.com" and "*.prod.exchangelabs.com").
func messageIDShape(addr []byte) bool {
	at := bytes.LastIndexByte(addr, '@')
	if at <= 0 {
		return false
	}
	local, domain := addr[:at], bytes.ToLower(addr[at+1:])
	if bytes.Contains(local, []byte(".JavaMail.")) {
		return true
	}
	return string(domain) == "mail.gmail.com" || bytes.HasSuffix(domain, []byte(".prod.outlook.com")) || bytes.HasSuffix(domain, []byte(".prod.exchangelabs.com"))
}
