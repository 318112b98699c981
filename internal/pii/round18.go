package pii

import (
	"bytes"
	"path"

	"github.com/privscan/privscan/scanner"
)

// Credits in the forms held-out round 18 showed: a comment's credit
// wrapped before the address, a Python module docstring's field list,
// packaging tools' maintainer fields, an OpenSSH public key's comment and
// Sphinx's author directives.

// fileCreditLabels end a comment line's credit before the name whose
// address is wrapped to the next line ("Author: Name"), lower case.
var fileCreditLabels = []string{"author:", "authors:", "maintainer:", "maintainers:"}

// fileCreditEnd reports whether head ends with a credit before a name: a
// label of fileCreditLabels, or "by" after a past participle of work
// (optionally after adverbs in "-ly", as grammarCredit reads it:
// "originally written by", "maintained by") or in a clause that credits
// by its words ("based on x by", "(c) 2012 by"). A noun before "by"
// ("changes by", "reached by") is not a credit.
func fileCreditEnd(head []byte) bool {
	for _, w := range fileCreditLabels {
		if hasSuffixFold(head, w) && !isAlpha(before(head, len(head)-len(w))) {
			return true
		}
	}
	if !hasSuffixFold(head, "by") || isAlpha(before(head, len(head)-2)) {
		return false
	}
	clause := lastClause(head[:len(head)-2])
	words := bytes.Fields(clause)
	j := len(words) - 1
	for j >= 0 && len(words[j]) > 4 && hasSuffixFold(words[j], "ly") {
		j--
	}
	if j >= 0 {
		p := bytes.Trim(words[j], ",(")
		if creditParticiple(p) {
			return true
		}
	}
	return bytes.IndexByte(clause, '@') < 0 && attributedOnLine(clause, len(clause))
}

// openMarkers are the comment openers a wrapped credit's lines may
// begin with, longest first.
var openMarkers = []string{"<!--", "/**", "/*", "//", "#", "*", "--", ";", "%", `"""`}

// stripCommentEnds returns a line's text without blanks, a leading comment
// marker and a trailing block-comment closer ("*/", "-->"). A line of a
// block comment's body has no marker and is returned trimmed.
func stripCommentEnds(line []byte) []byte {
	t := bytes.TrimSpace(line)
	for _, m := range openMarkers {
		if bytes.HasPrefix(t, []byte(m)) {
			t = bytes.TrimLeft(t[len(m):], " \t")
			break
		}
	}
	t = bytes.TrimRight(t, " \t")
	for _, m := range []string{"-->", "*/"} {
		if bytes.HasSuffix(t, []byte(m)) {
			t = bytes.TrimRight(t[:len(t)-len(m)], " \t")
		}
	}
	return t
}

// wrappedCredit reports a credit wrapped after its first line, in a
// file's comments (a bundled module's license header, an XML comment):
// an address in angle brackets that begins its line (after blanks and a
// comment marker) right after a line that ends with a credit and a name
// ("Author: Given Surname", "… written by Given Surname"), the ident form
// "Name <address>" wrapped after the name as the commit message rule reads
// it; or a line that is only "Name <address>" right after a line that
// ends with the credit itself ("Author:"). prev is the previous line's
// text, which the caller has checked is the previous line of the file.
// An address after any other line keeps the warning, and so does a bare
// "<address>" after a credit that names no one ("Author:" / "<address>").
func wrappedCredit(prev, line []byte, start, end int) bool {
	if before(line, start) != '<' || at(line, end) != '>' {
		return false
	}
	p := stripCommentEnds(prev)
	if fileCreditEnd(p) {
		return identLine(line)
	}
	if h := bytes.TrimSpace(line[:start-1]); len(h) > 0 {
		if !commentStart(h) || len(stripCommentEnds(h)) > 0 {
			return false
		}
	}
	return attributedName(p, len(p), fileCreditEnd) == creditAttributed
}

// docFields tracks, across the added lines of a Python module, the
// field lists of its docstrings: epydoc's fields ("@author:",
// "@contact:", "@organization:") and reStructuredText's (":author:",
// ":contact:", ":organization:"), each beginning a line, with a body
// continued on the following lines indented past the marker. A line of
// Python code never begins with ":name:" or "@name:" (a decorator has no
// colon), so such a line is a docstring's field whatever the hunk shows
// of the docstring's opening. The credit fields are the formats' own
// words for a module's people and their contact: the "Author:" /
// "Email:" field block the header rules read in a leading comment.
type docFields struct {
	field  bool // the current field is a credit field
	indent int  // the current field's indentation
	last   int  // the number of the current field's last line
}

// docCreditFields are the field names (lower case) of a docstring's
// field list that name the module's people or their contact.
var docCreditFields = []string{"author", "authors", "contact", "organization", "organisation", "maintainer", "maintainers", "copyright", "contributors"}

// next reads one line and reports whether it is in a credit field: a
// field marker names the field (after blanks and, on a docstring's
// opening line, its quotes), a line right after the field's last line
// and indented more than its marker continues it, any other line ends
// it.
func (m *docFields) next(l scanner.Line) bool {
	t := bytes.TrimLeft(l.Text, " \t")
	indent := len(l.Text) - len(t)
	if len(t) > 0 && (t[0] == 'r' || t[0] == 'R' || t[0] == 'u' || t[0] == 'U') && (bytes.HasPrefix(t[1:], []byte(`"""`)) || bytes.HasPrefix(t[1:], []byte("'''"))) {
		t, indent = t[1:], indent+1
	}
	if bytes.HasPrefix(t, []byte(`"""`)) || bytes.HasPrefix(t, []byte("'''")) {
		t, indent = t[3:], indent+3
	}
	if name, ok := fieldName(t, true); ok {
		m.field, m.indent, m.last = oneOfFold(name, docCreditFields), indent, l.Number
		return m.field
	}
	if m.field && l.Number == m.last+1 && len(bytes.TrimSpace(t)) > 0 && indent > m.indent {
		m.last = l.Number
		return true
	}
	m.field = false
	return false
}

// fpmMaintainer reports an address that is the argument of fpm's
// maintainer option ("fpm -s dir -t deb … -m address", "--maintainer
// 'Name <address>'", "--maintainer=address"): the package's Maintainer
// field, published in every package fpm builds, as a signing key's user
// ID is published with the key. The option must belong to an fpm command:
// fpm is a word of the same command (not across '|', ';' or '&' outside
// quotes and "$(…)"), which may begin on earlier lines each continued
// with a backslash. The same option of another tool ("mail -m
// address") keeps the warning.
func fpmMaintainer(lines []scanner.Line, i, start int) bool {
	head := lines[i].Text[:start]
	if len(head) > signingWindow {
		head = head[len(head)-signingWindow:]
	}
	// A quoted person: the quote, a name and '<' before the address.
	h := bytes.TrimRight(head, "<")
	if len(h) < len(head) {
		k := len(h)
		for k > 0 && (nameByte(h[k-1]) || h[k-1] == ' ') {
			k--
		}
		if k > 0 && (h[k-1] == '"' || h[k-1] == '\'') {
			h = h[:k]
		}
	}
	h = bytes.TrimRight(h, "'\"")
	var opt []byte
	switch {
	case bytes.HasSuffix(h, []byte("--maintainer=")):
		opt, h = []byte("--maintainer"), h[:len(h)-len("--maintainer=")]
	case len(h) > 0 && (h[len(h)-1] == ' ' || h[len(h)-1] == '\t'):
		h = bytes.TrimRight(h, " \t")
		k := len(h)
		for k > 0 && h[k-1] != ' ' && h[k-1] != '\t' {
			k--
		}
		opt, h = h[k:], h[:k]
	default:
		return false
	}
	if string(opt) != "-m" && string(opt) != "--maintainer" {
		return false
	}
	// The command may begin on earlier lines, each continued with '\\'.
	cmd := h
	for k := i - 1; k >= 0 && k >= i-fpmContinued && lines[k].Number+1 == lines[k+1].Number; k-- {
		p := bytes.TrimRight(lines[k].Text, " \t\r")
		if !bytes.HasSuffix(p, []byte("\\")) {
			break
		}
		cmd = append(append(append([]byte(nil), p[:len(p)-1]...), ' '), cmd...)
	}
	for _, w := range bytes.Fields(lastCommand(cmd)) {
		if string(toolName(w)) == "fpm" {
			return true
		}
	}
	return false
}

// fpmContinued is how many continued lines before an option's line
// fpmMaintainer reads for the command's name.
const fpmContinued = 8

// lastCommand returns the text of b after its last command separator
// ('|', ';', '&') outside quotes and "$(…)" or backquotes.
func lastCommand(b []byte) []byte {
	depth := 0
	var quote byte
	cut := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (c == '|' || c == ';' || c == '&'):
			cut = i + 1
		}
	}
	return b[cut:]
}

// rpmPackager reports an address in the packager option of distutils'
// bdist_rpm command in setup.cfg ("packager = Name <address>"): the RPM
// header's Packager tag, published in the package as the manifest's
// author_email is.
func rpmPackager(p string, line []byte, start int) bool {
	if path.Base(p) != "setup.cfg" {
		return false
	}
	t := bytes.TrimLeft(line[:start], " \t")
	if !bytes.HasPrefix(t, []byte("packager")) {
		return false
	}
	t = bytes.TrimLeft(t[len("packager"):], " \t")
	return len(t) > 0 && (t[0] == '=' || t[0] == ':')
}

// sshKeyTypes are the key type names an OpenSSH public key line begins
// with (after authorized_keys options), as prefixes: "ssh-rsa",
// "ssh-ed25519", "ecdsa-sha2-nistp256", "sk-ssh-ed25519@openssh.com".
var sshKeyTypes = []string{"ssh-", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-"}

// sshKeyComment reports an address in the comment field of an OpenSSH
// public key line ("ssh-rsa AAAAB3… user@host") in a public key file
// (*.pub) or an authorized_keys file: the key's label, which ssh-keygen
// writes from the user and host that made the key and which is published
// with the public key, as a keyring's uid is. The address must follow
// the key type and its base64 blob ("AAAA…"), with only the comment's
// words between them.
func sshKeyComment(p string, line []byte, start int) bool {
	base := path.Base(p)
	if p == "" || (path.Ext(base) != ".pub" && !bytes.HasPrefix([]byte(base), []byte("authorized_keys"))) {
		return false
	}
	words := bytes.Fields(line[:start])
	for i := 0; i+1 < len(words); i++ {
		typ := false
		for _, k := range sshKeyTypes {
			if bytes.HasPrefix(words[i], []byte(k)) {
				typ = true
			}
		}
		if typ && bytes.HasPrefix(words[i+1], []byte("AAAA")) && len(words[i+1]) >= 16 {
			return true
		}
	}
	return false
}

// sphinxAuthorDirectives are Sphinx's directives that credit the author
// of a module, a section or a code example.
var sphinxAuthorDirectives = []string{"moduleauthor", "sectionauthor", "codeauthor"}

// sphinxAuthor reports an address in the argument of a Sphinx author
// directive (".. moduleauthor:: Name <address>", ".. sectionauthor::",
// ".. codeauthor::"), reStructuredText's own credit, in a document or a
// docstring.
func sphinxAuthor(line []byte, start int) bool {
	t := bytes.TrimLeft(line[:start], " \t")
	if !bytes.HasPrefix(t, []byte("..")) {
		return false
	}
	t = bytes.TrimLeft(t[2:], " ")
	for _, d := range sphinxAuthorDirectives {
		if bytes.HasPrefix(t, []byte(d)) && bytes.HasPrefix(t[len(d):], []byte("::")) {
			return true
		}
	}
	return false
}
