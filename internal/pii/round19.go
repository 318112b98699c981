package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// The forms held-out round 19 showed (docs/design/pii-precision.md,
// "Round 19's forms"): Composer files under another name, SSH and SFTP
// extension names, a header continuation written "Name, <address>", a
// code of conduct's contact sentence, a commit message adding a person to
// AUTHORS, a triple-quoted __author__, a project template's author
// setting and a Go clock reading. Each reads a grammar or a file format
// and runs only where a cheap test (the file's kind, a byte of the line,
// a candidate address) lets it.

// composerVariant reports a Composer manifest or lock file under another
// name (base in lower case): Composer reads the manifest its COMPOSER
// variable names and writes the lock beside it with the same stem
// (COMPOSER=composer.legacy.json writes composer.legacy.lock), so
// "composer.<stem>.json" is a manifest and "composer.<stem>.lock" a lock
// file, in the formats of composer.json and composer.lock.
func composerVariant(base, ext string) bool {
	return len(base) > len("composer.")+len(ext)+1 && strings.HasPrefix(base, "composer.") && strings.HasSuffix(base, "."+ext)
}

// protocolNameDescription describes an address-shaped SSH protocol name.
const protocolNameDescription = "An address-shaped SSH or SFTP protocol name (RFC 4251 section 6: name@domain names an extension, a request or an algorithm), used as such in a file about SSH: not a mailbox, reported as a note."

// sshNames holds the SSH protocol names a fragment uses, read at the
// first quoted candidate that needs them.
type sshNames struct {
	read  bool
	names [][]byte
}

// protocolName reports whether the address at text[start:end] is quoted
// ('name@domain' or "name@domain"), its local part has no '.' or '+' (a
// protocol name is one token: "newline", "hostkeys-00"), and the same
// quoted name is used in the fragment as an SSH or SFTP protocol name:
// the key of an extensions array (extensions['name@domain']) or the first
// argument of a call whose name ends in "request", in a fragment about
// SSH (its path or one of its lines names SSH or SFTP); or, in any
// fragment, the first argument of a call named for SSH's global or
// channel requests (global_request("name@domain", …), RFC 4254's
// SSH_MSG_GLOBAL_REQUEST and SSH_MSG_CHANNEL_REQUEST) or compared with
// such a request's recorded name (assertEqual('name@domain',
// server._global_request), x.global_request == 'name@domain'). RFC 4251
// §6 writes local extension names name@domain: requests, channel types,
// algorithms and, in SFTP, extension pairs. A prose mention of the name
// (a comment explaining the extension) is lowered with its use.
func (s *sshNames) protocolName(f *scanner.Fragment, text []byte, start, end int) bool {
	q := before(text, start)
	if (q != '\'' && q != '"') || at(text, end) != q {
		return false
	}
	at := bytes.IndexByte(text[start:end], '@')
	if at < 0 || bytes.ContainsAny(text[start:start+at], ".+") {
		return false
	}
	if !s.read {
		s.read = true
		s.names = readSSHNames(f.Lines, sshFragment(f))
	}
	for _, n := range s.names {
		if bytes.Equal(n, text[start:end]) {
			return true
		}
	}
	return false
}

// sshFragment reports a fragment about SSH: its path, or one of its lines,
// names SSH or SFTP ("ssh" or "sftp" not after a letter: SFTP.php,
// ssh_config, paramiko.SSHClient; and "openssh").
func sshFragment(f *scanner.Fragment) bool {
	if sshWord([]byte(f.Path)) {
		return true
	}
	for _, l := range f.Lines {
		if sshWord(l.Text) {
			return true
		}
	}
	return false
}

// sshWord reports "ssh" or "sftp" in b, not after a letter, or "openssh".
func sshWord(b []byte) bool {
	for i := 0; i+3 <= len(b); i++ {
		c := lowerASCII(b[i])
		if c != 's' && c != 'o' {
			continue
		}
		if equalFold(b[i:i+3], "ssh") || (i+4 <= len(b) && equalFold(b[i:i+4], "sftp")) {
			if !isAlpha(before(b, i)) {
				return true
			}
		}
		if i+7 <= len(b) && equalFold(b[i:i+7], "openssh") {
			return true
		}
	}
	return false
}

// readSSHNames returns the quoted address-shaped names the lines use as
// protocol names: with about (the fragment is about SSH), after
// "extensions[" or as the first argument of a call whose name ends in
// "request" (sendRequest(, global_request(); in any fragment, as a global
// or channel request's name (sshRequestUse).
func readSSHNames(lines []scanner.Line, about bool) [][]byte {
	var names [][]byte
	for _, l := range lines {
		t := l.Text
		if bytes.IndexByte(t, '@') < 0 {
			continue
		}
		for i := 0; i < len(t); i++ {
			q := t[i]
			if q != '\'' && q != '"' {
				continue
			}
			e := bytes.IndexByte(t[i+1:], q)
			if e < 0 {
				break
			}
			name := t[i+1 : i+1+e]
			if bytes.Count(name, []byte("@")) == 1 && !bytes.ContainsAny(name, " \t") &&
				((about && protocolUse(t[:i])) || sshRequestUse(t[:i], t[i+2+e:])) {
				names = append(names, name)
			}
			i += e + 1
		}
	}
	return names
}

// protocolUse reports whether head, the text before a quoted string, ends
// with "extensions[" or with a call "…request(" (blanks allowed after the
// bracket or parenthesis).
func protocolUse(head []byte) bool {
	head = bytes.TrimRight(head, " \t")
	switch {
	case bytes.HasSuffix(head, []byte("[")):
		return hasSuffixFold(bytes.TrimRight(head[:len(head)-1], " \t"), "extensions")
	case bytes.HasSuffix(head, []byte("(")):
		return hasSuffixFold(head[:len(head)-1], "request")
	}
	return false
}

// sshRequestUse reports whether a quoted string between head and tail is
// an SSH global or channel request's name: the first argument of a call
// whose name ends in global_request or channel_request (any case, '_'
// optional: send_global_request(, globalRequest(), or compared with an
// expression whose last name ends so ("== x.global_request", ",
// server._global_request)" as the other argument of an assertion).
func sshRequestUse(head, tail []byte) bool {
	head = bytes.TrimRight(head, " \t")
	if bytes.HasSuffix(head, []byte("(")) && sshRequestName(lastName(head[:len(head)-1])) {
		return true
	}
	if bytes.HasSuffix(head, []byte("==")) && sshRequestName(lastName(bytes.TrimRight(head[:len(head)-2], " \t"))) {
		return true
	}
	tail = bytes.TrimLeft(tail, " \t")
	switch {
	case bytes.HasPrefix(tail, []byte("==")):
		tail = tail[2:]
	case bytes.HasPrefix(tail, []byte(",")):
		tail = tail[1:]
	default:
		return false
	}
	tail = bytes.TrimLeft(tail, " \t")
	n := 0
	for n < len(tail) && (isWord(tail[n]) || tail[n] == '.') {
		n++
	}
	if c := at(tail, n); c != 0 && c != ')' && c != ',' && c != ' ' && c != ':' {
		return false
	}
	return sshRequestName(lastName(tail[:n]))
}

// lastName returns the identifier that ends b (after its last '.', or
// "->").
func lastName(b []byte) []byte {
	k := len(b)
	for k > 0 && isWord(b[k-1]) {
		k--
	}
	return b[k:]
}

// sshRequestName reports an identifier that ends in global_request or
// channel_request, any case, the '_' optional.
func sshRequestName(name []byte) bool {
	for _, s := range []string{"global_request", "globalrequest", "channel_request", "channelrequest"} {
		if hasSuffixFold(name, s) {
			return true
		}
	}
	return false
}

// commaIdent returns name without one trailing comma: a header's holders
// aligned under the first are written "Name <address>" or "Name,
// <address>", the comma that separated them in a list kept.
func commaIdent(name []byte) []byte {
	if len(name) > 1 && name[len(name)-1] == ',' {
		return bytes.TrimRight(name[:len(name)-1], " ")
	}
	return name
}

// conductSentence reports an address offered by a code of conduct's
// enforcement sentence, wherever the text is copied (a README's "Code of
// conduct" section, the docs): "Please report any unacceptable behaviour
// to <address>", "Instances of abusive, harassing, or otherwise
// unacceptable behavior may be reported by contacting the project team at
// <address>". The line holds "report" or "contact" before the address,
// right before it "to" or "at" (a link's or bracket's opener between),
// and "unacceptable behavio" on it or on one of the two lines before it
// in the file.
func conductSentence(lines []scanner.Line, i, start int) bool {
	text := lines[i].Text
	head := bytes.TrimRight(text[:start], " \t<([*_`")
	if bytes.HasSuffix(head, []byte("mailto:")) {
		head = bytes.TrimRight(head[:len(head)-len("mailto:")], " \t<([*_`")
	}
	if !(hasSuffixFold(head, " to") || hasSuffixFold(head, " at")) || !(containsFold(head, "report") || containsFold(head, "contact")) {
		return false
	}
	if containsFold(head, "unacceptable behavio") {
		return true
	}
	for k := i - 1; k >= 0 && k >= i-2; k-- {
		if lines[k].Number != lines[k+1].Number-1 {
			return false
		}
		if containsFold(lines[k].Text, "unacceptable behavio") {
			return true
		}
	}
	return false
}

// addedToCreditFile reports, in a commit message, an address in git's
// ident form followed by "to AUTHORS" (or CONTRIBUTORS, THANKS, maybe
// after "the", before an extension or "file"): the message of a commit
// that adds the person to the file whose own lines are credits.
func addedToCreditFile(text []byte, start, end int) bool {
	if !identForm(text, start, end) {
		return false
	}
	rest := bytes.TrimLeft(text[end+1:], " \t")
	if len(rest) < 3 || !equalFold(rest[:3], "to ") {
		return false
	}
	rest = bytes.TrimLeft(rest[3:], " \t")
	if len(rest) >= 4 && equalFold(rest[:4], "the ") {
		rest = bytes.TrimLeft(rest[4:], " \t")
	}
	for _, n := range []string{"authors", "contributors", "thanks", "credits", "maintainers"} {
		if len(rest) >= len(n) && equalFold(rest[:len(n)], n) {
			c := at(rest, len(n))
			return c == 0 || c == ' ' || c == '.' || c == '\r' || c == ','
		}
	}
	return false
}

// dunderBlock tracks a Python module's credit dunder (__author__,
// __maintainer__, __credits__, __email__) assigned a triple-quoted string
// that continues over the next lines ("__author__ = """\" then one
// "Name <address>;\" a line): every line of the string is the credit.
type dunderBlock struct {
	quote []byte // the open string's quotes, nil when none is open
	last  int    // the number of the string's last line read
}

// dunderCredits are the module dunders that name its people.
var dunderCredits = []string{"__author__", "__maintainer__", "__credits__", "__email__"}

// next reads one line and reports whether it is a continuation line of
// a credit dunder's triple-quoted string (its closing line included).
func (d *dunderBlock) next(l scanner.Line) bool {
	if d.quote != nil {
		if l.Number != d.last+1 {
			d.quote = nil // the hunk skipped lines: the string is not followed
		} else {
			d.last = l.Number
			if bytes.Contains(l.Text, d.quote) {
				d.quote = nil
			}
			return true
		}
	}
	t := l.Text
	if len(t) == 0 || t[0] != '_' {
		return false // a module's dunder begins its line
	}
	for _, n := range dunderCredits {
		if !bytes.HasPrefix(t, []byte(n)) {
			continue
		}
		rest := bytes.TrimLeft(t[len(n):], " \t")
		if len(rest) == 0 || rest[0] != '=' {
			return false
		}
		rest = bytes.TrimLeft(rest[1:], " \t")
		rest = bytes.TrimLeft(rest, "rRuU")
		for _, q := range []string{`"""`, `'''`} {
			if bytes.HasPrefix(rest, []byte(q)) && !bytes.Contains(rest[3:], []byte(q)) {
				d.quote, d.last = []byte(q), l.Number
			}
		}
		return false
	}
	return false
}

// cookiecutterEmail reports an address as the value of an email key
// (email, author_email, …) in a .cookiecutterrc, cookiecutter's user
// configuration: its default_context holds the author identity a project
// template fills in (full_name, email, github_username), the project's
// author as setup.py's author_email is.
func cookiecutterEmail(p string, text []byte, start int) bool {
	if path.Base(p) != ".cookiecutterrc" {
		return false
	}
	t := bytes.TrimLeft(text[:start], " \t")
	c := bytes.IndexByte(t, ':')
	if c <= 0 {
		return false
	}
	rest := bytes.Trim(t[c+1:], " \t\"'")
	return len(rest) == 0 && hasSuffixFold(t[:c], "email")
}

// goMonotonicReading reports the '+' at p as the sign of the monotonic
// clock reading Go prints after a time.Time's zone ("… +0000 UTC
// m=+61.310501783"): "m=" before it, then seconds, a '.' and nine digits,
// which a log line quotes and a phone number's grammar would read as
// eleven digits.
func goMonotonicReading(b []byte, p int) bool {
	if before(b, p) != '=' || before(b, p-1) != 'm' || isWord(before(b, p-2)) {
		return false
	}
	k := p + 1
	for k < len(b) && isDigit(b[k]) {
		k++
	}
	if k == p+1 || at(b, k) != '.' {
		return false
	}
	n := 0
	for k++; k < len(b) && isDigit(b[k]); k++ {
		n++
	}
	return n == 9
}
