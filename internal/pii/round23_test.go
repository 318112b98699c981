package pii

import (
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// TestRound23Rules: the shapes held-out round 23 showed, and near misses
// that keep their warning. Synthetic names and hosts only; each fragment
// is the added lines alone, numbered from line 1 of the file.
func TestRound23Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// A Helm chart's maintainers item, its "maintainers:" key context
		// the fragment does not carry.
		{"chart item added under an unchanged key", "charts/demo/Chart.yaml", finding.KindDiff, "  - name: Ada Example\n    email: ada.example@mailhost.io", []string{"note"}},
		{"chart item's email changed", "charts/demo/Chart.yaml", finding.KindDiff, "    email: ada.example@mailhost.io", []string{"note"}},
		{"chart item opened by email, quoted", "Chart.yaml", finding.KindDiff, "  - email: \"ada.example@mailhost.io\"\n    name: Ada Example", []string{"note"}},
		{"chart email, single quotes", "charts/demo/Chart.yaml", finding.KindDiff, "    email: 'ada.example@mailhost.io'", []string{"note"}},
		// Recall: unindented (no such field in the schema), another
		// field, a comment, text after the value, another YAML file, a
		// chart under a test directory.
		{"chart top-level email", "charts/demo/Chart.yaml", finding.KindDiff, "email: ada.example@mailhost.io", []string{"warning"}},
		{"chart description", "charts/demo/Chart.yaml", finding.KindDiff, "  description: ask ada.example@mailhost.io", []string{"warning"}},
		{"chart comment", "charts/demo/Chart.yaml", finding.KindDiff, "  # email: ada.example@mailhost.io", []string{"warning"}},
		{"chart email with text after", "charts/demo/Chart.yaml", finding.KindDiff, "    email: ada.example@mailhost.io until May", []string{"warning"}},
		{"chart email, unbalanced quote", "charts/demo/Chart.yaml", finding.KindDiff, "    email: \"ada.example@mailhost.io", []string{"warning"}},
		{"email field in values.yaml", "charts/demo/values.yaml", finding.KindDiff, "    email: ada.example@mailhost.io", []string{"warning"}},
		{"chart in a fixture", "test/fixtures/Chart.yaml", finding.KindDiff, "    email: ada.example@mailhost.io", []string{"warning"}},
		// A PEAR package.xml's <email> inside a people element whose
		// opening tag is context.
		{"pear email, element closes below", "package.xml", finding.KindDiff, "   <email>ada.example@mailhost.io</email>\n   <role>lead</role>\n  </maintainer>", []string{"note"}},
		{"pear lead closes below", "package.xml", finding.KindDiff, "  <email>ada.example@mailhost.io</email>\n  <active>yes</active>\n </lead>", []string{"note"}},
		// Recall: another element opens first, no closing tag, the
		// address outside <email>, another XML file.
		{"pear, another element opens first", "package.xml", finding.KindDiff, "   <email>ada.example@mailhost.io</email>\n  <developer>\n  </developer>", []string{"warning"}},
		{"pear, no closing tag", "package.xml", finding.KindDiff, "   <email>ada.example@mailhost.io</email>\n   <role>lead</role>", []string{"warning"}},
		{"pear, address in another element", "package.xml", finding.KindDiff, "   <notes>ada.example@mailhost.io</notes>\n  </maintainer>", []string{"warning"}},
		{"email element in another xml", "config/site.xml", finding.KindDiff, "   <email>ada.example@mailhost.io</email>\n  </maintainer>", []string{"warning"}},
		// npm people arrays outside package.json, and a bugs object's
		// email in JSON or an object literal.
		{"npm contributors in an overrides file", "middlewares/demo/package-overrides.json", finding.KindDiff, "  \"contributors\": [\n    \"Ada Example <ada.example@mailhost.io> (https://ada.example.org)\",\n    \"Bo Sample <bo.sample@mailhost.io>\"\n  ],", []string{"note", "note"}},
		{"npm maintainers array", "meta/package.base.json", finding.KindDiff, "\"maintainers\": [\n\"Ada Example <ada.example@mailhost.io>\"", []string{"note"}},
		{"npm bugs object in a build script", "build/build-package.ts", finding.KindDiff, "    bugs: {\n      url: \"https://example.org/issues\",\n      email: \"ada.example@mailhost.io\",\n    },", []string{"note"}},
		{"npm bugs object in JSON", "dist/meta.json", finding.KindDiff, "  \"bugs\": {\n    \"url\": \"https://example.org/issues\",\n    \"email\": \"ada.example@mailhost.io\"\n  },", []string{"note"}},
		{"npm bugs object, single quotes", "bin/pkg.js", finding.KindDiff, "  bugs: {\n    email: 'ada.example@mailhost.io',", []string{"note"}},
		// Recall: an array on another key, an item that is not a whole
		// person string, an item in a fixture, a JSON array in a JS
		// file; an email in another object, after the bugs object
		// closes, with text beside it, in another language's file.
		{"array on another key", "data/users.json", finding.KindDiff, "  \"users\": [\n    \"Ada Example <ada.example@mailhost.io>\"\n  ]", []string{"warning"}},
		{"person string with text after", "data/meta.json", finding.KindDiff, "  \"contributors\": [\n    \"Ada Example <ada.example@mailhost.io> says hi\"\n  ]", []string{"warning"}},
		{"bare address item", "data/meta.json", finding.KindDiff, "  \"contributors\": [\n    \"ada.example@mailhost.io\"\n  ]", []string{"warning"}},
		{"people array in a fixture", "test/fixtures/meta.json", finding.KindDiff, "  \"contributors\": [\n    \"Ada Example <ada.example@mailhost.io>\"\n  ]", []string{"warning"}},
		{"people array, another item between", "data/meta.json", finding.KindDiff, "  \"contributors\": [\n    {\"x\": 1},\n    \"Ada Example <ada.example@mailhost.io>\"", []string{"warning"}},
		{"email in a user object", "src/seed.ts", finding.KindDiff, "    user: {\n      name: \"Ada\",\n      email: \"ada.example@mailhost.io\",\n    },", []string{"warning"}},
		{"email after the bugs object closes", "src/pkg.js", finding.KindDiff, "    bugs: { url: \"https://example.org/issues\" },\n    email: \"ada.example@mailhost.io\",", []string{"warning"}},
		{"bugs email with text beside", "src/pkg.js", finding.KindDiff, "    bugs: {\n      email: \"ada.example@mailhost.io\" + suffix,", []string{"warning"}},
		{"bugs object in a Python file", "setup_meta.py", finding.KindDiff, "    bugs: {\n      email: \"ada.example@mailhost.io\",", []string{"warning"}},
		{"bugs object too far above", "src/pkg.js", finding.KindDiff, "    bugs: {\n      a: 1,\n      b: 2,\n      c: 3,\n      email: \"ada.example@mailhost.io\",", []string{"warning"}},
		// A README's maintainers with their terms, or listed under a
		// line ending "maintained by:"; a wiki heading naming authors.
		{"maintainer with a term, key above the hunk", "README.rst", finding.KindDiff, "* Ada Example <ada.example@mailhost.io> 2012-2014\n* Bo Sample <bo.sample@mailhost.io> 2015-", []string{"note", "note"}},
		{"maintainer with one year", "README.md", finding.KindDiff, "- Ada Example <ada.example@mailhost.io> 2003", []string{"note"}},
		{"maintained by, then a list", "README.rst", finding.KindDiff, "It is maintained by:\n\n* Ada Example <ada.example@mailhost.io>\n* Bo Sample <bo.sample@mailhost.io>", []string{"note", "note"}},
		{"wiki author heading", "README", finding.KindDiff, "== Author ==\nAdaExample <ada.example@mailhost.io>", []string{"note"}},
		{"wiki authors heading, moin page", "docs/lib.moin", finding.KindDiff, "=== Authors ===\nAda Example <ada.example@mailhost.io>", []string{"note"}},
		// Recall: no term and no "by:" line, a date that is not a year,
		// words after, outside documentation, prose between; another
		// heading, a heading two lines up, more than the ident, an
		// unbalanced heading, in a commit message.
		{"list item, no term", "README.rst", finding.KindDiff, "Users of the demo:\n* Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"list item with a date", "README.rst", finding.KindDiff, "Users of the demo:\n* Ada Example <ada.example@mailhost.io> 2014-05-03", []string{"warning"}},
		{"list item, words after the term", "README.rst", finding.KindDiff, "Users of the demo:\n* Ada Example <ada.example@mailhost.io> 2014 reported it", []string{"warning"}},
		{"term item in code", "src/users.py", finding.KindDiff, "x = 1\n# * Ada Example <ada.example@mailhost.io> 2012-2014", []string{"warning"}},
		{"term item in a fixture", "test/fixtures/README.md", finding.KindDiff, "* Ada Example <ada.example@mailhost.io> 2012-2014", []string{"warning"}},
		{"prose between by: and the item", "README.rst", finding.KindDiff, "It is maintained by:\nthe people who reported bugs, such as\n* Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"five digits, not a year", "README.rst", finding.KindDiff, "Users of the demo:\n* Ada Example <ada.example@mailhost.io> 20145", []string{"warning"}},
		{"by: without a colon", "README.rst", finding.KindDiff, "Reported by\n\n* Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"wiki heading, other title", "README", finding.KindDiff, "== Users ==\nAda Example <ada.example@mailhost.io>", []string{"warning"}},
		{"wiki heading two lines up", "README", finding.KindDiff, "== Author ==\nSee below.\nAda Example <ada.example@mailhost.io>", []string{"warning"}},
		{"wiki heading, words after the ident", "README", finding.KindDiff, "== Author ==\nAda Example <ada.example@mailhost.io> wrote the parser", []string{"warning"}},
		{"wiki heading, unbalanced", "README", finding.KindDiff, "== Author =\nAda Example <ada.example@mailhost.io>", []string{"warning"}},
		{"wiki heading in a fixture", "tests/data/page.moin", finding.KindDiff, "== Author ==\nAda Example <ada.example@mailhost.io>", []string{"warning"}},
		// A change log's entry headers and commit credits in a README's
		// release notes; a doc header's Authors section further down.
		{"dated entry header in a README", "README.md", finding.KindDiff, "Minor bugfix release.\n\n2013-01-16 - Ada Example ada.example@mailhost.io * Fix the revoke command (43ded42)", []string{"note"}},
		{"dated entry header, brackets, alone", "README.md", finding.KindDiff, "Notes:\n2013-01-15 - Ada Example <ada.example@mailhost.io>", []string{"note"}},
		{"commit credit in release notes", "README.md", finding.KindDiff, "Notable:\n\nFixed a bug with owners (9adcd182f820101f5e4891b9f2ff6278dfad495c - Ada Example ada.example@mailhost.io)", []string{"note"}},
		{"commit credit, a handle", "README.md", finding.KindDiff, "Notable:\n\nAdd ACL support (b8389d1 - adaex <ada.example@mailhost.io>).", []string{"note"}},
		{"puppet doc header deep in the file", "manifests/version.pp", finding.KindDiff, "class a {}\n#\n# === Authors\n#\n# Ada Example <ada.example@mailhost.io>\n#", []string{"note"}},
		// Recall: prose after the date, words after the address, not a
		// commit id, words after the reference, outside documentation;
		// another heading, prose between.
		{"dated line with prose", "README.md", finding.KindDiff, "Notes:\n2013-01-16 - we moved to ada.example@mailhost.io", []string{"warning"}},
		{"dated header, words after the address", "README.md", finding.KindDiff, "Notes:\n2013-01-16 - Ada Example ada.example@mailhost.io reported it", []string{"warning"}},
		{"reference not a commit id", "README.md", finding.KindDiff, "Notes:\nFixed a bug (issue 42 - Ada Example ada.example@mailhost.io)", []string{"warning"}},
		{"commit credit, words after", "README.md", finding.KindDiff, "Notes:\nFixed (b8389d1 - Ada Example ada.example@mailhost.io) and she lives there", []string{"warning"}},
		{"dated header in code", "src/notes.py", finding.KindDiff, "x = 1\n# 2013-01-16 - Ada Example ada.example@mailhost.io", []string{"warning"}},
		{"puppet doc header, another heading", "manifests/version.pp", finding.KindDiff, "class a {}\n#\n# === Examples\n#\n# Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"puppet doc header, prose between", "manifests/version.pp", finding.KindDiff, "class a {}\n# === Authors\n# Write to this user:\n# Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"puppet doc header in a fixture", "spec/fixtures/manifests/x.pp", finding.KindDiff, "class a {}\n# === Authors\n#\n# Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		// A raw commit header pasted into a message; a sign-off typed as
		// the subject, the trailer block holding the same key.
		{"raw committer header", "", finding.KindCommitMessage, "Squashed\n\nparent 0123abc\ncommitter Ada Example <ada.example@mailhost.io> 1357000000 +0100", []string{"note"}},
		{"raw tagger header", "", finding.KindCommitMessage, "Tag\n\ntagger Ada Example <ada.example@mailhost.io> 1357000000 -0500", []string{"note"}},
		{"sign-off as the subject, bare", "", finding.KindCommitMessage, "Signed-off-by: Ada Example ada.example@mailhost.io\n\nSigned-off-by: Ada Example <ada@mailhost.io>", nil},
		{"sign-off as the subject, brackets", "", finding.KindCommitMessage, "Signed-off-by: Ada Example <ada.example@mailhost.io>\n\nBody.\n\nSigned-off-by: Bo Sample <bo.sample@mailhost.io>", nil},
		// Recall: the keyword in prose, no timestamp, a bad zone, words
		// after; a subject without a name, a key the block lacks, words
		// after the address, no trailer block.
		{"committer in prose", "", finding.KindCommitMessage, "Fix\n\nthe committer Ada Example <ada.example@mailhost.io> 1357000000 +0100", []string{"warning"}},
		{"committer without a timestamp", "", finding.KindCommitMessage, "Fix\n\ncommitter Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"committer with a bad zone", "", finding.KindCommitMessage, "Fix\n\ncommitter Ada Example <ada.example@mailhost.io> 1357000000 +01", []string{"warning"}},
		{"committer, words after", "", finding.KindCommitMessage, "Fix\n\ncommitter Ada Example <ada.example@mailhost.io> 1357000000 +0100 moved", []string{"warning"}},
		{"committer in a file", "notes/raw.txt", finding.KindDiff, "x\ncommitter Ada Example <ada.example@mailhost.io> 1357000000 +0100", []string{"warning"}},
		{"cc subject, no name", "", finding.KindCommitMessage, "Cc: ada.example@mailhost.io\n\nCc: Bo Sample <bo.sample@mailhost.io>", []string{"warning"}},
		{"sign-off subject, key not in the block", "", finding.KindCommitMessage, "Signed-off-by: Ada Example ada.example@mailhost.io\n\nReviewed-by: Bo Sample <bo.sample@mailhost.io>", []string{"warning"}},
		{"sign-off subject, words after", "", finding.KindCommitMessage, "Signed-off-by: Ada Example ada.example@mailhost.io fixed it\n\nSigned-off-by: Bo Sample <bo.sample@mailhost.io>", []string{"warning"}},
		{"sign-off subject, no trailer block", "", finding.KindCommitMessage, "Signed-off-by: Ada Example ada.example@mailhost.io", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}

// TestRound23Gaps: a rule that reads across the following added lines
// stops at a gap in the file's numbering (a line the hunk left
// unchanged, or another hunk).
func TestRound23Gaps(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		path    string
		numbers []int
		text    string
		want    []string
	}{
		{"pear, consecutive", "package.xml", []int{10, 11}, "   <email>ada.example@mailhost.io</email>\n  </maintainer>", []string{"note"}},
		{"pear, a gap before the closing tag", "package.xml", []int{10, 12}, "   <email>ada.example@mailhost.io</email>\n  </maintainer>", []string{"warning"}},
		{"npm array, consecutive", "meta/overrides.json", []int{3, 4}, "  \"contributors\": [\n    \"Ada Example <ada.example@mailhost.io>\"", []string{"note"}},
		{"npm array, a gap after the key", "meta/overrides.json", []int{3, 5}, "  \"contributors\": [\n    \"Ada Example <ada.example@mailhost.io>\"", []string{"warning"}},
		{"maintained by, a gap before the item", "README.rst", []int{3, 4, 6}, "It is maintained by:\n\n* Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"wiki heading, a gap", "README", []int{3, 5}, "== Author ==\nAda Example <ada.example@mailhost.io>", []string{"warning"}},
		{"doc header, a gap", "manifests/x.pp", []int{30, 32}, "# === Authors\n# Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"bugs object, a gap after the opener", "build/pkg.ts", []int{3, 5}, "  bugs: {\n    email: \"ada.example@mailhost.io\",", []string{"warning"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &scanner.Fragment{Kind: finding.KindDiff, Path: c.path}
			for i, l := range strings.Split(c.text, "\n") {
				f.Lines = append(f.Lines, scanner.Line{Number: c.numbers[i], Text: []byte(l)})
			}
			if got := emailSeverities(t, d, f); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("severities %v, want %v", got, c.want)
			}
		})
	}
}

// FuzzRound23 runs the detectors over arbitrary fragments of the files
// round 23's rules read (a Helm chart's Chart.yaml, a PEAR package.xml),
// the lines numbered with gaps where sel says.
func FuzzRound23(f *testing.F) {
	f.Add("  - name: A B\n    email: a.b@mailhost.io\n  - email: 'c@mailhost.io\n    email: \"d@mailhost.io\"x", uint8(0))
	f.Add("email: a@mailhost.io\n  -  email:b@mailhost.io\n    email:\n- email: c@mailhost.io #", uint8(2))
	f.Add("   <email>a.b@mailhost.io</email>\n   <role>lead</role>\n  </maintainer>\n<EMAIL>c@mailhost.io\n</lead>", uint8(1))
	f.Add("<email>a@mailhost.io\n<developer>\n</developer>\n<email>\n</helper", uint8(3))
	f.Add("\"contributors\": [\n\"A B <a@mailhost.io> (https://x.io)\",\n\"<b@mailhost.io>\"\n\"C <c@x> ()\"\n\"\": [", uint8(2))
	f.Add("bugs: {\nurl: 'u',\nemail: 'a@mailhost.io',\n\"email\":\"b@mailhost.io\"\n\"email\": \"c@mailhost.io\n'email':'", uint8(3))
	f.Add("It is maintained by:\n\n* A B <a@mailhost.io> 2003-2011\n- C <c@mailhost.io> 2015-\n* <d@mailhost.io> 20\n* E <e@mailhost.io>\u2013", uint8(4))
	f.Add("== Author ==\nAB <a@mailhost.io>\n=\n<b@mailhost.io>\n===x= \nC <c@mailhost.io>", uint8(5))
	f.Add("2013-01-16 - A B a@mailhost.io * x (1)\n2013-01-1 - <b@mailhost.io>\n(abcdef1 - c <c@mailhost.io>).\n( - d@mailhost.io)\n# === Authors\n#\n# E <e@mailhost.io>", uint8(4))
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	paths := []string{"charts/x/Chart.yaml", "package.xml", "x/package-overrides.json", "build/pkg.ts", "README.rst", "x.moin"}
	f.Fuzz(func(t *testing.T, text string, sel uint8) {
		fr := gappedFragment(paths[int(sel)%len(paths)], text, sel)
		d.Detect(fr, func(m scanner.Match) { checkMatch(t, fr, m) })
	})
}

// TestEndsWithByAdjacent: a line ending "by" credits the line right after
// it in the file, not the next added line of a later hunk (found while
// building round 23's gap tests: the reading ignored the numbering).
func TestEndsWithByAdjacent(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	text := []string{"# Largely adapted from the old parser by", "# Ada Example <ada.example@mailhost.io>"}
	for _, c := range []struct {
		name    string
		numbers []int
		want    string
	}{
		{"the next line", []int{3, 4}, "[note]"},
		{"a later hunk", []int{3, 40}, "[warning]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &scanner.Fragment{Kind: finding.KindDiff, Path: "lib/parse.py"}
			for i, l := range text {
				f.Lines = append(f.Lines, scanner.Line{Number: c.numbers[i], Text: []byte(l)})
			}
			if got := fmt.Sprint(emailSeverities(t, d, f)); got != c.want {
				t.Errorf("severities %v, want %v", got, c.want)
			}
		})
	}
}

// gappedFragment is a diff fragment of text's lines at path, numbered
// with a gap (a line the hunk left unchanged) before line i where bit
// 2+i%6 of sel is set: the fuzz targets' way to vary adjacency.
func gappedFragment(path, text string, sel uint8) *scanner.Fragment {
	fr := &scanner.Fragment{Kind: finding.KindDiff, Path: path}
	n := 0
	for i, l := range strings.Split(text, "\n") {
		n++
		if sel&(1<<uint(2+i%6)) != 0 {
			n++
		}
		fr.Lines = append(fr.Lines, scanner.Line{Number: n, Text: []byte(l)})
	}
	return fr
}
