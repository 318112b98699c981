package pii

import (
	"bytes"

	"github.com/privscan/privscan/scanner"
)

// peopleTrailers are the commit-message trailers that name a commit's
// people (lower case). They are commit metadata, not leaks: the PII
// detectors do not report their lines. Catalog and secret rules still do.
var peopleTrailers = map[string]bool{
	"signed-off-by":  true,
	"co-authored-by": true,
	"reviewed-by":    true,
	"acked-by":       true,
	"tested-by":      true,
	"reported-by":    true,
	"suggested-by":   true,
	"helped-by":      true,
	"cc":             true,
	// git log's header, pasted into a message that lists squashed or
	// cherry-picked commits ("Author: Name <address>").
	"author": true,
}

// trailerKey returns the lower-cased key of a "Key: value" line (git's
// trailer syntax: the key is letters, digits and '-', optional spaces
// before the colon), or "" when the line is not one.
func trailerKey(line []byte) string {
	i := 0
	for i < len(line) && (isAlnum(line[i]) || line[i] == '-') {
		i++
	}
	if i == 0 {
		return ""
	}
	j := i
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	if j >= len(line) || line[j] != ':' {
		return ""
	}
	return string(bytes.ToLower(line[:i]))
}

// trailerLines returns the indexes of the lines of a commit message that
// name the commit's people: a people trailer ("Signed-off-by: Name
// <address>") anywhere after the subject line (squash merges leave them in
// the body, sometimes as list items or indented), and the continuation
// lines (starting with white space) of such a trailer inside the trailer
// block, the message's last paragraph as git interpret-trailers finds it.
func trailerLines(lines []scanner.Line) map[int]bool {
	var skip map[int]bool
	mark := func(i int) {
		if skip == nil {
			skip = map[int]bool{}
		}
		skip[i] = true
	}
	// Anywhere after the subject: a people trailer, possibly indented or
	// a list item ("* Co-authored-by: …").
	for i := 1; i < len(lines); i++ {
		t := bytes.TrimLeft(lines[i].Text, " \t")
		if len(t) > 1 && (t[0] == '*' || t[0] == '-') && (t[1] == ' ' || t[1] == '\t') {
			t = bytes.TrimLeft(t[1:], " \t")
		}
		if peopleTrailers[trailerKey(t)] {
			mark(i)
		}
	}
	// The trailer block: the last paragraph (not the subject's). Its
	// continuation lines belong to the trailer above them.
	end := len(lines)
	for end > 0 && len(bytes.TrimSpace(lines[end-1].Text)) == 0 {
		end--
	}
	start := end
	for start > 0 && len(bytes.TrimSpace(lines[start-1].Text)) != 0 {
		start--
	}
	if start == 0 {
		return skip // one paragraph: the subject, no trailer block
	}
	inPeople := false
	for i := start; i < end; i++ {
		text := lines[i].Text
		if len(text) > 0 && (text[0] == ' ' || text[0] == '\t') {
			if inPeople {
				mark(i)
			}
			continue
		}
		inPeople = peopleTrailers[trailerKey(text)]
	}
	return skip
}

// inlineTrailer reports whether the address starting at start follows a
// people trailer on the same line ("…, Signed-off-by: Name <address>"):
// squash merges that fold the body into the subject leave trailers in the
// middle of a line.
func inlineTrailer(line []byte, start int) bool {
	// "Key: Name <address>": the address in angle brackets after a name.
	k := start
	if before(line, k) != '<' {
		return false
	}
	k--
	// The name: anything but the delimiters of a trailer, at most 100 bytes.
	name := k
	for n := 0; k > 0 && n < 100; n++ {
		c := line[k-1]
		if c == ':' || c == '<' || c == '>' {
			break
		}
		k--
	}
	if before(line, k) != ':' || len(bytes.TrimSpace(line[k:name])) == 0 {
		return false
	}
	k--
	for k > 0 && (line[k-1] == ' ' || line[k-1] == '\t') {
		k--
	}
	e := k
	for k > 0 && (isAlnum(line[k-1]) || line[k-1] == '-') {
		k--
	}
	var key [16]byte
	if e == k || e-k > len(key) {
		return false
	}
	for i, c := range line[k:e] {
		key[i] = lowerASCII(c)
	}
	return peopleTrailers[string(key[:e-k])]
}
