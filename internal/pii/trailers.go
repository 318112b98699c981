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
// before the colon), or "" when the line is not one. People also write the
// key's words apart ("Co-authored by:", "Signed off by:"): single spaces
// between up to three words count as the hyphens.
func trailerKey(line []byte) string {
	var key [32]byte
	n, words, i := 0, 1, 0
scan:
	for ; i < len(line) && n < len(key); i++ {
		c := line[i]
		switch {
		case isAlnum(c) || c == '-':
			key[n] = lowerASCII(c)
		case c == ' ' && n > 0 && key[n-1] != '-' && words < 3 && isAlpha(at(line, i+1)):
			key[n] = '-'
			words++
		default:
			break scan
		}
		n++
	}
	if n == 0 {
		return ""
	}
	j := i
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	if j >= len(line) || line[j] != ':' {
		return ""
	}
	return string(key[:n])
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
	// The key ends at the colon at k-1: try the words before it, the
	// nearest first ("Signed-off-by", "Co-authored by").
	colon := k - 1
	for s := colon - 1; s >= 0 && colon-s <= 32; s-- {
		if !isAlpha(line[s]) || (s > 0 && (isAlnum(line[s-1]) || line[s-1] == '-')) {
			continue
		}
		if key := trailerKey(line[s : colon+1]); key != "" && peopleTrailers[key] {
			return true
		}
	}
	return false
}
