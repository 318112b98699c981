package pii

import (
	"bytes"
	"path"
	"strings"
)

// Credits by structure: package manifests publish their people (npm's
// author, contributors and maintainers; pyproject's and Cargo's authors;
// a gemspec's authors and email; composer's authors; a POM's developers and
// contributors; Gradle's developers block), a Debian changelog signs every
// entry (" -- Name <address>  date"), and a GPG key listing names the
// key's owner ("uid  Name <address>"). Each is parsed by the shape its
// ecosystem writes, from the added lines and the path alone (a diff shows
// only the lines a change added), and its addresses are credits, reported
// as notes. A manifest in a test, fixture or example directory is a
// fixture: its addresses keep the detector's severity.

// manifestKind is the format of a file that lists a project's people.
type manifestKind uint8

const (
	manifestNone   manifestKind = iota
	manifestJSON                // package.json, composer.json, bower.json
	manifestTOML                // pyproject.toml, Cargo.toml, setup.cfg
	manifestRuby                // *.gemspec
	manifestXML                 // pom.xml, project.xml (Maven 1), *.pom, *pom*.xml, *.nuspec
	manifestGradle              // build.gradle, build.gradle.kts
	manifestDebian              // debian/changelog
	manifestGentoo              // metadata.xml (Gentoo's package metadata)
	manifestPEAR                // package.xml, package2.xml, package.xml.tpl (PEAR and PECL)
)

// manifestOf returns the manifest format of the file at p, or manifestNone.
func manifestOf(p string) manifestKind {
	if p == "" || inFixtureDir(p) {
		return manifestNone
	}
	base := strings.ToLower(path.Base(p))
	switch base {
	case "package.json", "composer.json", "bower.json", "component.json", "jsr.json", "deno.json":
		return manifestJSON
	case "pyproject.toml", "cargo.toml", "setup.cfg":
		return manifestTOML
	case "pom.xml", "project.xml":
		// project.xml: Maven 1's project descriptor, the POM's
		// predecessor, with the same <developers> and <contributors>.
		return manifestXML
	case "build.gradle", "build.gradle.kts":
		return manifestGradle
	case "metadata.xml":
		return manifestGentoo
	case "package.xml", "package2.xml", "package.xml.tpl", "package.xml.in":
		return manifestPEAR
	case "changelog":
		if strings.HasSuffix(strings.ToLower(p), "debian/changelog") {
			return manifestDebian
		}
	}
	if composerVariant(base, "json") {
		return manifestJSON // a manifest Composer reads through its COMPOSER variable
	}
	if path.Ext(base) == ".xml" && strings.Contains(base, "pom") {
		return manifestXML // a POM template (pom-template.xml, lib-pom.xml)
	}
	switch path.Ext(base) {
	case ".gemspec":
		return manifestRuby
	case ".pom", ".nuspec":
		return manifestXML
	}
	return manifestNone
}

// inFixtureDir reports a path under a test, fixture or example directory.
func inFixtureDir(p string) bool {
	for _, d := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		for _, f := range fixtureDirs {
			if d == f {
				return true
			}
		}
	}
	return false
}

// peopleKeys are the manifest keys (lower case) whose values name people
// or their addresses.
var peopleKeys = []string{"author", "authors", "maintainer", "maintainers", "contributor", "contributors",
	"developer", "developers", "owner", "owners", "email", "emails", "author_email", "maintainer_email", "author-email", "maintainer-email"}

func isPeopleKey(k []byte) bool {
	for _, p := range peopleKeys {
		if equalFold(k, p) {
			return true
		}
	}
	return false
}

// manifestState follows the blocks of a manifest's people across the
// lines of a fragment: a JSON, TOML or Ruby array or table opened after a
// people key, an XML element, a Gradle block.
type manifestState struct {
	kind  manifestKind
	depth int // open brackets (or elements) of the people block; 0 outside
}

// next reads line and reports whether the addresses on it are credits.
func (m *manifestState) next(line []byte) bool {
	switch m.kind {
	case manifestNone:
		return false
	case manifestDebian:
		// The signature line of an entry: " -- Name <address>  date".
		return bytes.HasPrefix(line, []byte(" -- "))
	case manifestXML:
		return m.xml(line)
	case manifestGentoo:
		return m.element(line, gentooPeople)
	case manifestPEAR:
		return m.element(line, pearPeople)
	}
	inside := m.depth > 0
	key, rest, ok := manifestKey(line, m.kind)
	if ok && isPeopleKey(key) {
		m.depth += brackets(rest)
		if m.depth < 0 {
			m.depth = 0
		}
		return true
	}
	if m.kind == manifestGradle && !inside {
		// developers { developer { email = '…' } }
		t := bytes.TrimSpace(line)
		for _, k := range []string{"developers", "developer", "contributors", "contributor"} {
			if len(t) > len(k) && equalFold(t[:len(k)], k) && bytes.HasSuffix(t, []byte("{")) {
				m.depth = brackets(t)
				return true
			}
		}
	}
	if inside {
		m.depth += brackets(line)
		if m.depth < 0 {
			m.depth = 0
		}
		return true
	}
	return false
}

// xml follows <developers>, <contributors>, <authors> and <owners>
// elements, and reports an <email> element anywhere in a POM (a
// developer's, a contributor's, an organisation's: all published).
func (m *manifestState) xml(line []byte) bool {
	t := bytes.TrimSpace(line)
	credit := m.depth > 0
	for _, tag := range []string{"developers", "contributors", "authors", "owners", "maintainers"} {
		if containsFold(t, "<"+tag+">") {
			m.depth++
			credit = true
		}
		if containsFold(t, "</"+tag+">") && m.depth > 0 {
			m.depth--
		}
	}
	return credit || containsFold(t, "<email>")
}

// gentooPeople is the element of Gentoo's package metadata (metadata.xml,
// GLEP 68: <maintainer type="person|project"> holding <email> and
// <name>) that names the package's maintainer. pearPeople are the
// elements of a PEAR or PECL package.xml (version 2: <lead>,
// <developer>, <contributor>, <helper>, each holding <name>, <user>,
// <email>, <active>; version 1: <maintainer>) that name the package's
// maintainers, published on its channel's page.
var (
	gentooPeople = []string{"maintainer"}
	pearPeople   = []string{"lead", "developer", "contributor", "helper", "maintainer"}
)

// element follows the elements named by tags and reports the <email>
// element inside one: a maintainer of the package, published with it as
// a POM's developers are. Another <email> of the file (outside those
// elements, or before the fragment shows the element's opening tag) is
// not read as a credit.
func (m *manifestState) element(line []byte, tags []string) bool {
	t := bytes.TrimSpace(line)
	for _, tag := range tags {
		if containsFold(t, "<"+tag+">") || containsFold(t, "<"+tag+" ") || containsFold(t, "<"+tag+"\t") {
			m.depth = 1
		}
	}
	credit := m.depth > 0 && containsFold(t, "<email>")
	for _, tag := range tags {
		if containsFold(t, "</"+tag+">") {
			m.depth = 0
		}
	}
	return credit
}

// manifestKey returns the key a manifest line assigns and the text after
// the assignment: "key": (JSON), key = (TOML, INI), spec.key = (Ruby),
// key = or key( (Gradle).
func manifestKey(line []byte, kind manifestKind) (key, rest []byte, ok bool) {
	t := bytes.TrimLeft(line, " \t")
	if kind == manifestJSON {
		if len(t) == 0 || t[0] != '"' {
			return nil, nil, false
		}
		e := bytes.IndexByte(t[1:], '"')
		if e < 0 {
			return nil, nil, false
		}
		key = t[1 : 1+e]
		rest = bytes.TrimLeft(t[2+e:], " \t")
		if len(rest) == 0 || rest[0] != ':' {
			return nil, nil, false
		}
		return key, rest[1:], true
	}
	if kind == manifestRuby {
		// spec.authors = […], s.email = '…'
		d := bytes.IndexByte(t, '.')
		if d < 0 || d > 16 {
			return nil, nil, false
		}
		t = t[d+1:]
	}
	k := 0
	for k < len(t) && (isWord(t[k]) || t[k] == '-') {
		k++
	}
	if k == 0 {
		return nil, nil, false
	}
	key = t[:k]
	rest = bytes.TrimLeft(t[k:], " \t")
	if len(rest) == 0 || (rest[0] != '=' && rest[0] != ':' && !(kind == manifestGradle && rest[0] == '(')) {
		return nil, nil, false
	}
	return key, rest[1:], true
}

// brackets returns the opening minus the closing brackets and braces of
// b outside quoted strings.
func brackets(b []byte) int {
	n := 0
	var quote byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			n++
		case c == ']' || c == '}':
			n--
		}
	}
	return n
}

// manifestCredit reports, on a line of a manifest (JSON, TOML, Ruby),
// an address in the value of an email key ("email": "…", email = "…",
// :email => "…", as inline tables and objects write a person), or an
// address that is a whole string element of an array ("addr", or "Name
// <addr>",): manifests hold no arrays of addresses but their people's, and
// a diff that adds one person to the list shows only that element.
func manifestCredit(kind manifestKind, line []byte, start, end int) bool {
	switch kind {
	case manifestJSON, manifestTOML, manifestRuby:
	default:
		return false
	}
	head := line[:start]
	for i := 0; i+5 <= len(head); i++ {
		if !equalFold(head[i:i+5], "email") || isAlpha(before(head, i)) {
			continue
		}
		k := i + 5
		for k < len(head) && (head[k] == '"' || head[k] == '\'' || head[k] == ' ' || head[k] == '\t') {
			k++
		}
		if k < len(head) && (head[k] == ':' || head[k] == '=') {
			return true
		}
	}
	t := bytes.TrimSpace(line)
	t = bytes.TrimSuffix(t, []byte(","))
	if len(t) < 2 || (t[0] != '"' && t[0] != '\'') || t[len(t)-1] != t[0] {
		return false
	}
	inner := t[1 : len(t)-1]
	if bytes.IndexByte(inner, t[0]) >= 0 {
		return false
	}
	// The string is the address, or a person: Name <address> (url).
	switch bytes.Count(inner, []byte("@")) {
	case 1:
		return true
	case 2:
		// A person whose name is an address too: "address <address>"
		// (npm's contributor strings, written from git's ident when the
		// author's name was left as an address).
		lt := bytes.Index(inner, []byte(" <"))
		return lt > 0 && bytes.IndexByte(inner[:lt], ' ') < 0 && bytes.IndexByte(inner[:lt], '@') > 0 && bytes.IndexByte(inner[lt:], '>') > 0
	}
	return false
}

// keyringUID reports a user ID line of a GPG key listing ("uid
// [ultimate] Name <address>", or "uid:u::::…:Name <address>:" with
// --with-colons): the key's owner, published with the key.
func keyringUID(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	return len(t) > 4 && equalFold(t[:3], "uid") && (t[3] == ' ' || t[3] == '\t' || t[3] == ':')
}

// escapedCredit reports "Name &lt;address&gt;" in documentation: a
// contributor list rendered to HTML, published on purpose.
func escapedCredit(line []byte, start, end int) bool {
	head := line[:start]
	if !hasSuffixFold(head, "&lt;") || !bytes.HasPrefix(line[end:], []byte("&gt;")) {
		return false
	}
	name := bytes.TrimSpace(head[:len(head)-4])
	return len(name) > 0 && isAlpha(name[len(name)-1])
}

// rubyFile reports a Ruby source file outside test, fixture and example
// directories: *.rb, *.rake, a Rakefile or a Gemfile.
func rubyFile(p string) bool {
	if p == "" || inFixtureDir(p) {
		return false
	}
	base := path.Base(p)
	switch base {
	case "Rakefile", "rakefile", "Gemfile":
		return true
	}
	ext := path.Ext(base)
	return ext == ".rb" || ext == ".rake"
}

// gemSpecFields are the attributes of a Gem::Specification that describe
// a package and nothing else: a block that sets one of them on its block
// variable is building a gem's specification, whatever wraps it
// (Gem::Specification.new, Jeweler::Tasks.new, a helper).
var gemSpecFields = []string{"summary", "homepage", "description", "licenses", "license", "required_ruby_version", "rubyforge_project"}

// gemBlock tracks, across the added lines of a Ruby file, a block that
// builds a gem's specification ("Gem::Specification.new do |s|", or a
// block whose variable gets a summary or a homepage), so that its
// email, authors and author assignments are credits, as they are in a
// .gemspec: RubyGems publishes them on the gem's page.
type gemBlock struct {
	v      []byte // the block variable, nil outside a block
	indent int    // the indentation of the line that opened the block
	spec   bool   // the block builds a gem's specification
	depth  int    // open brackets of a credit's value continued on later lines
}

// next reads one line and reports whether it is (part of) an email,
// authors or author assignment of a gem specification block.
func (g *gemBlock) next(line []byte) bool {
	if g.depth > 0 {
		g.depth += brackets(line)
		return true
	}
	t := bytes.TrimLeft(line, " \t")
	indent := len(line) - len(t)
	if p := bytes.Index(t, []byte("|")); p > 0 && (bytes.Contains(t[:p], []byte(" do ")) || bytes.HasSuffix(bytes.TrimRight(t[:p], " "), []byte("do")) || bytes.HasSuffix(bytes.TrimRight(t[:p], " "), []byte("{"))) {
		q := p + 1
		for q < len(t) && isWord(t[q]) {
			q++
		}
		if q > p+1 && at(t, q) == '|' {
			g.v = append(g.v[:0], t[p+1:q]...)
			g.indent = indent
			g.spec = bytes.Contains(t[:p], []byte("Gem::Specification.new"))
			return false
		}
	}
	if g.v == nil {
		// The block's opener may be a context line the diff does not
		// show: a gem-only field set on a variable opens the block.
		v, field := fieldAssignment(t)
		if v == nil || !isGemSpecField(field) {
			return false
		}
		g.v = append(g.v[:0], v...)
		g.indent = indent - 1
		g.spec = true
		return false
	}
	if indent <= g.indent && (bytes.Equal(bytes.TrimRight(t, " \t\r"), []byte("end")) || bytes.HasPrefix(t, []byte("}"))) {
		g.v = nil
		return false
	}
	if len(t) <= len(g.v)+1 || !bytes.HasPrefix(t, g.v) || t[len(g.v)] != '.' {
		return false
	}
	f := t[len(g.v)+1:]
	n := 0
	for n < len(f) && isWord(f[n]) {
		n++
	}
	field, rest := string(f[:n]), bytes.TrimLeft(f[n:], " \t")
	if isGemSpecField(field) {
		g.spec = true
	}
	if !g.spec || (field != "email" && field != "authors" && field != "author") || len(rest) == 0 || rest[0] != '=' || at(rest, 1) == '=' {
		return false
	}
	if d := brackets(rest); d > 0 {
		g.depth = d
	}
	return true
}

// isGemSpecField reports one of gemSpecFields.
func isGemSpecField(field string) bool {
	for _, s := range gemSpecFields {
		if field == s {
			return true
		}
	}
	return false
}

// fieldAssignment reads "v.field = value" (t without its indentation)
// and returns v and field, or nil.
func fieldAssignment(t []byte) (v []byte, field string) {
	n := 0
	for n < len(t) && isWord(t[n]) {
		n++
	}
	if n == 0 || at(t, n) != '.' {
		return nil, ""
	}
	m := n + 1
	for m < len(t) && isWord(t[m]) {
		m++
	}
	rest := bytes.TrimLeft(t[m:], " \t")
	if m == n+1 || len(rest) == 0 || rest[0] != '=' || at(rest, 1) == '=' {
		return nil, ""
	}
	return t[:n], string(t[n+1 : m])
}
