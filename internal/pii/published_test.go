package pii

import (
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound12Rules: a mailing list linked to its Mailman page, a signing
// key's user ID on a command line and an author's email field in a header
// comment are notes; a person beside a list's link, a recipient, other
// options and tools, an email field without an author field, and
// fixtures keep the warning. Synthetic names and hosts only; each
// fragment is the added lines alone, as a diff gives them.
func TestRound12Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// A mailing list linked to its Mailman page.
		{"markdown link to listinfo", "README.md", finding.KindDiff, "on the [tool-user@mailhost.io](https://mailman.mailhost.io/cgi-bin/mailman/listinfo/tool-user)", []string{"note"}},
		{"html anchor to listinfo", "README.md", finding.KindDiff, `href="https://mailman.mailhost.io/cgi-bin/mailman/listinfo/tool-user">tool-user@mailhost.io</a>`, []string{"note"}},
		{"list beside its link, any case", "docs/support.rst", finding.KindDiff, "Write to Tool-Dev@mailhost.io (see http://mailhost.io/mailman/listinfo/tool-dev/).", []string{"note"}},
		{"hyperkitty archive", "src/about.html", finding.KindDiff, `<a href="https://lists.mailhost.io/archives/list/tool-talk@mailhost.io/">tool-talk@mailhost.io</a>`, []string{"note"}},
		{"postorius list id", "CONTRIBUTING.md", finding.KindDiff, "tool-news@mailhost.io, https://lists.mailhost.io/postorius/lists/tool-news.mailhost.io/", []string{"note"}},
		{"pipermail archive in a source file", "src/main.c", finding.KindDiff, "/* tool-bugs@mailhost.io, archived at https://mailhost.io/pipermail/tool-bugs/ */", []string{"note"}},
		// Not the list.
		{"a person beside the list's link", "README.md", finding.KindDiff, "Ask ana.example@mailhost.io or see https://mailhost.io/mailman/listinfo/tool-user", []string{"warning"}},
		{"list name a prefix of the local part", "README.md", finding.KindDiff, "[tool-user2@mailhost.io](https://mailhost.io/mailman/listinfo/tool-user)", []string{"warning"}},
		{"postorius id at another host", "README.md", finding.KindDiff, "tool-news@mailhost.io https://lists.other.io/postorius/lists/tool-news.other.io/", []string{"warning"}},
		{"listinfo link in a fixture", "testdata/page.html", finding.KindDiff, `<a href="https://mailhost.io/mailman/listinfo/tool-user">tool-user@mailhost.io</a>`, []string{"warning"}},
		{"list link on another line", "README.md", finding.KindDiff, "Write to tool-talk@mailhost.io\nhttps://mailhost.io/mailman/listinfo/tool-talk", []string{"warning"}},
		// A signing key's user ID.
		{"gpg export secret key armour", "migrate.sh", finding.KindDiff, `  "GPG_KEY=$(gpg --export-secret-key --armour signer.example@mailhost.io)"`, []string{"note"}},
		{"twine upload identity in CI", ".travis.yml", finding.KindDiff, "    script: twine upload -s -i signer.example@mailhost.io dist/tool-*", []string{"note"}},
		{"gpg local-user", "Makefile", finding.KindDiff, "\tgpg --batch --local-user bo.example@mailhost.io --detach-sign dist/x.tar.gz", []string{"note"}},
		{"gpg2 -u, quoted", "scripts/sign.sh", finding.KindDiff, `gpg2 -u "cy.example@mailhost.io" --clearsign SHA256SUMS`, []string{"note"}},
		{"gpg --default-key=", "scripts/sign.sh", finding.KindDiff, "/usr/bin/gpg --default-key=dee.example@mailhost.io -sb x", []string{"note"}},
		{"gpg --armor --export", "docs/release.md", finding.KindDiff, "    gpg --armor --export eve.example@mailhost.io > KEYS", []string{"note"}},
		{"git tag -u", "RELEASING.md", finding.KindDiff, "git tag -s -u fay.example@mailhost.io v1.2.3 -m v1.2.3", []string{"note"}},
		{"debsign -k glued", "debian/release.sh", finding.KindDiff, "debsign -kgus.example@mailhost.io ../tool_1.0_amd64.changes", []string{"note"}},
		{"rpm _gpg_name with a name", "packaging/build.sh", finding.KindDiff, "rpmbuild --define '_gpg_name Hal Example <hal.example@mailhost.io>' -ba tool.spec", []string{"note"}},
		{"rpmmacros _gpg_name", "packaging/rpmmacros", finding.KindDiff, "%_gpg_name ida.example@mailhost.io", []string{"note"}},
		{"git config user.signingkey", ".github/workflows/release.yml", finding.KindDiff, "          git config user.signingkey jo.example@mailhost.io", []string{"note"}},
		// Not a signing key.
		{"gpg recipient", "scripts/backup.sh", finding.KindDiff, "gpg --encrypt -r kim.example@mailhost.io secrets.tar", []string{"warning"}},
		{"gpg --recipient", "scripts/backup.sh", finding.KindDiff, "gpg --armor --recipient lu.example@mailhost.io -e x", []string{"warning"}},
		{"recipient after a key option", "scripts/backup.sh", finding.KindDiff, "gpg -u signer.example@mailhost.io -r mo.example@mailhost.io -se x", []string{"note", "warning"}},
		{"-u of another tool", "scripts/admin.sh", finding.KindDiff, "useradd -u nia.example@mailhost.io x", []string{"warning"}},
		{"-i of another tool", "scripts/x.sh", finding.KindDiff, "mail -s hi -i oli.example@mailhost.io", []string{"warning"}},
		{"tool in another command", "scripts/x.sh", finding.KindDiff, "gpg --version; notify -u pat.example@mailhost.io", []string{"warning"}},
		{"signing key in a fixture", "test/fixtures/sign.sh", finding.KindDiff, "gpg -u quin.example@mailhost.io -s x", []string{"warning"}},
		{"_gpg_name then other words", "packaging/build.sh", finding.KindDiff, "%_gpg_name is set; mail ray.example@mailhost.io", []string{"warning"}},
		// An author's email field in a header comment.
		{"//@Author then //@email", "site/js/popup.js", finding.KindDiff, "/***************************/\n//@Author: Ana \"Nick\" Example\n//@website: www.mailhost.io\n//@email: ana.example@mailhost.io\n//@license: free\n/***************************/", []string{"note"}},
		{"# Author then # Email", "tools/run.py", finding.KindDiff, "#!/usr/bin/env python\n# Author: Bo Example\n# Email: bo.example@mailhost.io\nimport sys", []string{"note"}},
		{"email in angle brackets", "src/x.c", finding.KindDiff, "/*\n * Author: Cy Example\n * E-mail: <cy.example@mailhost.io>\n */", []string{"note"}},
		// Not the author's field.
		{"email field without an author field", "tools/run.py", finding.KindDiff, "# Tool for the ledger\n# Email: dee.example@mailhost.io\nimport sys", []string{"warning"}},
		{"author field broken by a prose line", "tools/run.py", finding.KindDiff, "# Author: Eve Example\n# Sends the report to the finance team.\n# Email: fay.example@mailhost.io", []string{"warning"}},
		{"author field empty", "tools/run.py", finding.KindDiff, "# Author:\n# Email: gus.example@mailhost.io", []string{"warning"}},
		{"email field after code", "tools/run.py", finding.KindDiff, "import sys\n# Author: Hal Example\n# Email: hal.example@mailhost.io", []string{"warning"}},
		{"email field with words before the address", "tools/run.py", finding.KindDiff, "# Author: Ida Example\n# Email: send the report to ida.example@mailhost.io", []string{"warning"}},
		{"author and email fields in a fixture", "testdata/header.py", finding.KindDiff, "# Author: Jo Example\n# Email: jo.example@mailhost.io", []string{"warning"}},
		{"author and email fields in a message", "", finding.KindCommitMessage, "Fix x\n\n# Author: Kim Example\n# Email: kim.example@mailhost.io", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 10, cases)
}

// FuzzSigningKeyArg reads arbitrary lines and offsets as a command line's
// key option: it never panics, and an offset it accepts follows a signing
// tool's name or a key macro on the line.
func FuzzSigningKeyArg(f *testing.F) {
	for _, s := range []string{"gpg -u a@mailhost.io", "twine upload -s -i b@mailhost.io", "debsign -kc@mailhost.io", "gpg --export-secret-key --armour d", "%_gpg_name E <e@x.io>", "git config user.signingkey f", "gpg -r g; x -u h", "-", "x"} {
		f.Add(s, len(s)/2)
		f.Add(s, len(s)-1)
	}
	f.Fuzz(func(t *testing.T, line string, start int) {
		if start < 0 || start >= len(line) {
			return
		}
		if signingKeyArg([]byte(line), start) {
			head := strings.ToLower(line[:start])
			ok := strings.Contains(head, "_gpg_name") || strings.Contains(head, "signingkey")
			for _, tool := range signingTools {
				ok = ok || strings.Contains(head, tool.name)
			}
			if !ok {
				t.Fatalf("signingKeyArg(%q, %d) = true without a signing tool or key macro before it", line, start)
			}
		}
	})
}

// FuzzListNames reads arbitrary lines for the mailing lists their URLs
// name: it never panics, and every name is non-empty, made of a list
// name's bytes, and follows a list path marker.
func FuzzListNames(f *testing.F) {
	for _, s := range []string{"https://m.io/mailman/listinfo/a-b", "/archives/list/c@x.io/", "/LISTS/d.x.io/ /pipermail/e/", "/listinfo/", "//lists/", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, n := range listNames([]byte(line)) {
			if len(n) == 0 {
				t.Fatalf("listNames(%q): an empty name", line)
			}
			for _, c := range n {
				if !listNameByte(c) {
					t.Fatalf("listNames(%q): name %q holds %q", line, n, c)
				}
			}
			if !strings.Contains(strings.ToLower(line), "/list") && !strings.Contains(strings.ToLower(line), "/pipermail/") {
				t.Fatalf("listNames(%q): a name without a marker", line)
			}
		}
	})
}
