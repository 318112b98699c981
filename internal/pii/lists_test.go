package pii

import (
	"fmt"
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound10Rules: an authors list under a label in a header comment,
// extensionless documentation and RDoc headings, a gem-building DSL call
// naming a developer, an email field a gem-only field follows, and a
// change log credit closing several parentheses are notes; the same
// addresses without the grammar keep the warning. Synthetic names and
// hosts only; each fragment is the added lines alone, as a diff gives
// them, numbered from first.
func TestRound10Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	const phpHead = "<?php\n\n/**\n * This file is part of a package.\n */\n\n"
	cases := []struct {
		name, path string
		kind       finding.Kind
		first      int
		text       string
		want       []string // severity of each email finding, in order
	}{
		// Authors lists in a header comment.
		{"authors list, name and address", "src/Lang/xx_YY.php", finding.KindDiff, 1,
			phpHead + "/*\n * Authors:\n * - Ana Example    ana.example@mailhost.io\n */\nreturn [];", []string{"note"}},
		{"authors list, two names and addresses on an item", "src/Lang/xx.php", finding.KindDiff, 1,
			phpHead + "/*\n * Authors:\n * - Bo Example bo.example@mailhost.io, Cy Example cy.example@mailhost.io\n * - dee.example@mailhost.io\n */", []string{"note", "note", "note"}},
		{"authors list, only the item added", "src/Lang/xx.php", finding.KindDiff, 14,
			" * - Eve Example eve.example@mailhost.io", []string{"warning"}},
		{"translators list with stars in a hash comment", "po/x.sh", finding.KindDiff, 1,
			"#!/bin/sh\n# Translators:\n# * Fay Example <fay.example@mailhost.io>\n# + gus.example@mailhost.io", []string{"note", "note"}},
		{"maintainers list in a slash comment", "src/x.c", finding.KindDiff, 1,
			"// Maintainers :\n//   - Hal Example hal.example@mailhost.io\n// • Ida Example ida.example@mailhost.io", []string{"note", "note"}},
		{"the list ends at a line that is not an item", "src/x.c", finding.KindDiff, 1,
			"/*\n * Authors:\n * - Jo Example jo.example@mailhost.io\n * Export the ledger for kim.example@mailhost.io\n * - lu.example@mailhost.io\n */", []string{"note", "warning", "warning"}},
		{"another label", "src/Lang/xx.php", finding.KindDiff, 1,
			"/*\n * Customers:\n * - Mo Example mo.example@mailhost.io\n */", []string{"warning"}},
		{"a label with more words", "src/x.php", finding.KindDiff, 1,
			"/*\n * Authors of the export: see below\n * - nia.example@mailhost.io\n */", []string{"warning"}},
		{"a bare address in a header without a label", "scripts/export.sh", finding.KindDiff, 1,
			"#!/bin/sh\n# export the ledger for oli.example@mailhost.io\n# - pat.example@mailhost.io", []string{"warning", "warning"}},
		{"a label in code, not in the header", "src/x.php", finding.KindDiff, 1,
			"<?php\n$x = 1;\n/*\n * Authors:\n * - quin.example@mailhost.io\n */", []string{"warning"}},
		{"a label after a gap in line numbers", "src/x.php", finding.KindDiff, 1,
			"/*\n * Authors:\n\n * - ray.example@mailhost.io", []string{"warning"}},
		{"authors list in a fixture", "tests/fixtures/x.php", finding.KindDiff, 1,
			"/*\n * Authors:\n * - sam.example@mailhost.io\n */", []string{"warning"}},
		// Extensionless documentation and RDoc headings.
		{"mailto in an extensionless TODO", "pkg/TODO", finding.KindDiff, 1,
			"= Project -- To Do List\n\nSend suggestions for this list to mailto:ana.example@mailhost.io or on", []string{"note"}},
		{"mailto in an extensionless README", "README", finding.KindDiff, 1,
			"contact\nmailto:bo.example@mailhost.io", []string{"note"}},
		{"RDoc credits section in an extensionless README", "pkg/README", finding.KindDiff, 1,
			"== Credits\n\n[<b>cy.example@mailhost.io</b>] For the initial patch.\n\n== License\n\nask dee.example@mailhost.io", []string{"note", "warning"}},
		{"RDoc level-one heading", "README.rdoc", finding.KindDiff, 1,
			"= Authors\n\n* eve.example@mailhost.io\n= Usage\nfay.example@mailhost.io", []string{"note", "warning"}},
		{"another section of an extensionless README", "README", finding.KindDiff, 1,
			"== Customers\n\n[<b>gus.example@mailhost.io</b>] First order.", []string{"warning"}},
		{"mailto in an extensionless file that is not documentation", "bin/deploy", finding.KindDiff, 1,
			"# mailto:hal.example@mailhost.io", []string{"warning"}},
		{"extensionless README in a fixture", "test/fixtures/README", finding.KindDiff, 1,
			"mailto:ida.example@mailhost.io", []string{"warning"}},
		// Gem-building DSL calls.
		{"hoe developer", "Rakefile", finding.KindDiff, 20,
			"hoe = Hoe.spec 'tool' do\n  developer 'Ana Example', 'ana.example@mailhost.io'\n  developer('Bo Example', \"bo.example@mailhost.io\")\n  p.developer 'Cy Example', 'cy.example@mailhost.io'\nend", []string{"note", "note", "note"}},
		{"another call", "Rakefile", finding.KindDiff, 20,
			"  notify 'Dee Example', 'dee.example@mailhost.io'", []string{"warning"}},
		{"developer with an address first", "Rakefile", finding.KindDiff, 20,
			"  developer 'eve.example@mailhost.io', 'x'", []string{"warning"}},
		{"developer with a concatenated address", "Rakefile", finding.KindDiff, 20,
			"  developer 'Fay Example', 'x' + 'fay.example@mailhost.io'", []string{"warning"}},
		{"developer outside Ruby", "setup.py", finding.KindDiff, 20,
			"  developer 'Gus Example', 'gus.example@mailhost.io'", []string{"warning"}},
		// An email field a gem-only field follows.
		{"email then homepage", "Rakefile", finding.KindDiff, 191,
			"    s.email = \"hal.example@mailhost.io\"\n    s.homepage = \"https://example.test/tool\"", []string{"note"}},
		{"email then a comment then rubyforge_project", "pkg/Rakefile", finding.KindDiff, 99,
			"    s.email = \"ida.example@mailhost.io\"\n#    s.note = 1\n    s.rubyforge_project = \"tool\"", []string{"note"}},
		{"email then another variable's field", "Rakefile", finding.KindDiff, 191,
			"    s.email = \"jo.example@mailhost.io\"\n    t.homepage = \"https://example.test\"", []string{"warning"}},
		{"email then a field after a gap", "Rakefile", finding.KindDiff, 191,
			"    s.email = \"kim.example@mailhost.io\"\n    s.summary = \"x\"", []string{"note"}},
		{"email then a non-gem field", "lib/mailer.rb", finding.KindDiff, 10,
			"    m.email = \"lu.example@mailhost.io\"\n    m.subject = \"x\"", []string{"warning"}},
		// Change log credits closing several parentheses.
		{"changelog credit closing the entry", "CHANGES", finding.KindDiff, 20,
			"* Switched the parser (patches supplied by Ana\n  Example (ana.example@mailhost.io))", []string{"note"}},
		{"changelog credit closing two and a period", "CHANGELOG.md", finding.KindDiff, 20,
			"- Fixed x (thanks to Bo (bo.example@mailhost.io)).", []string{"note"}},
		{"changelog address followed by text", "CHANGES", finding.KindDiff, 20,
			"- Ask Cy (cy.example@mailhost.io)) about the refund", []string{"warning"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fragmentFrom(c.kind, c.path, c.first, c.text)
			if c.name == "a label after a gap in line numbers" {
				f.Lines = append(f.Lines[:2:2], f.Lines[3])
				f.Lines[2].Number = 10
			}
			got := emailSeverities(t, d, f)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("severities %v, want %v", got, c.want)
			}
		})
	}
}
