package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// The shapes held-out rounds 27 and 28 showed (docs/design/pii-precision.md,
// "Rounds 27 and 28's shapes"): a licence notice's contact, a Maven
// descriptor's mailing lists, a list or team named by its role suffix,
// a GnuPG signature
// listing, a cruft replay file, a build's notification element, a phone
// number typed as runs of one digit, a contact a README's author offers
// in the first person, a moderation contact, an RDoc mailto link, and a
// Message-ID written as a mail header's name/value pair. Each rule reads
// a grammar (a comment block, an element, a listing's fields)
// and runs only for a finding still at its warning.

// Descriptions of the notes the round-27 rules give.
const (
	licenceDescription      = "An email address in a licence notice (the terms a file's comment block carries, where the licensor names whom to ask for permission): published with the licence, reported as a note."
	notificationDescription = "An email address a build descriptor names as the target or sender of its notifications (a Gump nag element, a Maven 1 nagEmailAddress, a CruiseControl email publisher): it reaches a list or a team, reported as a note."
	keyRunPhoneDescription  = "A telephone number whose digits are runs of one repeated digit (+1 222 333 4455): typed as a placeholder, not a subscriber's number; reported as a note."
	companyDescription      = "An email address in git's ident form after a company's name with its legal form (\"Demo Pty Ltd <address>\", \"Demo GmbH <address>\"): a company's contact, not a person's; reported as a note."
	pslDescription          = "An email address in a comment of a copy of the Public Suffix List (an entry's submitter or its registry's contact, as the list publishes them): published with the list, reported as a note."
	messageIDDescription    = "A Message-ID written as the value of a mail header's name/value pair (a mail event's \"headers\" list): it names a message, not a mailbox; reported as a note."
)

// round27 holds the per-fragment state of the rules built after rounds 27
// and 28.
type round27 struct {
	// files: a file outside fixtures (not a message).
	files bool
	// message: a commit message.
	message bool
	// any: a file, fixtures included (not a message).
	any bool
	// docs: a documentation file or change log outside fixtures.
	docs bool
	// maven: a Maven descriptor (pom.xml, Maven 1's project.xml).
	maven bool
	// xml: an XML file outside fixtures.
	xml bool
	// cruft: a cruft replay file (.cruft.json).
	cruft bool
	// psl: the file is a copy of the Public Suffix List, by its name or
	// (read at the first finding that needs it, pslRead) by its section
	// markers among the fragment's lines.
	psl, pslRead bool
	// path: the file's path, for testDir, read only for a copy's line.
	path string
}

// newRound27 returns the round-27 state for a fragment of the file at p,
// from what Detect has read of its path already: docs and changelog (a
// documentation file, a change log), fixture (inFixtureDir) and mkind
// (manifestOf).
func newRound27(p string, message, docs, changelog, fixture bool, mkind manifestKind) round27 {
	if message || p == "" {
		return round27{message: message}
	}
	files := !fixture
	base := strings.ToLower(path.Base(p))
	psl := pslName(base)
	return round27{
		files:   files,
		any:     true,
		docs:    files && (docs || changelog),
		maven:   files && (base == "project.xml" || mkind == manifestXML),
		xml:     files && xmlFile(p),
		cruft:   files && base == ".cruft.json",
		psl:     psl,
		pslRead: psl,
		path:    p,
	}
}

// lower returns the description of a note for a finding of kind k at
// lines[i].Text[start:end] that a round-27 rule reads as published, or ""
// when none does.
func (r *round27) lower(k kind, lines []scanner.Line, i, start, end int) string {
	text := lines[i].Text
	if k == kindPhone && r.any && keyRunPhone(text[start:end]) {
		return keyRunPhoneDescription
	}
	if k != kindEmail {
		return ""
	}
	if (r.files || r.message) && listLocal(text[start:end]) {
		return listDescription
	}
	if sshAlgorithmLocal(text[start:end]) {
		return algorithmDescription
	}
	if (r.any || r.message) && before(text, start) == '<' && companyIdent(text, start) {
		return companyDescription
	}
	if r.any && before(text, start) == '<' && headerPairID(lines, i, start) {
		return messageIDDescription
	}
	if r.any && licenceNotice(lines, i) {
		// A licence's text is the licence in a test source too.
		return licenceDescription
	}
	if r.any && bytes.HasPrefix(bytes.TrimLeft(text, " \t"), []byte("//")) {
		if !r.pslRead {
			r.pslRead = true
			r.psl = pslMarkers(lines)
		}
		// A copy's comments outside test directories; in a test
		// directory only a registry's line, as a person's address
		// copied into a fixture keeps its warning.
		if r.psl && (registryLine(text, start) || (r.files && !testDir(r.path))) {
			return pslDescription
		}
	}
	if !r.files {
		return ""
	}
	switch {
	case gpgSigLine(text):
		return signingKeyDescription
	case i > 0 && lines[i-1].Number+1 == lines[i].Number && copyrightWrapped(lines[i-1].Text, text, start, end):
		return attributionDescription
	case r.maven && mavenElement(text, mavenListElements):
		return listDescription
	case r.maven && mavenElement(text, mavenNagElements), r.xml && (nagElement(lines, i, start) || cruiseControlAddress(text, start)):
		return notificationDescription
	case r.xml && xmlAttrValue(text, start, "due-to-email"):
		// Maven's changes.xml: <action dev="…" due-to="Name"
		// due-to-email="address">, the contributor the change is
		// credited to (round 29).
		return attributionDescription
	case r.cruft && jsonEmailValue(text, start, end):
		return attributionDescription
	case r.docs && (firstPersonContact(text, start) || rdocMailtoLink(text, start)):
		return contactDescription
	case r.docs && moderationContact(lines, i, start):
		return conductDescription
	}
	return ""
}

// licenceMarkers are phrases (lower case) only a licence's text holds:
// the grants and conditions of the BSD, Apache (1.1 and 2.0), MIT, GPL
// and LGPL, MPL and ISC licences, and SPDX's tag.
var licenceMarkers = []string{
	"redistribution and use in source",
	"permission is hereby granted",
	"permission to use, copy, modify",
	"licensed under the",
	"is free software; you can redistribute",
	"is free software: you can redistribute",
	"this program is free software",
	"this library is free software",
	"subject to the terms of the mozilla public license",
	"spdx-license-identifier",
	"the apache software license",
	"must not be used to endorse or promote products",
}

// licenceLookback bounds how many lines of a comment block licenceNotice
// reads back from the address (Apache 1.1's header names its contact 35
// lines after the licence's title).
const licenceLookback = 64

// licenceNotice reports whether line i is a comment line of a comment
// block that carries a licence's text: walking back over adjacent comment
// lines (context included), one of them holds a licenceMarkers phrase.
// The licence names whom to ask for permission ("For written permission,
// please contact <address>"), and a header's copyright holder beside it;
// both are published with the terms. A comment block without the terms,
// and an address in code after the block, keep the warning.
func licenceNotice(lines []scanner.Line, i int) bool {
	for k := i; k >= 0 && i-k < licenceLookback; k-- {
		if k < i && lines[k].Number+1 != lines[k+1].Number {
			return false
		}
		body, ok := blockComment(lines[k].Text)
		if !ok {
			return false
		}
		for _, m := range licenceMarkers {
			if containsFold(body, m) {
				return true
			}
		}
	}
	return false
}

// blockComment returns a comment line's text after its leader (see
// commentBody) and blanks, and whether the line is a comment line: a
// leader alone (" *", "#"), a block's blank line, is one, with empty text.
func blockComment(line []byte) ([]byte, bool) {
	t := bytes.TrimSpace(line)
	for _, p := range commentLeaders {
		if bytes.HasPrefix(t, []byte(p)) {
			return bytes.TrimSpace(t[len(p):]), true
		}
	}
	return nil, false
}

// copyrightWrapped reports an address alone on a comment line (maybe in
// angle brackets) right after a comment line that is a copyright notice
// ending in its holder's name ("# Copyright (C) 2031 Ada Example" / "#
// <address>"): the holder's address, wrapped onto the next line when the
// years grew. A copyright line that ends in anything but a capitalised
// name, and an address with words beside it, keep the warning.
func copyrightWrapped(prev, line []byte, start, end int) bool {
	body, ok := blockComment(line)
	if !ok {
		return false
	}
	addr := line[start:end]
	if !bytes.Equal(body, addr) && !(len(body) == len(addr)+2 && body[0] == '<' && body[len(body)-1] == '>' && bytes.Equal(body[1:len(body)-1], addr)) {
		return false
	}
	p := stripCommentEnds(prev)
	if !hasPrefixFold(p, "copyright") && !hasPrefixFold(p, "(c)") && !bytes.HasPrefix(p, []byte("\xc2\xa9")) {
		return false
	}
	words := bytes.Fields(p)
	last := words[len(words)-1]
	if !isUpper(last[0]) {
		return false
	}
	for _, c := range last {
		if !isAlpha(c) && c != '-' && c != '\'' {
			return false
		}
	}
	return true
}

// listRoleWords are the last words of a mailing list's or a team's
// mailbox name ("project-dev", "project-commits", "infra-root"): the
// names Apache-style projects and list servers give their lists, and a
// team's machine mailboxes. (projectAlias skips the ones no person's
// name ends in, "-users", "-devel", "-announce", in any file.)
var listRoleWords = []string{
	"dev", "developers", "user", "commits", "cvs", "svn", "general", "discuss", "issues",
	"notifications", "bugs", "root", "build", "builds", "ci", "private",
}

// listLocal reports an address whose local part (before a "+tag") is two
// or more words joined by '-' or '_' whose last word is one of
// listRoleWords: a list or a team named by its role. A person's handle
// with another last word ("ada-example@") keeps the warning.
func listLocal(addr []byte) bool {
	at := bytes.IndexByte(addr, '@')
	if at <= 0 {
		return false
	}
	local := addr[:at]
	if p := bytes.IndexByte(local, '+'); p >= 0 {
		local = local[:p]
	}
	return lastWordIn(local, listRoleWords)
}

// sshFamilies are the first words of SSH's algorithm names (RFC 4253,
// RFC 4344, RFC 5656, RFC 8709, RFC 9142 and the vendors' local names):
// ciphers, MACs, key exchanges, host key and compression algorithms.
var sshFamilies = []string{
	"aes", "rijndael", "camellia", "chacha20", "blowfish", "3des", "arcfour", "cast128", "twofish", "serpent",
	"hmac", "umac", "poly1305", "curve25519", "curve448", "ecdh", "diffie", "sntrup", "mlkem", "kyber",
	"ecdsa", "ssh", "rsa", "x25519", "ed25519", "ed448", "gss", "zlib",
}

// sshAlgorithmLocal reports an address whose local part is built as an
// SSH algorithm name: words joined by '-', the first a family of
// sshFamilies, maybe followed by digits or 'x' ("aes128-gcm",
// "camellia192-ctr", "rijndael-cbc", "sntrup761x25519-sha512"), with a
// second word or a digit ("zlib" alone is the compression method). RFC
// 4251 section 6 names a local algorithm name@domain at whatever domain
// its author holds (round 24's rule read them in name-lists; a change
// log, a test and a typo'd domain write them alone). A person's local
// part ("skyler-jones", "aesop") does not start with a family word
// followed by '-' or a digit.
func sshAlgorithmLocal(addr []byte) bool {
	at := bytes.IndexByte(addr, '@')
	if at <= 0 {
		return false
	}
	local := addr[:at]
	first := local
	if k := bytes.IndexByte(local, '-'); k >= 0 {
		first = local[:k]
	}
	for _, f := range sshFamilies {
		if len(first) < len(f) || !equalFold(first[:len(f)], f) {
			continue
		}
		rest := first[len(f):]
		digits := false
		for _, c := range rest {
			if !isDigit(c) && c != 'x' {
				rest = nil
				break
			}
			digits = digits || isDigit(c)
		}
		if rest == nil && len(first) > len(f) {
			continue
		}
		if len(first) < len(local) || digits || equalFold(local, "zlib") {
			return true
		}
	}
	return false
}

// legalForms are the words that end a company's name, as companies write
// them (matched with case: "SA" is a legal form, "Sa" a surname): the
// legal form in the jurisdictions whose companies publish software.
var legalForms = []string{
	"Ltd", "Ltd.", "LTD", "LTD.", "Limited", "LIMITED", "Inc", "Inc.", "INC", "INC.", "Incorporated",
	"LLC", "L.L.C.", "LLP", "PLC", "plc", "Corp", "Corp.", "CORP", "Corporation", "Co.", "GmbH", "AG", "KG",
	"S.A.", "SA", "S.A.S.", "SAS", "S.L.", "S.r.l.", "S.R.L.", "S.p.A.", "B.V.", "BV", "N.V.", "NV",
	"Oy", "AB", "ApS", "A/S", "AS", "s.r.o.", "Pty", "K.K.",
}

// companyIdent reports an address in git's ident form ("Name
// <address>") whose name ends in a company's legal form ("Demo Pty Ltd
// <address>", "Demo Labs, Inc. <address>"): the company's contact,
// which its products stamp on their files.
func companyIdent(text []byte, start int) bool {
	head := bytes.TrimRight(text[:start-1], " \t")
	if len(head) == len(text[:start-1]) {
		return false // "Name<address>": not the ident form
	}
	words := bytes.Fields(head)
	if len(words) < 2 {
		return false
	}
	last := bytes.TrimRight(words[len(words)-1], ",")
	for _, f := range legalForms {
		if string(last) == f {
			return true
		}
	}
	return false
}

// testDir reports a path with a directory named for tests: one whose
// name starts or ends with "test" or "tests" in any case (test_data,
// testfiles, unit-tests), beyond inFixtureDir's exact names. A copy of a
// public list kept for tests is a fixture however its directory is
// spelled.
func testDir(p string) bool {
	for _, d := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		if strings.HasPrefix(d, "test") || strings.HasSuffix(d, "test") || strings.HasSuffix(d, "tests") {
			return true
		}
	}
	return false
}

// registryLine reports a Public Suffix List comment whose address is a
// registry's, as the list writes it: "Submitted by registry <address>",
// "Confirmed by registry <address>" (the words "by registry" before the
// address on its line).
func registryLine(text []byte, start int) bool {
	return containsFold(text[:start], "by registry")
}

// pslNames are the names (lower case) copies of the Public Suffix List
// are kept under: the list's own (public_suffix_list.dat), its former
// one (effective_tld_names.dat) and the spellings libraries give their
// copies.
var pslNames = []string{"public_suffix_list.dat", "effective_tld_names.dat", "public_suffix_list.txt", "public-suffix-list.txt", "public-suffix-list.dat", "publicsuffixlist.dat"}

// pslName reports a base name (lower case) of pslNames.
func pslName(base string) bool {
	for _, n := range pslNames {
		if base == n {
			return true
		}
	}
	return false
}

// pslMarkers reports whether the lines hold one of the Public Suffix
// List's section markers ("// ===BEGIN ICANN DOMAINS===", "//
// ===BEGIN PRIVATE DOMAINS==="): a copy of the list under another name
// (a cache keyed by a hash), added whole.
func pslMarkers(lines []scanner.Line) bool {
	for _, l := range lines {
		t := bytes.TrimSpace(l.Text)
		if bytes.HasPrefix(t, []byte("// ===BEGIN ")) && bytes.HasSuffix(t, []byte(" DOMAINS===")) {
			return true
		}
	}
	return false
}

// gpgSigLine reports a signature line of GnuPG's key listing (gpg
// --list-sigs, a KEYS file): "sig", flags ("3", "L", "R", …), the
// signer's key ID (8 or 16 hex digits) and the date, then the signer's
// user ID, published with the key as keyringUID's "uid" lines are.
func gpgSigLine(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if !hasPrefixFold(t, "sig") && !hasPrefixFold(t, "rev") {
		return false
	}
	t = t[3:]
	if len(t) == 0 || (t[0] != ' ' && t[0] != '\t') {
		return false
	}
	t = bytes.TrimLeft(t, " \t123LRPNXlrpnx!%?-")
	n := 0
	for n < len(t) && isHex(t[n]) {
		n++
	}
	if n != 8 && n != 16 {
		return false
	}
	d := bytes.TrimLeft(t[n:], " \t")
	return len(d) >= 10 && isDigit(d[0]) && isDigit(d[3]) && d[4] == '-' && isDigit(d[5]) && d[7] == '-' && isDigit(d[9])
}

// mavenListElements are the children of a Maven descriptor's
// <mailingList> (POM 4.0 and Maven 1's project.xml) that hold a list's
// addresses; mavenNagElements, Maven 1's build-failure notification
// target.
var (
	mavenListElements = []string{"subscribe", "unsubscribe", "post", "archive", "otherarchive"}
	mavenNagElements  = []string{"nagemailaddress"}
)

// xmlAttrValue reports an address that is the whole value of the XML
// attribute name (name="address", name='address'), the name not glued to
// a longer one.
func xmlAttrValue(text []byte, start int, name string) bool {
	q := before(text, start)
	if q != '"' && q != '\'' {
		return false
	}
	head := bytes.TrimRight(text[:start-1], " \t")
	if len(head) == 0 || head[len(head)-1] != '=' {
		return false
	}
	head = bytes.TrimRight(head[:len(head)-1], " \t")
	if !hasSuffixFold(head, name) {
		return false
	}
	c := before(head, len(head)-len(name))
	return c == ' ' || c == '\t' || c == 0
}

// cruiseControlRecipients are the elements of CruiseControl's email
// publishers (<email>, <htmlemail>) whose address attribute names who
// gets a build's result mail.
var cruiseControlRecipients = []string{"<always", "<failure", "<success", "<alert"}

// cruiseControlAddress reports an address in a CruiseControl
// configuration's email publisher (round 29): the publisher's
// returnaddress attribute (the sender of the build mails), or the address
// attribute of an <always>, <failure>, <success> or <alert> element on
// the same line. The <map alias=… address=…> element, which maps a
// committer to a person's address, keeps the warning.
func cruiseControlAddress(text []byte, start int) bool {
	if xmlAttrValue(text, start, "returnaddress") {
		return true
	}
	if !xmlAttrValue(text, start, "address") {
		return false
	}
	t := bytes.TrimLeft(text[:start], " \t")
	for _, e := range cruiseControlRecipients {
		if hasPrefixFold(t, e) && (at(t, len(e)) == ' ' || at(t, len(e)) == '\t') {
			return true
		}
	}
	return false
}

// mavenElement reports a line that opens one of the elements names (in
// lower case; XML names are matched without case).
func mavenElement(line []byte, names []string) bool {
	t := bytes.TrimLeft(line, " \t")
	for _, n := range names {
		if hasPrefixFold(t, "<"+n+">") {
			return true
		}
	}
	return false
}

// nagLookback bounds how many lines back nagElement looks for the tag's
// opening (its attributes wrap).
const nagLookback = 3

// nagElement reports an address inside the start tag of a <nag> element
// (Apache Gump's project descriptor: whom a failed build mails, "to" a
// list, "from" the project's name and list): the tag opens on this line
// or one of the nagLookback adjacent lines before, and no '>' closes it
// before the address (the escaped "&lt;…&gt;" of a from attribute is
// not a '>').
func nagElement(lines []scanner.Line, i, start int) bool {
	for k := i; k >= 0 && i-k <= nagLookback; k-- {
		if k < i && lines[k].Number+1 != lines[k+1].Number {
			return false
		}
		t := lines[k].Text
		if k == i {
			t = t[:start]
		}
		j := bytes.LastIndex(t, []byte("<nag"))
		if j >= 0 && (at(t, j+4) == ' ' || at(t, j+4) == '\t' || j+4 == len(t)) {
			if bytes.IndexByte(t[j:], '>') >= 0 {
				return false
			}
			for m := k + 1; m < i; m++ {
				if bytes.IndexByte(lines[m].Text, '>') >= 0 {
					return false
				}
			}
			return true
		}
		if bytes.ContainsAny(t, "<>") {
			return false // another tag first
		}
	}
	return false
}

// jsonEmailValue reports an address that is a JSON string's whole value
// under a key ending in "email" ("email": "<address>"): cruft's replay
// file keeps the cookiecutter context a project was made from, its
// author's identity as .cookiecutterrc does.
func jsonEmailValue(text []byte, start, end int) bool {
	if before(text, start) != '"' || at(text, end) != '"' {
		return false
	}
	head := bytes.TrimRight(text[:start-1], " \t")
	if len(head) == 0 || head[len(head)-1] != ':' {
		return false
	}
	head = bytes.TrimRight(head[:len(head)-1], " \t")
	if len(head) < 2 || head[len(head)-1] != '"' {
		return false
	}
	return hasSuffixFold(head[:len(head)-1], "email")
}

// firstPersonPhrases are the phrases (lower case) by which a document's
// author offers their own address: "ping me at", "send them to me:".
var firstPersonPhrases = []string{"me at", "to me", "contact me", "email me", "e-mail me", "mail me", "reach me", "ping me", "write me", "drop me a line"}

// firstPersonContact reports, in documentation, an address its author
// offers in the first person in the same sentence before it ("Ping me
// at: Name <address>", "send them directly to me: <address>"): the
// writer's own contact, published where it is read. The phrase must be a
// whole-word match, and no sentence end (". ", "! ", "? ") may come
// between it and the address; "me" elsewhere in the sentence, or a
// phrase in an earlier sentence, keeps the warning.
func firstPersonContact(text []byte, start int) bool {
	head := text[:start]
	best := -1
	for _, p := range firstPersonPhrases {
		for off := 0; ; {
			j := indexFold(head[off:], p)
			if j < 0 {
				break
			}
			j += off
			off = j + 1
			if isWord(before(head, j)) || isWord(at(head, j+len(p))) {
				continue
			}
			if e := j + len(p); e > best {
				best = e
			}
		}
	}
	if best < 0 {
		return false
	}
	between := head[best:]
	for k := 0; k+1 < len(between); k++ {
		if (between[k] == '.' || between[k] == '!' || between[k] == '?') && (between[k+1] == ' ' || between[k+1] == '\t') {
			return false
		}
	}
	return len(between) <= 48
}

// rdocMailtoLink reports an address that is the target of an RDoc link,
// "Label[mailto:address]" or "{Label words}[mailto:address]": a mailto
// link of a documentation file, written in RDoc's markup.
func rdocMailtoLink(text []byte, start int) bool {
	head := text[:start]
	if !hasSuffixFold(head, "[mailto:") {
		return false
	}
	c := before(head, len(head)-len("[mailto:"))
	return isAlnum(c) || c == '}'
}

// moderationWords are words (lower case) of a sentence about a code of
// conduct's enforcement.
var moderationWords = []string{"code of conduct", "moderation"}

// moderationLines is how many adjacent lines before the address the
// sentence is read back across.
const moderationLines = 2

// moderationContact reports an address that a sentence about a code of
// conduct's enforcement offers ("For escalation or moderation issues
// please contact Name (<address>)"): the line before the address holds
// "contact" or "report", and the line or one of the moderationLines
// adjacent lines before it names a code of conduct or moderation.
// conductSentence reads the Contributor Covenant's own sentence; this
// one, a project's sentence pointing at it.
func moderationContact(lines []scanner.Line, i, start int) bool {
	head := lines[i].Text[:start]
	if !containsFold(head, "contact") && !containsFold(head, "report") {
		return false
	}
	return heldBack(lines, i, start, moderationLines, func(t []byte) bool {
		for _, w := range moderationWords {
			if containsFold(t, w) {
				return true
			}
		}
		return false
	})
}

// heldBack reports whether the address's line before start, or one of
// the n lines before it (adjacent in the file, context included), holds
// what has reports.
func heldBack(lines []scanner.Line, i, start, n int, has func([]byte) bool) bool {
	for k := i; k >= 0 && i-k <= n; k-- {
		if k < i && lines[k].Number+1 != lines[k+1].Number {
			return false
		}
		t := lines[k].Text
		if k == i {
			t = t[:start]
		}
		if has(t) {
			return true
		}
	}
	return false
}

// headerIDNames are the mail headers (lower case) whose value names a
// message, not a mailbox.
var headerIDNames = []string{"message-id", "in-reply-to", "references", "content-id"}

// headerPairID reports an address after '<' that is the value of a mail
// header written as a name/value pair, as mail events and APIs list a
// message's headers ({"name": "Message-ID", "value": "<…>"}): the line
// holds "value" before the address, and it or the line before it holds
// the quoted name of a header in headerIDNames.
func headerPairID(lines []scanner.Line, i, start int) bool {
	if !containsFold(lines[i].Text[:start], "value") {
		return false
	}
	return heldBack(lines, i, start, 1, func(t []byte) bool {
		for _, h := range headerIDNames {
			if containsFold(t, `"`+h+`"`) || containsFold(t, `'`+h+`'`) {
				return true
			}
		}
		return false
	})
}

// keyRunPhone reports a telephone number whose national digits are all
// runs of one repeated digit, each at least two long (+1 222 333 4455,
// 0 11 22 33 44 55): typed by holding keys, as placeholders are. The
// first one to three digits may be a country or trunk code.
func keyRunPhone(number []byte) bool {
	var d []byte
	for _, c := range number {
		if isDigit(c) {
			d = append(d, c)
		}
	}
	for cc := 0; cc <= 3 && len(d)-cc >= 7; cc++ {
		if digitRuns(d[cc:]) {
			return true
		}
	}
	return false
}

// digitRuns reports whether every digit of d is in a run of at least two
// equal digits.
func digitRuns(d []byte) bool {
	for k := 0; k < len(d); {
		n := 1
		for k+n < len(d) && d[k+n] == d[k] {
			n++
		}
		if n < 2 {
			return false
		}
		k += n
	}
	return true
}
