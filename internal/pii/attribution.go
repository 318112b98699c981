package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// Attribution: an address that credits the author of a file or a change
// (a copyright line, an author or maintainer field, an AUTHORS file, an
// "(@handle) <address>" credit) is published on purpose by its owner. It is
// still personal data, so it is reported, but as a note: it does not fail
// a scan at the default --fail-on warning. An address anywhere else,
// a fixture's included, keeps the detector's severity.

// attributionFiles are the base names of files that list a project's
// people, matched without case and before an extension or a suffix after
// '-' or '_'.
var attributionFiles = []string{
	"AUTHORS", "CONTRIBUTORS", "MAINTAINERS", "CODEOWNERS", "OWNERS", "CREDITS", "THANKS",
	"NOTICE", "LICENSE", "LICENCE", "COPYING", "COPYRIGHT", "PKG-INFO", ".MAILMAP", "PATENTS",
	// security.txt and SECURITY.md publish the contact for reports.
	"SECURITY",
	"ACKNOWLEDGEMENTS", "ACKNOWLEDGMENTS",
}

// attributionFile reports whether p names a file that lists people:
// AUTHORS, AUTHORS.md, LICENSE-THIRD-PARTY, NOTICE.txt, COPYING_GPL.
func attributionFile(p string) bool {
	return p != "" && baseNamed(p, attributionFiles)
}

// baseNamed reports whether p's base name is one of names, without case,
// alone or before an extension or a suffix after '-' or '_'.
func baseNamed(p string, names []string) bool {
	base := path.Base(p)
	for _, s := range names {
		if len(base) >= len(s) && strings.EqualFold(base[:len(s)], s) {
			if len(base) == len(s) {
				return true
			}
			switch base[len(s)] {
			case '.', '-', '_':
				return true
			}
		}
	}
	return false
}

// attributionWords, found before an address on its line, make it a credit.
var attributionWords = []string{
	"copyright", "(c)", "©", "maintainer", "maintained by", "contributor", "contributed by",
	"credit", "written by", "based on", "created by", "developed by", "originally by", "ported by",
	"reported by", "noticed by", "suggested by", "patch by", "thanks to", "adapted from", "spdx-file",
	"patch from", "patches from", "inspired by", "translated by", "translator", "last-translator", "language-team", "dc:creator",
}

// endsWithBy reports a line that ends with the word "by" (a credit that
// continues on the next line: "# Largely adapted from x by" / "# Name
// <address>").
func endsWithBy(line []byte) bool {
	t := bytes.TrimRight(line, " \t\r:")
	return hasSuffixFold(t, "by") && !isAlpha(before(t, len(t)-2))
}

// attributedOnLine reports whether the address at start is a credit by
// what precedes it on its line.
func attributedOnLine(line []byte, start int) bool {
	head := line[:start]
	for _, w := range attributionWords {
		if containsFold(head, w) {
			return true
		}
	}
	// author, authors, __author__, author_email, Author-email; not
	// authorized, authority, authorization.
	for i := 0; i+6 <= len(head); i++ {
		if equalFold(head[i:i+6], "author") && !isAlpha(before(head, i)) && (i+6 == len(head) || !isLower(lowerASCII(head[i+6])) || lowerASCII(head[i+6]) == 's') {
			return true
		}
	}
	// "Thanks <address> for the patch": the thanked contributor.
	if t := bytes.TrimRight(head, " \t"); len(t) < len(head) && hasSuffixFold(t, "thanks") && !isAlpha(before(t, len(t)-6)) {
		return true
	}
	return handleCredit(head)
}

// handleCredit reports a credit in the form "Name (@handle) <" or
// "Name (!UNKNOWN) <" right before the address, as Ansible and other
// projects list module authors.
func handleCredit(head []byte) bool {
	k := len(head)
	if before(head, k) != '<' {
		return false
	}
	k--
	for k > 0 && head[k-1] == ' ' {
		k--
	}
	if before(head, k) != ')' {
		return false
	}
	k--
	e := k
	for k > 0 && (isWord(head[k-1]) || head[k-1] == '-') {
		k--
	}
	if e == k || k < 2 || head[k-2] != '(' {
		return false
	}
	return head[k-1] == '@' || head[k-1] == '!'
}

// authorBlock tracks a YAML or similar list of people under an author
// key across the lines of a fragment:
//
//	author:
//	  - Name (@handle) <address>
type authorBlock struct {
	open   bool
	indent int
	// ci: the file is a CI service's configuration, where a list under
	// email: or recipients: (Travis CI's notifications) names the
	// maintainers who get build notices.
	ci bool
}

// ciConfig reports a CI service's configuration file (.travis.yml,
// appveyor.yml, .gitlab-ci.yml, .circleci/config.yml).
func ciConfig(p string) bool {
	switch path.Base(p) {
	case ".travis.yml", "appveyor.yml", ".appveyor.yml", ".gitlab-ci.yml":
		return !inFixtureDir(p)
	case "config.yml":
		return strings.HasSuffix(p, ".circleci/config.yml") && !inFixtureDir(p)
	}
	return false
}

// ciRecipient reports a list item of a CI configuration that is only an
// address ("- address", quoted or not): the only lists of bare addresses
// there are notification recipients, and a diff that adds one shows the
// item without its key.
func ciRecipient(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) < 3 || t[0] != '-' || (t[1] != ' ' && t[1] != '\t') {
		return false
	}
	t = bytes.Trim(bytes.TrimSpace(t[1:]), `"'`)
	return bytes.Count(t, []byte("@")) == 1 && !bytes.ContainsAny(t, " \t=:")
}

// ciKeys are the keys (lower case) of a CI configuration whose list items
// are notification recipients.
var ciKeys = []string{"email", "recipients"}

// authorKeys are the keys (lower case) whose list items name people.
// commit_author and committer open the block of the identity a release
// tool commits with (goreleaser's "commit_author:" with "name:" and
// "email:" under it).
var authorKeys = []string{"author", "authors", "maintainer", "maintainers", "contributors", "credits", "owners", "commit_author", "committer"}

// next updates the block with line and reports whether line is inside it.
func (a *authorBlock) next(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	indent := len(line) - len(t)
	if a.open {
		switch {
		case len(bytes.TrimSpace(t)) == 0:
			return false
		case t[0] == '-' && indent >= a.indent:
			return true
		case indent > a.indent:
			return true
		}
		a.open = false
	}
	key := bytes.TrimRight(t, " \t\r")
	if len(key) > 0 && key[len(key)-1] == ':' {
		key = bytes.Trim(key[:len(key)-1], ` "'`)
		keys := authorKeys
		if a.ci {
			keys = ciKeys
		}
		for _, k := range keys {
			if equalFold(key, k) {
				a.open, a.indent = true, indent
				break
			}
		}
	}
	return false
}

// docExtensions are the extensions of documentation files (lower case).
var docExtensions = []string{".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".rdoc", ".textile", ".ronn"}

// fixtureDirs are directories whose files are fixtures or examples, not
// documentation (lower case).
var fixtureDirs = []string{"test", "tests", "testdata", "testing", "__tests__", "spec", "specs", "fixture", "fixtures", "example", "examples", "sample", "samples", "mock", "mocks"}

// docFile reports whether p is a documentation file: Markdown,
// reStructuredText, AsciiDoc or plain text anywhere, HTML under a doc or
// docs directory or at the repository's root (a project's home page),
// any file of a Maven site (src/site: FML, APT, xdoc); not in a test,
// fixture or example directory.
func docFile(p string) bool {
	if p == "" {
		return false
	}
	lp := strings.ToLower(p)
	dirs := strings.Split(path.Dir(lp), "/")
	for _, d := range dirs {
		for _, f := range fixtureDirs {
			if d == f {
				return false
			}
		}
	}
	ext := path.Ext(lp)
	for _, e := range docExtensions {
		if ext == e {
			return true
		}
	}
	for i := 0; i+1 < len(dirs); i++ {
		if dirs[i] == "src" && dirs[i+1] == "site" {
			return true
		}
	}
	for _, d := range dirs {
		if d == "xdocs" {
			return true // Maven 1's site sources, as src/site is Maven 2's
		}
	}
	if ext == ".html" || ext == ".htm" {
		if !strings.Contains(lp, "/") {
			return true
		}
		for _, d := range dirs {
			if d == "doc" || d == "docs" || d == "documentation" || d == "site" || d == "website" {
				return true
			}
		}
	}
	return false
}

// mailtoContact reports an address that is a link's target: after
// "mailto:" (also mistyped "mailto::"), or right after a Markdown link's
// "](" (a contributor list's "[Name](address)"). In documentation it is a
// contact published on purpose (a security contact, a maintainer's link).
func mailtoContact(line []byte, start int) bool {
	head := line[:start]
	if t := bytes.TrimRight(head, ":"); len(t) < len(head) && hasSuffixFold(t, "mailto") {
		return true
	}
	return bytes.HasSuffix(head, []byte("](")) || bytes.HasSuffix(head, []byte("](<"))
}

// mailtoLinkText reports an address that is the whole text of a Markdown
// link to the same kind of contact, "[address](mailto:address)": the link
// text of a published contact is the contact.
func mailtoLinkText(line []byte, start, end int) bool {
	return before(line, start) == '[' && bytes.HasPrefix(line[end:], []byte("](mailto:"))
}

// creditLine reports a line that credits people by a word before an
// address on it ("(c) Name <address>", "Copyright 2024 Name <address>").
func creditLine(line []byte) bool {
	at := bytes.IndexByte(line, '@')
	return at > 0 && attributedOnLine(line, at)
}

// identLine reports a line that is, after a comment marker and blanks,
// only one person in git's ident form, "Name <address>": the continuation
// of a credit that names several holders one per line, as PHP and C file
// headers write them ("(c) Ana Example <ana@…>" on one line, "Bo Example
// <bo@…>" aligned under the name on the next).
func identLine(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	for _, p := range []string{"//", "#", "*", ";", "--", "%"} {
		if bytes.HasPrefix(t, []byte(p)) {
			t = bytes.TrimLeft(t[len(p):], " \t")
			break
		}
	}
	t = bytes.TrimRight(t, " \t\r")
	lt := bytes.IndexByte(t, '<')
	if lt < 2 || t[lt-1] != ' ' || len(t) < lt+4 || t[len(t)-1] != '>' {
		return false
	}
	addr := t[lt+1 : len(t)-1]
	if bytes.Count(addr, []byte("@")) != 1 || bytes.ContainsAny(addr, " <>") {
		return false
	}
	name := commaIdent(bytes.TrimRight(t[:lt], " "))
	if len(name) == 0 || !(isUpper(name[0]) || name[0] >= 0x80) {
		return false
	}
	for _, c := range name {
		if !(isAlpha(c) || c >= 0x80 || c == ' ' || c == '.' || c == '-' || c == '\'') {
			return false
		}
	}
	return true
}

// changelogFiles are the base names of change logs (upper case), matched
// before an extension or a suffix after '-' or '_'.
var changelogFiles = []string{"CHANGELOG", "CHANGES", "HISTORY", "NEWS", "RELEASE-NOTES", "RELEASE_NOTES", "RELEASENOTES"}

// changelogFile reports whether p names a change log: CHANGELOG.md,
// ChangeLog, HISTORY.rdoc, NEWS. (debian/changelog is a manifest.)
func changelogFile(p string) bool {
	return p != "" && !inFixtureDir(p) && baseNamed(p, changelogFiles)
}

// identForm reports an address written as git writes a person, "Name
// <address>": the address in angle brackets right after a name.
// Changelog generators double the brackets ("(Name <<address>>)").
func identForm(line []byte, start, end int) bool {
	if before(line, start) != '<' || at(line, end) != '>' {
		return false
	}
	k := start - 1
	if before(line, k) == '<' && at(line, end+1) == '>' {
		k--
	}
	name := bytes.TrimRight(line[:k], " \t")
	return len(name) > 0 && (isAlpha(name[len(name)-1]) || name[len(name)-1] >= 0x80)
}

// messageAttributionWords introduce a person in a commit message's prose
// ("Backport of … from Name <address>", "original patch by Name
// <address>", "thanks to Name <address>"), matched before the name as
// whole words (lower case).
var messageAttributionWords = []string{"from", "by", "author", "authors", "author:", "authors:", "committer:", "thanks to", "thanks", "credit to", "credits to", "courtesy of"}

// messageCredit reports, in a commit message, an address in git's ident
// form ("Name <address>") whose name, one to four tokens (a handle or a
// given name and surnames), follows an attribution word on its line, or
// begins the line after a line that ends with one: the author of a
// backport, of the original patch, a thanked reporter. The ident form may
// also be wrapped after the name: the line ends with the attribution
// word and the name, and the next begins with "<address>". The grammar is
// a preposition, a name and an angle-bracketed address; it names no one,
// so a bare address in a message ("ask ana@host") is still reported.
func messageCredit(lines []scanner.Line, i, start, end int) bool {
	line := lines[i].Text
	if before(line, start) != '<' || at(line, end) != '>' {
		return false
	}
	prev := i > 0 && lines[i-1].Number+1 == lines[i].Number
	if len(bytes.Trim(line[:start-1], " \t*-")) == 0 {
		// The address begins the line: git's ident form wrapped after
		// the name ("… by Name" / "<address>.").
		if !prev {
			return false
		}
		// The line before must end with a name, not with the
		// attribution word itself ("Thanks to" / "<address>").
		p := bytes.TrimRight(lines[i-1].Text, " \t\r")
		return !attributionEnd(p) && attributedName(p, len(p), attributionEnd) == creditAttributed
	}
	switch attributedName(line, start-1, attributionEnd) {
	case creditAttributed:
		return true
	case creditLineStart:
		// The name begins the line: the attribution word may end the
		// line before ("… cherry-picked from" / "Name <address>").
		return prev && attributionEnd(bytes.TrimRight(lines[i-1].Text, " \t\r"))
	}
	return false
}

// The outcomes of attributedName.
const (
	creditNone       = iota // no name, or no attribution word before it
	creditAttributed        // an attribution word, then the name
	creditLineStart         // the name begins the line
)

// attributedName reads back from line[:k] one to four name tokens (with
// blanks before them) and reports whether an attribution word (a head
// for which attributed is true) comes before them on the line, or the
// name begins the line.
func attributedName(line []byte, k int, attributed func([]byte) bool) int {
	for n := 0; n < 4; n++ {
		for k > 0 && (line[k-1] == ' ' || line[k-1] == '\t') {
			k--
		}
		e := k
		letter := false
		for k > 0 && nameByte(line[k-1]) {
			if isAlpha(line[k-1]) || line[k-1] >= 0x80 {
				letter = true
			}
			k--
		}
		if k == e || !letter {
			return creditNone
		}
		head := bytes.TrimRight(line[:k], " \t")
		if attributed(head) {
			return creditAttributed
		}
		if len(bytes.Trim(head, " \t*-")) == 0 {
			return creditLineStart
		}
	}
	return creditNone
}

// valedictions close a letter before its signature ("Cheers, Name
// <address>", "Best regards,"), lower case: the closed class of words
// that end a message the writer signs.
var valedictions = []string{"cheers", "regards", "best regards", "kind regards", "warm regards", "best wishes", "best", "sincerely", "yours", "yours truly", "greetings", "thanks", "many thanks", "thank you"}

// valedictionEnd reports whether head ends with a valediction and a
// comma ("…Cheers,"), the valediction a whole word.
func valedictionEnd(head []byte) bool {
	if len(head) == 0 || head[len(head)-1] != ',' {
		return false
	}
	head = bytes.TrimRight(head[:len(head)-1], " \t")
	for _, w := range valedictions {
		if hasSuffixFold(head, w) && !isAlpha(before(head, len(head)-len(w))) {
			return true
		}
	}
	return false
}

// valedictionSignature reports an address in git's ident form that
// signs a message a program prints, after its valediction: "Cheers, Name
// <address>" inside one string literal (echo "Cheers, handle
// <address>" at the end of a script's welcome): the script's author
// signing the text the script prints, a credit. The signature is the
// writer's own name: a handle (one token) or one to four names, the first
// capitalised, so "Thanks, please ask Ana <address>" keeps the warning.
// The same signature outside a string literal (a pasted letter in a text
// file, "Regards," and the signature on the next line) is a person's
// address in what the change copied, and keeps the warning.
func valedictionSignature(line []byte, start, end int) bool {
	if before(line, start) != '<' || at(line, end) != '>' {
		return false
	}
	k := start - 1
	for k > 0 && (line[k-1] == ' ' || line[k-1] == '\t') {
		k--
	}
	name := k
	if attributedName(line, k, valedictionEnd) != creditAttributed {
		return false
	}
	for k = name; k > 0 && line[k-1] != ','; k-- {
	}
	tokens := bytes.Fields(line[k:name])
	if len(tokens) != 1 && !isUpper(tokens[0][0]) && tokens[0][0] < 0x80 {
		return false
	}
	// Inside one string literal: the last quote before the valediction
	// opens it, and the same quote closes it after the address.
	q := bytes.LastIndexAny(line[:k], "\"'`")
	if q < 0 {
		return false
	}
	return bytes.IndexByte(line[q+1:start], line[q]) < 0 && bytes.IndexByte(line[end+1:], line[q]) >= 0
}

// discussContact reports, in a documentation file, an address that its
// sentence offers for discussion: the verb "discuss" (discussed,
// discussing, discussion) before it in the sentence, and right before
// the address (past brackets, backquotes and emphasis) "at", "on", "to",
// "via", "email", "e-mail" or "mail", with an optional colon: "We can also
// discuss new features at <address>.", "Or discuss by email <address>".
// It is the mailing-list rule's grammar with the verb of a list, for
// the lists a sentence does not call one. "Discuss the refund with
// <address>", an address in the next sentence, and the same line in code
// keep the warning.
func discussContact(line []byte, start int) bool {
	s := sentenceStart(line, start)
	head := bytes.TrimRight(line[s:start], " \t<`*_[(")
	head = bytes.TrimSuffix(head, []byte(":"))
	prep := false
	for _, w := range []string{"at", "on", "to", "via", "email", "e-mail", "mail"} {
		if hasSuffixFold(head, w) && !isAlpha(before(head, len(head)-len(w))) && len(head) > len(w) {
			prep = true
			break
		}
	}
	if !prep {
		return false
	}
	for i := 0; i+7 <= len(head); i++ {
		if equalFold(head[i:i+7], "discuss") && !isAlpha(before(head, i)) {
			return true
		}
	}
	return false
}

// nameByte reports a byte of a name token: letters, digits, '.', '-',
// '_', an apostrophe, and any byte of a non-ASCII letter.
func nameByte(c byte) bool {
	return isWord(c) || c == '.' || c == '-' || c == '\'' || c >= 0x80
}

// attributionEnd reports whether head ends with an attribution word of a
// commit message, as a whole word.
func attributionEnd(head []byte) bool {
	for _, w := range messageAttributionWords {
		if hasSuffixFold(head, w) && !isAlpha(before(head, len(head)-len(w))) {
			return true
		}
	}
	return false
}

// listWords name a mailing list in a sentence of documentation (lower
// case).
var listWords = []string{"mailing list", "mailing-list", "mailinglist", "mail list", "discussion list", "discussion group", "google group", "subscribe"}

// listContact reports, in a documentation file, an address that the same
// sentence names as a mailing list ("the mailing list <address> for
// discussion", "subscribe by writing to <address>", "the <address>
// mailing list"): a list is published to be written to by anyone, like a
// security contact. The sentence is the text of the line between the
// sentence ends (". ", "! ", "? ") around the address.
func listContact(line []byte, start, end int) bool {
	s := sentenceStart(line, start)
	e := len(line)
	for k := end; k+1 < len(line); k++ {
		if (line[k] == '.' || line[k] == '!' || line[k] == '?') && (line[k+1] == ' ' || line[k+1] == '\t') {
			e = k
			break
		}
	}
	for _, w := range listWords {
		if containsFold(line[s:start], w) || containsFold(line[end:e], w) {
			return true
		}
	}
	return false
}

// changelogEntryCredit reports, in a change log, an address in
// parentheses that ends its line or its entry's first clause ("* Fixed
// the proxy port (address)", "Name (address): fixed x"): the author of
// the change, as change logs credit them.
func changelogEntryCredit(line []byte, start, end int) bool {
	if before(line, start) != '(' || at(line, end) != ')' {
		return false
	}
	// The entry's own parentheses may close right after the address's
	// ("(patches supplied by Name (address))").
	rest := bytes.TrimLeft(bytes.TrimRight(line[end+1:], " \t\r"), ")")
	return len(rest) == 0 || rest[0] == ':' || (len(rest) == 1 && (rest[0] == '.' || rest[0] == ','))
}

// rpmChangelogEntry reports whether an address at start follows an RPM
// %changelog entry's header date: "* Wed Jun 14 2023 Name <address> -
// 1.2-3", the line format rpmbuild reads (a weekday and a month as three
// letters, a day, a four-digit year), which signs each entry with its
// packager's identity as a Debian changelog's " -- Name <address>" line
// does. Spec files are copied under other names (x.spec.txt, in docs), so
// the line's grammar decides, not the file's name.
func rpmChangelogEntry(line []byte, start int) bool {
	t := line[:start]
	if !bytes.HasPrefix(t, []byte("* ")) {
		return false
	}
	t = t[2:]
	word := func(set string) bool {
		if len(t) < 4 || t[3] != ' ' {
			return false
		}
		for i := 0; i+3 <= len(set); i += 3 {
			if equalFold(t[:3], set[i:i+3]) {
				t = bytes.TrimLeft(t[4:], " ")
				return true
			}
		}
		return false
	}
	number := func(min, max int) bool {
		k := 0
		for k < len(t) && isDigit(t[k]) {
			k++
		}
		if k < min || k > max || k == len(t) || t[k] != ' ' {
			return false
		}
		t = bytes.TrimLeft(t[k:], " ")
		return true
	}
	return word("montuewedthufrisatsun") && word("janfebmaraprmayjunjulaugsepoctnovdec") && number(1, 2) && number(4, 4)
}

// headerLines is how far into a file its header comment is looked for.
const headerLines = 25

// headerComment tracks a file's leading comment block across the added
// lines of a fragment: the comment lines within the first headerLines
// lines of the file, before any line of code the fragment shows. That is
// where a file names its authors, translators and maintainers (PHPDoc's
// and Javadoc's @author, "Translated by", "Version by Name <address>").
type headerComment struct {
	code bool
	// xml: the file is XML (an XSLT stylesheet, a schema), whose
	// prologue and top-level declarations are tags before the header
	// comment.
	xml bool
	// close: inside a block comment ("/*", "<!--") opened on an earlier
	// line, the closer that ends it; nil outside one. The body lines of
	// a block comment need no marker of their own (a C library's
	// header: "/* name.c v1.0 - …" / "   Name <address>" / "*/").
	close []byte
}

// xmlFile reports a file of the XML family whose header comment may come
// after its prologue: XML, an XSLT stylesheet, an XML schema.
func xmlFile(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".xml", ".xsl", ".xslt", ".xsd":
		return true
	}
	return false
}

// tagOnly reports a line that is one XML tag and nothing else: an opening
// or empty-element tag with attributes, a processing instruction or a
// declaration (<xsl:stylesheet …>, <xsl:output …/>, <?xml-stylesheet …?>,
// <!DOCTYPE …>), not a comment and with no text content.
func tagOnly(t []byte) bool {
	t = bytes.TrimRight(t, " \t\r")
	if len(t) < 3 || t[0] != '<' || t[len(t)-1] != '>' || bytes.HasPrefix(t, []byte("<!--")) || at(t, 1) == '/' {
		return false
	}
	inner := t[1 : len(t)-1]
	if !isAlpha(at(inner, 0)) && at(inner, 0) != '?' && at(inner, 0) != '!' {
		return false
	}
	return bytes.IndexByte(inner, '<') < 0 && bytes.IndexByte(inner, '>') < 0
}

// next reports whether l is a line of the header comment.
func (h *headerComment) next(l scanner.Line) bool {
	if h.code || l.Number > headerLines {
		return false
	}
	t := bytes.TrimPrefix(l.Text, []byte("\xef\xbb\xbf")) // a byte order mark
	t = bytes.TrimLeft(t, " \t")
	if h.close != nil {
		if bytes.Contains(t, h.close) {
			h.close = nil
		}
		return true
	}
	switch {
	case len(bytes.TrimSpace(t)) == 0, bytes.HasPrefix(t, []byte("<?php")), bytes.HasPrefix(t, []byte("<?xml")), h.xml && tagOnly(t):
		return false // neither comment nor code
	case commentStart(t):
		for _, b := range [][2]string{{"/*", "*/"}, {"<!--", "-->"}} {
			if bytes.HasPrefix(t, []byte(b[0])) && !bytes.Contains(t[len(b[0]):], []byte(b[1])) {
				h.close = []byte(b[1])
			}
		}
		return true
	}
	h.code = true
	return false
}

// headerCredit reports an address on a header comment line written as a
// credit: in git's ident form ("Name <address>"), after a name of two or
// more capitalised words and a dash or comma ("Given Surname - address",
// "Given Surname, address"), or after the word "by" ("a helper, by
// address"). A bare address in a header ("contact: address", "run for
// address") is not: a header comment is where a file names its people,
// but also where a script notes whom it is for.
func headerCredit(line []byte, start, end int) bool {
	if identForm(line, start, end) {
		return true
	}
	head := bytes.TrimRight(line[:start], " \t(")
	if hasSuffixFold(head, "by") && !isAlpha(before(head, len(head)-2)) {
		return true
	}
	if len(head) == 0 || (head[len(head)-1] != '-' && head[len(head)-1] != ',') {
		return false
	}
	words := bytes.Fields(head[:len(head)-1])
	if len(words) < 2 {
		return false
	}
	for _, w := range words[len(words)-2:] {
		if !isUpper(w[0]) && w[0] < 0x80 {
			return false
		}
	}
	return true
}

// authorSection tracks, across the added lines of a file, a document
// section whose heading names the authors: a man page's ".SH AUTHOR",
// Perl POD's "=head1 AUTHOR", and in documentation a Markdown or
// AsciiDoc heading "Author(s)", "Maintainer(s)", "Contributors",
// "Credits", or a title that ends in one of those words after a
// qualifier ("Current maintainers", "Core contributors"). Markdown's
// setext headings (a title, then a line of only '=' or '-') are headings
// too. The section ends at the next heading of its syntax at its level
// or above; a deeper subheading ("### Core Team" under "##
// Contributors") keeps it open.
type authorSection struct {
	open bool
	// level: the open section's heading level.
	level int
	// markdown: headings are read in Markdown/AsciiDoc syntax too (the
	// file is documentation); in code a '#' starts a comment, not a
	// heading.
	markdown bool
	// prev, prevNum: the previous line read and its number (a setext
	// heading's title).
	prev    []byte
	prevNum int
}

// sectionNames are the heading words of an authors section (lower case).
var sectionNames = []string{"author", "authors", "maintainer", "maintainers", "contributors", "credits", "acknowledgements", "acknowledgments"}

// next reads one line and reports whether it is inside an authors
// section (the heading itself is not).
func (a *authorSection) next(l scanner.Line) bool {
	line := l.Text
	prev, prevOK := a.prev, a.prev != nil && a.prevNum+1 == l.Number
	a.prev, a.prevNum = line, l.Number
	// Only a line that begins with '.', '=' or '#' (and in documentation
	// '-' or a blank, a setext underline) can be a heading: every other
	// line is tested by its first byte alone.
	if c := at(line, 0); c != '.' && c != '=' && c != '#' && !(a.markdown && (c == '-' || c == ' ')) {
		return a.open
	}
	t := bytes.TrimRight(line, " \t\r")
	var title []byte
	level := 1
	switch {
	case bytes.HasPrefix(t, []byte(".SH")) || bytes.HasPrefix(t, []byte(".Sh")):
		title = t[3:]
	case bytes.HasPrefix(t, []byte("=head")):
		if c := at(t, 5); c >= '1' && c <= '6' {
			level = int(c - '0')
		}
		title = bytes.TrimLeft(t[5:], "123456")
	case bytes.HasPrefix(t, []byte("=cut")):
		a.open = false
		return false
	case a.markdown && prevOK && setextUnderline(t) && setextTitle(prev):
		title = prev
		if t[len(t)-1] == '-' {
			level = 2
		}
	case a.markdown && (bytes.HasPrefix(t, []byte("#")) || bytes.HasPrefix(t, []byte("==")) || bytes.HasPrefix(t, []byte("= "))):
		level = len(t) - len(bytes.TrimLeft(t, string(t[0])))
		title = bytes.TrimLeft(t, "#=")
	default:
		return a.open
	}
	if a.open && level > a.level {
		return false // a subsection of the authors section
	}
	title = bytes.Trim(title, " \t\"'*:")
	a.open = sectionTitle(title)
	a.level = level
	return false
}

// sectionTitle reports a heading that names an authors section: one of
// sectionNames, or up to three words ending in one, none of them a
// preposition ("Current maintainers", "Core contributors", "Project
// authors"; not "Notes for maintainers", "Guide to contributors").
func sectionTitle(title []byte) bool {
	for _, s := range sectionNames {
		if equalFold(title, s) {
			return true
		}
	}
	words := bytes.Fields(title)
	if len(words) < 2 || len(words) > 3 {
		return false
	}
	last := false
	for _, s := range sectionNames {
		if equalFold(words[len(words)-1], s) {
			last = true
		}
	}
	if !last {
		return false
	}
	for _, w := range words[:len(words)-1] {
		for _, p := range []string{"for", "to", "of", "from", "with", "about", "by", "as", "on", "in", "our", "new", "becoming", "become", "dear"} {
			if equalFold(w, p) {
				return false
			}
		}
		for _, c := range w {
			if !isAlpha(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

// setextUnderline reports a line of three or more '=' or three or more
// '-' (indented at most three blanks): a setext heading's underline when
// it follows a title line.
func setextUnderline(t []byte) bool {
	i := 0
	for i < len(t) && i < 3 && t[i] == ' ' {
		i++
	}
	t = t[i:]
	if len(t) < 3 || (t[0] != '=' && t[0] != '-') {
		return false
	}
	for _, c := range t {
		if c != t[0] {
			return false
		}
	}
	return true
}

// setextTitle reports whether prev can be a setext heading's title: a
// line of text, not blank, not indented as code, not a list item, quote,
// table row, fence, ATX heading or another underline.
func setextTitle(prev []byte) bool {
	t := bytes.TrimRight(prev, " \t\r")
	if len(t) == 0 || t[0] == ' ' || t[0] == '\t' {
		return false
	}
	switch t[0] {
	case '*', '-', '+', '>', '|', '#', '`', '~', '=', '<':
		return false
	}
	return !(len(t) > 1 && isDigit(t[0]) && (bytes.IndexByte(t, '.') > 0 || bytes.IndexByte(t, ')') > 0) && allDigitsBefore(t))
}

// allDigitsBefore reports whether t starts with digits and then '.' or
// ')': an ordered list item's marker.
func allDigitsBefore(t []byte) bool {
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')')
}

// shortlogLine reports a line of a contributor table as git shortlog -sn
// and git-extras' git summary print it: a commit count, a tab or a run of
// blanks, the author's name (sometimes an address, when that is the name
// git recorded) and, for git summary, a share ("  12\tName   3.4%").
func shortlogLine(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	n := 0
	for n < len(t) && isDigit(t[n]) {
		n++
	}
	if n == 0 || n == len(t) || (t[n] != '\t' && !bytes.HasPrefix(t[n:], []byte("  "))) {
		return false
	}
	rest := bytes.TrimRight(t[n:], " \t\r")
	if bytes.HasSuffix(rest, []byte("%")) {
		k := len(rest) - 1
		for k > 0 && (isDigit(rest[k-1]) || rest[k-1] == '.') {
			k--
		}
		return k < len(rest)-1 && (rest[k-1] == ' ' || rest[k-1] == '\t')
	}
	return t[n] == '\t'
}
