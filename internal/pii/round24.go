package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// The shapes held-out round 24 showed (docs/design/pii-precision.md,
// "Round 24's shapes"): SSH algorithm names read by the protocol's
// grammar for name-lists, not by their domain; a gem specification's
// authors and email lists built on a method's parameter. Each rule runs only where
// a cheap test (a byte beside the candidate, the one-token local part)
// lets it.

// round24 holds the per-fragment state of the rules built after round 24.
type round24 struct {
	path  string
	lines []scanner.Line
	// about: the fragment is about SSH, read at the first candidate
	// that needs it.
	aboutRead, about bool
	// names: the algorithm names the fragment uses as list items or
	// hash keys, read at the first quoted candidate that needs them.
	namesRead bool
	names     [][]byte
	markdown  bool
	// ruby: a Ruby file outside fixtures (rubyFile).
	ruby bool
	// code: a file outside fixtures.
	code bool
	// js: a JavaScript file outside fixtures.
	js bool
}

// newRound24 returns the round-24 state for a fragment of the file at p
// (messages get none of these rules).
func newRound24(p string, message bool, lines []scanner.Line) round24 {
	if message {
		return round24{}
	}
	ext := strings.ToLower(path.Ext(p))
	return round24{path: p, lines: lines, markdown: ext == ".md" || ext == ".markdown", ruby: rubyFile(p), code: p != "" && !inFixtureDir(p),
		js: p != "" && !inFixtureDir(p) && (ext == ".js" || ext == ".mjs" || ext == ".cjs")}
}

// algorithmDescription describes an SSH algorithm name read by the
// protocol's name-list grammar.
const algorithmDescription = "An address-shaped SSH algorithm name (RFC 4251 section 6: name@domain names a local algorithm) in a list of the protocol's algorithm names: not a mailbox, reported as a note."

// lower returns the description of a note for an email finding at
// lines[i].Text[start:end] that a round-24 rule reads as published or
// not personal, or "" when none does.
func (r *round24) lower(k kind, lines []scanner.Line, i, start, end int) string {
	if k != kindEmail || r.lines == nil {
		return ""
	}
	text := lines[i].Text
	if r.ruby && gemPeoplePair(lines, i) {
		return attributionDescription
	}
	if r.code && sshLoginArgument(lines, i, start, end) {
		return loginDescription
	}
	if r.code && i > 0 && lines[i-1].Number+1 == lines[i].Number && implementationCredit(lines[i-1].Text, text, start, end) {
		return attributionDescription
	}
	if r.js && inlinedManifestItem(lines, i, start, end) {
		return attributionDescription
	}
	if !oneTokenLocal(text[start:end]) {
		return ""
	}
	if sshAlgorithmItem(lines, i, start, end) || algorithmHashKey(text, start, end) || algorithmHashOpener(lines, i, start, end) {
		return algorithmDescription
	}
	if r.markdown && markdownFirstCell(text, start, end) && r.aboutSSH() {
		return algorithmDescription
	}
	q := before(text, start)
	if (q == '"' || q == '\'') && at(text, end) == q && r.aboutSSH() {
		if !r.namesRead {
			r.namesRead = true
			r.names = readAlgorithmNames(r.lines)
		}
		for _, n := range r.names {
			if bytes.Equal(n, text[start:end]) {
				return algorithmDescription
			}
		}
	}
	return ""
}

// aboutSSH reports a fragment about SSH (sshWord in its path or a line).
func (r *round24) aboutSSH() bool {
	if !r.aboutRead {
		r.aboutRead = true
		r.about = sshFragment(&scanner.Fragment{Path: r.path, Lines: r.lines})
	}
	return r.about
}

// oneTokenLocal reports an address whose local part is one token: no
// '.' or '+' (an algorithm name's first part: "aes128-ctr", "rijndael-cbc").
func oneTokenLocal(addr []byte) bool {
	a := bytes.IndexByte(addr, '@')
	return a > 0 && !bytes.ContainsAny(addr[:a], ".+")
}

// algorithmToken reports a bare SSH algorithm name as the protocol and
// its configurations write it: lower-case letters, digits, '-' and '_',
// with OpenSSH's wildcard '*' and an optional leading '+', '-' or '^'
// (append, remove, prepend). strong: the name has a hyphen inside it
// ("aes128-ctr", "hmac-sha2-256", "ssh-ed25519"), the shape of an
// algorithm name and not of a word.
func algorithmToken(t []byte) (ok, strong bool) {
	if len(t) > 0 && (t[0] == '+' || t[0] == '-' || t[0] == '^') {
		t = t[1:]
	}
	if len(t) == 0 || t[0] == '-' || t[len(t)-1] == '-' {
		return false, false
	}
	for _, c := range t {
		if !isLower(c) && !isDigit(c) && c != '-' && c != '_' && c != '*' {
			return false, false
		}
	}
	return true, bytes.IndexByte(t, '-') > 0
}

// algorithmSiblings reports whether the items other than name (one
// occurrence) are all algorithm names (bare tokens, or one-token
// address-shaped names) and at least one is a bare hyphenated algorithm
// name. A list of mailboxes fails: its siblings are addresses.
func algorithmSiblings(items [][]byte, name []byte) bool {
	self, strong := false, false
	for _, it := range items {
		if len(it) == 0 {
			continue
		}
		if !self && bytes.Equal(it, name) {
			self = true
			continue
		}
		if bytes.IndexByte(it, '@') >= 0 {
			if bytes.Count(it, []byte("@")) != 1 || !oneTokenLocal(it) {
				return false
			}
			continue
		}
		ok, s := algorithmToken(it)
		if !ok {
			return false
		}
		strong = strong || s
	}
	return self && strong
}

// nameListStop ends an SSH name-list (RFC 4251 §5: comma-separated,
// no spaces): a space, a quote, a bracket.
func nameListStop(c byte) bool {
	return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '`' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '=' || c == ':'
}

// wordListStop ends a word list (%w[…], a shell array): a bracket, a
// quote or another separator that is not a space.
func wordListStop(c byte) bool {
	return c == '"' || c == '\'' || c == '`' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '=' || c == ',' || c == ':' || c == ';' || c == '#'
}

// sshAlgorithmItem reports whether the address at lines[i].Text[start:end]
// is an item of an SSH name-list ("aes128-ctr,name@domain,aes256-ctr")
// or of a word list ("%w[aes128-ctr name@domain]", a list continued on
// the adjacent lines) whose other items are algorithm names.
func sshAlgorithmItem(lines []scanner.Line, i, start, end int) bool {
	text := lines[i].Text
	b, a := before(text, start), at(text, end)
	name := text[start:end]
	if b == ',' || a == ',' {
		s, e := start, end
		for s > 0 && !nameListStop(text[s-1]) {
			s--
		}
		for e < len(text) && !nameListStop(text[e]) {
			e++
		}
		return algorithmSiblings(bytes.Split(text[s:e], []byte(",")), name)
	}
	if !(b == 0 || b == ' ' || b == '\t' || b == '(' || b == '[') || !(a == 0 || a == ' ' || a == '\t' || a == ')' || a == ']' || a == '\r') {
		return false
	}
	s, e := start, end
	for s > 0 && !wordListStop(text[s-1]) {
		s--
	}
	for e < len(text) && !wordListStop(text[e]) {
		e++
	}
	items := bytes.Fields(text[s:e])
	// A line of the list's items alone: its siblings continue on the
	// adjacent lines of the file.
	if len(bytes.TrimSpace(text[:s])) == 0 && len(bytes.TrimSpace(text[e:])) <= 1 {
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(lines) || absInt(lines[j].Number-lines[i].Number) != 1 {
				continue
			}
			if f := itemsLine(lines[j].Text); f != nil {
				items = append(items, f...)
			}
		}
	}
	return len(items) > 1 && algorithmSiblings(items, name)
}

// itemsLine returns the words of a line that holds only list items (an
// optional opening "%w(" or closing bracket aside), or nil.
func itemsLine(t []byte) [][]byte {
	t = bytes.TrimSpace(t)
	for _, p := range []string{"%w(", "%w[", "%i(", "%i["} {
		t = bytes.TrimPrefix(t, []byte(p))
	}
	t = bytes.TrimRight(t, ")]")
	f := bytes.Fields(t)
	for _, w := range f {
		if ok, _ := algorithmToken(w); !ok && !(bytes.Count(w, []byte("@")) == 1 && oneTokenLocal(w)) {
			return nil
		}
	}
	return f
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// algorithmHashKey reports a quoted address-shaped name that keys a hash
// entry whose value is a quoted cipher or algorithm name
// ("name@domain" => "aes-256-cbc", "name@domain": "aes-256-cbc").
func algorithmHashKey(text []byte, start, end int) bool {
	q := before(text, start)
	if (q != '"' && q != '\'') || at(text, end) != q {
		return false
	}
	r := bytes.TrimLeft(text[end+1:], " \t")
	switch {
	case bytes.HasPrefix(r, []byte("=>")):
		r = r[2:]
	case bytes.HasPrefix(r, []byte(":")):
		r = r[1:]
	default:
		return false
	}
	r = bytes.TrimLeft(r, " \t")
	if len(r) < 2 || (r[0] != '"' && r[0] != '\'') {
		return false
	}
	e := bytes.IndexByte(r[1:], r[0])
	if e < 0 {
		return false
	}
	ok, strong := algorithmToken(r[1 : 1+e])
	return ok && strong
}

// markdownFirstCell reports an address that is the whole first cell of a
// Markdown table row ("| name@domain | … |").
func markdownFirstCell(text []byte, start, end int) bool {
	t := bytes.TrimLeft(text[:start], " \t")
	if len(t) == 0 || t[0] != '|' || len(bytes.TrimSpace(t[1:])) != 0 {
		return false
	}
	r := bytes.TrimLeft(text[end:], " \t")
	return len(r) > 0 && r[0] == '|'
}

// readAlgorithmNames returns the address-shaped names the lines use as
// items of an algorithm list or as keys of a cipher hash.
func readAlgorithmNames(lines []scanner.Line) [][]byte {
	var names [][]byte
	for i, l := range lines {
		t := l.Text
		if bytes.IndexByte(t, '@') < 0 {
			continue
		}
		for j := 0; j < len(t); j++ {
			if t[j] != '@' {
				continue
			}
			s, e := j, j+1
			for s > 0 && (isWord(t[s-1]) || t[s-1] == '-') {
				s--
			}
			for e < len(t) && (isWord(t[e]) || t[e] == '-' || t[e] == '.') {
				e++
			}
			for e > j+1 && t[e-1] == '.' {
				e--
			}
			if s == j || e == j+1 || bytes.IndexByte(t[j+1:e], '.') < 0 {
				continue
			}
			if sshAlgorithmItem(lines, i, s, e) || algorithmHashKey(t, s, e) || algorithmHashOpener(lines, i, s, e) {
				names = append(names, t[s:e])
			}
		}
	}
	return names
}

// gemPeoplePair reports whether line i assigns a list to an email field
// on a variable ("s.email = ['…', '…']") that the adjacent line of the
// file assigns a list of authors ("s.authors = […]"), or that one of the
// gemLookahead lines before it, consecutive in the file and each a field
// of the same variable, assigns a gem-only field of gemSpecFields ("s.summary = …"): a gem
// specification built on a method's parameter (def defaults(s)), its
// opener unchanged context the hunk does not show. The authors and email
// lists are the gem format's pair of people and their addresses.
func gemPeoplePair(lines []scanner.Line, i int) bool {
	t := bytes.TrimLeft(lines[i].Text, " \t")
	v, field := fieldAssignment(t)
	if v == nil || field != "email" {
		return false
	}
	list := bytes.HasPrefix(bytes.TrimLeft(t[bytes.IndexByte(t, '=')+1:], " \t"), []byte("["))
	for _, j := range []int{i - 1, i + 1} {
		if !list || j < 0 || j >= len(lines) || absInt(lines[j].Number-lines[i].Number) != 1 {
			continue
		}
		u := bytes.TrimLeft(lines[j].Text, " \t")
		w, f := fieldAssignment(u)
		if w != nil && bytes.Equal(w, v) && f == "authors" && bytes.HasPrefix(bytes.TrimLeft(u[bytes.IndexByte(u, '=')+1:], " \t"), []byte("[")) {
			return true
		}
	}
	for k := i - 1; k >= 0 && k >= i-gemLookahead; k-- {
		if lines[k+1].Number != lines[k].Number+1 {
			return false
		}
		w, f := fieldAssignment(bytes.TrimLeft(lines[k].Text, " \t"))
		if w == nil || !bytes.Equal(w, v) {
			return false // the run of the variable's fields ends
		}
		if isGemSpecField(f) {
			return true
		}
	}
	return false
}

// implementationCredit reports an address in a comment line that begins
// with "by Name" and the address in parentheses or angle brackets, right
// after a comment line of the file (adjacent: the caller checks the line
// numbers) that ends with the work the credit names: "… the original
// implementation" or "… based on URL" (a URL or a path as the line's
// last word after "based on"). The two lines are one sentence, "the
// original implementation by Name (address)", the credit grammar the
// attribution rules read on one line, wrapped before "by". Another word
// ending the previous line, text after the address, or a line that is
// not a comment keep the warning.
func implementationCredit(prev, line []byte, start, end int) bool {
	o, c := before(line, start), at(line, end)
	if !((o == '(' && c == ')') || (o == '<' && c == '>')) {
		return false
	}
	h := bytes.TrimSpace(line[:start-1])
	if !commentStart(h) {
		return false
	}
	h = stripCommentEnds(h)
	if !bytes.HasPrefix(h, []byte("by ")) || !personName(h[3:]) {
		return false
	}
	if r := bytes.TrimSpace(line[end+1:]); len(r) > 0 && r[0] != '.' && r[0] != ',' && !bytes.HasPrefix(r, []byte("*/")) {
		return false
	}
	pt := bytes.TrimSpace(prev)
	if !commentStart(pt) {
		return false
	}
	p := bytes.TrimRight(stripCommentEnds(pt), " \t,:")
	if bytes.HasSuffix(p, []byte("implementation")) || bytes.HasSuffix(p, []byte("implementation of")) {
		return true
	}
	if k := bytes.LastIndex(p, []byte("based on ")); k >= 0 {
		rest := p[k+len("based on "):]
		return len(rest) > 0 && !bytes.ContainsAny(rest, " \t") && bytes.Contains(rest, []byte("/"))
	}
	return false
}

// algorithmHashOpener reports a quoted address-shaped name that keys a
// nested hash ("name@domain" => {) whose first key, on the next line of
// the file, is a quoted algorithm name ('hmac-sha2-256' =>): a table of
// test vectors by cipher and MAC.
func algorithmHashOpener(lines []scanner.Line, i, start, end int) bool {
	text := lines[i].Text
	q := before(text, start)
	if (q != '"' && q != '\'') || at(text, end) != q || i+1 >= len(lines) || lines[i+1].Number != lines[i].Number+1 {
		return false
	}
	r := bytes.TrimLeft(text[end+1:], " \t")
	if !bytes.HasPrefix(r, []byte("=>")) || !bytes.Equal(bytes.TrimSpace(r[2:]), []byte("{")) {
		return false
	}
	n := bytes.TrimSpace(lines[i+1].Text)
	if len(n) < 2 || (n[0] != '"' && n[0] != '\'') {
		return false
	}
	e := bytes.IndexByte(n[1:], n[0])
	if e < 0 || !bytes.HasPrefix(bytes.TrimLeft(n[2+e:], " \t"), []byte("=>")) {
		return false
	}
	ok, strong := algorithmToken(n[1 : 1+e])
	return ok && strong
}

// inlinedManifestWindow bounds how many lines around an npm people
// array's item inlinedManifestItem reads for the manifest's name and
// version.
const inlinedManifestWindow = 40

// inlinedManifestItem reports, in a JavaScript file outside fixtures, an
// item of an npm people array (npmPeopleArrayItem) of a package.json
// inlined into the file by a bundler: the object literal has the
// manifest's quoted "name" and "version" keys on lines of the fragment
// near the array. A people array in an object without both keys keeps
// the warning.
func inlinedManifestItem(lines []scanner.Line, i, start, end int) bool {
	if !npmPeopleArrayItem(lines, i, start, end) {
		return false
	}
	name, version := false, false
	for k := i - inlinedManifestWindow; k <= i+inlinedManifestWindow; k++ {
		if k < 0 || k >= len(lines) {
			continue
		}
		t := bytes.TrimSpace(lines[k].Text)
		name = name || bytes.HasPrefix(t, []byte(`"name": "`))
		version = version || bytes.HasPrefix(t, []byte(`"version": "`))
	}
	return name && version
}

// loginDescription describes an SSH login passed with a remote path.
const loginDescription = "An SSH login (user@host) passed with a remote path to an SSH, SCP or SFTP call: a machine account and the location it writes to, the scp form in separate arguments, reported as a note."

// sshLoginArgument reports a quoted address that is a whole argument
// ("user@host",) whose next argument, on the same line or the adjacent
// next line of the file, is a quoted absolute path ("/var/www/site"),
// in a call that names SSH or SFTP on the same line or the adjacent line
// before (Rake::SshDirPublisher.new(, Net::SFTP.start(): the scp form
// user@host:/path written as two arguments. An address followed by
// another argument, or the call not about SSH, keeps the warning.
func sshLoginArgument(lines []scanner.Line, i, start, end int) bool {
	text := lines[i].Text
	q := before(text, start)
	if (q != '"' && q != '\'') || at(text, end) != q {
		return false
	}
	r := bytes.TrimLeft(text[end+1:], " \t")
	if len(r) == 0 || r[0] != ',' {
		return false
	}
	r = bytes.TrimSpace(r[1:])
	if len(r) == 0 && i+1 < len(lines) && lines[i+1].Number == lines[i].Number+1 {
		r = bytes.TrimSpace(lines[i+1].Text)
	}
	if len(r) < 3 || (r[0] != '"' && r[0] != '\'') || r[1] != '/' {
		return false
	}
	if sshWord(text[:start]) {
		return true
	}
	return i > 0 && lines[i-1].Number+1 == lines[i].Number && sshWord(lines[i-1].Text)
}
