package pii

import (
	"bytes"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Email addresses: a dot-atom local part (letters, digits and . _ + -) and a
// domain of at least two labels whose top-level label is alphabetic, at
// least two letters long and not a common file extension. Addresses that
// cannot belong to a person are skipped: reserved and example domains,
// common placeholders (foo@bar.com, user1@…, john.doe@…), no-reply and
// daemon senders, GitHub's noreply relay, git@host SSH remotes. Strings
// that only look like addresses are skipped as well: module versions
// (pkg@v1.2.3), image digests (img@sha256:…), npm scopes, decorators,
// retina file names (icon@2x.png), systemd units (user@1000.service),
// format strings (%s@%s), template placeholders (${user}@${host}), Kotlin
// labels (this@Activity.method), Go field pairs (m.Path@m.Version), SSH
// algorithm names (aes128-gcm@openssh.com), URL credentials
// (https://user:pass@host), Message-IDs (<uuid@host>, Message-ID: <…>),
// Content-IDs (cid:logo@host), Kerberos principals (user@REALM.ORG),
// OData annotations (Members@odata.count: the top-level label must be a
// real one) and the ASCII column of hex dumps. See
// docs/design/pii-precision.md for the reasoning behind each shape.

const (
	maxLocal  = 64
	maxDomain = 253
	maxLabel  = 63
)

func findEmails(b []byte, report func(start, end int)) {
	off := 0
	for {
		j := bytes.IndexByte(b[off:], '@')
		if j < 0 {
			return
		}
		start, end, ok := emailAt(b, off+j)
		if ok {
			report(start, end)
			off = end
		} else {
			off += j + 1
		}
		if off >= len(b) {
			return
		}
	}
}

func isLocalByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '+' || c == '-'
}

func isDomainByte(c byte) bool { return isAlnum(c) || c == '-' || c == '.' }

// emailAt checks the address around the '@' at index i and returns its span.
func emailAt(b []byte, i int) (start, end int, ok bool) {
	// Local part, scanning left.
	start = i
	for start > 0 && isLocalByte(b[start-1]) {
		if i-start >= maxLocal {
			return 0, 0, false // over 64 bytes: a path or an encoded blob
		}
		start--
	}
	if c := before(b, start); c >= 0x80 {
		return 0, 0, false // non-ASCII letters glued on
	}
	for start < i && (b[start] == '.' || b[start] == '-' || b[start] == '+') {
		start++ // a sentence's or path's punctuation, not the address
	}
	if start == i || !isAlnum(b[start]) {
		return 0, 0, false
	}
	local := b[start:i]
	if local[len(local)-1] == '.' || bytes.Contains(local, []byte("..")) {
		return 0, 0, false
	}
	switch before(b, start) {
	case '%', '$', '{', '}', '@', '\\', '&', '*':
		// %s@%s, ${x}user@host, a@b@c, \user@host (escapes).
		return 0, 0, false
	case ':':
		if urlUserinfo(b, start-1) {
			return 0, 0, false // scheme://user:password@host: credentials, not an address
		}
		if k := start - 1; k >= 3 && equalFold(b[k-3:k], "cid") && !isWord(before(b, k-3)) {
			return 0, 0, false // cid:logo@host, an e-mail part's Content-ID
		}
		if newsMessageID(b, start-1) {
			return 0, 0, false // news:local@host, an article's Message-ID
		}
	case '/':
		if before(b, start-1) == '/' && before(b, start-2) == ':' {
			return 0, 0, false // scheme://user@host: a URL's user name, not an address
		}
		if bytes.HasSuffix(b[:start], []byte(`:\/\/`)) {
			return 0, 0, false // scheme:\/\/user@host: the same in a JSON string
		}
	case '"', '\'', '=':
		if realmValue(b, start) {
			return 0, 0, false // realm="testrealm@host.com", REALM = '…': an HTTP authentication realm's name
		}
		if realmCompared(b, start) {
			return 0, 0, false // wa.realm == '…': the same realm, asserted
		}
	case '<':
		if mailHeaderID(b, start-1) {
			return 0, 0, false // Message-ID: <local@host>, In-Reply-To, References
		}
	case '|':
		// The ASCII column of a hex dump ("6d 2c  |gcm@openssh.com,|")
		// shows 16-byte slices of text, not whole addresses.
		if before(b, start-1) == ' ' && (isHex(before(b, start-2)) || before(b, start-2) == ' ') {
			return 0, 0, false
		}
	}

	// Domain, scanning right.
	end = i + 1
	for end < len(b) && isDomainByte(b[end]) {
		if end-i > maxDomain {
			return 0, 0, false
		}
		end++
	}
	for end > i+1 && (b[end-1] == '.' || b[end-1] == '-') {
		end-- // trailing punctuation
	}
	if end == i+1 {
		return 0, 0, false
	}
	switch c := at(b, end); {
	case c == '@' || c == '_' || c >= 0x80:
		return 0, 0, false // a@b.c@d, an identifier, non-ASCII glued on
	case c == '(':
		return 0, 0, false // a method call: this@Outer.method()
	case c == '$' || c == '{' || c == '%':
		return 0, 0, false // user@${domain}.com, user@%s.example
	case c == ':' && scpTarget(b, start, end):
		return 0, 0, false // user@host:/path, the scp form of a remote location
	case c == ':' && digestA1(b, start, end):
		return 0, 0, false // user:realm@host:password, HTTP digest's A1 string
	case c == ':' && urlAuthority(b, start, end):
		return 0, 0, false // "user:password@host:port", a URL's network location without its scheme
	case (c == '"' || c == '\'') && digestRealmArg(b, start, end):
		return 0, 0, false // compute_ha1("MD5", "realm@host", …): the realm as an argument
	}
	domain := b[i+1 : end]
	if !validDomain(domain) || skipLocal(local, punycodeDomain(domain)) || skipDomain(domain) || kerberosPrincipal(local, domain) {
		return 0, 0, false
	}
	// SSH names algorithms and requests name@domain (RFC 4251 §6):
	// aes128-gcm@openssh.com, keepalive@openssh.com, curve25519-sha256@libssh.org.
	if equalFold(domain, "openssh.com") || equalFold(domain, "libssh.org") {
		return 0, 0, false
	}
	if urlPath(b, start) || sshDestination(b, start) || gmailImpossible(local, domain) {
		return 0, 0, false
	}
	if !rootDomain(domain) {
		return 0, 0, false
	}
	return start, end, true
}

// realmValue reports whether the address starting at start is the value
// assigned to a name ending in "realm" (realm="x@host", realm=x@host,
// REALM = 'x@host', DIGEST_REALM: "x@host"): an HTTP authentication
// realm (RFC 2617, RFC 7616), whose examples are address-shaped
// ("testrealm@host.com"). A longer word ending in the letters
// (surrealm=) is not a realm.
func realmValue(b []byte, start int) bool {
	k := start
	if c := before(b, k); c == '"' || c == '\'' {
		k--
	}
	for before(b, k) == ' ' {
		k--
	}
	if c := before(b, k); c != '=' && c != ':' {
		return false
	}
	k--
	for before(b, k) == ' ' {
		k--
	}
	head := b[:k]
	return hasSuffixFold(head, "realm") && !isAlpha(before(head, len(head)-5))
}

// digestA1 reports whether the address at b[start:end] sits between two
// colons inside one token, "user:realm@host:password", on a line that
// names HTTP digest authentication (md5(, digest, realm): the A1
// string RFC 2617 hashes (its example realm is "testrealm@host.com").
func digestA1(b []byte, start, end int) bool {
	if before(b, start) != ':' || !isWord(before(b, start-1)) || end+1 >= len(b) || b[end+1] == ' ' {
		return false
	}
	for _, w := range []string{"md5(", "digest", "realm"} {
		if containsFold(b, w) {
			return true
		}
	}
	return false
}

// digestHashes are the hash names of HTTP digest authentication's
// algorithm parameter (RFC 7616, section 3.3).
var digestHashes = []string{"md5", "md5-sess", "sha-256", "sha-256-sess", "sha-512-256", "sha-512-256-sess"}

// digestRealmArg reports whether the address at b[start:end], quoted
// with c = b[end], is a later argument of a call (after ',') on a line
// that names the A1 computation (ha1 or a1 as a word of an identifier:
// compute_ha1, HA1(, digest_a1, computeHa1) or digest authentication with
// a quoted hash name among its words (digest … "MD5", "MD5-sess",
// "SHA-256"): the protection space (realm) that A1 hashes, as realmValue
// reads realm="…". The same address as an argument of a call without an
// A1 or digest word (send_mail("MD5", address)) keeps the finding, and so
// does the first argument of an A1 call (ha1("address", realm, password)):
// A1 is username:realm:password, and a username may be a person's address.
func digestRealmArg(b []byte, start, end int) bool {
	q := b[end]
	if before(b, start) != q {
		return false
	}
	k := start - 1
	for before(b, k) == ' ' || before(b, k) == '\t' {
		k--
	}
	if before(b, k) != ',' {
		// The first argument of an A1 call is the username
		// (A1 = username:realm:password), maybe a person's address.
		return false
	}
	if a1Word(b) {
		return true
	}
	return containsFold(b, "digest") && quotedHashName(b)
}

// a1Word reports whether ha1 or a1 is a word of an identifier on the
// line: identifiers split at '_', at non-word bytes, and where a lower
// case letter or a digit meets an upper case one (computeHa1, HA1Value).
func a1Word(b []byte) bool {
	return identWords(b, func(w []byte) bool { return equalFold(w, "ha1") || equalFold(w, "a1") })
}

// quotedHashName reports a quoted string on the line that is one of
// digestHashes ("MD5", 'SHA-256').
func quotedHashName(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '"' && b[i] != '\'' {
			continue
		}
		for _, h := range digestHashes {
			if e := i + 1 + len(h); e < len(b) && b[e] == b[i] && equalFold(b[i+1:e], h) {
				return true
			}
		}
	}
	return false
}

// scpTarget reports whether the address at b[start:end], followed by
// ':', is the user and host of a remote location in the scp form that
// scp, rsync, sftp, ssh and git write (user@host:/path, user@host:~/dir,
// user@host:dir/file): a login on a machine, like a URL's userinfo, not a
// mailbox. The path must start with '/' or '~' or hold a '/' before the
// token ends; a bare word after the colon (user@host:repo.git) counts
// only after one of those commands on the same line.
func scpTarget(b []byte, start, end int) bool {
	rest := b[end+1:]
	n := 0
	for n < len(rest) && strings.IndexByte(" \t\"'`)]>,;", rest[n]) < 0 {
		n++
	}
	if n == 0 {
		return false
	}
	if rest[0] == '/' || rest[0] == '~' || bytes.IndexByte(rest[:n], '/') > 0 {
		return true
	}
	head := b[:start]
	for _, cmd := range []string{"scp", "rsync", "sftp", "ssh", "git clone", "git remote add", "git push", "git pull", "git fetch"} {
		for k := 0; ; {
			j := bytes.Index(head[k:], []byte(cmd))
			if j < 0 {
				break
			}
			j += k
			if !isWord(before(head, j)) && !isWord(at(head, j+len(cmd))) {
				return true
			}
			k = j + 1
		}
	}
	return false
}

// sshCommands are the commands whose first non-option argument is a
// destination, [user@]host (ssh(1), sftp(1), ssh-copy-id(1)), with the
// letters of their options that take an argument (-i file, -p port,
// -o option, -J jump, -l login, -F config …).
var sshCommands = []struct{ name, argOpts string }{
	{"ssh", "BbcDEeFIiJLlmOopQRSWw"},
	{"sftp", "BbcDFiJloPRSs"},
	{"ssh-copy-id", "iopFt"},
}

// sshDestination reports whether the address starting at start is the
// destination of an ssh, sftp or ssh-copy-id command on its line
// (ssh -i "$key" user@host cmd): by the command's grammar, the first
// argument after the options is a login on a machine, like the scp
// form's user@host:path, not a mailbox. An address later on the line
// (ssh host mail ana@host, the remote command) is not the destination
// and is still reported.
func sshDestination(b []byte, start int) bool {
	head := b[bytes.LastIndexByte(b[:start], '\n')+1 : start]
	for _, c := range sshCommands {
		for k := 0; ; {
			j := bytes.Index(head[k:], []byte(c.name))
			if j < 0 {
				break
			}
			j += k
			k = j + 1
			after := at(head, j+len(c.name))
			if after != ' ' && after != '\t' {
				continue
			}
			if j > 0 && strings.IndexByte(" \t;|&(`\"'/{", head[j-1]) < 0 {
				continue
			}
			if sshFirstArgument(head[j+len(c.name):], c.argOpts) {
				return true
			}
		}
	}
	return false
}

// sshFirstArgument reports whether args, the text between a command's
// name and an address, holds only options (and their arguments): the
// address is then the command's first non-option argument.
func sshFirstArgument(args []byte, argOpts string) bool {
	needArg := false
	for p := 0; ; {
		for p < len(args) && (args[p] == ' ' || args[p] == '\t') {
			p++
		}
		if p == len(args) || (p == len(args)-1 && (args[p] == '"' || args[p] == '\'')) {
			return true // the address's token starts here, maybe quoted
		}
		q, quote := p, byte(0)
		for q < len(args) && (quote != 0 || (args[q] != ' ' && args[q] != '\t')) {
			switch c := args[q]; {
			case quote == 0 && (c == '"' || c == '\''):
				quote = c
			case c == quote:
				quote = 0
			}
			q++
		}
		if q == len(args) {
			return false // the address is glued to a longer token ($user@host, -luser@host)
		}
		tok := args[p:q]
		p = q
		switch {
		case needArg:
			needArg = false
		case tok[0] == '-' && len(tok) > 1:
			needArg = len(tok) == 2 && strings.IndexByte(argOpts, tok[1]) >= 0
		default:
			return false // an earlier non-option word: the address is not the destination
		}
	}
}

// gmailImpossible reports an address at gmail.com or googlemail.com
// whose local part cannot name a Gmail account and is written as a
// placeholder: Gmail's user names are 6 to 30 letters and digits, dots
// ignored (a "+tag" after them is sub-addressing), so a local part
// holding a character Gmail does not allow (first_last@) or longer than
// 30 is no account; a shorter one is lowered only when it is a word that
// stands for a party of the example (you@, me@, dest@, user@), since a
// short given name there (the reviewers' "person-in-fixture-or-doc")
// still reads as a person's address.
func gmailImpossible(local, domain []byte) bool {
	if !equalFold(domain, "gmail.com") && !equalFold(domain, "googlemail.com") {
		return false
	}
	if k := bytes.IndexByte(local, '+'); k >= 0 {
		local = local[:k]
	}
	var buf [maxLocal]byte
	n := 0
	for _, c := range local {
		switch {
		case isAlnum(c):
			buf[n] = lowerASCII(c)
			n++
		case c != '.':
			return true
		}
	}
	if n > 30 {
		return true
	}
	if n >= 6 {
		return false
	}
	for _, w := range gmailPartyWords {
		if string(buf[:n]) == w {
			return true
		}
	}
	return false
}

// gmailPartyWords are the words, all shorter than a Gmail user name,
// that examples write for the parties of a message or an account.
var gmailPartyWords = []string{"you", "me", "my", "your", "user", "dest", "src", "from", "to", "recip", "rcpt", "peer", "name", "mail", "email", "test"}

// urlPath reports whether the address starting at start is in the path
// of a URL (https://lore.example.org/r/20240101.1234-1-id@host/): a
// mailing-list archive names a message by its Message-ID there, and a
// mailbox has no business in a path. An address in the query (after a
// '?': ?q=ana@host, ?a=1&email=) is still reported: that is where forms
// put people's addresses. Before the '?', '=' and '&' are characters of
// the path (a Message-ID holds base64's '=' padding).
func urlPath(b []byte, start int) bool {
	slash := false
	for k := start; k > 0; k-- {
		switch c := b[k-1]; c {
		case ' ', '\t', '"', '\'', '<', '>', '(', ')', '[', ']', '`', ',', '|':
			return false
		case '?', '#':
			// The query or the fragment: a '=' or '&' before a '?' is
			// a path's character (a Message-ID's base64 padding).
			return false
		case '/':
			if k >= 2 && b[k-2] == '/' {
				// The authority starts after "//": the address is in the
				// path only if a '/' came after it.
				return slash && k >= 3 && b[k-3] == ':'
			}
			slash = true
		}
	}
	return false
}

// urlUserinfo reports whether the ':' at i separates a URL's user name
// and password: the token it is in starts with "scheme://".
func urlUserinfo(b []byte, i int) bool {
	for k := i; k > 1; k-- {
		switch b[k-1] {
		case ' ', '\t', '"', '\'', '<', '(', '[', '=', ',':
			return false
		case '/':
			if b[k-2] == '/' || (b[k-2] == '\\' && k >= 3 && b[k-3] == '/') {
				return true // "//", or "\/\/" in a JSON string
			}
		}
	}
	return false
}

// mailHeaderID reports whether the '<' at i opens the value of a mail
// header or field that holds message or part identifiers (Message-ID,
// In-Reply-To, References, Content-ID, also as messageId: or
// "message_id": keys): local@host there names a message, not a mailbox.
func mailHeaderID(b []byte, i int) bool {
	k := i
	for k > 0 {
		switch b[k-1] {
		case ' ', '\t', '\'', '"', '`', ':', '=', ',':
			k--
			continue
		case '>':
			// An earlier identifier of the same header: References: <a@h> <b@h>.
			if j := bytes.LastIndexByte(b[:k-1], '<'); j >= 0 && bytes.IndexByte(b[j:k-1], ' ') < 0 {
				k = j
				continue
			}
		}
		break
	}
	head := b[:k]
	for _, h := range []string{"message-id", "messageid", "message_id", "in-reply-to", "inreplyto", "in_reply_to",
		"references", "content-id", "contentid", "content_id"} {
		if hasSuffixFold(head, h) && !isAlnum(before(head, len(head)-len(h))) {
			return true
		}
	}
	return false
}

// kerberosPrincipal reports user@REALM: Kerberos realms are written in
// capitals (host.foo.org@FOO.ORG, john@CORP.ORG), mail domains practically
// never are while the local part is in lower case. An address in capitals
// throughout (DAVE@BIGCO.COM) is still an address.
func kerberosPrincipal(local, domain []byte) bool {
	upper := false
	for _, c := range domain {
		if isLower(c) {
			return false
		}
		upper = upper || isUpper(c)
	}
	if !upper {
		return false
	}
	for _, c := range local {
		if isLower(c) {
			return true
		}
	}
	return false
}

// validDomain checks the labels of domain and its top-level label.
func validDomain(domain []byte) bool {
	tld := domain[bytes.LastIndexByte(domain, '.')+1:]
	labels := 0
	lastStart := 0
	for i := 0; i <= len(domain); i++ {
		if i < len(domain) && domain[i] != '.' {
			continue
		}
		label := domain[lastStart:i]
		if len(label) == 0 || len(label) > maxLabel || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		if hasCamelHump(label) && !mailTLD(tld) {
			// Outer.method, SomeClass.field: code, not a host. Under a
			// country code or a classic generic TLD a capitalised host
			// is a person's way of writing it (Ana@MailHost.IO).
			return false
		}
		labels++
		lastStart = i + 1
	}
	if labels < 2 {
		return false
	}
	if len(tld) < 2 || len(tld) > 24 {
		return false
	}
	// Letters, or an internationalised TLD in its ASCII form (xn--p1ai),
	// which rootDomain checks against the root zone.
	idn := len(tld) > 4 && equalFold(tld[:4], "xn--")
	for _, c := range tld {
		if !isAlpha(c) && !(idn && (isDigit(c) || c == '-')) {
			return false
		}
	}

	// A first label like v1 or v12 is a module version, not a host.
	first := domain[:bytes.IndexByte(domain, '.')]
	if len(first) >= 2 && (first[0] == 'v' || first[0] == 'V') && allDigits(first[1:]) {
		return false
	}
	// A capitalised long last label is a Go or Java field (m.Path@m.Version).
	if isUpper(tld[0]) && len(tld) >= 4 && isLower(tld[1]) {
		return false
	}
	return !isFileExtension(tld)
}

// mailTLD reports a country-code or classic generic top-level label, under
// which a capitalised host name is not code.
func mailTLD(tld []byte) bool {
	if len(tld) == 2 {
		return isAlpha(tld[0]) && isAlpha(tld[1])
	}
	for _, s := range []string{"com", "net", "org", "edu", "gov", "mil", "int", "info", "biz"} {
		if equalFold(tld, s) {
			return true
		}
	}
	return false
}

// icannTLD reports whether tld (at most 24 letters) is a top-level domain
// of the root zone, without allocating.
func icannTLD(tld []byte) bool {
	var buf [24]byte
	n := copy(buf[:], tld)
	for i := range buf[:n] {
		buf[i] = lowerASCII(buf[i])
	}
	_, icann := publicsuffix.PublicSuffix(string(buf[:n]))
	return icann
}

// registrableName returns the label left of the public suffix of d
// (lower case): "example" for mail.example.co.uk. ok is false when d is a
// public suffix itself or longer than the buffer.
func registrableName(d []byte) (name [maxLabel]byte, n int, ok bool) {
	var buf [128]byte
	if len(d) > len(buf) {
		return name, 0, false
	}
	for i, c := range d {
		buf[i] = lowerASCII(c)
	}
	s := string(buf[:len(d)])
	suffix, _ := publicsuffix.PublicSuffix(s)
	if len(suffix) >= len(s) {
		return name, 0, false
	}
	rest := s[:len(s)-len(suffix)-1]
	rest = rest[strings.LastIndexByte(rest, '.')+1:]
	n = copy(name[:], rest)
	return name, n, n > 0
}

// hasCamelHump reports a lowercase letter directly followed by an
// uppercase one, which host names written by people practically never have.
func hasCamelHump(label []byte) bool {
	for i := 1; i < len(label); i++ {
		if isLower(label[i-1]) && isUpper(label[i]) {
			return true
		}
	}
	return false
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// fileExtensions are top-level labels that, in code, are far more likely a
// file name (icon@2x.png, lib@1x.min.js) than a country or generic TLD.
var fileExtensions = []string{
	"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "tif", "tiff", "avif", "heic",
	"js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "css", "scss", "sass", "less", "map",
	"go", "mod", "sum", "json", "yaml", "yml", "toml", "ini", "cfg", "conf", "xml", "html", "htm",
	"md", "mdx", "txt", "rst", "csv", "tsv", "log", "lock", "proto", "sql",
	"py", "rb", "rs", "java", "kt", "kts", "scala", "swift", "cs", "fs", "php", "pl", "lua", "dart",
	"c", "h", "cc", "cpp", "hpp", "hh", "cxx", "sh", "bash", "zsh", "ps", "bat", "cmd",
	"zip", "gz", "tgz", "tar", "bz", "xz", "zst", "whl", "jar", "war", "deb", "rpm", "dmg", "exe", "dll", "so", "wasm",
	"pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "mp3", "mp4", "wav", "mov", "avi", "webm", "ogg",
	"woff", "ttf", "otf", "eot", "vue", "svelte", "tmpl", "tpl", "erb", "j2", "tf", "hcl", "nix", "bzl",
	// systemd unit instances: user@1000.service, getty@tty1.target.
	"service", "socket", "target", "mount", "automount", "timer", "slice", "scope", "swap",
}

func isFileExtension(tld []byte) bool {
	for _, ext := range fileExtensions {
		if equalFold(tld, ext) {
			return true
		}
	}
	return false
}

// punycodeDomain reports a domain with an internationalised label in its
// ASCII form (xn--80ak6aa92e.com): someone wrote out a real host's
// registered name, which fixtures built from placeholder words never do.
func punycodeDomain(domain []byte) bool {
	for len(domain) > 0 {
		if len(domain) > 4 && equalFold(domain[:4], "xn--") {
			return true
		}
		k := bytes.IndexByte(domain, '.')
		if k < 0 {
			break
		}
		domain = domain[k+1:]
	}
	return false
}

// skipLocal reports senders that are not people, and identifiers that only
// look like a local part. Under a punycode domain (idn) the placeholder
// shapes (one letter, fixture words) do not apply: the host is a real
// one, so the address is too; machine senders are still skipped.
func skipLocal(local []byte, idn bool) bool {
	var buf [maxLocal]byte
	n := 0
	for _, c := range local {
		if c == '.' || c == '-' || c == '_' {
			continue
		}
		if c == '+' {
			break // sub-addressing tag
		}
		buf[n] = lowerASCII(c)
		n++
	}
	l := buf[:n]
	for _, p := range []string{"noreply", "donotreply", "noresponse", "nobody"} {
		if bytes.HasPrefix(l, []byte(p)) {
			return true
		}
	}
	// A sender named so after a prefix, as a word of its own
	// ("service-no-reply@", "foo_noreply@").
	if bytes.HasSuffix(l, []byte("noreply")) && noReplyWord(local) {
		return true
	}
	// Numbered placeholders and mailboxes: user1, dummy2, new3, mailer2.
	base := bytes.TrimRight(l, "0123456789")
	lists := [][]string{roleLocals, placeholderLocals}
	if idn {
		lists = lists[:1]
	}
	for _, list := range lists {
		for _, s := range list {
			if string(l) == s || string(base) == s {
				return true
			}
		}
	}
	if botLocal(local, l) || projectAlias(local) {
		return true
	}
	if idn {
		return false
	}
	// A one-letter local part (a@b.com, d@e.com), or one letter repeated
	// (aaa@, xxxx@): a placeholder.
	if len(l) == 1 || (len(l) <= 8 && bytes.Count(l, l[:1]) == len(l) && len(l) > 0) {
		return true
	}
	if placeholderWords(base) || placeholderPrefix(local) || testPart(local) {
		return true
	}
	// Message-IDs and generated keys: a UUID or a long hex string.
	hex := 0
	for _, c := range local {
		if isHex(c) {
			hex++
		}
	}
	return len(local) >= 24 && hex >= len(local)-4
}

// aliasRoles are the roles a project's alias names after its name and a
// hyphen (project-security@, project-conduct@, python-maint@).
var aliasRoles = []string{"security", "conduct", "coc", "support", "maint", "maintainers", "maintainer",
	"team", "core", "abuse", "privacy", "announce", "devel", "users", "owners", "admins", "steering", "board", "devteam"}

// projectAlias reports a local part that names a project's role after a
// hyphen or underscore: a mailing list or alias of a team, not a
// person's mailbox (people's hyphenated local parts end in a name).
func projectAlias(local []byte) bool {
	return lastWordIn(local, aliasRoles)
}

// lastWordIn reports a local part of two or more words joined by '-' or
// '_' whose last word is one of words (lower case).
func lastWordIn(local []byte, words []string) bool {
	k := bytes.LastIndexAny(local, "-_")
	if k <= 0 || k == len(local)-1 {
		return false
	}
	last := local[k+1:]
	for _, w := range words {
		if equalFold(last, w) {
			return true
		}
	}
	return false
}

// botLocal reports automation senders: a local part ending in "bot" after a
// separator (release-bot, ci_bot), and the usual bots by name.
func botLocal(local, norm []byte) bool {
	if n := len(local); n >= 4 && equalFold(local[n-3:], "bot") {
		switch local[n-4] {
		case '-', '_', '.', '+':
			return true
		}
	}
	for _, s := range []string{"bot", "dependabot", "renovatebot", "githubactions", "greenkeeper", "mergify", "semanticrelease"} {
		if string(norm) == s {
			return true
		}
	}
	return false
}

// placeholderVocabulary are the words that test fixtures build addresses
// from (testemail@, someemail@, new_staff@, different@, jon.doe@). A local
// part made only of these words is a placeholder. It holds no given names
// or surnames on their own, so a person's address never consists of them.
var placeholderVocabulary = []string{
	// qualifiers
	"test", "testing", "dummy", "fake", "sample", "example", "invalid", "valid", "placeholder",
	"demo", "temp", "tmp", "old", "new", "other", "another", "different", "first", "second", "third",
	"default", "my", "your", "some", "any", "random", "unknown", "anonymous", "existing",
	"nonexistent", "nonexisting", "wrong", "updated", "changed", "primary", "secondary", "alt",
	"abc", "xyz",
	// nouns
	"user", "users", "email", "mail", "customer", "client", "staff", "admin", "account", "person",
	"name", "guest", "member", "buyer", "seller", "address", "recipient", "sender", "contact",
	"johndoe", "jondoe", "janedoe", "foo", "bar", "baz", "qux",
}

// placeholderWords reports whether w (lower case, no separators) is a
// concatenation of at most three placeholder words.
func placeholderWords(w []byte) bool {
	return len(w) > 0 && placeholderSplit(w, 3)
}

func placeholderSplit(w []byte, words int) bool {
	if len(w) == 0 {
		return true
	}
	if words == 0 {
		return false
	}
	for _, v := range placeholderVocabulary {
		if len(w) >= len(v) && string(w[:len(v)]) == v && placeholderSplit(w[len(v):], words-1) {
			return true
		}
	}
	return false
}

// testPart reports a local part with a separated part that names a test
// account (safewithme.testuser@, ana.test@, qa_dummy2@) or is a keyboard
// placeholder (shopping.abc123@, alias.xyz@).
func testPart(local []byte) bool {
	var buf [maxLocal]byte
	for len(local) > 0 {
		i := bytes.IndexAny(local, ".-_+")
		part := local
		if i >= 0 {
			part, local = local[:i], local[i+1:]
		} else {
			local = nil
		}
		n := copy(buf[:], part)
		w := buf[:n]
		for j := range w {
			w[j] = lowerASCII(w[j])
		}
		w = bytes.TrimRight(w, "0123456789")
		switch string(w) {
		case "abc", "xyz", "qwerty", "asdf":
			return true
		}
		for _, q := range []string{"test", "testing", "dummy", "fake", "placeholder"} {
			if bytes.HasPrefix(w, []byte(q)) && placeholderSplit(w[len(q):], 2) {
				return true
			}
		}
	}
	return false
}

// placeholderPrefix reports a local part that starts with a fixture word
// followed by a word boundary: a separator, a digit or a capital
// (testInvalidConfig@, fake_user@, emailUserx1@, dummy.account@).
func placeholderPrefix(local []byte) bool {
	for _, p := range []string{"test", "dummy", "fake", "sample", "example", "invalid", "placeholder", "demo", "email", "user"} {
		if len(local) > len(p) && equalFold(local[:len(p)], p) {
			c := local[len(p)]
			if c == '.' || c == '-' || c == '_' || c == '+' || isDigit(c) || (isUpper(c) && !isUpper(local[len(p)-1])) {
				return true
			}
		}
	}
	return false
}

// placeholderLocals are local parts (lowercased, without . - _) that are
// not people: service senders, Kotlin labels and the usual placeholders.
var placeholderLocals = []string{
	"mailerdaemon", "postmaster", "git", "this", "super", "return", "break", "continue",
	"foo", "bar", "baz", "foobar", "xxx", "xyz", "abc", "test", "tester", "user", "username",
	"someone", "somebody", "anyone", "johndoe", "janedoe", "jdoe", "yourname", "youremail",
	"yourmail", "name", "email",
	// a message's parties by their role in it (round 31): from@, to@
	"from", "to", "rcpt", "receiver", "bcc", "cc",
}

// roleLocals are role and project mailboxes (lowercased, without . - _):
// they reach a function, not a person.
var roleLocals = []string{
	"info", "contact", "hello", "hi", "support", "help", "helpdesk", "security", "secalert",
	"abuse", "admin", "admins", "administrator", "administrators", "webmaster", "hostmaster", "sales", "marketing", "press",
	"media", "legal", "license", "licensing", "privacy", "compliance", "billing", "accounts", "jobs", "careers", "hr",
	"team", "office", "feedback", "conduct", "codeofconduct", "opensource", "community",
	"maintainers", "dev", "devs", "developer", "developers", "devteam", "ops", "devops", "sysadmin",
	"root", "notifications", "notification", "alerts", "bounce", "bounces", "mailer", "daemon",
	"newsletter", "announce", "list", "listserv", "majordomo", "owner", "bugs", "issues", "status",
	"build", "builder", "ci", "release", "releases", "deploy", "automation",
	// a project's signing key's mailbox (round 29)
	"pgp", "gpg",
}

// placeholderDomains are used in documentation and tests, never for mail.
var placeholderDomains = []string{
	"foo.com", "bar.com", "baz.com", "foo.bar", "foo.foo", "foobar.com", "test.com", "domain.com",
	"yourdomain.com", "mydomain.com", "yourcompany.com", "company.com", "acme.com", "acme.org",
	"xxx.com", "xyz.com", "yyy.zzz", "email.tld", "domain.tld", "host.tld",
	// security tests' stock parties
	"evil.com", "attacker.com", "target.com", "victim.com", "good.com", "bad.com", "malicious.com",
}

// placeholderNames are registrable-domain names that are placeholders
// under any suffix (example.jp, somedomain.com, other.net, mycompany.co.uk,
// com.com).
var placeholderNames = []string{
	"example", "examples", "somedomain", "anydomain", "mydomain", "yourdomain",
	"otherdomain", "localhost", "mycompany", "yourcompany", "somecompany", "other", "another",
	"somewhere", "nowhere", "fake", "dummy", "sample", "placeholder", "invalid", "com", "net", "org",
}

// skipDomain reports reserved, example, placeholder, mailing-list and relay
// domains.
func skipDomain(d []byte) bool {
	for _, s := range placeholderDomains {
		if equalFold(d, s) {
			return true
		}
	}
	// Test-mail services and machine senders: fake SMTP inboxes, Amazon
	// SES (its mailbox simulator and Message-IDs), Google Cloud service
	// accounts. Mailing lists reach many people, not one: Google Groups,
	// Yahoo Groups, groups.io and lists.* hosts.
	for _, s := range []string{"ethereal.email", "mailinator.com", "mailtrap.io", "amazonses.com",
		"iam.gserviceaccount.com", "developer.gserviceaccount.com", "googlegroups.com", "yahoogroups.com", "groups.io"} {
		if equalFold(d, s) || hasSuffixFold(d, "."+s) {
			return true
		}
	}
	if len(d) > 6 && (equalFold(d[:6], "lists.") || equalFold(d[:5], "list.")) {
		return true
	}
	for _, s := range []string{"example.com", "example.org", "example.net", "users.noreply.github.com"} {
		if equalFold(d, s) || hasSuffixFold(d, "."+s) {
			return true
		}
	}
	for _, s := range []string{".test", ".example", ".invalid", ".localhost", ".local", ".internal", ".localdomain"} {
		if hasSuffixFold(d, s) {
			return true
		}
	}
	// The registrable name: a placeholder word, or one letter (jane@e.com).
	return false
}

// rootDomain reports whether domain, already through validDomain and
// skipDomain, ends in a top-level label the root zone has (in code,
// Members@odata.count and default@email.from end in a word, not a TLD),
// and is not registered under a placeholder name (example.jp,
// somedomain.com, other.net, com.com) or a one-letter one (jane@e.com).
// It runs last: the public-suffix look-up allocates, the other checks
// don't.
func rootDomain(d []byte) bool {
	if !icannTLD(d[bytes.LastIndexByte(d, '.')+1:]) {
		return false
	}
	buf, n, ok := registrableName(d)
	if !ok {
		return true
	}
	name := buf[:n]
	if len(name) == 1 {
		return false
	}
	for _, s := range placeholderNames {
		if string(name) == s {
			return false
		}
	}
	return true
}

var emailSamples = samples{
	TP: []sample{
		{"contact: maria.silva@acme-corp.com", "maria.silva@acme-corp.com"},
		{`To: "Ana Lima <ana.lima+ci@mail.provider.co.uk>"`, "ana.lima+ci@mail.provider.co.uk"},
		{`{"email":"j_smith-99@uni.edu"}`, "j_smith-99@uni.edu"},
		{"// Questions? Write to (bob@corp.io).", "bob@corp.io"},
		{"mailto:alice@company.de?subject=hi", "alice@company.de"},
		// Not a URL's user name or path: a comment, a query, a protocol-relative path.
		{"//maria.keller@mailhost.de", "maria.keller@mailhost.de"},
		{"https://keys.mailhost.io/search?q=maria.keller@mailhost.de", "maria.keller@mailhost.de"},
		{"see https://mailhost.io/u?email=maria.keller@mailhost.de&x=1", "maria.keller@mailhost.de"},
		{"<https://mailhost.io/about> maria.keller@mailhost.de", "maria.keller@mailhost.de"},
		{"send to .carol@firm.fr.", "carol@firm.fr"},
		{"DAVE@BIGCO.COM wrote:", "DAVE@BIGCO.COM"},
		{"12345678@qq.com", "12345678@qq.com"},
		{"Signed-off-by: Erin Fox <erin@fox.dev>", "erin@fox.dev"},
		{"user_email = 'x.y@sub.domain.travel'", "x.y@sub.domain.travel"},
		// A person's address in a fixture stays a finding, also when it
		// looks a little like the placeholder shapes below.
		{`email="maria.keller@mailhost.de",`, "maria.keller@mailhost.de"},
		{"'to': 'testa.maria@mailhost.io'", "testa.maria@mailhost.io"},
		{"newton.lee@mailhost.io", "newton.lee@mailhost.io"},
		{`surrealm="ana.lima@mailhost.io"`, "ana.lima@mailhost.io"},
		{"ana-securityteam@mailhost.io", "ana-securityteam@mailhost.io"},
		{"team-ana@mailhost.io", "team-ana@mailhost.io"},
		{"Sven.Example@Mail.DE", "Sven.Example@Mail.DE"},
		{"contact: bo.robot@mailhost.io", "bo.robot@mailhost.io"},
		{"ana.sample@lists-mailhost.io", "ana.sample@lists-mailhost.io"},
		{"ines@examplecorp.jp", "ines@examplecorp.jp"},
		{"oscar@ex.co", "oscar@ex.co"},
		{"maria.abcarian@mailhost.io", "maria.abcarian@mailhost.io"},
		// Capitalised hosts under a mail TLD, and IDN TLDs in ASCII form.
		{"user: Ana.Lima@MailHost.IO", "Ana.Lima@MailHost.IO"},
		{"Regards, Bo Sample <Bo.Sample@SampleCorp.com>", "Bo.Sample@SampleCorp.com"},
		{"ivan.petrov@mailhost.xn--p1ai", "ivan.petrov@mailhost.xn--p1ai"},
		// Punycode labels (Presidio's recognizer tests): a real host's
		// registered name, so the placeholder shapes of the local part
		// do not apply.
		{"user@xn--80ak6aa92e.com", "user@xn--80ak6aa92e.com"},
		{"a@xn--d1acufc.xn--p1ai", "a@xn--d1acufc.xn--p1ai"},
		{"to: ana@mail.xn--80ak6aa92e.com.", "ana@mail.xn--80ak6aa92e.com"},
		// An address inside a quoted local part is still a person's.
		{`'"ana.lima@mailhost.io x"@relay.mailhost.io'`, "ana.lima@mailhost.io"},
		// A colon after an address that is not the scp form: a label, a
		// port-less word, a YAML key.
		{"ana.lima@mailhost.io: please review", "ana.lima@mailhost.io"},
		{"ana.lima@mailhost.io:admin", "ana.lima@mailhost.io"},
		{"user:ana.lima@mailhost.io:x", "ana.lima@mailhost.io"},
		{"sha1:ana.lima@mailhost.io:x", "ana.lima@mailhost.io"},
		{"digest of user:ana.lima@mailhost.io: done", "ana.lima@mailhost.io"},
		{"surrealm = 'ana.lima@mailhost.io'", "ana.lima@mailhost.io"},
		{"name = 'ana.lima@mailhost.io' # realm", "ana.lima@mailhost.io"},
		{"  to: ana.lima@mailhost.io:", "ana.lima@mailhost.io"},
		// Not an ssh destination: another command, or the remote
		// command's argument after the destination.
		{"mail ana.lima@mailhost.io < report.txt", "ana.lima@mailhost.io"},
		{"echo ana.lima@mailhost.io", "ana.lima@mailhost.io"},
		{"ssh build.mailhost.io mail ana.lima@mailhost.io", "ana.lima@mailhost.io"},
		{"ssh -i key build.mailhost.io 'notify ana.lima@mailhost.io'", "ana.lima@mailhost.io"},
		{"sshd_config: ana.lima@mailhost.io", "ana.lima@mailhost.io"},
		{"cssh ana.lima@mailhost.io", "ana.lima@mailhost.io"},
		// A Gmail user name of 6 letters and digits or more is an account.
		{"nina.berg+ci@gmail.com", "nina.berg+ci@gmail.com"},
		{"ninabe@googlemail.com", "ninabe@googlemail.com"},
		{"to: n.i.n.a.b.e@gmail.com", "n.i.n.a.b.e@gmail.com"},
		// A short given name there still reads as a person's.
		{`username="nina@gmail.com"`, "nina@gmail.com"},
		{"bo.li@googlemail.com", "bo.li@googlemail.com"},
	},
	FP: []string{
		"contact: jane@example.com",
		"noreply@xn--80ak6aa92e.com",
		// HTTP authentication realms (RFC 7616).
		`WWW-Authenticate: Digest realm="ana.lima@mailhost.io", qop="auth"`, "realm=ana.lima@mailhost.io",
		// A project's role aliases.
		"report to acme-security@mailhost.io", "acme_conduct@mailhost.io", "tool-maint@mailhost.io", "widget-users@mailhost.io",
		// A URL's user name, and Message-IDs in a mailing-list archive's path.
		"git clone https://ana.lima@mailhost.io/org/repo.git", "ssh://deploy.user@mailhost.io:2222/srv",
		"https://lore.mailhost.org/r/20240101120000.12345-1-ana.lima@mailhost.io/",
		"[archive](https://lists-mailhost.org/archives/msg/CAF1234abcd.ana@mail.mailhost.io)",
		// HTTP digest: a realm constant, and the A1 string hashed.
		"  REALM = 'ana.lima@mailhost.io'", `DIGEST_REALM: "ana.lima@mailhost.io"`,
		`digest = "md5(md5(Ana:ana.lima@mailhost.io:Circle Of Life):NONCE:00000001)"`,
		"ha1 = md5('bo:ana.lima@mailhost.io:secret')",
		// The scp form of a remote location: a login on a machine.
		"sh %{rsync -av site/ ana.lima@mailhost.io:/var/www/projects/tool}",
		`SitePath = "ana.lima@shell.mailhost.io:/var/www/projects/#{Name}"`,
		"scp -r ../doc/* ana.lima@web.mailhost.io:/home/groups/t/to/tool/htdocs/doc",
		"rsync -a out/ ana@mailhost.io:~/public_html/", "scp build.tgz ana@mailhost.io:releases/",
		"git clone ana.lima@mailhost.io:tool.git", "ssh ana.lima@mailhost.io:backup",
		// An ssh, sftp or ssh-copy-id destination: a login on a machine.
		`_hosts="$(ssh -i "$key_file" api.user@ssh.mailhost.io hosts)"`,
		"ssh -p 2222 -o StrictHostKeyChecking=no deploy.user@build.mailhost.io uptime",
		"sftp -i ~/.ssh/id -P 22 ana.lima@files.mailhost.io",
		"ssh-copy-id -i ~/.ssh/id.pub ana.lima@box.mailhost.io", "/usr/bin/ssh -t ana.lima@box.mailhost.io",
		`ssh -A "ana.lima@box.mailhost.io" 'ls'`, "ssh -- ana.lima@box.mailhost.io",
		// Local parts that cannot be Gmail user names (6 to 30 letters
		// and digits, dots ignored).
		"you@gmail.com dest@gmail.com me@googlemail.com u.s.e.r@gmail.com first_last@gmail.com you+ci@gmail.com",
		"https://mailhost.io/thread/ana.lima@mailhost.io/T/#u", "release-bot@xn--d1acufc.xn--p1ai", "support@xn--80ak6aa92e.com",
		"jane.doe@gmail.com john.doe@company.org",
		"admin@mail.example.org and ops@example.net",
		"user@host.test, user@foo.example, x@y.invalid, root@localhost, me@box.localhost",
		"From: noreply@github.com",
		"a@b.com, t@t.com, d@e.com",
		"attacker@evil.com victim@target.com",
		"info@acme-corp.com security@project.org hello@startup.io conduct@community.dev support@vendor.co",
		"<0100018f-aaaa@eu-west-1.amazonses.com> success@simulator.amazonses.com",
		"deploy-bot@my-proj-123.iam.gserviceaccount.com",
		"sent to ethereal: kaley.ziemann@ethereal.email",
		"no-reply@accounts.google.com",
		"do-not-reply@bank.com / donotreply@shop.com",
		"MAILER-DAEMON@mx.corp.com postmaster@corp.com",
		"Co-authored-by: octocat <583231+octocat@users.noreply.github.com>",
		"require github.com/foo/bar@v1.2.3",
		"go install golang.org/x/tools/cmd/stringer@v0.1.0",
		"npm i @types/node @babel/core@7.22.1",
		"pkg@1.2.3",
		"image: nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
		"url = git@github.com:org/repo.git",
		"ssh://git@gitlab.com:22/group/project.git",
		`{"href":"ssh:\/\/deploy.user@mailhost.io\/org\/repo","name":"ssh"}`,
		`"url": "https:\/\/ana.lima:s3cret@mailhost.io\/x"`,
		`<img srcset="icon@2x.png 2x, logo@3x.svg 3x">`,
		"import styles from './button@1x.module.css'",
		`fmt.Sprintf("%s@%s", user, domain)`,
		"email: ${user}@${domain}",
		"{{ .User }}@{{ .Domain }}.com",
		"@Override public void run()",
		"@app.route('/users')",
		"return@forEach this@MainActivity.finish()",
		"val s = this@Outer.value",
		"y = a@b.T",
		`fmt.Sprintf("%s", m.Path@m.Version)`,
		`"chacha20-poly1305@openssh.com", "curve25519-sha256@libssh.org", "keepalive@openssh.com"`,
		"00000040  6e 73 73 68 2e 63 6f 6d  |gcm@mailhost.com,|",
		"systemctl start user@1000.service getty@tty1.target",
		"Message-ID: <b9624545-2c80-49a1-ac3c-39264a591f7b@app.fastmail.com>",
		"foo@bar.com xxx@yyy.zzz user1@gmail.com test@acme.com johndoe@gmail.com",
		"user@%s.corp",
		`urlParse "http://admin:secret@server.com:8080/api"`,
		"cache key: id@12.34",
		"@media (max-width: 600px) {",
		"a@b",
		"foo@bar.c",
		"user@my_host.com",
		"f6a1e5b2-3c4d-4e5f-8a9b-0c1d2e3f4a5b@x",
		"    h1:2V5jM0ZqD2Yq0u7jY8w1p6J3x2ZQ=@v1.0",
		// The top-level label must be a real one: OData annotations,
		// made-up hosts in tests.
		`{"Members@odata.count": 2, "Value@odata.nextLink": "x"}`,
		`default_from = "nina.berg@mail.from"`,
		"this@MainActivity.finish; obj@SomeClass.field; x@Outer.xn--notatld",
		// Kerberos principals: a realm in capitals.
		"for principal C(ana@SSO.HOSTCORP.ORG), use V(HTTP/web01.hostcorp.org@HOSTCORP.ORG)",
		// Message and part identifiers.
		"Message-ID: <welcome.42@mailhost.io>",
		"messageId: '<order-7@shop-mailer.io>', in_reply_to: \"<thread.9@mailhost.io>\"",
		"References: <a.1@mailhost.io> <b.2@mailhost.io>",
		`<img src="cid:logo.header@mailhost.io">`,
		"'news:local.42@news.mailhost.io'",
		// Mailing lists reach many people.
		"dev-discuss@googlegroups.com project-users@lists.hostproject.org tooling@groups.io",
		"pkg-users@yahoogroups.com pkg-dev-subscribe@yahoogroups.com",
		// Bots.
		"release-bot@ci.hostproject.io semantic-release-bot@mailhost.net dependabot@acme-corp.com",
		// Fixture placeholders: words tests build addresses from.
		"someemail@somedomain.com testemail@mailhost.com new_staff@shop.io second@acme-corp.com",
		"jon.doe@shop.io dummy2@mailhost.io new3@com.com fake@mail.com old@email.com invalid@email.com",
		"testInvalidConfig@parse-host.com emailUserx1@shop.io test.user@mail.ee example@mailhost.io",
		"different@other.net jones@other.net build@mycompany.com devteam@mycompany.com",
		"aaa@catchall.mailhost.io jane@e.com tanaka@example.jp hans@mail.example.co.uk",
		"daemon@mailhost.ee mailer2@mailhost.ee deploy@hostcorp.io",
		"safewithme.testuser@mailhost.com ana.test@mailhost.io qa_dummy2@mailhost.io alt.abc@mailhost.me",
		"shopping.abc123@mailhost.me alias_xyz@mailhost.me",
	},
}

// noReplyWord reports a local part whose last words are "noreply" or
// "no-reply" after a separator ("service-no-reply", "foo_noreply"): the
// automated sender's own name, not a person's.
func noReplyWord(local []byte) bool {
	t := bytes.ToLower(local)
	if p := bytes.IndexByte(t, '+'); p >= 0 {
		t = t[:p]
	}
	for _, s := range []string{"-no-reply", "_no_reply", ".no-reply", "-noreply", "_noreply", ".noreply"} {
		if bytes.HasSuffix(t, []byte(s)) {
			return true
		}
	}
	return false
}
