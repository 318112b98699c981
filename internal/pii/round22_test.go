package pii

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// TestRound22Rules: the shapes held-out round 22 showed, and near misses
// that keep their warning. Synthetic names and hosts only; each fragment
// is the added lines alone, numbered from line 1 of the file.
func TestRound22Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// A documentation sentence offering the address as a contact.
		{"support sentence wrapped before at", "README.md", finding.KindDiff, "For commercial support (consulting, training\nand plugins), contact Example Corp\nat <ada.example@mailhost.io>.", []string{"note"}},
		{"contact a linked name, wrapped", "README.md", finding.KindDiff, "For commercial support, contact\u00a0[Example\u00a0Corp]\nat <ada.example@mailhost.io>.", []string{"note"}},
		{"contact us at, one line", "docs/support.md", finding.KindDiff, "Need help? Please contact us at ada.example@mailhost.io.", []string{"note"}},
		{"contact at, no object", "README.md", finding.KindDiff, "For sponsorship, contact at ada.example@mailhost.io", []string{"note"}},
		{"email us via", "docs/index.rst", finding.KindDiff, "Email the team via `ada.example@mailhost.io`.", []string{"note"}},
		{"translated README, Chinese", "README.cn.md", finding.KindDiff, "如果需要商业支持，请联系 [Example Corp](https://mailhost.io/)\n邮箱 <ada.example@mailhost.io>。", []string{"note"}},
		{"only the wrapped tail added", "README.md", finding.KindDiff, "at <ada.example@mailhost.io>.", []string{"note"}},
		{"translated README, French", "README.fr.md", finding.KindDiff, "Pour un support commercial, contactez-nous à ada.example@mailhost.io.", []string{"note"}},
		// Recall: no preposition, "write to", the sentence goes on after
		// the address, the verb in an earlier sentence, too far from it,
		// the plural noun, outside documentation, in a fixture.
		{"contact, direct object", "README.md", finding.KindDiff, "Please contact ada.example@mailhost.io.", []string{"warning"}},
		{"write to", "README.md", finding.KindDiff, "For help, write to ada.example@mailhost.io.", []string{"warning"}},
		{"sentence goes on", "README.md", finding.KindDiff, "Contact Ada at ada.example@mailhost.io to get her old key.", []string{"warning"}},
		{"sentence goes on after a comma", "README.md", finding.KindDiff, "Contact Ada at ada.example@mailhost.io, who keeps the data.", []string{"warning"}},
		{"verb in an earlier sentence", "README.md", finding.KindDiff, "We contacted Ada. She now lives\nat ada.example@mailhost.io.", []string{"warning"}},
		{"verb in an earlier line's sentence", "README.md", finding.KindDiff, "Contact the team.\nAda is at ada.example@mailhost.io.", []string{"warning"}},
		{"verb too far", "README.md", finding.KindDiff, "Contact forms were broken for a week, and the new owner is at ada.example@mailhost.io.", []string{"warning"}},
		{"plural noun", "README.md", finding.KindDiff, "Our contacts at ada.example@mailhost.io.", []string{"warning"}},
		{"a blank line between", "README.md", finding.KindDiff, "Contact Ada\n\nat ada.example@mailhost.io.", []string{"warning"}},
		{"contact sentence in code", "src/app.py", finding.KindDiff, "# contact us at ada.example@mailhost.io", []string{"warning"}},
		{"contact sentence in a fixture", "test/fixtures/README.md", finding.KindDiff, "Contact us at ada.example@mailhost.io.", []string{"warning"}},
		{"contact sentence in a message", "", finding.KindCommitMessage, "Docs\n\nContact us at ada.example@mailhost.io.", []string{"warning"}},
		{"tail alone, no brackets", "README.md", finding.KindDiff, "at ada.example@mailhost.io.", []string{"warning"}},
		{"tail alone, goes on", "README.md", finding.KindDiff, "at <ada.example@mailhost.io> to get her key.", []string{"warning"}},
		{"tail alone, words before at", "README.md", finding.KindDiff, "Ada lives at <ada.example@mailhost.io>.", []string{"warning"}},
		{"tail after an added statement", "README.md", finding.KindDiff, "We wrote to the sponsor\nat <ada.example@mailhost.io>.", []string{"warning"}},
		{"a statement, not a request", "README.md", finding.KindDiff, "We contact the sponsor at ada.example@mailhost.io", []string{"warning"}},
		{"email as a noun", "README.md", finding.KindDiff, "Ask the team via email at ada.example@mailhost.io", []string{"warning"}},
		{"other script, no verb", "README.cn.md", finding.KindDiff, "作者邮箱 ada.example@mailhost.io", []string{"warning"}},
		// A quoted authority without a scheme or a port, in a file about
		// URLs: no finding.
		{"authority in a URL test", "tests/test_url_build.py", finding.KindDiff, `        ("user:secret@www.mailhost.io", True),`, nil},
		{"authority, single quotes", "test/URLParserTest.php", finding.KindDiff, `$this->assertSame('ana:s3cret@mailhost.io', $u->authority());`, nil},
		{"authority in a netloc test", "tests/test_url_update_netloc.py", finding.KindDiff, `url.with_netloc("ana.lima:pw@mailhost.io")`, nil},
		// Recall: outside a file about URLs, a mailbox scheme or label,
		// no colon, text after the host, a blank in the user, unquoted.
		{"authority in another file", "src/x.py", finding.KindDiff, `        ("user:secret@www.mailhost.io", True),`, []string{"warning"}},
		{"a word holding url", "src/curl_opts.c", finding.KindDiff, `"user:secret@www.mailhost.io"`, []string{"warning"}},
		{"mailto in a URL test", "tests/test_url.py", finding.KindDiff, `URL("mailto:ada.example@mailhost.io")`, []string{"warning"}},
		{"from label in a URL test", "tests/test_url.py", finding.KindDiff, `q = "From:ada.example@mailhost.io"`, []string{"warning"}},
		{"no colon in a URL test", "tests/test_url.py", finding.KindDiff, `URL("ada.example@mailhost.io")`, []string{"warning"}},
		{"text after the host", "tests/test_url.py", finding.KindDiff, `x = "ana:ada.example@mailhost.io and more"`, []string{"warning"}},
		{"blank in the user", "tests/test_url.py", finding.KindDiff, `x = "Dear ana:ada.example@mailhost.io"`, []string{"warning"}},
		{"unquoted", "tests/test_url.py", finding.KindDiff, `see ana:ada.example@mailhost.io`, []string{"warning"}},
		// A commit message's closing signature block.
		{"signature block", "", finding.KindCommitMessage, "Handle an invalid response\n\nRaise an error instead of a nil pointer.\n\nAda Example <ada.example@mailhost.io>\nBo Sample <bo.sample@mailhost.io>\n", []string{"note", "note"}},
		{"signature block with a trailer", "", finding.KindCommitMessage, "Fix x\n\nBody.\n\nAda Example <ada.example@mailhost.io>\nSigned-off-by: Bo Sample <bo.sample@mailhost.io>", []string{"note"}},
		{"signature block after the subject", "", finding.KindCommitMessage, "Fix x\n\nAda Example <ada.example@mailhost.io>", []string{"note"}},
		// Recall: another paragraph after it, prose in it, the subject,
		// a name in lower case, a trailer-shaped prose key.
		{"block then a paragraph", "", finding.KindCommitMessage, "Fix x\n\nAda Example <ada.example@mailhost.io>\n\nMore text.", []string{"warning"}},
		{"prose in the block", "", finding.KindCommitMessage, "Fix x\n\nBody.\n\nAsk her:\nAda Example <ada.example@mailhost.io>", []string{"warning"}},
		{"ident in the subject only", "", finding.KindCommitMessage, "Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"a name in lower case", "", finding.KindCommitMessage, "Fix x\n\nBody.\n\nada <ada.example@mailhost.io>", []string{"warning"}},
		{"ident with words after", "", finding.KindCommitMessage, "Fix x\n\nBody.\n\nAda Example <ada.example@mailhost.io> lives here", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}

// TestRound22GemFieldAcrossGaps: a gem specification's email in a file
// that builds a Ruby package, a gem-only field on the same variable
// further down the hunk with unchanged lines between. In each text a
// line "@@N" numbers the next added line N (the lines it skips are
// context the diff does not show).
func TestRound22GemFieldAcrossGaps(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// A gem specification's email in a Rakefile, its block opener
		// and an unchanged line between it and a gem-only field context
		// the diff does not show.
		{"Rakefile email, summary after a context line", "Rakefile", finding.KindDiff, "    spec.email = \"ada.example@mailhost.io\"\n@@3\n    spec.summary = \"x\"", []string{"note"}},
		{"Thorfile authors, homepage further down", "Thorfile", finding.KindDiff, "  gem.authors = [\"Ada Example <ada.example@mailhost.io>\"]\n@@5\n  gem.homepage = \"https://mailhost.io\"", []string{"note"}},
		// Recall: another variable's field, a block boundary between, a
		// field too far, a comparison, another Ruby file, a fixture.
		{"another variable's field after a gap", "Rakefile", finding.KindDiff, "    spec.email = \"ada.example@mailhost.io\"\n@@3\n    other.summary = \"x\"", []string{"warning"}},
		{"a block ends between", "Rakefile", finding.KindDiff, "  s.email = \"ada.example@mailhost.io\"\n@@3\nend\nGem::Specification.new do |s|\n  s.summary = \"x\"", []string{"warning"}},
		{"gem field too far", "Rakefile", finding.KindDiff, "    spec.email = \"ada.example@mailhost.io\"\n@@12\n    spec.summary = \"x\"", []string{"warning"}},
		{"a comparison", "Rakefile", finding.KindDiff, "    fail unless spec.email == \"ada.example@mailhost.io\"\n@@3\n    spec.summary = \"x\"", []string{"warning"}},
		{"another Ruby file", "lib/mailer.rb", finding.KindDiff, "    spec.email = \"ada.example@mailhost.io\"\n@@3\n    spec.summary = \"x\"", []string{"warning"}},
		{"a fixture Rakefile", "spec/fixtures/Rakefile", finding.KindDiff, "    spec.email = \"ada.example@mailhost.io\"\n@@3\n    spec.summary = \"x\"", []string{"warning"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &scanner.Fragment{Kind: c.kind, Path: c.path}
			n := 1
			for _, l := range strings.Split(c.text, "\n") {
				if strings.HasPrefix(l, "@@") {
					n, _ = strconv.Atoi(l[2:])
					continue
				}
				f.Lines = append(f.Lines, scanner.Line{Number: n, Text: []byte(l)})
				n++
			}
			if got := emailSeverities(t, d, f); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("severities %v, want %v", got, c.want)
			}
		})
	}
}
