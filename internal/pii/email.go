package pii

import "bytes"

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
// (https://user:pass@host), Message-IDs (<uuid@host>) and the ASCII column
// of hex dumps.

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
	}
	domain := b[i+1 : end]
	if !validDomain(domain) || skipLocal(local) || skipDomain(domain) {
		return 0, 0, false
	}
	// SSH names algorithms and requests name@domain (RFC 4251 §6):
	// aes128-gcm@openssh.com, keepalive@openssh.com, curve25519-sha256@libssh.org.
	if equalFold(domain, "openssh.com") || equalFold(domain, "libssh.org") {
		return 0, 0, false
	}
	return start, end, true
}

// urlUserinfo reports whether the ':' at i separates a URL's user name
// and password: the token it is in starts with "scheme://".
func urlUserinfo(b []byte, i int) bool {
	for k := i; k > 1; k-- {
		switch b[k-1] {
		case ' ', '\t', '"', '\'', '<', '(', '[', '=', ',':
			return false
		case '/':
			if b[k-2] == '/' {
				return true
			}
		}
	}
	return false
}

// validDomain checks the labels of domain and its top-level label.
func validDomain(domain []byte) bool {
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
		if hasCamelHump(label) {
			return false // Outer.method, SomeClass.field: code, not a host
		}
		labels++
		lastStart = i + 1
	}
	if labels < 2 {
		return false
	}
	tld := domain[bytes.LastIndexByte(domain, '.')+1:]
	if len(tld) < 2 || len(tld) > 24 {
		return false
	}
	for _, c := range tld {
		if !isAlpha(c) {
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

// skipLocal reports senders that are not people, and identifiers that only
// look like a local part.
func skipLocal(local []byte) bool {
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
	for _, p := range []string{"noreply", "donotreply", "nobody"} {
		if bytes.HasPrefix(l, []byte(p)) {
			return true
		}
	}
	for _, s := range placeholderLocals {
		if string(l) == s {
			return true
		}
	}
	for _, s := range roleLocals {
		if string(l) == s {
			return true
		}
	}
	// A one-letter local part (a@b.com, d@e.com): a placeholder.
	if len(l) == 1 {
		return true
	}
	// user1, test42: numbered placeholders.
	if t := bytes.TrimRight(l, "0123456789"); len(t) < len(l) && (string(t) == "user" || string(t) == "test") {
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

// placeholderLocals are local parts (lowercased, without . - _) that are
// not people: service senders, Kotlin labels and the usual placeholders.
var placeholderLocals = []string{
	"mailerdaemon", "postmaster", "git", "this", "super", "return", "break", "continue",
	"foo", "bar", "baz", "foobar", "xxx", "xyz", "abc", "test", "tester", "user", "username",
	"someone", "somebody", "anyone", "johndoe", "janedoe", "jdoe", "yourname", "youremail",
	"yourmail", "name", "email",
}

// roleLocals are role and project mailboxes (lowercased, without . - _):
// they reach a function, not a person.
var roleLocals = []string{
	"info", "contact", "hello", "hi", "support", "help", "helpdesk", "security", "secalert",
	"abuse", "admin", "administrator", "webmaster", "hostmaster", "sales", "marketing", "press",
	"media", "legal", "privacy", "compliance", "billing", "accounts", "jobs", "careers", "hr",
	"team", "office", "feedback", "conduct", "codeofconduct", "opensource", "community",
	"maintainers", "dev", "devs", "developers", "ops", "devops", "sysadmin", "root", "notifications",
	"notification", "alerts", "bounce", "bounces", "mailer", "newsletter", "announce", "list",
	"listserv", "majordomo", "owner", "bugs", "issues", "status",
}

// placeholderDomains are used in documentation and tests, never for mail.
var placeholderDomains = []string{
	"foo.com", "bar.com", "baz.com", "foo.bar", "foo.foo", "foobar.com", "test.com", "domain.com",
	"yourdomain.com", "mydomain.com", "yourcompany.com", "company.com", "acme.com", "acme.org",
	"xxx.com", "xyz.com", "yyy.zzz", "email.tld", "domain.tld", "host.tld",
	// security tests' stock parties
	"evil.com", "attacker.com", "target.com", "victim.com", "good.com", "bad.com", "malicious.com",
}

// skipDomain reports reserved, example, placeholder and relay domains.
func skipDomain(d []byte) bool {
	for _, s := range placeholderDomains {
		if equalFold(d, s) {
			return true
		}
	}
	// Test-mail services and machine senders: fake SMTP inboxes, Amazon
	// SES (its mailbox simulator and Message-IDs), Google Cloud service
	// accounts.
	for _, s := range []string{"ethereal.email", "mailinator.com", "mailtrap.io", "amazonses.com", "iam.gserviceaccount.com", "developer.gserviceaccount.com"} {
		if equalFold(d, s) || hasSuffixFold(d, "."+s) {
			return true
		}
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
	return false
}

var emailSamples = samples{
	TP: []sample{
		{"contact: maria.silva@acme-corp.com", "maria.silva@acme-corp.com"},
		{`Author: "Ana Lima <ana.lima+ci@mail.provider.co.uk>"`, "ana.lima+ci@mail.provider.co.uk"},
		{`{"email":"j_smith-99@uni.edu"}`, "j_smith-99@uni.edu"},
		{"// Questions? Write to (bob@corp.io).", "bob@corp.io"},
		{"mailto:alice@company.de?subject=hi", "alice@company.de"},
		{"send to .carol@firm.fr.", "carol@firm.fr"},
		{"DAVE@BIGCO.COM wrote:", "DAVE@BIGCO.COM"},
		{"12345678@qq.com", "12345678@qq.com"},
		{"Signed-off-by: Erin Fox <erin@fox.dev>", "erin@fox.dev"},
		{"user_email = 'x.y@sub.domain.travel'", "x.y@sub.domain.travel"},
	},
	FP: []string{
		"contact: jane@example.com",
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
	},
}
