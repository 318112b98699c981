package pii

import (
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestCredits: the people of a package manifest, a Debian changelog, a
// key listing and a rendered contributor list are credits (notes); the
// same files in a fixture directory, and other addresses, keep the
// warning. Synthetic names and hosts only; each fragment is the added
// lines alone, as a diff gives them.
func TestCredits(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, text string
		want             []string // severity of each email finding, in order
	}{
		{"npm author string", "package.json", `  "author": "Ana Example <ana.example@mailhost.io> (https://mailhost.io/ana)",`, []string{"note"}},
		{"npm contributors objects", "pkg/package.json", "  \"contributors\": [\n    {\n      \"name\": \"Bo Example\",\n      \"email\": \"bo.example@mailhost.io\"\n    },\n    \"Cy Example <cy.example@mailhost.io>\"\n  ],\n  \"config\": {\"to\": \"dee.example@mailhost.io\"}", []string{"note", "note", "warning"}},
		{"npm maintainer object alone", "package.json", `    "email": "eve.example@mailhost.io"`, []string{"note"}},
		{"npm person element alone", "package.json", `    "Bo Example <bo.example@mailhost.io> (https://mailhost.io)",`, []string{"note"}},
		{"gemspec email element alone", "x.gemspec", `    "cy.example@mailhost.io",`, []string{"note"}},
		{"pyproject inline table alone", "pyproject.toml", `  {name = "Dee Example", email="dee.example@mailhost.io"},`, []string{"note"}},
		{"gemspec hash email", "x.gemspec", `  s.metadata = { :email => "eve.example@mailhost.io" }`, []string{"note"}},
		{"a string with more than an address", "package.json", `    "write to fay.example@mailhost.io and gus.example@mailhost.io",`, []string{"warning", "warning"}},
		{"an element in code", "src/list.js", `    "hal.example@mailhost.io",`, []string{"warning"}},
		{"an element in a fixture manifest", "test/fixtures/package.json", `    "ida.example@mailhost.io",`, []string{"warning"}},
		{"npm other key", "package.json", `  "notify": "fay.example@mailhost.io",`, []string{"warning"}},
		{"npm in a fixture", "test/fixtures/pkg/package.json", `  "author": "Gus Example <gus.example@mailhost.io>",`, []string{"note"}}, // the line names its author: a credit by the existing rule
		{"npm email in a fixture", "test/fixtures/pkg/package.json", `  "email": "gus.example@mailhost.io",`, []string{"warning"}},
		{"composer authors", "composer.json", "    \"authors\": [\n        {\n            \"name\": \"Hal Example\",\n            \"email\": \"hal.example@mailhost.io\",\n            \"homepage\": \"https://mailhost.io\"\n        }\n    ],", []string{"note"}},
		{"pyproject inline tables", "pyproject.toml", "authors = [\n  {name = \"Ida Example\", email = \"ida.example@mailhost.io\"},\n]\nmaintainers = [\n  { name = \"Jo Example\", email = \"jo.example@mailhost.io\" }\n]\n[tool.x]\nnotify = \"kim.example@mailhost.io\"", []string{"note", "note", "warning"}},
		{"cargo authors", "crates/x/Cargo.toml", "authors = [\n    \"Lu Example <lu.example@mailhost.io>\",\n]", []string{"note"}},
		{"setup.cfg", "setup.cfg", "author_email = mo.example@mailhost.io", []string{"note"}},
		{"gemspec", "x.gemspec", "  spec.authors = [\"Nia Example\"]\n  spec.email = [\"nia.example@mailhost.io\",\n    \"oli.example@mailhost.io\"]\n  spec.homepage = \"https://mailhost.io\"", []string{"note", "note"}},
		{"pom developers", "pom.xml", "  <developers>\n    <developer>\n      <name>Pat Example</name>\n      <email>pat.example@mailhost.io</email>\n    </developer>\n  </developers>", []string{"note"}},
		{"pom email alone", "lib/pom.xml", "      <email>quinn.example@mailhost.io</email>", []string{"note"}},
		{"pom other", "pom.xml", "  <notify>rae.example@mailhost.io</notify>", []string{"warning"}},
		{"gradle developers", "build.gradle", "        developers {\n            developer {\n                email = 'sam.example@mailhost.io'\n            }\n        }\n    ext.notify = 'tia.example@mailhost.io'", []string{"note", "warning"}},
		{"travis notifications", ".travis.yml", "notifications:\n  email:\n    recipients:\n      - jan.example@mailhost.io\n      - kai.example@mailhost.io\n  irc: x\nenv:\n  - TO=lev.example@mailhost.io", []string{"note", "note", "warning"}},
		{"travis recipients alone", "sub/.travis.yml", "    - max.example@mailhost.io\n    - 'nat.example@mailhost.io'\n    - TO=oda.example@mailhost.io", []string{"note", "note", "warning"}},
		{"a list item in other yaml", "config/users.yml", "    - max.example@mailhost.io", []string{"warning"}},
		{"a list under email elsewhere", "config/app.yml", "email:\n  - ned.example@mailhost.io", []string{"warning"}},
		{"debian changelog", "debian/changelog", "pkg (1.0-1) unstable; urgency=low\n\n  * New upstream release.\n\n -- Uma Example <uma.example@mailhost.io>  Mon, 01 Jan 2024 10:00:00 +0000", []string{"note"}},
		{"debian changelog body", "debian/changelog", "  * Thanks to the report of vic.example@mailhost.io", []string{"note"}},             // "thanks to": a credit by the existing rule
		{"changelog signature elsewhere", "CHANGELOG.md", " -- Wes Example <wes.example@mailhost.io>  Mon, 01 Jan 2024", []string{"note"}}, // a change log's person
		{"gnu changelog entry", "ChangeLog", "2024-01-15  Wes Example  <wes.example@mailhost.io>\n\n\t* parser.c (parse): Fix.", []string{"note"}},
		{"history entry header", "HISTORY.md", "Sun Dec 4 18:48:03 2015  Wes Example <wes.example@mailhost.io>", []string{"note"}},
		{"history doubled brackets", "History.md", "* [[`e98b8d1`](https://mailhost.io/c/e98b8d1)] - fix: x (#1758) (Wes Example <<wes.example@mailhost.io>>)", []string{"note"}},
		{"history credit by", "docs/HISTORY.rdoc", "- Faster parsing, by Wes Example <wes.example@mailhost.io>", []string{"note"}},
		{"history bare address", "NEWS", "- Forward the export to wes.example@mailhost.io", []string{"warning"}},
		// Gem specification fields in any Ruby file.
		{"gem spec in a Rakefile", "Rakefile", "Gem::Specification.new do |s|\n  s.name = \"pkg\"\n  s.email = \"ana.example@mailhost.io\"\n  s.authors = [\"Ana Example\", \"Bo Example <bo.example@mailhost.io>\"]\nend\nNOTIFY = \"cy.example@mailhost.io\"", []string{"note", "note", "warning"}},
		{"a gem builder's block", "Rakefile", "  Jeweler::Tasks.new do |gem|\n    gem.name = \"pkg\"\n    gem.summary = %Q{one line}\n    gem.email = \"dee.example@mailhost.io\"\n    gem.authors = [\"dee\"]\n  end", []string{"note"}},
		{"gem spec email continued", "tasks/gem.rake", "spec = Gem::Specification.new do |spec|\n  spec.email = [\n    \"eve.example@mailhost.io\",\n    \"fay.example@mailhost.io\"]\n  spec.files = []\n  spec.metadata = { \"to\" => \"gus.example@mailhost.io\" }\nend", []string{"note", "note", "warning"}},
		{"gem spec brace block", "lib/pkg/build.rb", "Gem::Specification.new { |s|\n  s.author = 'Hal Example <hal.example@mailhost.io>'\n}", []string{"note"}},
		{"a user record is not a gem", "lib/seed.rb", "User.create do |u|\n  u.name = \"Ida\"\n  u.email = \"ida.example@mailhost.io\"\nend", []string{"warning"}},
		{"after the gem block ends", "Rakefile", "Gem::Specification.new do |s|\n  s.summary = \"x\"\nend\nUser.new do |s|\n  s.email = \"jo.example@mailhost.io\"\nend", []string{"warning"}},
		{"a comparison is not an assignment", "Rakefile", "Gem::Specification.new do |s|\n  raise if s.email == \"kim.example@mailhost.io\"\nend", []string{"warning"}},
		{"npm contributor named by an address", "package.json", `    "ana.example@mailhost.io <ana.ex@mailhost.io>",`, []string{"note", "note"}},
		{"two addresses in one element", "package.json", `    "bo.example@mailhost.io cy.example@mailhost.io",`, []string{"warning", "warning"}},
		{"gem fields without the opener", "Rakefile", "    gem.name        = \"pkg\"\n    gem.summary     = %Q{one line}\n    gem.email       = \"mo.example@mailhost.io\"\n  end\nNOTIFY = \"nia.example@mailhost.io\"", []string{"note", "warning"}},
		{"hoe fields without the opener", "Rakefile", "  p.description = \"pkg\"\n  p.author      = \"Oli Example\"\n  p.email       = \"oli.example@mailhost.io\"", []string{"note"}},
		{"a record's fields without the opener", "lib/seed.rb", "  u.name = \"Pat\"\n  u.email = \"pat.example@mailhost.io\"", []string{"warning"}},
		// A gem-only field right after the email in the same hunk makes
		// it a credit too (round 10, gemFieldAhead); a field of another
		// kind, or another variable's, keeps the warning.
		{"email before a gem field", "Rakefile", "  gem.email = \"quinn.example@mailhost.io\"\n  gem.summary = \"x\"", []string{"note"}},
		{"email before no gem field", "Rakefile", "  gem.email = \"quinn.example@mailhost.io\"\n  gem.version = \"1\"\n  other.summary = \"x\"", []string{"warning"}},
		{"a gem spec in a spec directory", "spec/support/gem_helper.rb", "Gem::Specification.new do |s|\n  s.email = \"lu.example@mailhost.io\"\nend", []string{"warning"}},
		{"changelog in a fixture", "test/fixtures/CHANGELOG", "2024-01-15  Wes Example  <wes.example@mailhost.io>", []string{"warning"}},
		{"thanks in a message", "x.txt", "Thanks wes.example@mailhost.io for the patch", []string{"note"}},
		{"thanks in a template", "mail/x.txt", "Thanks for signing up, wes.example@mailhost.io", []string{"warning"}},
		{"keyring uid", "KEYS", "pub   rsa4096 2020-01-01 [SC]\nuid           [ultimate] Xia Example <xia.example@mailhost.io>\nsub   rsa4096 2020-01-01 [E]", []string{"note"}},
		{"keyring colons", "keys.txt", "uid:u::::1577836800::ABCDEF::Yan Example <yan.example@mailhost.io>::::::::::0:", []string{"note"}},
		{"escaped credit in a readme", "README.html", "<li>Zoe Example &lt;zoe.example@mailhost.io&gt;</li>", []string{"note"}},
		{"escaped credit in docs", "docs/thanks.md", "* Abe Example &lt;abe.example@mailhost.io&gt;", []string{"note"}},
		{"escaped address in code", "web/list.js", "html = 'Abe Example &lt;abe.example@mailhost.io&gt;'", []string{"warning"}},
		{"escaped address without a name", "README.md", "&lt;bea.example@mailhost.io&gt;", []string{"warning"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := emailSeverities(t, d, fragmentOf(finding.KindDiff, c.path, c.text))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("severities %v, want %v", got, c.want)
			}
		})
	}
}

func TestBrackets(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`"authors": [`, 1}, {`{ "a": "[x" }`, 0}, {`],`, -1}, {`"x\"[": [{`, 2}, {`'[' ]`, -1},
	} {
		if got := brackets([]byte(c.in)); got != c.want {
			t.Errorf("brackets(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// FuzzManifest runs the manifest readers over arbitrary lines: no panic,
// and a block never has a negative depth.
func FuzzManifest(f *testing.F) {
	f.Add("\"contributors\": [\n {\"email\": \"a@b.io\"}\n]\n", uint8(1))
	f.Add("authors = [\n {name = \"A\", email = \"a@b.io\"},\n]", uint8(2))
	f.Add("spec.email = ['a@b.io',\n 'c@d.io']", uint8(3))
	f.Add("<developers><developer><email>a@b.io</email></developer></developers>", uint8(4))
	f.Add("developers {\n developer { email = 'a@b.io' }\n}", uint8(5))
	f.Add(" -- A <a@b.io>  Mon, 01 Jan 2024\nuid [u] A <a@b.io>\nA &lt;a@b.io&gt;", uint8(6))
	f.Fuzz(func(t *testing.T, text string, kind uint8) {
		m := manifestState{kind: manifestKind(kind % 7)}
		for _, l := range strings.Split(text, "\n") {
			m.next([]byte(l))
			keyringUID([]byte(l))
			ciRecipient([]byte(l))
			if m.depth < 0 {
				t.Fatalf("depth %d", m.depth)
			}
			for i := 0; i <= len(l); i++ {
				escapedCredit([]byte(l), i, i)
			}
		}
	})
}
