package pii

import (
	"bytes"
	"strings"

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

// trailerKey returns the lower-cased key of a "Key: value" line, or ""
// when the line is not one. git's trailer grammar takes any token of
// letters, digits and '-' before the separator, with optional white space
// before it; privscan also takes '.' and '_' inside a key, as older
// conventions wrote them ("Docker-DCO-1.1-Signed-off-by"). People also
// write the key's words apart ("Co-authored by:", "Signed off by:"): single
// spaces between up to three words are kept in the key, and normalKey
// reads them as the hyphens.
func trailerKey(line []byte) string {
	var key [maxTrailerKey]byte
	n, words, i := 0, 1, 0
scan:
	for ; i < len(line) && n < len(key); i++ {
		c := line[i]
		switch {
		case isAlnum(c) || c == '-':
			key[n] = lowerASCII(c)
		case (c == '.' || c == '_') && n > 0 && isAlnum(key[n-1]) && isAlnum(at(line, i+1)):
			key[n] = c
		case c == ' ' && n > 0 && key[n-1] != '-' && words < 3 && isAlpha(at(line, i+1)):
			key[n] = ' '
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

// maxTrailerKey bounds the length of a trailer key.
const maxTrailerKey = 48

// normalKey writes a key's words apart with hyphens ("co-authored by"
// is "co-authored-by").
func normalKey(key string) string { return strings.ReplaceAll(key, " ", "-") }

// namedTrailer reports a key (from trailerKey) that is a people trailer by
// name: one of peopleTrailers, or one of them after a prefix and a
// hyphen ("Docker-DCO-1.1-Signed-off-by", "Original-Reviewed-by"); a
// prefix written apart ("ask Cc:") is a sentence, not a key.
func namedTrailer(key string) bool {
	norm := normalKey(key)
	if peopleTrailers[norm] {
		return true
	}
	for k := range peopleTrailers {
		if len(key) > len(k)+1 && key[len(key)-len(k)-1] == '-' && norm[len(norm)-len(k):] == k {
			return true
		}
	}
	return false
}

// byTrailer reports a key that names a person by git's convention
// without being on the list: any "…-by" key ("Co-developed-by",
// "Refactored-by", "Bisected-by"), any "…-with" key ("Paired-with",
// "Pair-programmed-with": the act's other person, as "by" names its
// doer) and "…-cc". git accepts any token as a key, and projects invent
// these; their value is a person's ident.
func byTrailer(key string) bool {
	norm := normalKey(key)
	return strings.HasSuffix(norm, "-by") || strings.HasSuffix(norm, "-with") || strings.HasSuffix(key, "-cc")
}

// identValue reports a trailer value in git's ident form, "Name
// <address>", optionally followed by anything ("(github: handle)"): the
// form git and every tool writes a person in. t is the line from the key.
func identValue(t []byte) bool {
	c := bytes.IndexByte(t, ':')
	if c < 0 {
		return false
	}
	v := t[c+1:]
	lt := bytes.IndexByte(v, '<')
	if lt < 0 || len(bytes.TrimSpace(v[:lt])) == 0 {
		return false
	}
	gt := bytes.IndexByte(v[lt:], '>')
	return gt > 0 && bytes.IndexByte(v[lt:lt+gt], '@') > 0
}

// personTrailer reports whether t (a line, white space and a list marker
// removed) is a trailer that names a person: a people trailer by name
// (with any value), or a "…-by"/"…-cc" key whose value is "Name
// <address>".
func personTrailer(t []byte) bool {
	key := trailerKey(t)
	if key == "" {
		return false
	}
	return namedTrailer(key) || (byTrailer(key) && identValue(t))
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
		if personTrailer(t) {
			mark(i)
		}
	}
	// The trailer block: the last paragraph (not the subject's). Its
	// continuation lines belong to the trailer above them.
	start, end := lastParagraph(lines)
	if start == 0 {
		return skip // one paragraph: the subject, no trailer block
	}
	if subjectTrailer(lines, start, end) {
		mark(0) // a sign-off typed as the subject (round23.go)
	}
	anyKey := trailerBlock(lines[start:end])
	inPeople := false
	for i := start; i < end; i++ {
		text := lines[i].Text
		if len(text) > 0 && (text[0] == ' ' || text[0] == '\t') {
			if inPeople {
				mark(i)
			}
			continue
		}
		inPeople = personTrailer(text) || (anyKey && byDropped(text) && identValue(text))
		if inPeople {
			mark(i)
		}
	}
	return skip
}

// byDropped reports whether line starts with a key in git's token
// grammar that is a "…-by" key typed without its "-by": a people
// trailer's stem ("Co-authored", "Signed-off", "Reviewed") or any key
// whose last word is a past participle ("Co-developed", "Refactored"),
// the verb the "by" would follow. A key that names no act of a person
// ("X-Mailer", "Contact") is not one.
func byDropped(line []byte) bool {
	if !tokenKey(line) {
		return false
	}
	key := trailerKey(line)
	return namedTrailer(key+"-by") || (strings.HasSuffix(key, "ed") && len(key[strings.LastIndexByte(key, '-')+1:]) > 3)
}

// tokenKey reports whether line starts with a key in git's trailer
// grammar proper: a token of letters, digits and hyphens (no spaces
// between words), then optional white space and ':'.
func tokenKey(line []byte) bool {
	key := trailerKey(line)
	return key != "" && !strings.Contains(key, " ")
}

// trailerBlock reports whether the last paragraph of a message (para,
// not the subject's) is a trailer block as git interpret-trailers reads
// one: every line a "token: value" trailer (or a continuation line), or
// at least a quarter of them trailers with one people trailer by name
// among them. In such a block, a "…-by" key typed without its "-by"
// ("Co-authored: …", see byDropped) whose value is git's ident form
// "Name <address>" credits a person.
func trailerBlock(para []scanner.Line) bool {
	lines, keys, named := 0, 0, false
	for _, l := range para {
		t := l.Text
		if len(t) > 0 && (t[0] == ' ' || t[0] == '\t') {
			continue
		}
		lines++
		if tokenKey(t) {
			keys++
			named = named || personTrailer(t)
		}
	}
	return lines > 0 && (keys == lines || (named && 4*keys >= lines))
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
	// The address is in angle brackets after a name: a "…-by" key names
	// a person too.
	for s := colon - 1; s >= 0 && colon-s <= maxTrailerKey; s-- {
		if !isAlpha(line[s]) || (s > 0 && (isAlnum(line[s-1]) || line[s-1] == '-' || line[s-1] == '.' || line[s-1] == '_')) {
			continue
		}
		if key := trailerKey(line[s : colon+1]); key != "" && (namedTrailer(key) || byTrailer(key)) {
			return true
		}
	}
	return false
}

// lastParagraph returns the lines [start, end) of a message's last
// paragraph: its last run of non-blank lines, trailing blank lines left
// out. start is 0 when the message has one paragraph (or none).
func lastParagraph(lines []scanner.Line) (start, end int) {
	end = len(lines)
	for end > 0 && len(bytes.TrimSpace(lines[end-1].Text)) == 0 {
		end--
	}
	start = end
	for start > 0 && len(bytes.TrimSpace(lines[start-1].Text)) != 0 {
		start--
	}
	return start, end
}
