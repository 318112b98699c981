package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound9Rules: bug-report contacts, a package's __email__ and a
// configured git identity are notes; the same addresses in other
// sentences, lines, keys or in fixtures keep the warning. Synthetic names
// and hosts only; each fragment is the added lines alone, as a diff
// gives them.
func TestRound9Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// Bug-report contacts.
		{"report bugs to", "src/main.c", finding.KindDiff, `  puts("Report bugs to <bug-tool@mailhost.io>.");`, []string{"note"}},
		{"report bugs and patches to", "build-aux/config.sub", finding.KindDiff, `Report bugs and patches to <cfg-patches@mailhost.io>."`, []string{"note"}},
		{"send bug reports to", "build-aux/missing", finding.KindDiff, `Send bug reports to <bug-tool@mailhost.io>."`, []string{"note"}},
		{"please send patches to, in the second sentence", "build-aux/config.guess", finding.KindDiff, "# Submit a context diff. Please send patches to <ana.example@mailhost.io>.", []string{"note"}},
		{"report the problem to x and/or to", "m4/libtool.m4", finding.KindDiff, "*** report the problem to your system manager and/or to bo.example@mailhost.io", []string{"note"}},
		{"report bugs to:", "README", finding.KindDiff, "Report bugs to: cy.example@mailhost.io", []string{"note"}},
		{"passive", "README.md", finding.KindDiff, "Bugs should be reported to dee.example@mailhost.io.", []string{"note"}},
		{"issues in a change log", "NEWS", finding.KindDiff, "- Report bugs to wes.example@mailhost.io", []string{"note"}},
		// A header's bug-report label.
		{"report bugs label", "dnsapi/dns_x.sh", finding.KindDiff, "#Report Bugs: https://mailhost.io/tool/issues  or  ana.example@mailhost.io", []string{"note"}},
		{"report bugs here label", "dnsapi/dns_y.sh", finding.KindDiff, "# Report Bugs here: team.example@mailhost.io          #", []string{"note"}},
		{"bug reports label", "src/x.c", finding.KindDiff, " * Bug reports: <bo.example@mailhost.io>", []string{"note"}},
		// Not a bug-report contact.
		{"another label", "dnsapi/dns_x.sh", finding.KindDiff, "# Contact: cy.example@mailhost.io", []string{"warning"}},
		{"a label without a verb", "dnsapi/dns_x.sh", finding.KindDiff, "# Bugs: cy.example@mailhost.io", []string{"warning"}},
		{"other words after the label", "dnsapi/dns_x.sh", finding.KindDiff, "# Report bugs: ask cy.example@mailhost.io", []string{"warning"}},
		{"a URL without or", "dnsapi/dns_x.sh", finding.KindDiff, "# Report bugs: https://mailhost.io/x cy.example@mailhost.io", []string{"warning"}},
		{"a label in a fixture", "testdata/dns_x.sh", finding.KindDiff, "# Report bugs: cy.example@mailhost.io", []string{"warning"}},
		{"a label in a commit message", "", finding.KindCommitMessage, "Fix x\n\nReport bugs: cy.example@mailhost.io", []string{"warning"}},
		{"request on the line before", "m4/libtool.m4", finding.KindDiff, "*** may want to report the problem to your system manager and/or to\n*** eve.example@mailhost.io", []string{"warning"}},
		{"other words after to", "src/x.go", finding.KindDiff, "// report the bug to the team, ask fay.example@mailhost.io", []string{"warning"}},
		{"sending something else", "src/x.go", finding.KindDiff, "// send the invoice to gus.example@mailhost.io", []string{"warning"}},
		{"no verb", "src/x.go", finding.KindDiff, "// bugs go to hal.example@mailhost.io", []string{"warning"}},
		{"another sentence", "README.md", finding.KindDiff, "We fix bugs fast. Write to ida.example@mailhost.io", []string{"warning"}},
		{"to inside a word", "src/x.go", finding.KindDiff, "// report bugs into jo.example@mailhost.io", []string{"warning"}},
		{"in a fixture", "testdata/help.txt", finding.KindDiff, "Report bugs to <kim.example@mailhost.io>.", []string{"warning"}},
		{"in a commit message", "", finding.KindCommitMessage, "Fix x\n\nReport bugs to <lu.example@mailhost.io>.", []string{"warning"}},
		// __email__.
		{"dunder email", "pkg/__init__.py", finding.KindDiff, "__author__ = \"Ana Example\"\n__email__ = \"ana.example@mailhost.io\"", []string{"note"}},
		{"dunder email alone", "src/pkg/__about__.py", finding.KindDiff, `__email__ = "bo.example@mailhost.io"`, []string{"note"}},
		{"dunder email annotated", "pkg/__init__.py", finding.KindDiff, `__email__: str = "cy.example@mailhost.io"`, []string{"note"}},
		{"dunder maintainer email", "pkg/version.py", finding.KindDiff, `__maintainer_email__ = 'dee.example@mailhost.io'`, []string{"note"}},
		{"dunder email asserted in a test", "tests/test_packaging.py", finding.KindDiff, `            assert "eve.example@mailhost.io" == pkg.__email__`, []string{"warning"}},
		{"dunder email in a test module", "tests/test_meta.py", finding.KindDiff, `__email__ = "fay.example@mailhost.io"`, []string{"warning"}},
		{"dunder email compared", "pkg/check.py", finding.KindDiff, `__email__ == "gus.example@mailhost.io"`, []string{"warning"}},
		{"dunder email indented", "pkg/mod.py", finding.KindDiff, `    __email__ = "hal.example@mailhost.io"`, []string{"warning"}},
		{"dunder email outside python", "pkg/meta.rb", finding.KindDiff, `__email__ = "ida.example@mailhost.io"`, []string{"warning"}},
		{"other dunder", "pkg/__init__.py", finding.KindDiff, `__support__ = "jo.example@mailhost.io"`, []string{"warning"}},
		// A configured git identity.
		{"goreleaser commit_author", ".goreleaser.yml", finding.KindDiff, "brews:\n  - name: tool\n    commit_author:\n      name: Ana Example\n      email: ana.example@mailhost.io\n    folder: Formula\n    description: x\n    extra: bo.example@mailhost.io", []string{"note", "warning"}},
		{"goreleaser commit_author alone", ".goreleaser.yaml", finding.KindDiff, "  commit_author:\n    name: Cy Example\n    email: cy.example@mailhost.io", []string{"note"}},
		{"commit_author inline", ".goreleaser.yml", finding.KindDiff, "    commit_author: {name: Dee Example, email: dee.example@mailhost.io}", []string{"note"}},
		{"git config user.email", ".travis/docs.sh", finding.KindDiff, "git config user.name \"Eve Example\"\ngit config user.email \"eve.example@mailhost.io\"", []string{"note"}},
		{"git config --global in a Dockerfile", "gallery/Dockerfile", finding.KindDiff, "    && git config --global user.email \"fay.example@mailhost.io\" \\", []string{"note"}},
		{"git -c user.email=", "scripts/release.sh", finding.KindDiff, "git -c user.email=gus.example@mailhost.io commit -m x", []string{"note"}},
		{"committer env", ".github/workflows/docs.yml", finding.KindDiff, "          GIT_COMMITTER_EMAIL: hal.example@mailhost.io", []string{"note"}},
		{"committer ident", ".github/workflows/bump.yml", finding.KindDiff, "          committer: Ida Example <ida.example@mailhost.io>", []string{"note"}},
		{"commit_user_email", ".github/workflows/fmt.yml", finding.KindDiff, "          commit_user_email: jo.example@mailhost.io", []string{"note"}},
		{"export git email", "ci/push.sh", finding.KindDiff, "export GIT_EMAIL=kim.example@mailhost.io", []string{"note"}},
		// Not a git identity.
		{"user.email without git", "config/app.properties", finding.KindDiff, "user.email=lu.example@mailhost.io", []string{"warning"}},
		{"another key", ".github/workflows/ci.yml", finding.KindDiff, "          NOTIFY_EMAIL: mo.example@mailhost.io", []string{"warning"}},
		{"gitlab key", "config/app.yml", finding.KindDiff, "gitlab_email: nia.example@mailhost.io", []string{"warning"}},
		{"email under another block", "config/app.yml", finding.KindDiff, "notify:\n  email: oli.example@mailhost.io", []string{"warning"}},
		{"git config user.name line", "ci/push.sh", finding.KindDiff, "git config user.name pat.example@mailhost.io", []string{"warning"}},
		{"git identity in a fixture", "testdata/repo/setup.sh", finding.KindDiff, "git config user.email \"quin.example@mailhost.io\"", []string{"warning"}},
		{"committer in a test fixture", "test/fixtures/commit.yml", finding.KindDiff, "committer: Ray Example <ray.example@mailhost.io>", []string{"warning"}},
		{"git identity in a commit message", "", finding.KindCommitMessage, "Fix CI\n\ngit config user.email sam.example@mailhost.io", []string{"warning"}},
		// An RPM %changelog entry's header (held-out round 11).
		{"rpm changelog entry", "extras/packaging/linux/fedora/pkg.spec.txt", finding.KindDiff, "Release: 1\n%changelog\n* Wed Jun 14 2023 Ana Example <ana.example@mailhost.io> - 1.2-3\n- Update to 1.2", []string{"note"}},
		{"rpm changelog entry, bare address, one-digit day", "pkg.spec", finding.KindDiff, "Release: 1\n* Mon Jan  1 2024 bo.example@mailhost.io 1.0-1", []string{"note"}},
		{"rpm changelog entry body", "pkg.spec", finding.KindDiff, "Release: 1\n* Wed Jun 14 2023 Cy Example <cy.example@mailhost.io> - 1.2-3\n- Export the ledger for dee.example@mailhost.io", []string{"note", "warning"}},
		{"a list item without the date", "pkg.spec", finding.KindDiff, "Release: 1\n%changelog\n* Fixed the export for eve.example@mailhost.io", []string{"warning"}},
		{"a two-digit year", "pkg.spec", finding.KindDiff, "Release: 1\n%changelog\n* Wed Jun 14 23 Fay Example <fay.example@mailhost.io>", []string{"warning"}},
		{"not a weekday", "pkg.spec", finding.KindDiff, "Release: 1\n%changelog\n* Foo Jun 14 2023 Gus Example <gus.example@mailhost.io>", []string{"warning"}},
		{"a dash, not a star", "pkg.spec", finding.KindDiff, "Release: 1\n%changelog\n- Wed Jun 14 2023 Hal Example <hal.example@mailhost.io>", []string{"warning"}},
		{"rpm changelog entry in a fixture", "tests/fixtures/pkg.spec", finding.KindDiff, "Release: 1\n%changelog\n* Wed Jun 14 2023 Ida Example <ida.example@mailhost.io> - 1", []string{"warning"}},
		{"rpm changelog entry in a commit message", "", finding.KindCommitMessage, "Bump\n\n* Wed Jun 14 2023 Jo Example <jo.example@mailhost.io> - 1", []string{"warning"}},
	}
	runSeverityCases(t, d, 10, 10, cases)
}

func TestIdentityKey(t *testing.T) {
	cases := []struct {
		key  string
		want bool
	}{
		{"commit_author", true},
		{"committer", true},
		{"GIT_COMMITTER_EMAIL", true},
		{"GIT_AUTHOR_EMAIL", true},
		{"commit_user_email", true},
		{"git-user-email", true},
		{"git.email", true},
		{"email", false},
		{"author_email", false},
		{"gitlab_email", false},
		{"commits", false},
		{"git", false},
		{"gitUserEmail", true},
		{"git_genericEmail", true},
		{"GITUserEmail", true},
		{"commitAuthor", true},
		{"userEmail", false},
		{"gitHubEmail", false},
		{"GitLab_email", false},
		{"digitEmail", false},
		{"", false},
	}
	for _, c := range cases {
		if got := identityKey([]byte(c.key)); got != c.want {
			t.Errorf("identityKey(%q) = %v, want %v", c.key, got, c.want)
		}
	}
}

// TestRound11Rules: a Ruby build file's gem credit constant and a Gentoo
// metadata.xml's maintainer are notes; other constants, other files, other
// elements and fixtures keep the warning. Synthetic names and hosts only;
// each fragment is the added lines alone, as a diff gives them.
func TestRound11Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	const gemHead = "GEM = \"tool\"\nGEM_VERSION = \"0.9.1\"\nAUTHOR = \"Ana Example\"\n"
	cases := []severityCase{
		// A gem's credit constant in a Ruby build file.
		{"EMAIL in a Thorfile", "Thorfile", finding.KindDiff, gemHead + "EMAIL = \"ana.example@mailhost.io\"\nHOMEPAGE = \"https://tool.example.org\"\n\nspec = Gem::Specification.new do |s|\n  s.author = AUTHOR\n  s.email = EMAIL\nend", []string{"note"}},
		{"EMAIL in a Rakefile", "Rakefile", finding.KindDiff, gemHead + "EMAIL = 'bo.example@mailhost.io'", []string{"note"}},
		{"EMAIL alone", "Rakefile", finding.KindDiff, "EMAIL = \"cy.example@mailhost.io\"", []string{"note"}},
		{"AUTHOR_EMAIL in a gemspec", "tool.gemspec", finding.KindDiff, "AUTHOR_EMAIL = \"dee.example@mailhost.io\"", []string{"note"}},
		{"GEM_EMAIL in a rake file", "tasks/gem.rake", finding.KindDiff, "GEM_EMAIL=\"eve.example@mailhost.io\"", []string{"note"}},
		{"EMAILS as an array", "Rakefile", finding.KindDiff, "EMAILS = [\"fay.example@mailhost.io\", \"gus.example@mailhost.io\"]", []string{"note", "warning"}},
		{"AUTHOR in ident form", "Rakefile", finding.KindDiff, "AUTHOR = \"Hal Example <hal.example@mailhost.io>\"", []string{"note"}},
		// Not a gem's credit constant.
		{"SUPPORT_EMAIL in a Rakefile", "Rakefile", finding.KindDiff, "SUPPORT_EMAIL = \"ida.example@mailhost.io\"", []string{"warning"}},
		{"ADMIN_EMAIL in app code", "config/initializers/mail.rb", finding.KindDiff, "ADMIN_EMAIL = \"jo.example@mailhost.io\"", []string{"warning"}},
		{"EMAIL in app code", "lib/tool/mailer.rb", finding.KindDiff, "EMAIL = \"kim.example@mailhost.io\"", []string{"warning"}},
		{"EMAIL in a spec fixture", "spec/fixtures/Rakefile", finding.KindDiff, "EMAIL = \"lu.example@mailhost.io\"", []string{"warning"}},
		{"EMAIL in a test gemspec", "test/fixtures/sample.gemspec", finding.KindDiff, "EMAIL = \"mo.example@mailhost.io\"", []string{"warning"}},
		{"EMAIL indented in a class", "Rakefile", finding.KindDiff, "  EMAIL = \"nia.example@mailhost.io\"", []string{"warning"}},
		{"EMAIL compared", "Rakefile", finding.KindDiff, "EMAIL == \"oli.example@mailhost.io\"", []string{"warning"}},
		{"EMAIL after a fallback", "Rakefile", finding.KindDiff, "EMAIL = ENV['X'] || 'pat.example@mailhost.io'", []string{"warning"}},
		{"NOTIFY_GEM_EMAIL", "Rakefile", finding.KindDiff, "NOTIFY_GEM_EMAIL = \"quin.example@mailhost.io\"", []string{"warning"}},
		{"EMAIL in a commit message", "", finding.KindCommitMessage, "Bump\n\nEMAIL = \"ray.example@mailhost.io\"", []string{"warning"}},
		// Gentoo's package metadata.
		{"gentoo maintainer", "packaging/linux-gentoo/metadata.xml", finding.KindDiff, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE pkgmetadata SYSTEM \"https://www.gentoo.org/dtd/metadata.dtd\">\n<pkgmetadata>\n\t<maintainer type=\"person\" proxied=\"yes\">\n\t\t<email>sam.example@mailhost.io</email>\n\t\t<name>Sam Example</name>\n\t</maintainer>\n</pkgmetadata>", []string{"note"}},
		{"gentoo maintainer on one line", "metadata.xml", finding.KindDiff, "<maintainer type=\"person\"><email>tam.example@mailhost.io</email></maintainer>", []string{"note"}},
		{"gentoo upstream maintainer", "dev-util/tool/metadata.xml", finding.KindDiff, "\t<upstream>\n\t\t<maintainer>\n\t\t\t<name>Uma Example</name>\n\t\t\t<email>uma.example@mailhost.io</email>\n\t\t</maintainer>", []string{"note"}},
		{"email after the maintainer closed", "metadata.xml", finding.KindDiff, "\t<maintainer type=\"person\">\n\t\t<email>val.example@mailhost.io</email>\n\t</maintainer>\n\t<contact><email>wes.example@mailhost.io</email></contact>", []string{"note", "warning"}},
		{"email with the opener not shown", "metadata.xml", finding.KindDiff, "\t\t<email>xan.example@mailhost.io</email>", []string{"warning"}},
		{"maintainers list is not the element", "metadata.xml", finding.KindDiff, "<maintainers-note>\n<email>yul.example@mailhost.io</email>", []string{"warning"}},
		{"maintainer in another xml file", "config/app.xml", finding.KindDiff, "<maintainer type=\"person\">\n<email>zed.example@mailhost.io</email>", []string{"warning"}},
		{"gentoo metadata in a fixture", "tests/fixtures/metadata.xml", finding.KindDiff, "<maintainer type=\"person\">\n<email>abe.example@mailhost.io</email>", []string{"warning"}},
		// A PEAR or PECL package.xml's maintainers.
		{"pear lead", "package.xml.tpl", finding.KindDiff, " <lead>\n  <name>Ana Example</name>\n  <user>anaex</user>\n  <email>ana.example@mailhost.io</email>\n  <active>yes</active>\n </lead>\n <developer>\n  <email>bo.example@mailhost.io</email>\n </developer>", []string{"note", "note"}},
		{"pear helper and contributor", "ext/tool/package.xml", finding.KindDiff, "<helper><email>cy.example@mailhost.io</email></helper>\n<contributor>\n<email>dee.example@mailhost.io</email>", []string{"note", "note"}},
		{"pear v1 maintainer", "package2.xml", finding.KindDiff, "<maintainers>\n <maintainer>\n  <role>lead</role>\n  <email>eve.example@mailhost.io</email>", []string{"note"}},
		{"pear email outside the people", "package.xml", finding.KindDiff, "</lead>\n<uri>x</uri>\n<email>fay.example@mailhost.io</email>", []string{"warning"}},
		{"a lead element in another xml file", "config/team.xml", finding.KindDiff, "<lead>\n<email>gus.example@mailhost.io</email>", []string{"warning"}},
		{"pear package.xml in a fixture", "tests/fixtures/package.xml", finding.KindDiff, "<lead>\n<email>hal.example@mailhost.io</email>", []string{"warning"}},
		// A sentence that offers an address for discussion, in documentation.
		{"discuss at", "README.md", finding.KindDiff, "Patches are welcome. We can also discuss new features at bea.example@mailhost.io.", []string{"note"}},
		{"discuss by email", "man/tool.1.ronn", finding.KindDiff, "Or discuss by email <cal.example@mailhost.io>", []string{"note"}},
		{"discussion on", "docs/contributing.rst", finding.KindDiff, "Discussion happens on `dan.example@mailhost.io`.", []string{"note"}},
		{"discuss with", "README.md", finding.KindDiff, "We can discuss the refund with eli.example@mailhost.io.", []string{"warning"}},
		{"discuss in another sentence", "README.md", finding.KindDiff, "We discuss features weekly. Send the invoice to fin.example@mailhost.io", []string{"warning"}},
		{"no discuss", "README.md", finding.KindDiff, "Questions go to gil.example@mailhost.io", []string{"warning"}},
		{"discuss in code", "src/app.go", finding.KindDiff, "// discuss new features at hec.example@mailhost.io", []string{"warning"}},
		{"discuss in a fixture's docs", "test/fixtures/README.md", finding.KindDiff, "We can discuss new features at ivy.example@mailhost.io.", []string{"warning"}},
		{"discussed, a word not the verb", "README.md", finding.KindDiff, "The indiscussable list at jon.example@mailhost.io", []string{"warning"}},
		// A valediction and the writer's signature.
		{"cheers and a handle in a script", ".envrc", finding.KindDiff, "echo \"Check the README and contact me if you have any questions.\"\necho\necho \"Cheers, kaexample <kai.example@mailhost.io>\"", []string{"note"}},
		{"regards and a name", "scripts/notify.sh", finding.KindDiff, "printf 'Best regards, Lea van Example <lea.example@mailhost.io>\\n'", []string{"note"}},
		{"valediction in a printed string", "src/cli.py", finding.KindDiff, "    print('Many thanks, Max Example <max.example@mailhost.io>')", []string{"note"}},
		{"valediction on the line before", "docs/letter.txt", finding.KindDiff, "Kind regards,\nNed Example <ned.example@mailhost.io>", []string{"warning"}},
		{"a pasted letter's signature", "notes.txt", finding.KindDiff, "Regards, Uli Example <uli.example@mailhost.io>", []string{"warning"}},
		{"valediction in a message", "", finding.KindCommitMessage, "Fix\n\nCheers, Vic Example <vic.example@mailhost.io>", []string{"warning"}},
		{"string closed before the address", "scripts/notify.sh", finding.KindDiff, "echo \"Cheers,\" Wyn <wyn.example@mailhost.io>", []string{"warning"}},
		{"valediction and a sentence", "scripts/notify.sh", finding.KindDiff, "echo \"Thanks, please ask Ola <ola.example@mailhost.io>\"", []string{"warning"}},
		{"valediction and a bare address", "scripts/notify.sh", finding.KindDiff, "echo \"Cheers, pam.example@mailhost.io\"", []string{"warning"}},
		{"no comma", "scripts/notify.sh", finding.KindDiff, "echo \"Cheers to Quy Example <quy.example@mailhost.io>\"", []string{"warning"}},
		{"best inside a word", "scripts/notify.sh", finding.KindDiff, "echo \"Nobest, Rex <rex.example@mailhost.io>\"", []string{"warning"}},
		{"a valediction word in a longer line before", "docs/letter.txt", finding.KindDiff, "We sent our best regards,\nSue Example <sue.example@mailhost.io>", []string{"warning"}},
		{"signature in a fixture", "spec/fixtures/mail.txt", finding.KindDiff, "Cheers, Tia Example <tia.example@mailhost.io>", []string{"warning"}},
	}
	runSeverityCases(t, d, 10, 10, cases)
}
