package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// The rules built after held-out round 20 (bench/results/precision.md,
// "Rules built after round 20"; docs/design/pii-precision.md, "Round 20's
// shapes").

// urlAuthority reports whether the address at b[start:end] is the host
// part of a URL's network location written without its scheme, quoted
// whole: "user:password@host:port", as urlsplit's netloc and the
// authority of RFC 3986 (section 3.2) write it. The colon before the
// '@' separates a user name from a password, and the host is followed by
// a port (one to five digits) that closes the string. A mailbox has no
// password before it and no port after it; the scheme-prefixed form
// (scheme://user:password@host) is urlUserinfo's. An address with text
// after the port, a port of letters, or outside a quoted string keeps
// its finding.
func urlAuthority(b []byte, start, end int) bool {
	if before(b, start) != ':' || at(b, end) != ':' {
		return false
	}
	k := end + 1
	for k < len(b) && isDigit(b[k]) {
		k++
	}
	if n := k - end - 1; n == 0 || n > 5 {
		return false
	}
	q := at(b, k)
	if q != '"' && q != '\'' {
		return false
	}
	if at := bytes.IndexByte(b[start:end], '@'); at < 0 || bytes.IndexByte(b[start+at:end], '.') < 0 {
		return false
	}
	// The user name: everything back to the opening quote, without a
	// blank or another quote.
	j := start - 1
	for j > 0 && b[j-1] != q {
		switch b[j-1] {
		case ' ', '\t', '"', '\'', '`':
			return false
		}
		j--
	}
	return j > 0 && j < start-1
}

// realmCompared reports whether the quoted address starting at start is
// compared, with == or ===, to a name ending in "realm" (wa.realm ==
// 'x@host', auth.realm === "x@host"): a test asserting a parsed HTTP
// authentication realm (RFC 2617's example realm is address-shaped), the
// comparison form of realmValue's realm="x@host". A longer word ending
// in the letters (surrealm) and other operators (!=, <=) are not read.
func realmCompared(b []byte, start int) bool {
	k := start
	if c := before(b, k); c != '"' && c != '\'' {
		return false
	}
	k--
	for before(b, k) == ' ' {
		k--
	}
	n := 0
	for before(b, k) == '=' {
		n++
		k--
	}
	if n != 2 && n != 3 {
		return false
	}
	if c := before(b, k); c == '!' || c == '<' || c == '>' {
		return false
	}
	for before(b, k) == ' ' {
		k--
	}
	head := b[:k]
	return hasSuffixFold(head, "realm") && !isAlpha(before(head, len(head)-5))
}

// round20 is the per-fragment state of the severity rules built after
// round 20. Each rule is gated by the file's kind, decided once per
// fragment, so that a line of another file costs a few tests of bools.
type round20 struct {
	// docs: a documentation file outside fixtures (its security section).
	docs bool
	// issueConfig: GitHub's issue-template chooser, .github/ISSUE_TEMPLATE/config.yml.
	issueConfig bool
	// readme: a README by its base name, outside fixtures.
	readme bool
	// ci: a CI configuration (ciConfig, or a GitHub Actions workflow).
	ci bool
	// npm: an npm package.json outside fixtures, with its bugs object.
	npm  bool
	bugs bugsObject
	// license: a licence file named with a prefix (ICON_LICENSE.md).
	license bool
	// json: a JSON file, whose records may be a generated data set.
	json     bool
	security securitySection
}

// newRound20 returns the state of round 20's rules for a fragment of the
// file p (docs as Detect decides it); commit messages get none of them.
func newRound20(p string, message, docs bool) round20 {
	if message || p == "" {
		return round20{}
	}
	return round20{
		docs:        docs && !inFixtureDir(p),
		issueConfig: issueTemplateConfig(p),
		readme:      readmeName(p),
		ci:          ciConfig(p) || workflowFile(p),
		npm:         path.Base(p) == "package.json" && manifestOf(p) == manifestJSON,
		license:     prefixedLicenseFile(p),
		json:        strings.EqualFold(path.Ext(p), ".json"),
	}
}

// next reads one line of the fragment, in order.
func (r *round20) next(line []byte) {
	if r.docs {
		r.security.next(line)
	}
	if r.npm {
		r.bugs.next(line)
	}
}

// lower returns the description of a note for a finding of kind k at
// lines[i].Text[start:end] that a round-20 rule reads as published or
// generated, or "" when none does.
func (r *round20) lower(k kind, lines []scanner.Line, i, start, end int) string {
	text := lines[i].Text
	if r.json && (k == kindEmail || k == kindPhone) && generatedRecord(lines, i, start, end) {
		return generatedDataDescription
	}
	if k != kindEmail {
		return ""
	}
	if r.docs && (r.security.open || securitySentence(text, start)) {
		return securityContactDescription
	}
	if r.issueConfig && issueContactField(text, start) {
		return securityContactDescription
	}
	if r.readme && (readmeByline(lines, i) || migratedFrom(lines, i, start)) {
		return attributionDescription
	}
	if r.ci && hostUserEmail(text, start) {
		return attributionDescription
	}
	if r.npm && r.bugs.in {
		return bugContactDescription
	}
	if r.license {
		return attributionDescription
	}
	return ""
}

// securityContactDescription describes an email finding published as
// where to report vulnerabilities or to reach the project.
const securityContactDescription = "An email address published as a project's contact (a security section of its documentation, a security-report sentence, an issue template's contact link): a contact published on purpose, reported as a note."

// securitySection tracks a documentation file's section whose heading
// holds the word "security" (## Security, ## Reporting Security
// Vulnerabilities, = Security Policy): the section a project writes its
// security contact in, as a SECURITY file is. It ends at the next heading.
type securitySection struct {
	open bool
}

// next reads one line; a heading opens or closes the section.
func (s *securitySection) next(line []byte) {
	if len(line) == 0 || (line[0] != '#' && line[0] != '=') {
		return
	}
	t := bytes.TrimLeft(line, "#=")
	if len(t) == len(line) || (len(t) > 0 && t[0] != ' ' && t[0] != '\t') {
		return // "#x" or "==x": not a Markdown or AsciiDoc heading
	}
	s.open = wordIn(t, "security")
}

// securitySentence reports, in documentation, an address that the text
// before it on its line names as where to send a security report: the
// word "security" or "vulnerability" (any case, any ending), then a verb
// of sending or mailing (e-mail, email, mail, send, report, contact,
// write), and the word right before the address is "to" ("If you have
// discovered a security related bug, please do NOT use the issue
// tracker. Send an e-mail to address."). The order is the request's:
// an address before those words, or after other words, keeps the
// warning.
func securitySentence(line []byte, start int) bool {
	head := bytes.TrimRight(line[:start], " \t<:*`[(")
	if !hasSuffixFold(head, "to") || isAlpha(before(head, len(head)-2)) {
		return false
	}
	s := -1
	for _, w := range []string{"security", "vulnerab"} {
		if j := indexFold(head, w); j >= 0 && (s < 0 || j < s) {
			s = j
		}
	}
	if s < 0 {
		return false
	}
	rest := head[s:]
	for _, v := range []string{"e-mail", "email", "mail", "send", "report", "contact", "write"} {
		if containsFold(rest, v) {
			return true
		}
	}
	return false
}

// indexFold returns the index of the first occurrence of the lower case
// ASCII string s in b, ignoring case, or -1.
func indexFold(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if equalFold(b[i:i+len(s)], s) {
			return i
		}
	}
	return -1
}

// issueTemplateConfig reports GitHub's issue-template chooser
// configuration, .github/ISSUE_TEMPLATE/config.yml (or .yaml): the file
// GitHub shows on a repository's new-issue page, whose contact_links
// list publishes where to ask or report instead.
func issueTemplateConfig(p string) bool {
	dir, base := path.Split(p)
	return (base == "config.yml" || base == "config.yaml") && strings.HasSuffix(strings.ToLower(dir), ".github/issue_template/")
}

// issueContactField reports an address in a field of a contact_links
// entry (name:, url:, about:), the only list of that file: a published
// contact. Another key keeps the warning.
func issueContactField(line []byte, start int) bool {
	key, ok := lineKey(line[:start])
	return ok && (equalFold(key, "about") || equalFold(key, "url") || equalFold(key, "name"))
}

// readmeName reports a README by its base name (README, README.md,
// README.markdown, readme.rst), outside test, fixture and example
// directories.
func readmeName(p string) bool {
	base := path.Base(p)
	return len(base) >= 6 && strings.EqualFold(base[:6], "readme") && (len(base) == 6 || base[6] == '.') && !inFixtureDir(p)
}

// bylineLines is how far into a README its title block is read.
const bylineLines = 12

// readmeByline reports a line of a README's title block that is only one
// person, "Name <address>": the byline a README writes under its title
// (# Module / Name <address> / Name <address>), as a document's author
// line. It must lie in the file's first bylineLines lines, and every line
// of the fragment before it must belong to the title block too: blank, a
// heading or its underline, a badge or image, or another byline. A
// paragraph before it, a line with other words, or a line further down
// keeps the warning.
func readmeByline(lines []scanner.Line, i int) bool {
	if lines[i].Number > bylineLines || !identLine(lines[i].Text) {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		if !titleBlockLine(lines[j].Text) {
			return false
		}
	}
	return true
}

// titleBlockLine reports a line that a README's title block holds: blank,
// a heading (# Title), a setext or reST underline (===, ---), a badge or
// an image ([![…](…)](…), ![…](…), <img …>, <a …>), or a byline.
func titleBlockLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] == '#' || bytes.HasPrefix(t, []byte("[![")) || bytes.HasPrefix(t, []byte("![")) || t[0] == '<' {
		return true
	}
	if len(bytes.Trim(t, "=-~*")) == 0 {
		return true
	}
	return identLine(t)
}

// migratedFrom reports, in a README, an address of a person the project
// "migrated from" (This module was migrated from Name <address> and Name
// <address> to the community organisation): the sentence that credits
// the authors who handed a project over, read on the address's line or,
// wrapped, from the line before (the phrase there with no sentence end
// after it, and none before the address on its own line).
func migratedFrom(lines []scanner.Line, i, start int) bool {
	text := lines[i].Text
	if containsFold(text[sentenceStart(text, start):start], "migrated from") {
		return true
	}
	if i == 0 || lines[i-1].Number+1 != lines[i].Number || sentenceStart(text, start) != 0 {
		return false
	}
	prev := lines[i-1].Text
	j := indexFold(prev, "migrated from")
	if j < 0 {
		return false
	}
	return sentenceStart(prev, len(prev)) <= j && !bytes.HasSuffix(bytes.TrimRight(prev, " \t\r"), []byte("."))
}

// workflowFile reports a GitHub Actions workflow,
// .github/workflows/*.yml or *.yaml.
func workflowFile(p string) bool {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	return (ext == ".yml" || ext == ".yaml") && strings.HasSuffix(dir, ".github/workflows/") && !inFixtureDir(p)
}

// hostWords are the first words of a CI variable that holds the git
// identity a job commits with on a code host (GH_USER_EMAIL beside
// GH_USER_NAME, GITHUB_USER_EMAIL, GITLAB_USER_EMAIL).
var hostWords = []string{"gh", "github", "gitlab", "gl", "bitbucket", "bb"}

// hostUserEmail reports, on a line of a CI configuration, an address
// assigned to a variable named HOST_USER_EMAIL (two words before EMAIL:
// a code host's word, then USER): the identity a documentation or release
// job commits and pushes with, as git config user.email and
// GIT_COMMITTER_EMAIL (identityKey) are. Another first word
// (TEST_USER_EMAIL, ADMIN_USER_EMAIL) keeps the warning.
func hostUserEmail(line []byte, start int) bool {
	key, ok := lineKey(line[:start])
	if !ok {
		return false
	}
	var words [][]byte
	identWords(key, func(w []byte) bool {
		words = append(words, w)
		return len(words) > 3
	})
	if len(words) != 3 || !equalFold(words[1], "user") || !equalFold(words[2], "email") {
		return false
	}
	for _, h := range hostWords {
		if equalFold(words[0], h) {
			return true
		}
	}
	return false
}

// bugsObject follows an npm manifest's "bugs" field ("bugs": { "url": …,
// "email": … }): where to report the package's bugs, published with it
// (npm's key is email; any key of the object is read, as manifests write
// mail or e-mail too), and the field's string form ("bugs": "address").
type bugsObject struct {
	depth int
	// in: the line read last belongs to the field.
	in bool
}

// next reads one line of the manifest.
func (b *bugsObject) next(line []byte) {
	if b.depth > 0 {
		b.in = true
		b.depth += brackets(line)
		if b.depth < 0 {
			b.depth = 0
		}
		return
	}
	b.in = false
	key, ok := lineKey(line)
	if !ok || !equalFold(key, "bugs") {
		return
	}
	b.in = true
	if n := brackets(line); n > 0 {
		b.depth = n
	}
}

// prefixedLicenseFile reports a licence file named with a prefix or a
// suffix around the word, outside fixtures: ICON_LICENSE.md,
// FONT-LICENSE.txt, icons.license (attributionFile reads the names that
// start with LICENSE). A word of the base name (split at '_', '-', '.')
// is license or licence, and the file is text (no extension, .md, .txt,
// .rst, .markdown, .license): a bundled asset's licence names its
// author as LICENSE does. A source file with the word (check_license.py)
// is not one.
func prefixedLicenseFile(p string) bool {
	if inFixtureDir(p) {
		return false
	}
	base := strings.ToLower(path.Base(p))
	switch ext := path.Ext(base); ext {
	case "", ".md", ".txt", ".rst", ".markdown", ".license", ".licence":
	default:
		return false
	}
	for _, w := range strings.FieldsFunc(base, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if w == "license" || w == "licence" {
			return true
		}
	}
	return false
}

// generatedDataDescription describes a finding in a generated record.
const generatedDataDescription = "An email address or phone number in a record of a generated data set (a JSON object with most of the default fields of an online JSON generator's template, guid, isActive, eyeColor, registered, latitude among them): made-up data, as a Faker call's, reported as a note."

// templateKeys are the keys of the default template of the online JSON
// generators (each record a random person), in their order; the first
// six of distinctKeys are the ones an ordinary record of a person does
// not hold.
var templateKeys = [...]string{"_id", "index", "guid", "isActive", "balance", "picture", "age", "eyeColor", "name", "gender",
	"company", "email", "phone", "address", "about", "registered", "latitude", "longitude", "tags", "friends"}

// distinctKeys is the mask of the template's distinctive keys: guid,
// isActive, eyeColor, registered, latitude, longitude.
var distinctKeys = func() (m uint32) {
	for i, k := range templateKeys {
		switch k {
		case "guid", "isActive", "eyeColor", "registered", "latitude", "longitude":
			m |= 1 << i
		}
	}
	return m
}()

// Thresholds of generatedRecord: how many of the template's keys, and of
// its distinctive keys, the record must hold, and how many lines around
// the finding are read for them.
const (
	minTemplateKeys = 8
	minDistinctKeys = 3
	maxRecordLines  = 200
)

// generatedRecord reports whether the finding at lines[i].Text[start:end]
// of a JSON file lies in a record of a generated data set: the object
// around it holds at least minTemplateKeys of templateKeys, among them at
// least minDistinctKeys of the distinctive ones (a guid, isActive,
// eyeColor, registered, latitude, longitude). The object is read on the
// finding's line when it opens there (a record on one line), otherwise as
// the member lines at the finding's indentation, on the contiguous lines
// of the fragment around it up to the lines that are less indented (the
// object's braces), at most maxRecordLines each way. A person's record
// in an ordinary fixture (name, email, phone, address, company) does not
// hold the generator's keys and keeps its warning.
func generatedRecord(lines []scanner.Line, i, start, end int) bool {
	text := lines[i].Text
	if o := bytes.LastIndexByte(text[:start], '{'); o >= 0 {
		seg := text[o:]
		if c := bytes.IndexByte(text[end:], '}'); c >= 0 {
			seg = text[o : end+c]
		}
		if templateRecord(inlineKeys(seg)) {
			return true
		}
	}
	ind := indentOf(text)
	if ind == len(text) {
		return false
	}
	seen := memberKey(text[ind:])
	for j := i - 1; j >= 0 && i-j <= maxRecordLines && lines[j].Number+1 == lines[j+1].Number; j-- {
		t := lines[j].Text
		n := indentOf(t)
		if n < ind {
			break
		}
		if n == ind {
			seen |= memberKey(t[n:])
		}
	}
	for j := i + 1; j < len(lines) && j-i <= maxRecordLines && lines[j-1].Number+1 == lines[j].Number; j++ {
		t := lines[j].Text
		n := indentOf(t)
		if n < ind {
			break
		}
		if n == ind {
			seen |= memberKey(t[n:])
		}
	}
	return templateRecord(seen)
}

// templateRecord reports whether a mask of templateKeys is a generated
// record's.
func templateRecord(m uint32) bool {
	return bits32(m) >= minTemplateKeys && bits32(m&distinctKeys) >= minDistinctKeys
}

// bits32 counts the bits set in m.
func bits32(m uint32) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// indentOf returns the number of blanks and tabs that begin b.
func indentOf(b []byte) int {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t') {
		n++
	}
	return n
}

// memberKey returns the bit of templateKeys that the JSON member t
// ("key": value, after its indentation) names, or 0.
func memberKey(t []byte) uint32 {
	if len(t) < 3 || t[0] != '"' {
		return 0
	}
	e := bytes.IndexByte(t[1:], '"')
	if e < 0 {
		return 0
	}
	rest := bytes.TrimLeft(t[e+2:], " \t")
	if len(rest) == 0 || rest[0] != ':' {
		return 0
	}
	return keyBit(t[1 : e+1])
}

// inlineKeys returns the mask of templateKeys named as members ("key":)
// in seg, an object written on one line.
func inlineKeys(seg []byte) uint32 {
	var m uint32
	for k := 0; k < len(seg); k++ {
		if seg[k] != '"' || (k > 0 && seg[k-1] == '\\') {
			continue
		}
		e := bytes.IndexByte(seg[k+1:], '"')
		if e < 0 {
			break
		}
		rest := bytes.TrimLeft(seg[k+e+2:], " \t")
		if len(rest) > 0 && rest[0] == ':' {
			m |= keyBit(seg[k+1 : k+1+e])
		}
		k += e + 1
	}
	return m
}

// keyBit returns the bit of templateKeys for key, or 0.
func keyBit(key []byte) uint32 {
	for i, k := range templateKeys {
		if string(key) == k {
			return 1 << i
		}
	}
	return 0
}
