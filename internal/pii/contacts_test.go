package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound14Rules: a code of conduct's contact (by the file's name and
// place) and a commented-out gem specification's email in a Ruby build
// file are notes, and license@ and licensing@ mailboxes are not reported
// (role mailboxes); a person's address in another doc file, a code of
// conduct in a test's, a fixture's or an example's directory or deeper in
// the tree, and other Ruby comments keep the warning. Synthetic names and
// hosts only; each fragment is the added lines alone, as a diff gives
// them.
func TestRound14Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// A code of conduct's contact.
		{"code of conduct at the root", "CODE_OF_CONDUCT.md", finding.KindDiff, "Instances may be raised with ana.example@mailhost.io. All complaints will be reviewed", []string{"note"}},
		{"code of conduct under docs, upper case", "docs/CODE_OF_CONDUCT.md", finding.KindDiff, "Please contact bo.example@mailhost.io or cy.example@mailhost.io.", []string{"note", "note"}},
		{"code of conduct under docs, lower case", "docs/code_of_conduct.md", finding.KindDiff, "- dee.example@mailhost.io", []string{"note"}},
		{"code-of-conduct under .github, rst", ".github/Code-Of-Conduct.rst", finding.KindDiff, "Email eve.example@mailhost.io with the details.", []string{"note"}},
		{"CONDUCT without an extension", "CONDUCT", finding.KindDiff, "Contact fay.example@mailhost.io", []string{"note"}},
		{"conduct.txt under doc", "doc/conduct.txt", finding.KindDiff, "Contact gus.example@mailhost.io", []string{"note"}},
		{"CODEOFCONDUCT.adoc", "CODEOFCONDUCT.adoc", finding.KindDiff, "Contact hal.example@mailhost.io", []string{"note"}},
		// Not a code of conduct's contact.
		{"a person in another doc file", "docs/CONTRIBUTING.md", finding.KindDiff, "Ask ida.example@mailhost.io about the release.", []string{"warning"}},
		{"a person in the README", "README.md", finding.KindDiff, "Contact jo.example@mailhost.io", []string{"warning"}},
		{"code of conduct under testdata", "testdata/CODE_OF_CONDUCT.md", finding.KindDiff, "Contact kim.example@mailhost.io", []string{"warning"}},
		{"code of conduct under examples", "examples/site/CODE_OF_CONDUCT.md", finding.KindDiff, "Contact lu.example@mailhost.io", []string{"warning"}},
		{"code of conduct under docs/examples", "docs/examples/CODE_OF_CONDUCT.md", finding.KindDiff, "Contact mo.example@mailhost.io", []string{"warning"}},
		{"code of conduct in a deeper directory", "pkg/tool/CODE_OF_CONDUCT.md", finding.KindDiff, "Contact nia.example@mailhost.io", []string{"warning"}},
		{"code of conduct with another extension", "CODE_OF_CONDUCT.go", finding.KindDiff, `const contact = "oli.example@mailhost.io"`, []string{"warning"}},
		{"a name that only starts like one", "CONDUCTOR.md", finding.KindDiff, "Contact pat.example@mailhost.io", []string{"warning"}},
		{"code of conduct named in a message", "", finding.KindCommitMessage, "Update CODE_OF_CONDUCT.md\n\nContact quin.example@mailhost.io", []string{"warning"}},
		// A commented-out gem specification's email.
		{"commented Jeweler block in a Rakefile", "Rakefile", finding.KindDiff, "  # Jeweler::Tasks.new do |gem|\n    # gem.name = \"tool\"\n    # gem.email = \"ana.example@mailhost.io;bo.example@mailhost.io\"\n    # gem.authors = [\"Ana Example\", \"Bo Example\"]\n  # end", []string{"note", "note"}},
		{"commented s.email %w list in a gemspec", "tool.gemspec", finding.KindDiff, "#  s.email = %w[cy.example@mailhost.io dee.example@mailhost.io]", []string{"note", "note"}},
		{"commented spec.email array in a Gemfile", "Gemfile", finding.KindDiff, "## spec.email = ['eve.example@mailhost.io', 'fay.example@mailhost.io']", []string{"note", "note"}},
		{"commented s.email %w() in a Rakefile", "Rakefile", finding.KindDiff, "#s.email = %w(hal.example@mailhost.io)", []string{"note"}},
		{"commented single-quoted in a .rake file", "tasks/gem.rake", finding.KindDiff, "\t# gem.email = 'gus.example@mailhost.io'", []string{"note"}},
		// Not a commented-out gem email.
		{"a Ruby comment that is not an assignment", "Rakefile", finding.KindDiff, "# ask hal.example@mailhost.io before a release", []string{"warning"}},
		{"a comment naming the field", "Rakefile", finding.KindDiff, "# gem.email is ida.example@mailhost.io", []string{"warning"}},
		{"a comparison", "Rakefile", finding.KindDiff, "# gem.email == \"jo.example@mailhost.io\"", []string{"warning"}},
		{"a constant, not a field", "Rakefile", finding.KindDiff, "# email = \"kim.example@mailhost.io\"", []string{"warning"}},
		{"another field", "Rakefile", finding.KindDiff, "# gem.homepage = \"lu.example@mailhost.io\"", []string{"warning"}},
		{"a fallback expression", "Rakefile", finding.KindDiff, "# gem.email = ENV['X'] || \"mo.example@mailhost.io\"", []string{"warning"}},
		{"a method call", "Rakefile", finding.KindDiff, "# gem.email = lookup(\"nia.example@mailhost.io\")", []string{"warning"}},
		{"a second comment after the value", "Rakefile", finding.KindDiff, "# gem.email = \"x\" # was oli.example@mailhost.io", []string{"warning"}},
		{"in a Ruby source file", "lib/tool/mailer.rb", finding.KindDiff, "# gem.email = \"pat.example@mailhost.io\"", []string{"warning"}},
		{"in a Rakefile under a fixture directory", "spec/fixtures/Rakefile", finding.KindDiff, "# gem.email = \"quin.example@mailhost.io\"", []string{"warning"}},
		{"in a Python file", "setup.py", finding.KindDiff, "# gem.email = \"ray.example@mailhost.io\"", []string{"warning"}},
		{"not a comment", "Rakefile", finding.KindDiff, "puts \"# gem.email = sam.example@mailhost.io\"", []string{"warning"}},
		// license@ and licensing@ mailboxes: a function's, not reported.
		{"license@", "src/Tool/Loader.php", finding.KindDiff, " * please send an email to license@mailhost.io so we can send you a copy", nil},
		{"licensing@ in a doc", "README.md", finding.KindDiff, "Commercial terms: Licensing@mailhost.io", nil},
		{"a person's address beside it", "src/Tool/Loader.php", finding.KindDiff, " * Write to license@mailhost.io or tia.example@mailhost.io", []string{"warning"}},
		{"a local part that only starts with license", "README.md", finding.KindDiff, "Ask licensed.uma@mailhost.io", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 10, cases)
}

// TestConductFile names codes of conduct by their file's name and place.
func TestConductFile(t *testing.T) {
	for _, c := range []struct {
		path string
		want bool
	}{
		{"CODE_OF_CONDUCT.md", true},
		{"code_of_conduct", true},
		{"docs/Code-Of-Conduct.rst", true},
		{"doc/CONDUCT.txt", true},
		{".github/CODE_OF_CONDUCT.adoc", true},
		{".GITHUB/code_of_conduct.MD", true},
		{"", false},
		{"CODE_OF_CONDUCT.html", false},
		{"CODE_OF_CONDUCT.md.orig", false},
		{"src/CODE_OF_CONDUCT.md", false},
		{"docs/community/CODE_OF_CONDUCT.md", false},
		{"test/CODE_OF_CONDUCT.md", false},
		{"examples/CODE_OF_CONDUCT.md", false},
		{"MISCONDUCT.md", false},
	} {
		if got := conductFile(c.path); got != c.want {
			t.Errorf("conductFile(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}
