package pii

import (
	"bytes"
	"path"

	"github.com/privscan/privscan/scanner"
)

// The shapes held-out round 26 showed (docs/design/pii-precision.md,
// "Round 26's shapes"): a mailing list's management address, a list
// subscribed to by e-mail, a list archive's URL and a repository's
// notification target. Each rule runs only for a finding still at its
// warning, behind the file's kind and a byte beside the candidate.

// listDescription describes an email finding that names a mailing list.
const listDescription = "An email address of a mailing list (a list server's command address, a list subscribed to by e-mail, a list archive's URL, a repository's notification target): it reaches a list, not a person; reported as a note."

// round26 holds the per-fragment state of the rules built after round 26.
type round26 struct {
	// docs: a documentation file outside fixtures.
	docs bool
	// files: a file outside fixtures (not a message).
	files bool
	// asf: an Apache project's .asf.yaml outside fixtures.
	asf bool
	// path: the file's path, for rfcFile, read at the first finding
	// that needs it (rfcRead); rfcBack then marks the lines of a copied
	// RFC's back matter, nil for any other file.
	path    string
	rfcRead bool
	rfcBack []bool
	// message: a commit message.
	message bool
	// workflow: a GitHub Actions workflow outside fixtures.
	workflow bool
}

// newRound26 returns the round-26 state for a fragment of the file at p.
func newRound26(p string, message, docs bool) round26 {
	if message {
		return round26{message: true}
	}
	files := p != "" && !inFixtureDir(p)
	return round26{docs: docs && files, files: files, asf: files && path.Base(p) == ".asf.yaml",
		path: p, workflow: files && workflowFile(p)}
}

// lower returns the description of a note for a finding of kind k at
// lines[i].Text[start:end] that a round-26 rule reads as published, or ""
// when none does.
func (r *round26) lower(k kind, lines []scanner.Line, i, start, end int) string {
	text := lines[i].Text
	if r.path != "" && (k == kindEmail || k == kindPhone) {
		if !r.rfcRead {
			r.rfcRead = true
			if rfcFile(r.path, lines) {
				r.rfcBack = rfcBackMatter(lines)
			}
		}
		if r.rfcBack != nil && r.rfcBack[i] {
			return rfcDescription
		}
	}
	if k == kindCard && constantDigits(text[start:end]) {
		return constantDescription
	}
	if k != kindEmail {
		return ""
	}
	if r.docs && (listCommandLocal(text[start:end]) || subscribeSentence(lines, i, start, end)) {
		return listDescription
	}
	if r.files && before(text, start) == '?' && listArchiveQuery(text, start) {
		return listDescription
	}
	if r.asf && asfNotification(lines, i, start) {
		return listDescription
	}
	if r.workflow && actionIdentity(lines, i, start) {
		return ciIdentityDescription
	}
	if r.message && replyRelay(text, start, end) {
		return relayDescription
	}
	return ""
}

// listCommands are the suffixes list servers give a list's command
// addresses (Mailman's list-join, list-leave, list-request,
// list-subscribe, list-unsubscribe, list-owner; RFC 2369's List-*
// headers point at them): mail to one is a command to the server.
var listCommands = []string{"-join", "-leave", "-request", "-subscribe", "-unsubscribe", "-owner"}

// listCommandLocal reports an address whose local part is a list's name
// followed by a list server's command suffix.
func listCommandLocal(addr []byte) bool {
	at := bytes.IndexByte(addr, '@')
	if at <= 0 {
		return false
	}
	local := addr[:at]
	for _, s := range listCommands {
		if len(local) > len(s) && hasSuffixFold(local, s) {
			return true
		}
	}
	return false
}

// sendPhrases are the verbs that make the address after them the one to
// mail ("simply send an email to").
var sendPhrases = []string{"send an email to", "send an e-mail to", "send email to", "send e-mail to", "send a message to", "send a mail to", "send mail to"}

// subscribeWords are the words that make a sentence about a mailing list.
var subscribeWords = []string{"subscrib", "join the list", "mailing list", "mailing-list"}

// subscribeLookback bounds how many adjacent lines before the address a
// sentence is read back across.
const subscribeLookback = 4

// subscribeSentence reports an address that is the object of a "send an
// email to" sentence (markup aside) when that sentence or the one before
// it speaks of subscribing or of the mailing list: a list joined by
// e-mail, its subscription address.
func subscribeSentence(lines []scanner.Line, i, start, end int) bool {
	text := lines[i].Text
	var ctx []byte
	for j := i - 1; j >= 0 && i-j <= subscribeLookback && lines[j+1].Number == lines[j].Number+1; j-- {
		t := bytes.TrimSpace(lines[j].Text)
		if len(t) == 0 {
			break
		}
		ctx = append(append(append([]byte{}, t...), ' '), ctx...)
	}
	ctx = append(ctx, text[:start]...)
	head := bytes.TrimRight(ctx, " \t`*_[<(:")
	phrase := false
	for _, p := range sendPhrases {
		if hasSuffixFold(head, p) {
			phrase = true
			break
		}
	}
	if !phrase {
		return false
	}
	// The address's sentence (its rest on the line) and the one before.
	from := sentenceStart(head, len(head))
	if from > 0 {
		from = sentenceStart(head, from-1)
	}
	scope := append(append([]byte{}, head[from:]...), ' ')
	rest := text[end:]
	if k := bytes.Index(rest, []byte(". ")); k >= 0 {
		rest = rest[:k]
	}
	scope = append(scope, rest...)
	for _, w := range subscribeWords {
		if containsFold(scope, w) {
			return true
		}
	}
	return false
}

// listArchiveQuery reports an address that is the query of a URL whose
// host is a list server's (lists.*, list.*, mail-archives.*): a list
// archive's page of that list (https://lists.host/list.html?list@host).
func listArchiveQuery(text []byte, start int) bool {
	k := start - 1
	for k > 0 && text[k-1] != ' ' && text[k-1] != '"' && text[k-1] != '\'' && text[k-1] != '(' && text[k-1] != '<' && text[k-1] != '>' && text[k-1] != '\t' {
		k--
	}
	u := text[k : start-1]
	s := bytes.Index(u, []byte("://"))
	if s < 0 {
		return false
	}
	host := u[s+3:]
	for _, h := range []string{"lists.", "list.", "mail-archives."} {
		if hasPrefixFold(host, h) {
			return true
		}
	}
	return false
}

// asfLookback bounds how many lines an .asf.yaml value is read back
// across to its block's key.
const asfLookback = 16

// asfNotification reports an address that is a value in the
// notifications: block of an Apache project's .asf.yaml (Apache Infra's
// format: each key names a kind of event, each value the list that gets
// it), every line from the block's key down adjacent.
func asfNotification(lines []scanner.Line, i, start int) bool {
	ind := indentOf(lines[i].Text)
	if ind == 0 || ind >= start {
		return false
	}
	for j := i - 1; j >= 0 && i-j <= asfLookback && lines[j+1].Number == lines[j].Number+1; j-- {
		t := lines[j].Text
		if len(bytes.TrimSpace(t)) == 0 {
			return false
		}
		if n := indentOf(t); n < ind {
			return n == 0 && bytes.Equal(bytes.TrimRight(t, " \t\r"), []byte("notifications:"))
		}
	}
	return false
}

// rfcDescription describes a finding in a copied RFC's back matter.
const rfcDescription = "An email address or telephone number in a copied RFC's back matter (its authors' or editors' addresses, the IPR boilerplate's mailbox): a standard's published credit and contact, reported as a note."

// rfcHeaderLines bounds how far into a file its RFC header is looked for.
const rfcHeaderLines = 40

// rfcFile reports a copied RFC's text: a file named rfcNNNN or
// rfcNNNN.txt, or one whose first lines hold the RFC header's "Request
// for Comments: NNNN" field.
func rfcFile(p string, lines []scanner.Line) bool {
	base := []byte(path.Base(p))
	base = bytes.TrimSuffix(bytes.TrimSuffix(base, []byte(".txt")), []byte(".TXT"))
	if len(base) > 3 && hasPrefixFold(base, "rfc") {
		digits := true
		for _, c := range base[3:] {
			digits = digits && isDigit(c)
		}
		if digits {
			return true
		}
	}
	for _, l := range lines {
		if l.Number > rfcHeaderLines {
			break
		}
		t := bytes.TrimLeft(l.Text, " \t")
		if hasPrefixFold(t, "request for comments:") && isDigit(at(bytes.TrimLeft(t[len("request for comments:"):], " \t"), 0)) {
			return true
		}
	}
	return false
}

// rfcBackMatter marks the lines of a copied RFC's back-matter sections
// that publish people's and the standards body's contacts: "Author's
// Address", "Authors' Addresses", "Editor's Address" and the like, and
// "Intellectual Property". A section runs from its heading (a line that
// starts in column 0, an optional section number before its title) to
// the next heading; the page headers ("RFC NNNN …") and footers ("…
// [Page N]") RFCs break their text with are not headings.
func rfcBackMatter(lines []scanner.Line) []bool {
	back := make([]bool, len(lines))
	in := false
	for j, l := range lines {
		if j > 0 && lines[j-1].Number+1 != l.Number {
			in = false
		}
		t := bytes.TrimRight(l.Text, " \t\r\f")
		if len(t) > 0 && t[0] != ' ' && t[0] != '\t' && t[0] != '\f' && !hasPrefixFold(t, "rfc ") && !bytes.Contains(t, []byte("[Page ")) {
			in = rfcContactHeading(t)
		}
		back[j] = in
	}
	return back
}

// rfcContactHeading reports an RFC section heading whose section
// publishes contacts.
func rfcContactHeading(t []byte) bool {
	t = bytes.TrimLeft(t, "0123456789. \t")
	t = bytes.ToLower(t)
	switch {
	case (bytes.HasPrefix(t, []byte("author")) || bytes.HasPrefix(t, []byte("editor"))) && bytes.Contains(t, []byte("address")):
		return len(t) < 40
	case bytes.HasPrefix(t, []byte("intellectual property")):
		return len(t) < 40
	}
	return false
}

// relayDescription describes a code host's reply-by-email address.
const relayDescription = "An email address of a code host's reply-by-email relay (a reply.* service host) in a quoted reply's header: a machine's address that routes a reply to a thread, not a person's mailbox; reported as a note."

// replyRelay reports an address at a code host's reply-by-email relay,
// a service host whose first label is "reply" (reply.github.com and the
// like: the host answers for a thread, its local part is a token), in a
// quoted reply's header, the line ending in "wrote:" ("On DATE, Name
// <address> wrote:", as mail clients write it).
func replyRelay(text []byte, start, end int) bool {
	at := bytes.IndexByte(text[start:end], '@')
	if at < 0 || !hasPrefixFold(text[start+at+1:end], "reply.") {
		return false
	}
	rest := bytes.TrimRight(text[end:], " \t\r")
	return bytes.HasSuffix(rest, []byte("wrote:")) && len(rest) <= len("> wrote:")
}

// ciIdentityDescription describes a CI step's commit identity.
const ciIdentityDescription = "An email address given to a CI workflow step as the identity of the commits it makes (an action's name and email inputs): the project's published bot or team identity, reported as a note."

// actionLookback bounds how many lines an input is read back across to
// its step's uses: key.
const actionLookback = 24

// actionIdentity reports an address that is the value of an *email
// input (email, author_email, committer-email, …) in the with: block of
// a workflow step that uses an action, when the same block also gives a
// *name input: the identity the action commits as. The lines from the
// step's uses: key down are adjacent.
func actionIdentity(lines []scanner.Line, i, start int) bool {
	text := lines[i].Text
	ind := indentOf(text)
	key, ok := yamlKey(text[ind:])
	if !ok || !hasSuffixFold(key, "email") || ind+len(key)+1 > start {
		return false
	}
	named, with := false, -1
	for j := i - 1; j >= 0 && i-j <= actionLookback && lines[j+1].Number == lines[j].Number+1; j-- {
		t := lines[j].Text
		n := indentOf(t)
		k, ok := yamlKey(t[n:])
		switch {
		case with < 0 && n == ind && ok:
			named = named || hasSuffixFold(k, "name")
		case with < 0 && n < ind && ok && string(k) == "with":
			with = n
		case with >= 0 && n == with && ok:
			if string(k) == "uses" {
				return named
			}
		case with >= 0 && n+2 == with && bytes.HasPrefix(t[n:], []byte("- ")):
			k, ok := yamlKey(bytes.TrimLeft(t[n+2:], " "))
			return ok && string(k) == "uses" && named
		default:
			return false
		}
	}
	return false
}

// yamlKey returns the key of a YAML mapping line ("key: value" or
// "key:"), after its indentation.
func yamlKey(t []byte) ([]byte, bool) {
	k := bytes.IndexByte(t, ':')
	if k <= 0 || (k+1 < len(t) && t[k+1] != ' ' && t[k+1] != '\t' && t[k+1] != '\r') {
		return nil, false
	}
	for _, c := range t[:k] {
		if !isWord(c) && c != '-' {
			return nil, false
		}
	}
	return t[:k], true
}

// constantDescription describes a card-shaped run of a constant's digits.
const constantDescription = "A card-shaped digit run that is the leading digits of a mathematical constant (π, e, √2, …), as a numeric test's expected value: not a card number; reported as a note."

// constants are the leading significant digits (20, more than a card's
// 19) of the mathematical constants numeric code spells out: π, e, √2,
// √3, the golden ratio, ln 2, ln 10 and the Euler–Mascheroni constant.
var constants = []string{
	"31415926535897932384", "27182818284590452353", "14142135623730950488", "17320508075688772935",
	"16180339887498948482", "69314718055994530941", "23025850929940456840", "57721566490153286060",
}

// constantDigits reports a candidate whose digits (separators aside) are
// the leading digits of a mathematical constant: a number's own value
// (a parser's expected digits of Math.E), never an issued card.
func constantDigits(c []byte) bool {
	var buf [32]byte
	n := 0
	for _, b := range c {
		if isDigit(b) {
			if n == len(buf) {
				return false
			}
			buf[n] = b
			n++
		}
	}
	if n < 12 {
		return false
	}
	for _, k := range constants {
		if n <= len(k) && string(buf[:n]) == k[:n] {
			return true
		}
	}
	return false
}
