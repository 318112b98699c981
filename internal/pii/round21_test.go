package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound21Rules: the shapes held-out round 21 showed, and near misses
// that keep their warning. Synthetic names and hosts only; each fragment
// is the added lines alone, numbered from line 1 of the file.
func TestRound21Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// A change-log credit wrapped before the address.
		{"NEWS thanks wrapped, for reporting", "NEWS", finding.KindDiff, "- Fix a parser bug.  Thanks Ada Example\n  <ada.example@mailhost.io> for reporting.", []string{"note"}},
		{"NEWS thanks wrapped, for contributing", "NEWS", finding.KindDiff, "  out the close tag.  Thanks Bo B. Sample\n  <bo@mailhost.io> for contributing this fix.", []string{"note"}},
		{"NEWS thanks wrapped, address alone", "CHANGELOG.md", finding.KindDiff, "- A few fixes, thanks Ada Example\n  <ada.example@mailhost.io>", []string{"note"}},
		{"NEWS thanks, a second name wrapped", "NEWS", finding.KindDiff, "  problems.  Thanks Ada Example for reporting, bo\n  <bo@mailhost.io> for diagnosing.", []string{"note"}},
		// Recall: no thanks, a sentence after it, no brackets, other
		// words after the address, outside a change log, not adjacent.
		{"NEWS wrapped, no thanks", "NEWS", finding.KindDiff, "- Fix a parser bug, report from Ada Example\n  <ada.example@mailhost.io> for reporting.", []string{"warning"}},
		{"NEWS thanks then a sentence", "NEWS", finding.KindDiff, "- Thanks to all.  Mail Ada Example\n  <ada.example@mailhost.io> for reporting.", []string{"warning"}},
		{"NEWS thanks, no brackets", "NEWS", finding.KindDiff, "- Fix a parser bug.  Thanks Ada Example\n  ada.example@mailhost.io for reporting.", []string{"warning"}},
		{"NEWS thanks, other words after", "NEWS", finding.KindDiff, "- Fix a parser bug.  Thanks Ada Example\n  <ada.example@mailhost.io> who lives at home.", []string{"warning"}},
		{"NEWS thanks, for and a noun", "NEWS", finding.KindDiff, "- Fix a parser bug.  Thanks Ada Example\n  <ada.example@mailhost.io> for the data.", []string{"warning"}},
		{"thanks wrapped in source", "src/news.py", finding.KindDiff, "# Thanks Ada Example\n# <ada.example@mailhost.io> for reporting.", []string{"warning"}},
		// A Puppet function's doc heredoc closing signature.
		{"heredoc signature", "lib/puppet/parser/functions/validate_x.rb", finding.KindDiff, "        validate_x(true)\n\n    * Ada Example <ada.example@mailhost.io>\n    * Bo Sample <bo@mailhost.io>\n\n    ENDHEREDOC\n  ) do |args|", []string{"note", "note"}},
		{"heredoc signature, bare", "lib/puppet/parser/functions/validate_y.rb", finding.KindDiff, "        validate_y('one')\n\n    Ada Example <ada.example@mailhost.io>\n\n    EOS", []string{"note"}},
		// Recall: code after it, no terminator in the fragment, a lower
		// case word, another language.
		{"signature then code", "lib/puppet/parser/functions/validate_x.rb", finding.KindDiff, "    Ada Example <ada.example@mailhost.io>\n    x = 1\n    ENDHEREDOC", []string{"warning"}},
		{"signature, no terminator", "lib/puppet/parser/functions/validate_x.rb", finding.KindDiff, "    Ada Example <ada.example@mailhost.io>\n", []string{"warning"}},
		{"signature, lower-case word", "lib/x.rb", finding.KindDiff, "    Ada Example <ada.example@mailhost.io>\n    end", []string{"warning"}},
		{"signature in Python", "src/x.py", finding.KindDiff, "    Ada Example <ada.example@mailhost.io>\n    EOS", []string{"warning"}},
		{"signature in a fixture", "spec/fixtures/x.rb", finding.KindDiff, "    Ada Example <ada.example@mailhost.io>\n    EOS", []string{"warning"}},
		// gettext-setup's bugs_address.
		{"gettext bugs_address", "locales/config.yaml", finding.KindDiff, "  # The email used for sending bug reports.\n  bugs_address: docs@mailhost.io", []string{"note"}},
		{"gettext another key", "locales/config.yaml", finding.KindDiff, "  admin_address: ada.example@mailhost.io", []string{"warning"}},
		{"bugs_address elsewhere", "config/config.yaml", finding.KindDiff, "  bugs_address: ada.example@mailhost.io", []string{"warning"}},
		// A README's contact section.
		{"README contact section", "README.markdown", finding.KindDiff, "# Contact Information #\n\n  Ada Example <ada.example@mailhost.io>", []string{"note"}},
		{"README after the contact section", "README.md", finding.KindDiff, "## Contact\n\nSee below.\n\n## Users\n\n  Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"README, a word holding contact", "README.md", finding.KindDiff, "## Contacts-free\n\nx\n## Contactless\n\n  ada.example@mailhost.io", []string{"warning"}},
		{"contact section in a fixture", "test/fixtures/README.md", finding.KindDiff, "# Contact\n\nada.example@mailhost.io", []string{"warning"}},
		// "as Name <address> points out" in a commit message.
		{"message points out", "", finding.KindCommitMessage, "Add domain tests\n\nSome names are not covered as Ada Example <ada.example@mailhost.io> points out.", []string{"note"}},
		{"message pointed out", "", finding.KindCommitMessage, "Fix x\n\nAs Ada Example <ada.example@mailhost.io> pointed out, x was wrong.", []string{"note"}},
		{"message, other words", "", finding.KindCommitMessage, "Fix x\n\nAs Ada Example <ada.example@mailhost.io> wrote, x was wrong.", []string{"warning"}},
		{"message, no brackets", "", finding.KindCommitMessage, "Fix x\n\nas ada.example@mailhost.io points out.", []string{"warning"}},
		{"points out in a file", "docs/x.md", finding.KindDiff, "as Ada Example <ada.example@mailhost.io> points out.", []string{"warning"}},
		// A news: URI's Message-ID: no finding.
		{"news URI", "tests/URISchemeTest.php", finding.KindDiff, "            'news:local.42@news.mailhost.io'", nil},
		{"news URI, capitals", "docs/x.md", finding.KindDiff, "<NEWS:local.42@news.mailhost.io>", nil},
		{"a word ending in news", "src/x.py", finding.KindDiff, "x = 'goodnews:ada.example@mailhost.io'", []string{"warning"}},
		{"news label with a blank", "README.md", finding.KindDiff, "News: ada.example@mailhost.io", []string{"warning"}},
		// "send mail to <address> to discuss" in documentation.
		{"mail to discuss", "README.markdown", finding.KindDiff, "Before writing code, send mail to ada.example@mailhost.io to discuss what you\nplan to do.", []string{"note"}},
		{"mail to, another verb", "README.md", finding.KindDiff, "Before writing code, send mail to ada.example@mailhost.io to ask.", []string{"warning"}},
		{"to discuss, no mailing verb", "README.md", finding.KindDiff, "Talk to ada.example@mailhost.io to discuss it.", []string{"warning"}},
		{"mail to discuss in code", "src/x.go", finding.KindDiff, "// send mail to ada.example@mailhost.io to discuss it", []string{"warning"}},
		// A CONTRIBUTING guide's CLA mailbox.
		{"CLA questions wrapped", "CONTRIBUTING.md", finding.KindDiff, "      If you have any questions about the CLA, please feel free to\n      contact the company via email at cla@mailhost.io", []string{"note"}},
		{"license agreement on the line", "CONTRIBUTING.md", finding.KindDiff, "Questions about the Contributor License Agreement go to <cla@mailhost.io>.", []string{"note"}},
		{"CLA, then a sentence", "CONTRIBUTING.md", finding.KindDiff, "Sign the CLA. Then ask\nyour reviewer at ada.example@mailhost.io", []string{"warning"}},
		{"CLA, no preposition", "CONTRIBUTING.md", finding.KindDiff, "Sign the CLA with ada.example@mailhost.io", []string{"warning"}},
		{"CLA, lower-case word", "CONTRIBUTING.md", finding.KindDiff, "Ask the clan via email at ada.example@mailhost.io", []string{"warning"}},
		{"CLA outside the guide", "docs/x.md", finding.KindDiff, "Sign the CLA or write to ada.example@mailhost.io", []string{"warning"}},
		// A Gradle POM's developers block.
		{"gradle developers", "gradle/maven.gradle", finding.KindDiff, "pom.project {\n    developers {\n        developer {\n            id 'team'\n            name 'Example Open Source'\n            email 'oss@mailhost.io'\n        }\n    }\n}", []string{"note"}},
		{"gradle after developers", "build.gradle", finding.KindDiff, "developers {\n    developer { id 'x' }\n}\next.admin = 'ada.example@mailhost.io'", []string{"warning"}},
		{"gradle developersEmail key", "build.gradle", finding.KindDiff, "developersEmail { 'ada.example@mailhost.io' }", []string{"warning"}},
		{"developers block in Groovy", "src/x.groovy", finding.KindDiff, "developers {\n    email 'ada.example@mailhost.io'\n}", []string{"warning"}},
		// "adapted from X by Name and <address>" wrapped in a doc comment.
		{"adapted from, wrapped", "library/Encoder.php", finding.KindDiff, "     * @note Code adapted from fromUtf8 by Ada Example and\n     *       ada.example@mailhost.io at <http://mailhost.io/x/> under the", []string{"note"}},
		{"adapted from, no by", "library/Encoder.php", finding.KindDiff, "     * Code adapted from fromUtf8 and\n     *       ada.example@mailhost.io at <http://mailhost.io/x/>", []string{"warning"}},
		{"adapted from, sentence ended", "library/Encoder.php", finding.KindDiff, "     * Code adapted from x by Bo. Ask Ada and\n     *       ada.example@mailhost.io at home", []string{"warning"}},
		{"adapted from, address later", "library/Encoder.php", finding.KindDiff, "     * Code adapted from x by Ada Example and\n     *       Bo, ada.example@mailhost.io", []string{"warning"}},
		{"adapted from, in a fixture", "tests/fixtures/x.php", finding.KindDiff, "     * Code adapted from x by Ada Example and\n     *       ada.example@mailhost.io at", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}
