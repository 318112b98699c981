package pii

import (
	"bytes"

	"github.com/privscan/privscan/scanner"
)

// Held-out round 12's rules: a mailing list named by its Mailman page's
// URL, a signing key named by its user ID, and an author's email field in
// a header comment.

// signingKeyDescription describes an email finding that names a signing
// key by its user ID.
const signingKeyDescription = "An email address naming a signing key by its user ID (the argument of a signing tool's key-selection option): the identity published with the public key, reported as a note."

// listPathMarkers are the path segments (lower case) after which Mailman,
// HyperKitty and Postorius name a list in their URLs:
// ".../mailman/listinfo/<list>", ".../archives/list/<list>@host/",
// ".../postorius/lists/<list>.host/", ".../pipermail/<list>/".
var listPathMarkers = []string{"/listinfo/", "/archives/list/", "/lists/", "/pipermail/"}

// listNameByte reports a byte of a list name in a URL path.
func listNameByte(c byte) bool { return isAlnum(c) || c == '-' || c == '_' || c == '.' || c == '+' }

// mailmanListLink reports an address whose line links to the page of the
// mailing list the address is: a URL path holding "/listinfo/<list>"
// (Mailman 2), "/archives/list/<list>@host" (HyperKitty), "/lists/<list>"
// or "/lists/<list>.<host>" (Postorius' list id) or "/pipermail/<list>"
// (Mailman's archives), where <list> equals the address's local part (and
// the host, in a list id, its domain), ignoring case. By Mailman's own URL
// grammar the address is the list's posting address, written as the text
// of the link or beside it ("[list@host](…/listinfo/list)", "<a
// href=\"…/listinfo/list\">list@host</a>"): a list is published to be
// written to. An address whose local part is not the list's name (a
// person's, beside the list's link) keeps the warning.
func mailmanListLink(names [][]byte, line []byte, start, end int) bool {
	a := bytes.IndexByte(line[start:end], '@')
	if a <= 0 {
		return false
	}
	local, domain := line[start:start+a], line[start+a+1:end]
	for _, name := range names {
		if bytes.EqualFold(name, local) {
			return true
		}
		// Postorius' list id: "<list>.<host>".
		if len(name) == len(local)+1+len(domain) && bytes.EqualFold(name[:len(local)], local) &&
			name[len(local)] == '.' && bytes.EqualFold(name[len(local)+1:], domain) {
			return true
		}
	}
	return false
}

// listNames returns the list names that the URL paths of a line name
// after one of listPathMarkers (see mailmanListLink). It reads the line
// once, so a line of many addresses is not read once per address.
func listNames(line []byte) [][]byte {
	var names [][]byte
	for i := 0; i < len(line); i++ {
		if line[i] != '/' {
			continue
		}
		for _, m := range listPathMarkers {
			if i+len(m) > len(line) || !equalFold(line[i:i+len(m)], m) {
				continue
			}
			j := i + len(m)
			k := j
			for k < len(line) && listNameByte(line[k]) {
				k++
			}
			if k > j {
				names = append(names, line[j:k])
			}
		}
	}
	return names
}

// signingTools are the commands (base names) whose key-selection options
// name a signing key, each with those options. A short option may be
// glued to its argument ("-kaddress"), a long one written with '='.
var signingTools = []struct {
	name string
	opts []string
}{
	{"gpg", gpgKeyOptions},
	{"gpg2", gpgKeyOptions},
	{"twine", []string{"-i", "--identity"}},
	{"git", []string{"-u", "--local-user", "-S", "--gpg-sign"}},
	{"debsign", []string{"-k"}},
	{"debuild", []string{"-k"}},
	{"dpkg-buildpackage", []string{"-k", "--sign-key"}},
	{"dpkg-sig", []string{"-k"}},
	{"rpmsign", []string{"--key-id"}},
	// RubyGems' "gem cert --build address": the address is the subject
	// of the self-signed certificate that signs the gem, published with
	// it (round 24).
	{"gem", []string{"--build", "-b"}},
}

// gpgKeyOptions are GnuPG's options that select a key of the keyring:
// the signer, a key to export, to sign or to list. Not among them: the
// recipient options (-r, --recipient, --encrypt-to, --hidden-recipient),
// which name whom data is encrypted for.
var gpgKeyOptions = []string{
	"-u", "--local-user", "--default-key", "--export", "--export-secret-key", "--export-secret-keys",
	"--export-secret-subkeys", "--export-ssh-key", "--sign-key", "--lsign-key", "--quick-sign-key",
	"--quick-lsign-key", "--edit-key", "--fingerprint", "--list-keys", "--list-public-keys",
	"--list-secret-keys", "-k", "-K", "--send-keys",
}

// gpgFlags are flags without an argument that may stand between a key
// option and the key's user ID ("gpg --export-secret-key --armour id").
var gpgFlags = []string{"--armor", "--armour", "-a", "--batch", "--yes", "-q", "--quiet", "--no-tty"}

// signingWindow is how many bytes before an address signingKeyArg reads:
// a command line's option and tool, not a whole long line per address.
const signingWindow = 256

// signingLookback is how many words before the key option signingKeyArg
// reads for the tool's name.
const signingLookback = 8

// signingKeyArg reports an address that names a signing key by its user
// ID on a command line: the argument of a signing tool's key-selection
// option ("gpg -u address", "gpg --export-secret-key --armour address",
// "twine upload -s -i address", "git tag -u address", "debsign -kaddress",
// "--local-user=address"), or the value of RPM's "_gpg_name" macro ("rpm
// --define '_gpg_name Name <address>'", "%_gpg_name address") or git's
// "user.signingkey". A key's user ID is published with the public key,
// as the keyring rule's uid lines are. The option that names a recipient
// ("gpg -r address", "--recipient address") keeps the warning: it
// encrypts data for a person.
func signingKeyArg(line []byte, start int) bool {
	head := line[:start]
	if len(head) > signingWindow {
		head = head[len(head)-signingWindow:]
	}
	head = bytes.TrimRight(head, "'\"<")
	if macroValue(head, "_gpg_name") || macroValue(head, "signingkey") {
		return true
	}
	words := bytes.Fields(head)
	if len(words) == 0 {
		return false
	}
	// The option: the last word, glued to the address ("-kaddress",
	// "--local-user=address") or followed by blanks.
	last := words[len(words)-1]
	var opt []byte
	switch {
	case len(head) > 0 && (head[len(head)-1] == ' ' || head[len(head)-1] == '\t'):
		opt = last
	case bytes.HasSuffix(last, []byte("=")) && bytes.HasPrefix(last, []byte("--")):
		opt = last[:len(last)-1]
	case len(last) == 2 && last[0] == '-' && isAlpha(last[1]):
		opt = last
	case len(last) == 1 && last[0] == '-':
		// A short option glued to the address, which the address's
		// span begins with ("-kaddress").
		opt = []byte{'-', line[start]}
	default:
		return false
	}
	// Flags between the key option and the address (gpg's armour).
	n := len(words) - 1
	for n > 0 && isOneOf(opt, gpgFlags) && words[n-1][0] == '-' {
		n--
		opt = words[n]
	}
	// The tool: a word before the option, within the same command.
	for k := n - 1; k >= 0 && k >= n-signingLookback; k-- {
		w := words[k]
		if bytes.ContainsAny(w, "|;&") {
			return false
		}
		w = toolName(w)
		for _, t := range signingTools {
			if string(w) == t.name {
				return isOneOf(opt, t.opts)
			}
		}
	}
	return false
}

// macroValue reports whether head ends with a value of the macro or key
// name: the name, blanks or '=', and then only a name's words ("_gpg_name
// Ana Example <", "user.signingkey ", "signingkey = ").
func macroValue(head []byte, name string) bool {
	for i := len(head) - len(name); i >= 0; i-- {
		if !equalFold(head[i:i+len(name)], name) {
			continue
		}
		if isWord(before(head, i)) && before(head, i) != '_' {
			return false
		}
		rest := head[i+len(name):]
		if len(rest) == 0 || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '=') {
			return false
		}
		for _, c := range rest {
			if !isAlpha(c) && c != ' ' && c != '\t' && c != '=' && c != '.' && c != '-' {
				return false
			}
		}
		return true
	}
	return false
}

// toolName returns a command word's base name: without a path, quotes, a
// command substitution's "$(" or backquote, or an assignment before it.
func toolName(w []byte) []byte {
	if i := bytes.LastIndexAny(w, "=(`/\"'"); i >= 0 {
		w = w[i+1:]
	}
	return w
}

// isOneOf reports whether w is exactly one of list (oneOfFold ignores case).
func isOneOf(w []byte, list []string) bool {
	for _, s := range list {
		if string(w) == s {
			return true
		}
	}
	return false
}

// authorFields tracks, across a file's header comment, a block of fields
// that describe its author: consecutive comment lines each "key: value"
// (with or without a leading '@', as "//@Author: Name", "# Author: Name",
// " * @author Name"), in which an "Author:" field with a name has been
// read. The block ends at a line that is not such a field.
type authorFields struct {
	author bool
	last   int // the line number of the last field
}

// authorFieldKeys are the keys (lower case) of an author's name field.
var authorFieldKeys = []string{"author", "original author", "maintainer"}

// emailFieldKeys are the keys (lower case) of an email field.
var emailFieldKeys = []string{"email", "e-mail", "mail", "author email", "author-email"}

// next reads a line (inHeader: it is a line of the header comment) and
// returns the offset of its value when it is an email field that an
// author field precedes in the same block, or -1.
func (a *authorFields) next(l scanner.Line, inHeader bool) int {
	if !inHeader || (a.author && l.Number != a.last+1) {
		a.author = false
	}
	if !inHeader {
		return -1
	}
	t := bytes.TrimLeft(l.Text, " \t")
	body := commentBody(t)
	if body == nil {
		a.author = false
		return -1
	}
	body = bytes.TrimLeft(body, "@")
	colon := bytes.IndexByte(body, ':')
	if colon <= 0 {
		a.author = false
		return -1
	}
	key := bytes.TrimRight(body[:colon], " \t")
	for _, c := range key {
		if !isAlpha(c) && c != ' ' && c != '-' && c != '_' {
			a.author = false
			return -1
		}
	}
	value := bytes.TrimLeft(body[colon+1:], " \t")
	off := len(l.Text) - len(value)
	a.last = l.Number
	for _, k := range authorFieldKeys {
		if equalFold(key, k) {
			a.author = bytes.IndexFunc(value, func(r rune) bool { return r >= 0x80 || isAlpha(byte(r)) }) >= 0
			return -1
		}
	}
	for _, k := range emailFieldKeys {
		if equalFold(key, k) && a.author {
			return off
		}
	}
	return -1
}

// linkedLists returns listNames(line), reading the line on the first call
// only (*read records it, *names holds the result).
func linkedLists(line []byte, names *[][]byte, read *bool) [][]byte {
	if !*read {
		*names, *read = listNames(line), true
	}
	return *names
}
