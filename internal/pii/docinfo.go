package pii

import (
	"bytes"

	"github.com/privscan/privscan/scanner"
)

// reStructuredText's bibliographic fields: a field list at the top of a
// document (right after its title) or of a comment block, opened by
// ":Author:" or ":Authors:", is the document's docinfo, its author's
// block (docutils' own names: Author, Authors, Contact, Address,
// Organization, …). Docutils' stylesheets carry one in their header
// comment, and the HTML docutils writes embeds the stylesheet in a
// <style> element, so the same block appears in .rst and .txt sources,
// in .css files and in generated HTML.

// docinfoList tracks a docinfo field list across the added lines of a
// fragment.
type docinfoList struct {
	// open: the previous line was a line of the list.
	open bool
	// credit: the field the previous line belongs to names a person.
	credit bool
	// last: the previous line's number, and the previous line's text was
	// blank or a comment opener (a list may start after it).
	last    int
	opener  bool
	started bool
}

// next reports whether l is a line of a docinfo field list whose field
// names a person (":Author:", ":Contact:", ":Address:", ":Maintainer:",
// ":Modified by:" and any other ":… by:"), or an indented continuation of
// such a field's value. The list opens at an ":Author:" or ":Authors:"
// field among the file's first lines, or right after a blank line or a
// comment opener ("/*", "<!--", ".."), and ends at the first line that
// is neither a field nor a continuation.
func (d *docinfoList) next(l scanner.Line) bool {
	if !d.open {
		// The common case, first and cheap: no list is open, so only a
		// field marker (':' first after the indentation) can open one,
		// and every other line only records whether it is an opener.
		// The state it leaves is the one the full reading below leaves
		// (a closed list has no credit field).
		i := 0
		for i < len(l.Text) && (l.Text[i] == ' ' || l.Text[i] == '\t') {
			i++
		}
		if i == len(l.Text) || l.Text[i] != ':' {
			d.started, d.last = true, l.Number
			d.opener = docinfoOpener(l.Text[i:])
			return false
		}
	}
	follows := d.started && l.Number == d.last+1
	afterOpener := follows && d.opener
	wasOpen := follows && d.open
	d.started, d.last = true, l.Number
	// Trimmed by hand: bytes.TrimLeft and TrimRight build a set from
	// their cutset on every call, and this runs on every line.
	t := l.Text
	for len(t) > 0 && (t[len(t)-1] == ' ' || t[len(t)-1] == '\t' || t[len(t)-1] == '\r') {
		t = t[:len(t)-1]
	}
	trimmed := t
	for len(trimmed) > 0 && (trimmed[0] == ' ' || trimmed[0] == '\t') {
		trimmed = trimmed[1:]
	}
	d.opener = docinfoOpener(trimmed)
	name, ok := fieldName(trimmed, false)
	switch {
	case ok && wasOpen:
		d.credit = docinfoPerson(name)
	case ok && (afterOpener || l.Number <= headerLines) && (equalFold(name, "author") || equalFold(name, "authors")):
		d.open, d.credit = true, true
		return true
	case wasOpen && len(trimmed) > 0 && len(trimmed) < len(t):
		// An indented continuation of the field's value.
		return d.credit
	default:
		d.open, d.credit = false, false
		return false
	}
	return d.credit
}

// docinfoOpener reports whether t, a line without its indentation, is
// blank or a comment opener ("/*", "<!--", ".."), after which a docinfo
// list may start.
func docinfoOpener(t []byte) bool {
	for len(t) > 0 && (t[len(t)-1] == ' ' || t[len(t)-1] == '\t' || t[len(t)-1] == '\r') {
		t = t[:len(t)-1]
	}
	switch len(t) {
	case 0:
		return true
	case 2:
		return (t[0] == '/' && t[1] == '*') || (t[0] == '.' && t[1] == '.')
	case 4:
		return t[0] == '<' && t[1] == '!' && t[2] == '-' && t[3] == '-'
	}
	return false
}

// fieldName returns the name of the field marker that begins t, as
// reStructuredText writes it (":Name: value") and, with epydoc, as epydoc
// writes it ("@name: value"): the name is letters, '_', '-' and inner
// spaces ("Modified by"), and the marker ends the line or is followed by
// a blank.
func fieldName(t []byte, epydoc bool) ([]byte, bool) {
	if len(t) < 3 || (t[0] != ':' && (!epydoc || t[0] != '@')) {
		return nil, false
	}
	e := bytes.IndexByte(t[1:], ':')
	if e <= 0 {
		return nil, false
	}
	name := t[1 : 1+e]
	for _, c := range name {
		if !isAlpha(c) && c != ' ' && c != '-' && c != '_' {
			return nil, false
		}
	}
	if name[0] == ' ' || name[len(name)-1] == ' ' {
		return nil, false
	}
	rest := t[2+e:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return nil, false
	}
	return name, true
}

// docinfoPerson reports a docinfo field whose value names a person or
// their address: docutils' Author, Authors, Contact, Address and
// Organization, a Maintainer, and any field whose name ends in the word
// "by" (":Modified by:", ":Translated by:").
func docinfoPerson(name []byte) bool {
	for _, n := range []string{"author", "authors", "contact", "address", "organization", "maintainer", "maintainers"} {
		if equalFold(name, n) {
			return true
		}
	}
	return hasSuffixFold(name, " by")
}

// byField reports an address in git's ident form as the value of a
// field whose name ends in the word "by" (":Modified by: Name
// <address>"), on its own: the field names who did the work, whether or
// not the hunk shows the list's ":Author:".
func byField(line []byte, start, end int) bool {
	if !identForm(line, start, end) {
		return false
	}
	name, ok := fieldName(bytes.TrimLeft(line, " \t"), false)
	return ok && hasSuffixFold(name, " by")
}
