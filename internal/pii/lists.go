package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// Round 10's rules: an authors list under a label in a file's header
// comment, a gem-building DSL call that names a developer, an email field
// that a gem-only field follows in the same hunk, documentation files
// without an extension.

// creditLabels are the labels (lower case, without the colon) of a list
// of a file's people in its header comment ("Authors:", "Translators:").
var creditLabels = []string{
	"author", "authors", "maintainer", "maintainers", "contributor", "contributors",
	"translator", "translators", "credits", "developer", "developers",
	"original author", "original authors", "co-author", "co-authors",
}

// commentLeaders are the markers a comment line begins with, longest
// first where one is a prefix of another.
var commentLeaders = []string{"/**", "/*", "//", "#", "*", "--", ";", "%"}

// commentBody returns a comment line's text after its leader ("//", "#",
// "/**", "/*", "*", "--", ";", "%") and blanks, or nil when t (without
// leading blanks) is not a comment line.
func commentBody(t []byte) []byte {
	for _, p := range commentLeaders {
		if bytes.HasPrefix(t, []byte(p)) {
			return bytes.TrimLeft(t[len(p):], " \t")
		}
	}
	return nil
}

// creditLabel reports a comment body that is only a credit label ending
// in ':' ("Authors:", "Translators :").
func creditLabel(body []byte) bool {
	b := bytes.TrimRight(body, " \t\r")
	if len(b) < 2 || b[len(b)-1] != ':' {
		return false
	}
	b = bytes.TrimRight(b[:len(b)-1], " \t")
	for _, l := range creditLabels {
		if equalFold(b, l) {
			return true
		}
	}
	return false
}

// listItem reports a comment body that is a list item: '-', '*', '+' or
// '•' followed by a blank.
func listItem(body []byte) bool {
	switch {
	case len(body) >= 2 && (body[0] == '-' || body[0] == '*' || body[0] == '+') && (body[1] == ' ' || body[1] == '\t'):
		return true
	case bytes.HasPrefix(body, []byte("• ")):
		return true
	}
	return false
}

// creditList tracks, across the lines of a file's header comment, a list
// of the file's people under a credit label: a comment line that is only
// "Authors:" (or another label of creditLabels), then consecutive comment
// lines that are list items ("- Name  address", "* Name <address>", "-
// address"), until a line that is not an item. PHP, C and shell files
// taken from another project (locale data, ported code) credit its
// authors so.
type creditList struct {
	open bool
	last int // the line number of the label or of the last item
}

// next reads a line (inHeader: it is a line of the header comment) and
// reports whether it is an item of a credit list.
func (c *creditList) next(l scanner.Line, inHeader bool) bool {
	if !inHeader {
		c.open = false
		return false
	}
	body := commentBody(bytes.TrimLeft(l.Text, " \t"))
	if body == nil {
		c.open = false
		return false
	}
	if c.open && l.Number == c.last+1 && listItem(body) {
		c.last = l.Number
		return true
	}
	c.open = creditLabel(body)
	c.last = l.Number
	return false
}

// gemDSLCalls are the calls of gem-building DSLs (Hoe's "developer",
// Bundler-era helpers' "author") that name a person with a name and an
// address.
var gemDSLCalls = []string{"developer", "author", "maintainer"}

// gemDSLPerson reports, in a Ruby file, an address that is the second
// argument of a gem-building DSL call whose first is a name: "developer
// 'Name', 'address'", "p.developer('Name', \"address\")". The address is
// the string literal's whole text. A call with other arguments, or
// another method ("notify 'Name', 'address'"), keeps the warning.
func gemDSLPerson(line []byte, start, end int) bool {
	q := before(line, start)
	if (q != '\'' && q != '"') || at(line, end) != q {
		return false
	}
	head := bytes.TrimRight(line[:start-1], " \t")
	if len(head) == 0 || head[len(head)-1] != ',' {
		return false
	}
	head = bytes.TrimRight(head[:len(head)-1], " \t")
	// The first argument: a string literal holding a name.
	if len(head) < 3 {
		return false
	}
	nq := head[len(head)-1]
	if nq != '\'' && nq != '"' {
		return false
	}
	o := bytes.LastIndexByte(head[:len(head)-1], nq)
	if o < 1 {
		return false
	}
	name := head[o+1 : len(head)-1]
	if len(name) == 0 || bytes.ContainsAny(name, "@<>/:") {
		return false
	}
	call := bytes.TrimRight(head[:o], " \t(")
	t := bytes.TrimLeft(call, " \t")
	if d := bytes.LastIndexByte(t, '.'); d >= 0 {
		// A receiver: "p.developer", "spec.author".
		r := t[:d]
		if len(r) == 0 {
			return false
		}
		for _, c := range r {
			if !isWord(c) {
				return false
			}
		}
		t = t[d+1:]
	}
	for _, c := range gemDSLCalls {
		if string(t) == c {
			return true
		}
	}
	return false
}

// gemFieldAhead reports whether line i of lines assigns an email, authors
// or author field on a variable ("s.email = …") that a following line of
// the same hunk (consecutive line numbers, within gemLookahead lines)
// assigns a gem-only field of gemSpecFields ("s.homepage = …"): the block
// builds a gem's specification though its opener, and any gem-only field
// before the email, are unchanged context the hunk does not show.
func gemFieldAhead(lines []scanner.Line, i int) bool {
	v, field := fieldAssignment(bytes.TrimLeft(lines[i].Text, " \t"))
	if v == nil || (field != "email" && field != "authors" && field != "author") {
		return false
	}
	for k := i + 1; k < len(lines) && k <= i+gemLookahead; k++ {
		if lines[k].Number != lines[k-1].Number+1 {
			return false
		}
		w, f := fieldAssignment(bytes.TrimLeft(lines[k].Text, " \t"))
		if w != nil && bytes.Equal(w, v) && isGemSpecField(f) {
			return true
		}
	}
	return false
}

// gemLookahead is how many following lines gemFieldAhead reads.
const gemLookahead = 8

// docNames are the base names (upper case) of documentation files
// written without an extension, as older projects name them.
var docNames = []string{"README", "TODO", "INSTALL", "CONTRIBUTING", "HACKING", "CHANGES", "NEWS", "FAQ", "USAGE", "BUGS", "ROADMAP", "HISTORY"}

// extensionlessDoc reports a documentation file named without an
// extension (README, TODO, INSTALL, in any case), outside fixture
// directories.
func extensionlessDoc(p string) bool {
	if p == "" || inFixtureDir(p) {
		return false
	}
	base := path.Base(p)
	for _, n := range docNames {
		if strings.EqualFold(base, n) {
			return true
		}
	}
	return false
}
