package pii

import (
	"fmt"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
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
		{"asf notifications with a gap", ".asf.yaml", finding.KindDiff, "notifications:\n\n    commits:      graphkit-feed@demoproj.io", []string{"warning"}},
		{"notifications in another yaml", "config.yaml", finding.KindDiff, "notifications:\n    commits:      graphkit-feed@demoproj.io", []string{"warning"}},
		// A commit action's identity inputs in a workflow step.
		{"action identity", ".github/workflows/release.yml", finding.KindDiff, "      - name: bump version\n        uses: demo-actions/commit@v2\n        with:\n          files: VERSION\n          name: Demo Release Team\n          email: ada.example@democorp.io", []string{"note"}},
		{"action identity, uses first in the step", ".github/workflows/release.yaml", finding.KindDiff, "      - uses: demo-actions/commit@v2\n        with:\n          author_name: Demo Bot\n          author_email: 'ada.example@democorp.io'", []string{"note"}},
		// Recall: no name input, a run step's env, a gap, another file.
		{"action email without name", ".github/workflows/release.yml", finding.KindDiff, "      - name: bump version\n        uses: demo-actions/commit@v2\n        with:\n          files: VERSION\n          email: ada.example@democorp.io", []string{"warning"}},
		{"env of a run step", ".github/workflows/release.yml", finding.KindDiff, "      - name: push\n        run: git push\n        env:\n          name: Demo Bot\n          email: ada.example@democorp.io", []string{"warning"}},
		{"action identity with a gap", ".github/workflows/release.yml", finding.KindDiff, "      - uses: demo-actions/commit@v2\n        with:\n\n          name: Demo Bot\n          email: ada.example@democorp.io", []string{"warning"}},
		{"action identity in another yaml", "deploy/release.yml", finding.KindDiff, "      - name: bump version\n        uses: demo-actions/commit@v2\n        with:\n          files: VERSION\n          name: Demo Release Team\n          email: ada.example@democorp.io", []string{"warning"}},
		// A code host's reply-by-email relay in a quoted reply's header.
		{"relay in quoted header", "", finding.KindCommitMessage, "fix the loader\n\nOn 3.4.2031, at 11:20, Ada Example <reply+i-1234-abcdef@reply.github.com> wrote:\n> a note", []string{"note"}},
		{"relay wrapped header", "", finding.KindCommitMessage, "yes\n\nOn Mon, Apr 7, 2031 at 9:05 AM, Ada Example <\nreply+i-1234-abcdef@reply.github.com>wrote:", []string{"note"}},
		// Recall: a person's address in the header, the relay without
		// "wrote:", the relay in a file.
		{"person in quoted header", "", finding.KindCommitMessage, "On 3.4.2031, Ada Example <ada.example@mailhost.io> wrote:", []string{"warning"}},
		{"relay without wrote", "", finding.KindCommitMessage, "Reply to reply+i-1234-abcdef@reply.github.com to comment.", []string{"warning"}},
		{"relay in a file", "docs/thread.txt", finding.KindDiff, "On 3.4.2031, Ada Example <reply+i-1234-abcdef@reply.github.com> wrote:", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}

// rfcText builds a synthetic RFC's text: its header, a body line, a page
// break, then the back matter given.
func rfcText(back string) string {
	return "\n\nNetwork Working Group                                  A. Example\n" +
		"Request for Comments: 9999                               Demo Labs\n" +
		"Category: Informational                                  May 2031\n\n" +
		"1.  Introduction\n\n   Write to ada.example@mailhost.io for the draft.\n\n" +
		"Example                       Informational                    [Page 9]\n\f\n" +
		"RFC 9999                      Demo Protocol                    May 2031\n\n" + back
}

// TestRound26RFC: a copied RFC's authors' addresses and IPR mailbox are
// notes, its body's addresses and another file's keep their warning.
func TestRound26RFC(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	back := "Authors' Addresses\n\n   Ada Example\n   Demo Labs\n\n   Phone: +1-617-394-2817\n   Fax:   +1-617-394-2890\n   EMail: ada.example@mailhost.io\n\n" +
		"Example                       Informational                   [Page 10]\n\f\n" +
		"RFC 9999                      Demo Protocol                    May 2031\n\n" +
		"   Bo Sample\n   EMail: bo.sample@mailhost.io\n\n" +
		"Intellectual Property\n\n   Please address the information to the body at ietf-\n   ipr@standards-demo.org.\n\n" +
		"Acknowledgement\n\n   Reviewed with cy.demo@mailhost.io on the draft.\n"
	cases := []struct {
		name, path, text string
		want             []string
	}{
		{"rfc by name", "spec/data/rfc9999.txt", rfcText(back), []string{"pii/email:warning", "pii/phone:note", "pii/phone:note", "pii/email:note", "pii/email:note", "pii/email:note", "pii/email:warning"}},
		{"rfc by header", "docs/demo-protocol.txt", rfcText(back), []string{"pii/email:warning", "pii/phone:note", "pii/phone:note", "pii/email:note", "pii/email:note", "pii/email:note", "pii/email:warning"}},
		{"numbered heading", "rfc9999", rfcText("12.  Authors' Addresses\n\n   EMail: ada.example@mailhost.io\n"), []string{"pii/email:warning", "pii/email:note"}},
		// Recall: the same back matter in a file that is not an RFC.
		{"not an rfc", "docs/notes.txt", back, []string{"pii/phone:warning", "pii/phone:warning", "pii/email:warning", "pii/email:warning", "pii/email:warning", "pii/email:warning"}},
		{"rfc-like name", "docs/rfcs.txt", back, []string{"pii/phone:warning", "pii/phone:warning", "pii/email:warning", "pii/email:warning", "pii/email:warning", "pii/email:warning"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			d.Detect(fragmentFrom(finding.KindDiff, c.path, 1, c.text), func(m scanner.Match) {
				if m.RuleID == "pii/email" || m.RuleID == "pii/phone" {
					got = append(got, m.RuleID+":"+m.Severity.String())
				}
			})
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// FuzzRound26 runs the detectors over arbitrary fragments of the files
// round 26's rules read (a copied RFC, .asf.yaml, documentation), the
// lines numbered with gaps where sel says.
func FuzzRound26(f *testing.F) {
	f.Add(rfcText("Authors' Addresses\n\n   EMail: a@mailhost.io\n   Phone: +1-617-394-2817\n\f\nIntellectual Property\n   b@mailhost.io"), uint8(0))
	f.Add("Request for Comments: 9\n1. Author's Address\nRFC \n[Page \n\f\n a@mailhost.io", uint8(1))
	f.Add("notifications:\n    commits:  a@mailhost.io\n  x: b@mailhost.io\nnotifications: \n c@mailhost.io", uint8(2))
	f.Add("To join the list, send an email to\n`a-join@mailhost.io`\n?b@mailhost.io https://lists.x/?c@mailhost.io ://?d@mailhost.io", uint8(3))
	f.Add("Subscribing. Send an email to a@mailhost.io. x\n. send email to:b@mailhost.io", uint8(4))
	f.Add("  - uses: a/b@v1\n    with:\n      name: A\n      email: a@mailhost.io\n:\n -  uses:\n  with:\n email: b@mailhost.io", uint8(5))
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	paths := []string{"spec/data/rfc2000.txt", "rfc1", ".asf.yaml", "README.md", "doc/help.rst", ".github/workflows/r.yml"}
	f.Fuzz(func(t *testing.T, text string, sel uint8) {
		fr := gappedFragment(paths[int(sel)%len(paths)], text, sel)
		d.Detect(fr, func(m scanner.Match) { checkMatch(t, fr, m) })
	})
}

// TestRound26Constants: a card-shaped run of a mathematical constant's
// leading digits is a note; a Luhn-valid run that is not one, and one that
// leaves the constant's digits, keep the warning.
func TestRound26Constants(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []ruleCase{
		{"digits of e", `    expectDigits(E, "2718281828459045");`, []string{"note"}},
		// Recall: a Luhn-valid run that leaves e's digits, beside its name.
		{"not the constant's digits", `    expectDigits(E, "2718281828459029");`, []string{"error"}},
	}
	runRuleCases(t, d, "src/test/java/demo/ParsedTest.java", "pii/credit-card", cases)
}

// TestConstantDigits: the digit reading itself, separators aside.
func TestConstantDigits(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"2718281828459045", true},
		{"3141-5926-5358-9793", true},
		{"1414213562373095", true},
		{"2718281828459046", false},
		{"27182818284", false},
		{"2718281828459029", false},
		{"", false},
	} {
		if got := constantDigits([]byte(c.in)); got != c.want {
			t.Errorf("constantDigits(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
