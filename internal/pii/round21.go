package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// The rules built after held-out round 21 (bench/results/precision.md,
// "Rules built after round 21"; docs/design/pii-precision.md, "Round 21's
// shapes").

// round21 is the per-fragment state of the severity rules built after
// round 21, each gated by the file's kind, decided once per fragment.
type round21 struct {
	// changelog: a change log or NEWS file outside fixtures.
	changelog bool
	// ruby: a Ruby source file outside fixtures, whose heredocs hold
	// documentation (a Puppet function's doc string).
	ruby bool
	// gettext: a gettext-setup locales/config.yaml.
	gettext bool
	// readme: a README outside fixtures, with its contact section.
	readme  bool
	contact contactSection
	// message: a commit message.
	message bool
	// docs: a documentation file outside fixtures.
	docs bool
	// contributing: a CONTRIBUTING file outside fixtures.
	contributing bool
	// source: a file outside fixtures (not a message), for a doc
	// comment's wrapped "adapted from … by" credit.
	source bool
	// gradle: a Gradle build script, with its POM's developers block.
	gradle     bool
	developers gradleDevelopers
}

// newRound21 returns the state of round 21's rules for a fragment of the
// file p, or of a commit message.
func newRound21(p string, message, docs bool) round21 {
	if message {
		return round21{message: true}
	}
	if p == "" {
		return round21{}
	}
	return round21{
		changelog:    changelogFile(p),
		ruby:         rubyFile(p),
		gettext:      gettextConfig(p),
		readme:       readmeName(p),
		docs:         docs && !inFixtureDir(p),
		contributing: baseNamed(p, []string{"CONTRIBUTING"}) && !inFixtureDir(p),
		source:       !inFixtureDir(p),
		gradle:       gradleScript(p),
	}
}

// next reads one line of the fragment, in order.
func (r *round21) next(line []byte) {
	if r.readme {
		r.contact.next(line)
	}
	if r.gradle {
		r.developers.next(line)
	}
}

// lower returns the description of a note for an email finding at
// lines[i].Text[start:end] that a round-21 rule reads as published, or
// "" when none does.
func (r *round21) lower(k kind, lines []scanner.Line, i, start, end int) string {
	if k != kindEmail {
		return ""
	}
	text := lines[i].Text
	switch {
	case r.changelog && wrappedThanks(lines, i, start, end):
		return attributionDescription
	case r.ruby && heredocSignature(lines, i):
		return attributionDescription
	case r.gettext && gettextBugsAddress(text, start):
		return bugContactDescription
	case r.readme && r.contact.open:
		return contactSectionDescription
	case r.message && pointsOut(text, start, end):
		return attributionDescription
	case r.docs && mailToDiscuss(text, start, end):
		return contactDescription
	case r.contributing && claMailbox(lines, i, start):
		return contactDescription
	case r.gradle && r.developers.in:
		return attributionDescription
	case r.source && adaptedByWrapped(lines, i, start):
		return attributionDescription
	}
	return ""
}

// wrappedThanks reports a change-log entry's credit wrapped before the
// address: the line starts with "<address>", then ends, or goes on with
// "for" and a verb ending in -ing ("for reporting", "for contributing
// this fix", "for diagnosing"), and the line before it in the file holds
// "thanks" (or "thank") with no sentence end after it and ends on a
// letter, the last word of the name the address belongs to ("… Thanks
// Ada Example" / "<address> for reporting."). An address without
// brackets, another word after it, or a line before that ends a sentence
// or holds no thanks keeps the warning.
func wrappedThanks(lines []scanner.Line, i, start, end int) bool {
	if i == 0 || lines[i-1].Number+1 != lines[i].Number {
		return false
	}
	text := lines[i].Text
	if before(text, start) != '<' || at(text, end) != '>' || len(bytes.TrimLeft(text[:start-1], " \t-*+")) != 0 {
		return false
	}
	rest := bytes.TrimRight(text[end+1:], " \t\r")
	if len(rest) > 0 && !(len(rest) == 1 && (rest[0] == '.' || rest[0] == ',')) {
		r := bytes.TrimLeft(rest, " \t")
		if len(r) == len(rest) || !bytes.HasPrefix(r, []byte("for ")) {
			return false
		}
		w := bytes.TrimLeft(r[4:], " ")
		n := 0
		for n < len(w) && isAlpha(w[n]) {
			n++
		}
		if !hasSuffixFold(w[:n], "ing") {
			return false
		}
	}
	prev := bytes.TrimRight(lines[i-1].Text, " \t\r")
	if !isAlpha(before(prev, len(prev))) && before(prev, len(prev)) < 0x80 {
		return false
	}
	j := -1
	for _, w := range []string{"thanks", "thank"} {
		if k := lastWordFold(prev, w); k > j {
			j = k
		}
	}
	if j < 0 {
		return false
	}
	// No sentence end after the thanks: ". " before a capital that is
	// not an initial (Ada B. Example keeps its dot).
	tail := prev[j:]
	for k := 1; k+1 < len(tail); k++ {
		if (tail[k] == '.' || tail[k] == '!' || tail[k] == '?') && tail[k+1] == ' ' && !(isUpper(tail[k-1]) && !isAlpha(before(tail, k-1))) {
			return false
		}
	}
	return true
}

// lastWordFold returns the index of the last occurrence of the lower case
// word w in b as a whole word, ignoring case, or -1.
func lastWordFold(b []byte, w string) int {
	for i := len(b) - len(w); i >= 0; i-- {
		if equalFold(b[i:i+len(w)], w) && !isWord(before(b, i)) && !isWord(at(b, i+len(w))) {
			return i
		}
	}
	return -1
}

// heredocSignature reports a documentation heredoc's closing signature
// in Ruby: the line is only "Name <address>" (or "* Name <address>"), and
// the lines after it in the fragment, up to the heredoc's terminator, are
// blank or more such lines. The terminator is a line that is only an
// identifier in capitals (ENDHEREDOC, EOS, EOT, DOC), the word Ruby's
// <<-WORD and <<~WORD close on: a Puppet function's doc string ends with
// its author's signature. A signature followed by code, by prose, or
// not followed by the terminator in the fragment keeps the warning.
func heredocSignature(lines []scanner.Line, i int) bool {
	if !identLine(lines[i].Text) {
		return false
	}
	for j := i + 1; j < len(lines) && j <= i+heredocTail; j++ {
		if lines[j].Number != lines[j-1].Number+1 {
			return false
		}
		t := bytes.TrimSpace(lines[j].Text)
		switch {
		case len(t) == 0, identLine(t):
			continue
		case heredocTerminator(t):
			return true
		default:
			return false
		}
	}
	return false
}

// heredocTail is how many lines after a signature the terminator is
// looked for.
const heredocTail = 6

// heredocTerminator reports a line that is only a heredoc's closing
// identifier: two or more capitals, digits or underscores, starting with
// a capital.
func heredocTerminator(t []byte) bool {
	if len(t) < 2 || !isUpper(t[0]) {
		return false
	}
	for _, c := range t {
		if !isUpper(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

// gettextConfig reports the configuration of Puppet's gettext-setup
// tooling, locales/config.yaml: the project's name, its default locale,
// its copyright holder and the address its .pot file gives for bug
// reports (a .po header's Report-Msgid-Bugs-To, read by poBugsField).
func gettextConfig(p string) bool {
	dir, base := path.Split(p)
	return base == "config.yaml" && (dir == "locales/" || strings.HasSuffix(dir, "/locales/")) && !inFixtureDir(p)
}

// gettextBugsAddress reports the address of the bugs_address key.
func gettextBugsAddress(line []byte, start int) bool {
	key, ok := lineKey(line[:start])
	return ok && equalFold(key, "bugs_address")
}

// contactSectionDescription describes an email finding in a README's
// contact section.
const contactSectionDescription = "An email address in a README's contact section: a contact published on purpose, reported as a note."

// contactSection tracks a README's section whose heading holds the word
// "contact" (# Contact, ## Contact Information #): where a project
// publishes how to reach its maintainers. It ends at the next heading.
type contactSection struct {
	open bool
}

// next reads one line; a Markdown heading opens or closes the section.
func (s *contactSection) next(line []byte) {
	if len(line) == 0 || line[0] != '#' {
		return
	}
	t := bytes.TrimLeft(line, "#")
	if len(t) > 0 && t[0] != ' ' && t[0] != '\t' {
		return // "#x": not a heading
	}
	s.open = wordIn(t, "contact")
}

// pointsOut reports, in a commit message, "Name <address> points out"
// (or "pointed out"): the body crediting the person who found what the
// commit fixes. The address is in angle brackets after a name and the
// words follow the bracket; anything else keeps the warning.
func pointsOut(line []byte, start, end int) bool {
	if !identForm(line, start, end) {
		return false
	}
	rest := bytes.TrimLeft(line[end+1:], " ")
	return bytes.HasPrefix(rest, []byte("points out")) || bytes.HasPrefix(rest, []byte("pointed out"))
}

// newsMessageID reports whether the ':' at i closes a news: URI's scheme
// (news:local@host): RFC 5538's news URI names an article by its
// Message-ID without the angle brackets, as cid: names a message part.
func newsMessageID(b []byte, i int) bool {
	return i >= 4 && equalFold(b[i-4:i], "news") && !isWord(before(b, i-4))
}

// mailToDiscuss reports, in documentation, "send mail to <address> to
// discuss …": a verb of mailing (mail, email, e-mail, write) earlier in
// the sentence, "to" right before the address (past brackets and
// backquotes) and "to discuss" right after it: the maintainers' address
// offered for discussing a change, as discussContact reads "discuss …
// at <address>". Another verb after the address, or no mailing verb
// before it, keeps the warning.
func mailToDiscuss(line []byte, start, end int) bool {
	head := bytes.TrimRight(line[sentenceStart(line, start):start], " \t<`*_[(")
	if !hasSuffixFold(head, "to") || isAlpha(before(head, len(head)-2)) {
		return false
	}
	verb := false
	for _, v := range []string{"mail", "write"} {
		if indexFold(head, v) >= 0 {
			verb = true
		}
	}
	if !verb {
		return false
	}
	rest := bytes.TrimLeft(line[end:], ">`*_]) \t")
	return len(rest) >= 10 && equalFold(rest[:10], "to discuss") && !isAlpha(at(rest, 10))
}

// claMailbox reports, in a CONTRIBUTING file, the mailbox its paragraph
// about the contributor licence agreement gives for questions: the
// address right after "at", "to" or "email" (with an optional colon),
// and its line, or the line before it in the file when its own line
// starts its sentence's continuation, names the agreement ("CLA", or
// "license agreement"/"licence agreement") with no sentence end after
// it. ("If you have any questions about the CLA, please feel free to /
// contact the company via email at <address>".) An address elsewhere
// in the guide keeps the warning.
func claMailbox(lines []scanner.Line, i, start int) bool {
	text := lines[i].Text
	head := bytes.TrimRight(text[:start], " \t<`*_[(:")
	prep := false
	for _, w := range []string{"at", "to", "email", "e-mail"} {
		if hasSuffixFold(head, w) && !isAlpha(before(head, len(head)-len(w))) {
			prep = true
			break
		}
	}
	if !prep {
		return false
	}
	s := sentenceStart(text, start)
	if claWords(text[s:start]) {
		return true
	}
	if s != 0 || i == 0 || lines[i-1].Number+1 != lines[i].Number {
		return false
	}
	prev := lines[i-1].Text
	j := -1
	if k := claIndex(prev); k >= 0 {
		j = k
	}
	return j >= 0 && sentenceStart(prev, len(prev)) <= j
}

// claWords reports text naming a contributor licence agreement.
func claWords(b []byte) bool { return claIndex(b) >= 0 }

// claIndex returns where b names a contributor licence agreement (the
// word CLA in capitals, or "license agreement"), or -1.
func claIndex(b []byte) int {
	for i := 0; i+3 <= len(b); i++ {
		if string(b[i:i+3]) == "CLA" && !isWord(before(b, i)) && !isWord(at(b, i+3)) {
			return i
		}
	}
	if k := indexFold(b, "license agreement"); k >= 0 {
		return k
	}
	return indexFold(b, "licence agreement")
}

// gradleScript reports a Gradle build script (*.gradle, *.gradle.kts)
// outside fixtures.
func gradleScript(p string) bool {
	return (strings.HasSuffix(p, ".gradle") || strings.HasSuffix(p, ".gradle.kts")) && !inFixtureDir(p)
}

// gradleDevelopers follows a Gradle script's "developers { … }" block,
// the Maven POM's <developers> written in Gradle's DSL (pom.project { …
// developers { developer { id …; name …; email … } } }): the people a
// published artifact names, as the XML POM's block is read.
type gradleDevelopers struct {
	depth int
	// in: the line read last belongs to the block.
	in bool
}

// next reads one line of the script.
func (g *gradleDevelopers) next(line []byte) {
	if g.depth > 0 {
		g.in = true
		g.depth += brackets(line)
		if g.depth < 0 {
			g.depth = 0
		}
		return
	}
	g.in = false
	t := bytes.TrimSpace(line)
	if !bytes.HasPrefix(t, []byte("developers")) || isWord(at(t, 10)) {
		return
	}
	if n := brackets(line); n > 0 {
		g.in = true
		g.depth = n
	}
}

// adaptedByWrapped reports a doc comment's credit "adapted from X by
// Name and <address> at <URL>" wrapped before the address: the address
// is the first word of its line after the comment marker, and the line
// before it in the file holds "adapted from" and then the word "by",
// with no sentence end after it, and ends with "and" or a comma (the
// list of the credited goes on). Another sentence, a line before that
// ends the credit, or an address later in its line keeps the warning.
func adaptedByWrapped(lines []scanner.Line, i, start int) bool {
	if i == 0 || lines[i-1].Number+1 != lines[i].Number {
		return false
	}
	if len(bytes.Trim(lines[i].Text[:start], " \t*/#<")) != 0 {
		return false
	}
	prev := bytes.TrimRight(lines[i-1].Text, " \t\r")
	if !(hasSuffixFold(prev, " and") || bytes.HasSuffix(prev, []byte(","))) {
		return false
	}
	j := indexFold(prev, "adapted from")
	if j < 0 {
		return false
	}
	if !wordIn(prev[j:], "by") {
		return false
	}
	return sentenceStart(prev, len(prev)) <= j
}
