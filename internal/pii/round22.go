package pii

import (
	"bytes"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// The rules built after held-out round 22 (bench/results/precision.md,
// "Rules built after round 22"; docs/design/pii-precision.md, "Round 22's
// shapes").

// round22 is the per-fragment state of the severity rules built after
// round 22, each gated by the file's kind, decided once per fragment.
type round22 struct {
	// docs: a documentation file outside fixtures, for its contact
	// sentences.
	docs bool
	// url: a file about URLs (its base name names them), for a quoted
	// authority without a port.
	url bool
	// sigFrom, sigTo: the lines of a commit message's closing signature
	// block (sigFrom < sigTo), or 0, 0.
	sigFrom, sigTo int
	// rubyBuild: a file that builds a Ruby package, for its gem
	// specification's fields.
	rubyBuild bool
}

// newRound22 returns the state of round 22's rules for a fragment of the
// file p, or of a commit message (its lines).
func newRound22(p string, message, docs bool, lines []scanner.Line) round22 {
	if message {
		var r round22
		r.sigFrom, r.sigTo = signatureBlock(lines)
		return r
	}
	if p == "" {
		return round22{}
	}
	return round22{
		docs:      docs && !inFixtureDir(p),
		url:       urlFile(p),
		rubyBuild: rubyBuildFile(p),
	}
}

// notMailbox reports an email candidate at text[start:end] that a
// round-22 rule reads as no address at all.
func (r *round22) notMailbox(k kind, text []byte, start, end int) bool {
	return k == kindEmail && r.url && bareAuthority(text, start, end)
}

// lower returns the description of a note for an email finding at
// lines[i].Text[start:end] that a round-22 rule reads as published, or
// "" when none does.
func (r *round22) lower(k kind, lines []scanner.Line, i, start, end int) string {
	if k != kindEmail {
		return ""
	}
	if r.docs && contactSentence(lines, i, start, end) {
		return contactSentenceDescription
	}
	if i >= r.sigFrom && i < r.sigTo {
		return attributionDescription
	}
	if r.rubyBuild && rakefileGemField(lines, i, start) {
		return attributionDescription
	}
	return ""
}

// contactSentenceDescription describes an email finding that a
// documentation file's sentence offers as the contact to write to.
const contactSentenceDescription = "An email address a documentation file's sentence offers as where to contact a project or its sponsor (\"for support, contact us at <address>\"): a contact published on purpose, reported as a note."

// contactObjectWords bounds the words between a contact verb and the
// address's preposition: the object ("us", "the team", "[Name]").
const contactObjectWords = 5

// contactLines is how many lines before the address's line its sentence
// is read back across (a paragraph wrapped before "at <address>").
const contactLines = 2

// contactSentence reports, in documentation, an address that its
// sentence offers as where to contact someone: a verb of contacting
// ("contact", "email", "reach", or the verb as a translation writes it:
// contactez, kontaktieren, 联系) in the imperative (see imperative), then
// its object in at most contactObjectWords words, then the preposition
// "at" or "via" (or, in a sentence written in another script, the word
// right before the address: 邮箱, "mailbox"; à), then the address, which
// ends the sentence (nothing after it but closing brackets and a
// sentence end). The sentence is read back across up to contactLines
// lines of its paragraph, so a sentence wrapped before "at <address>" is
// read whole ("For commercial support, contact Example Corp / at
// <address>."); when the diff adds only the tail, the line "at
// <address>." alone is read as it. A sentence that goes on after the address ("… at
// <address> to get the key"), a direct object without a preposition
// ("Contact <address>"), "write to", a statement ("We contact the
// sponsor at …"), a verb too far from the address, and a verb in an
// earlier sentence keep the warning.
func contactSentence(lines []scanner.Line, i, start, end int) bool {
	text := lines[i].Text
	// The address ends its sentence: nothing after it but closing
	// brackets, then the end of the line, a sentence end or a
	// character of another script (an ideographic full stop).
	rest := bytes.TrimLeft(text[end:], ">`*_)]")
	if len(bytes.TrimSpace(rest)) > 0 && rest[0] < 0x80 {
		c := at(rest, 1)
		if (rest[0] != '.' && rest[0] != '!' && rest[0] != '?') || !(c == 0 || c == ' ' || c == '\t' || c == '\r' || c == ')' || c == ']' || c == '*' || c == '_') {
			return false
		}
	}
	// The preposition right before it.
	head := bytes.TrimRight(text[:start], " \t<`*_[(")
	var slot int
	switch {
	case wordSuffixFold(head, "at"):
		slot = len(head) - 2
	case wordSuffixFold(head, "via"):
		slot = len(head) - 3
	case len(head) > 0 && head[len(head)-1] >= 0x80:
		// Another script: its word before the address (a noun for the
		// mailbox, a particle) stands where "at" would.
		slot = len(head)
		for slot > 0 && head[slot-1] >= 0x80 {
			slot--
		}
	default:
		return false
	}
	// The preposition opens its line and the line before it is not among
	// the added lines: a wrapped sentence whose head, with its verb, is
	// context the diff does not show (a project replacing its support
	// address changes only the tail). An autolink, "at <address>.", is
	// read as that tail; a bare address keeps the warning.
	if len(bytes.TrimSpace(head[:slot])) == 0 && (i == 0 || lines[i-1].Number+1 != lines[i].Number) {
		return head[slot] < 0x80 && before(text, start) == '<' && at(text, end) == '>'
	}
	// The sentence before the preposition, back across the lines of its
	// paragraph, nearest first.
	parts := [][]byte{head[sentenceBegin(head[:slot]):slot]}
	whole := sentenceBegin(head[:slot]) == 0
	for k := i - 1; whole && k >= 0 && k >= i-contactLines; k-- {
		if lines[k].Number+1 != lines[k+1].Number {
			break
		}
		prev := bytes.TrimRight(lines[k].Text, " \t\r")
		if len(bytes.TrimSpace(prev)) == 0 || sentenceEnds(prev) {
			break
		}
		s := sentenceBegin(prev)
		parts = append(parts, prev[s:])
		whole = s == 0
	}
	var sentence []byte
	for k := len(parts) - 1; k >= 0; k-- {
		sentence = append(append(sentence, parts[k]...), ' ')
	}
	// The verb nearest the preposition, in the imperative, then at most
	// contactObjectWords words up to the preposition.
	vs, ve := lastContactVerb(sentence)
	return vs >= 0 && imperative(bytes.TrimRight(sentence[:vs], " \t")) && len(bytes.Fields(sentence[ve:])) <= contactObjectWords
}

// imperative reports whether the text before a verb of contacting makes
// it a request: nothing (the sentence starts with it), a clause's
// punctuation ("For support, contact …", "(contact …"), "please", "to"
// ("feel free to contact"), or in Chinese 请 (please) or a full-width
// comma or colon. A subject before it ("We contact the sponsor at …")
// or a preposition ("via email at …") is not one.
func imperative(before []byte) bool {
	if len(before) == 0 {
		return true
	}
	switch before[len(before)-1] {
	case ',', ':', ';', '(', ')', '-', '*', '_':
		return true
	}
	if wordSuffixFold(before, "please") || wordSuffixFold(before, "to") {
		return true
	}
	for _, s := range []string{"请", "請", "，", "：", "（"} {
		if bytes.HasSuffix(before, []byte(s)) {
			return true
		}
	}
	return false
}

// wordSuffixFold reports whether b ends with the lower case word w, a
// whole word after a blank.
func wordSuffixFold(b []byte, w string) bool {
	return hasSuffixFold(b, w) && (len(b) == len(w) || b[len(b)-len(w)-1] == ' ' || b[len(b)-len(w)-1] == '\t')
}

// sentenceBegin returns where the last sentence of b begins: after the
// last ". ", "! ", "? " or an ideographic full stop (。！？), or 0.
func sentenceBegin(b []byte) int {
	for k := len(b) - 1; k > 0; k-- {
		if (b[k] == ' ' || b[k] == '\t') && (b[k-1] == '.' || b[k-1] == '!' || b[k-1] == '?') {
			return k + 1
		}
		if k >= 2 && fullStop(b[k-2:k+1]) {
			return k + 1
		}
	}
	return 0
}

// sentenceEnds reports a line that ends a sentence: its last byte a
// full stop, '!' or '?' (ASCII or ideographic).
func sentenceEnds(b []byte) bool {
	c := before(b, len(b))
	return c == '.' || c == '!' || c == '?' || (len(b) >= 3 && fullStop(b[len(b)-3:]))
}

// fullStop reports the UTF-8 bytes of an ideographic full stop or a
// fullwidth exclamation or question mark.
func fullStop(b []byte) bool {
	s := string(b)
	return s == "。" || s == "！" || s == "？"
}

// contactStems begin the verb of contacting as English and the European
// languages a README is translated to write it (contact, contactez,
// contacta, kontaktieren, contattare, contate); contactWords are the
// other English verbs of writing to someone at an address; contactCJK is
// the verb in Chinese (simplified and traditional), whose sentence puts
// the address after it as English does.
var (
	contactStems = []string{"contact", "kontakt", "contat"}
	contactWords = []string{"email", "e-mail", "mail", "reach"}
	contactCJK   = []string{"联系", "聯繫", "聯絡", "联络"}
)

// lastContactVerb returns the span of the last verb of contacting in b,
// or -1, -1. A stem is read as the start of a whole word (not "contacts",
// the plural noun); the other English verbs as whole words.
func lastContactVerb(b []byte) (start, end int) {
	start, end = -1, -1
	for i := 0; i < len(b); {
		if !isAlpha(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && (isAlpha(b[j]) || (b[j] == '-' && isAlpha(at(b, j+1)))) {
			j++
		}
		w := b[i:j]
		if !isWord(before(b, i)) && !isWord(at(b, j)) && contactVerb(w) {
			start, end = i, j
		}
		i = j
	}
	for _, v := range contactCJK {
		if k := bytes.LastIndex(b, []byte(v)); k >= 0 && k+len(v) > end {
			start, end = k, k+len(v)
		}
	}
	return start, end
}

// contactVerb reports a word (letters and hyphens) that is a verb of
// contacting.
func contactVerb(w []byte) bool {
	if equalFold(w, "contacts") {
		return false
	}
	for _, s := range contactStems {
		if len(w) >= len(s) && equalFold(w[:len(s)], s) {
			return true
		}
	}
	for _, s := range contactWords {
		if equalFold(w, s) {
			return true
		}
	}
	return false
}

// urlFile reports a file about URLs: its base name holds "url", "uri" or
// "netloc" as a word of its own (test_url_build.py, urls.py, URLTest.java,
// uri_test.go; not curl.c or security.md): a URL library's code and
// tests, where a quoted user:password@host is an authority.
func urlFile(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	for _, w := range []string{"url", "uri", "netloc"} {
		for i := 0; i+len(w) <= len(base); i++ {
			if !equalFold([]byte(base[i:i+len(w)]), w) {
				continue
			}
			b := before([]byte(base), i)
			if !isAlpha(b) || (isUpper(base[i]) && isLower(b)) {
				return true
			}
		}
	}
	return false
}

// addressSchemes are the URI schemes and the labels whose value is a
// mailbox (RFC 6068 mailto, RFC 3261 sip, RFC 5122 xmpp, RFC 3860 im,
// RFC 3859 pres, RFC 7565 acct, and the mail header and git ident
// labels), lower case: "scheme:local@host" there is an address after its
// scheme, not a user name and a password.
var addressSchemes = []string{"mailto", "sip", "sips", "xmpp", "im", "pres", "acct", "mid", "cid", "news", "nntp",
	"mail", "email", "e-mail", "from", "to", "cc", "bcc", "sender", "reply-to", "author", "committer", "contact"}

// bareAuthority reports whether the candidate at b[start:end] is the
// password and host of a URL authority without a scheme or a port,
// quoted whole: "user:password@host", as RFC 3986's authority (section
// 3.2) and a URL library's tests write it (round 20's urlAuthority reads
// the form with a port in any file). A colon before the local part makes
// it no mailbox: ':' is not an atom character of RFC 5322. The user name
// runs back to the opening quote (letters, digits, '.', '_', '~', '-',
// '%'), and the closing quote follows the host. A scheme or label whose
// value is a mailbox (mailto:, sip:, from:) keeps its finding.
func bareAuthority(b []byte, start, end int) bool {
	q := at(b, end)
	if before(b, start) != ':' || (q != '"' && q != '\'') {
		return false
	}
	j := start - 1
	for j > 0 && b[j-1] != q {
		c := b[j-1]
		if !isAlnum(c) && c != '.' && c != '_' && c != '~' && c != '-' && c != '%' {
			return false
		}
		j--
	}
	if j == 0 || j == start-1 {
		return false
	}
	user := b[j : start-1]
	for _, s := range addressSchemes {
		if equalFold(user, s) {
			return false
		}
	}
	return true
}

// signatureBlock returns the lines [from, to) of a commit message's
// closing signature block: its last paragraph (after a blank line, not
// the subject's), every line of it one person in git's ident form, "Name
// <address>" (identLine), or a people trailer, with at least one ident
// line. It is where trailers stand, and a message that ends by listing
// its people without keys ("Ada Example <address>" / "Bo Sample
// <address>") names the commit's authors as Co-authored-by would. A
// paragraph with prose, a block followed by another paragraph, and a
// single paragraph (the subject) are not one: 0, 0.
func signatureBlock(lines []scanner.Line) (from, to int) {
	start, end := lastParagraph(lines)
	if start == 0 || start == end {
		return 0, 0
	}
	idents := 0
	for _, l := range lines[start:end] {
		t := bytes.TrimLeft(l.Text, " \t")
		switch {
		case identLine(t):
			idents++
		case personTrailer(t):
		default:
			return 0, 0
		}
	}
	if idents == 0 {
		return 0, 0
	}
	return start, end
}

// rakefileGemField reports, in a file that builds a Ruby package
// (rubyBuildFile: a Rakefile, a Thorfile, a .rake file), an address in
// the value of an email, authors or author field assigned on a variable
// ("spec.email = …") on which a gem-only field (summary, homepage;
// gemSpecFields) is assigned further down the fragment, within
// gemLookahead lines of the file, with no block's end or opener between:
// the variable is a gem specification's, whose block opener is context
// the diff does not show. gemFieldAhead reads the same in any Ruby file
// but only over consecutive added lines; this reads across the unchanged
// lines a hunk skips ("spec.email" and "spec.summary" changed, the
// "spec.homepage" between them not). Another variable's field, a block
// boundary between, a field further away, a comparison, and an address
// before the '=' keep the warning.
func rakefileGemField(lines []scanner.Line, i, start int) bool {
	text := lines[i].Text
	v, field := fieldAssignment(bytes.TrimLeft(text, " \t"))
	if v == nil || (field != "email" && field != "authors" && field != "author") {
		return false
	}
	if eq := bytes.IndexByte(text, '='); eq < 0 || start < eq {
		return false
	}
	for k := i + 1; k < len(lines) && lines[k].Number <= lines[i].Number+gemLookahead; k++ {
		t := bytes.TrimSpace(lines[k].Text)
		if string(t) == "end" || bytes.HasPrefix(t, []byte("}")) || bytes.Contains(t, []byte("do |")) || bytes.Contains(t, []byte("{ |")) {
			return false
		}
		w, f := fieldAssignment(t)
		if w != nil && bytes.Equal(w, v) && isGemSpecField(f) {
			return true
		}
	}
	return false
}
