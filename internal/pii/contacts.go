package pii

import (
	"bytes"
	"path"
	"strings"
)

// bugContactDescription describes an email finding named as where to
// report bugs or send patches.
const bugContactDescription = "An email address named as where to report bugs or send patches: a contact published on purpose, reported as a note."

// bugVerbs and bugObjects are the words (lower case) of a sentence that
// asks for bug reports or patches: a verb of sending or reporting and
// what is sent ("Report bugs to", "Send bug reports to", "Please send
// patches to", "report the problem to … and/or to").
var (
	bugVerbs   = []string{"report", "reports", "reported", "reporting", "send", "sent", "submit", "submitted", "mail", "mailed", "email", "e-mail", "post", "forward", "direct"}
	bugObjects = []string{"bug", "bugs", "patch", "patches", "problem", "problems", "issue", "issues"}
)

// bugContact reports an address that its sentence names as where to
// report bugs or send patches: the sentence (the line's text between
// ". ", "! " or "? " before the address) holds a verb of reporting or
// sending and a bug, a patch, a problem or an issue, and the word right
// before the address is "to" ("Report bugs to <address>.", "Send bug
// reports to: address", "Please send patches to <address>", "report the
// problem to your system manager and/or to address"). GNU's tools and
// autotools scripts write it in their --help text and headers, and
// projects in their READMEs: a contact published to be written to, like
// a mailing list. An address on another line than the request, or after
// other words ("ask address about the bug"), keeps the warning.
func bugContact(line []byte, start int) bool {
	s := sentenceStart(line, start)
	head := bytes.TrimRight(line[s:start], " \t\"'`<(:[")
	if !hasSuffixFold(head, "to") || isAlpha(before(head, len(head)-2)) {
		return false
	}
	head = head[:len(head)-2]
	var verb, object bool
	for i := 0; i < len(head); {
		if !isAlpha(head[i]) {
			i++
			continue
		}
		j := i
		for j < len(head) && (isAlpha(head[j]) || (head[j] == '-' && isAlpha(at(head, j+1)))) {
			j++
		}
		w := head[i:j]
		for _, v := range bugVerbs {
			if equalFold(w, v) {
				verb = true
			}
		}
		for _, o := range bugObjects {
			if equalFold(w, o) {
				object = true
			}
		}
		i = j
	}
	return verb && object
}

// sentenceStart returns where the sentence around line[start] begins on
// its line: the blank after the last sentence end (". ", "! ", "? ")
// before start, or 0.
func sentenceStart(line []byte, start int) int {
	for k := start - 1; k > 0; k-- {
		if (line[k] == ' ' || line[k] == '\t') && (line[k-1] == '.' || line[k-1] == '!' || line[k-1] == '?') {
			return k
		}
	}
	return 0
}

// bugLabel reports an address that a header's label names as where to
// report bugs: the line, after its comment marker, is a label of up to
// four words holding a verb of reporting or sending and a bug or a
// patch ("Report Bugs:", "Report bugs here:", "Bug reports:", "Send
// patches:"), then a colon, then the address, alone or after URLs and
// an "or" ("Report Bugs: https://host/issues or address"). It is the
// sentence rule's request ("report bugs to address") in a header's
// field form. A label naming something else ("Author:", "Contact:"),
// other words before the address, and an address after a URL without
// "or" keep the warning.
func bugLabel(line []byte, start int) bool {
	head := bytes.TrimLeft(line[:start], " \t#/*;%!-")
	colon := bytes.IndexByte(head, ':')
	if colon < 0 {
		return false
	}
	words := bytes.Fields(head[:colon])
	if len(words) == 0 || len(words) > 4 {
		return false
	}
	var verb, object bool
	for _, w := range words {
		for _, c := range w {
			if !isAlpha(c) && c != '-' {
				return false
			}
		}
		for _, v := range bugVerbs {
			verb = verb || equalFold(w, v)
		}
		for _, o := range bugObjects {
			object = object || equalFold(w, o)
		}
	}
	if !verb || !object {
		return false
	}
	value := bytes.Fields(bytes.TrimRight(head[colon+1:], " \t<"))
	for k, f := range value {
		switch {
		case equalFold(f, "or") || equalFold(f, "and") || string(f) == "/" || string(f) == "|":
		case bytes.Contains(f, []byte("://")) && k < len(value)-1:
		default:
			return false
		}
	}
	return true
}

// conductDescription describes an email finding in a code of conduct.
const conductDescription = "An email address in a project's code of conduct: the contact the file exists to publish (where to report unacceptable behaviour), reported as a note."

// conductNames are a code of conduct's file names (lower case, without
// an extension).
var conductNames = []string{"code_of_conduct", "code-of-conduct", "codeofconduct", "conduct"}

// conductFile reports a project's code of conduct: a file named
// CODE_OF_CONDUCT, CODE-OF-CONDUCT, CODEOFCONDUCT or CONDUCT (any case;
// .md, .rst, .txt, .adoc or no extension) at the repository's root or
// directly under docs/, doc/ or .github/, where GitHub and the
// documentation look for it. Its addresses are the contact the file
// exists to publish. Anywhere else (a test's, a fixture's or an
// example's directory, a vendored module's tree) the name proves nothing
// and an address keeps the warning.
func conductFile(p string) bool {
	if p == "" || inFixtureDir(p) {
		return false
	}
	lp := strings.ToLower(p)
	switch dir := path.Dir(lp); dir {
	case ".", "docs", "doc", ".github":
	default:
		return false
	}
	base := path.Base(lp)
	switch ext := path.Ext(base); ext {
	case ".md", ".rst", ".txt", ".adoc":
		base = base[:len(base)-len(ext)]
	case "":
	default:
		return false
	}
	for _, n := range conductNames {
		if base == n {
			return true
		}
	}
	return false
}

// poFile reports a gettext catalog or template (.po, .pot).
func poFile(p string) bool {
	e := strings.ToLower(path.Ext(p))
	return e == ".po" || e == ".pot"
}

// poBugsField reports a line that is the Report-Msgid-Bugs-To field of a
// gettext header (the header entry's msgstr "" block writes each field as
// a string of its own: "Report-Msgid-Bugs-To: Name <address>\n"): where
// translators report bugs in the catalog's messages, published by the
// file's own grammar beside Last-Translator and Language-Team. The same
// words inside a translation's text do not start the line's string.
func poBugsField(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if len(t) == 0 || t[0] != '"' {
		return false
	}
	const key = "report-msgid-bugs-to:"
	return len(t) > len(key) && equalFold(t[1:1+len(key)], key)
}

// poTranslatorLine reports a translator line of a gettext catalog's header
// comment, "# Name <address>, 2017, 2019." (the name possibly empty:
// "#  <address>, 2017."), the form msginit and the GNU gettext manual
// give it: the address in angle brackets, then one or more years
// separated by ", " or '-', and an optional period. Other comment kinds
// ("#.", "#:", "#,", "#|") and other text after the address do not match.
func poTranslatorLine(line []byte, start, end int) bool {
	if len(line) < 2 || line[0] != '#' || (line[1] != ' ' && line[1] != '\t') {
		return false
	}
	if before(line, start) != '<' || at(line, end) != '>' || bytes.ContainsAny(line[:start-1], "<>") {
		return false
	}
	rest := bytes.TrimRight(line[end+1:], " \t\r")
	rest = bytes.TrimSuffix(rest, []byte("."))
	if len(rest) == 0 || rest[0] != ',' {
		return false
	}
	rest = rest[1:]
	for {
		rest = bytes.TrimLeft(rest, " ")
		k := 0
		for k < len(rest) && isDigit(rest[k]) {
			k++
		}
		if k != 4 {
			return false
		}
		rest = rest[k:]
		if len(rest) == 0 {
			return true
		}
		if rest[0] != ',' && rest[0] != '-' {
			return false
		}
		rest = rest[1:]
	}
}
