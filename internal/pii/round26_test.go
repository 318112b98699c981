package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound26Rules: the shapes held-out round 26 showed, and near misses
// that keep their warning. Synthetic names and hosts only; each fragment
// is the added lines alone, numbered from line 1 of the file.
func TestRound26Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// A list server's command address in a documentation file.
		{"list join address", "CONTRIBUTING.md", finding.KindDiff, "Want in? To join the list, just send an email to [<graphkit-join@mail.demoproj.io>][join] with any subject.", []string{"note"}},
		{"join address alone on its line", "doc/community/help.rst", finding.KindDiff, "To join the list, simply send\nan email to\n`graphkit-join@mail.demoproj.io`_", []string{"note"}},
		{"subscribe address", "README.md", finding.KindDiff, "Write to graphkit-subscribe@mail.graphkit.io.", []string{"note"}},
		// A list subscribed to by e-mail.
		{"subscribing, send an email to", "README.rst", finding.KindDiff, "The community keeps a mailing list. Subscribing is easy and needs no\naccount. Simply send an email to graphkit@listhost.io and follow\nthe instructions in the reply.", []string{"note"}},
		{"join the list in the sentence", "README.md", finding.KindDiff, "To join the list, send a message to graphkit@listhost.io.", []string{"note"}},
		// Recall: no list words, list words too far back, another verb,
		// a command suffix outside documentation, a bare suffix, a fixture.
		{"send an email without list words", "README.md", finding.KindDiff, "For questions, simply send an email to ada.example@mailhost.io.", []string{"warning"}},
		{"list words two sentences back", "README.md", finding.KindDiff, "We keep a mailing list. It is quiet. Questions are welcome. Send an email to ada.example@mailhost.io.", []string{"warning"}},
		{"list words in the next sentence", "README.md", finding.KindDiff, "For help, send an email to ada.example@mailhost.io. Subscribing to\nthe newsletter is free.", []string{"warning"}},
		{"join address in code", "src/lists.go", finding.KindDiff, "const addr = \"graphkit-join@mail.demoproj.io\"", []string{"warning"}},
		{"suffix alone as local part", "README.md", finding.KindDiff, "Mail -join@mail.demoproj.io now.", []string{"warning"}},
		{"join address in a fixture", "tests/fixtures/README.md", finding.KindDiff, "To join the list, send an email to graphkit-join@mail.demoproj.io.", []string{"warning"}},
		// A list archive's URL whose query is the list.
		{"list archive url", "src/site/xdoc/mail-lists.xml", finding.KindDiff, "<a href=\"https://lists.demoproj.io/list.html?graphkit-commits@demoproj.io\">archive</a>", []string{"note"}},
		// Recall: another host, not the query, a fixture.
		{"query of another host", "src/site/xdoc/mail-lists.xml", finding.KindDiff, "<a href=\"https://www.demoproj.io/user.html?ada.example@demoproj.io\">profile</a>", []string{"warning"}},
		{"after a question mark, no url", "src/site/xdoc/mail-lists.xml", finding.KindDiff, "<p>who?ada.example@demoproj.io</p>", []string{"warning"}},
		{"list archive url in a fixture", "spec/fixtures/page.html", finding.KindDiff, "<a href=\"https://lists.demoproj.io/list.html?graphkit-commits@demoproj.io\">archive</a>", []string{"warning"}},
		// .asf.yaml's notifications block.
		{"asf notifications", ".asf.yaml", finding.KindDiff, "github:\n  description: \"Demo\"\n\nnotifications:\n    commits:      graphkit-commits@demoproj.io\n    jira_options: link label", []string{"note"}},
		// Recall: another block, a gap, another file.
		{"asf other block", ".asf.yaml", finding.KindDiff, "github:\n  owner:  ada.example@demoproj.io", []string{"warning"}},
		{"asf notifications with a gap", ".asf.yaml", finding.KindDiff, "notifications:\n\n    commits:      graphkit-commits@demoproj.io", []string{"warning"}},
		{"notifications in another yaml", "config.yaml", finding.KindDiff, "notifications:\n    commits:      graphkit-commits@demoproj.io", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}
