package pii

import (
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestAttribution: an address that credits a file's or a change's author
// is reported as a note; the same address anywhere else (a fixture, a
// config value) keeps the warning. Synthetic names and hosts only.
func TestAttribution(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, text string
		want             []string // severity of each email finding, in order
	}{
		{"copyright", "x.py", "# Copyright (c) 2024, Ana Example <ana.example@mailhost.io>", []string{"note"}},
		{"(c)", "x.go", "// (c) 2020-2024, Bo Sample (bo.sample@mailhost.io)", []string{"note"}},
		{"spdx", "x.sh", "# SPDX-FileCopyrightText: 2025 Cy Person <cy.person@mailhost.io>", []string{"note"}},
		{"author comment", "x.sh", "# Author: Dee Person <dee.person@mailhost.io>", []string{"note"}},
		{"python author", "six.py", `__author__ = "Eve Sample <eve.sample@mailhost.io>"`, []string{"note"}},
		{"setup author_email", "setup.py", "    author_email='fay.example@mailhost.io',", []string{"note"}},
		{"pkg-info", "PKG-INFO", "Author-email: gus.example@mailhost.io", []string{"note"}},
		{"handle credit", "plugins/x.py", "  - Hal Example (@halex) <hal.example@mailhost.io>", []string{"note"}},
		{"unknown handle credit", "plugins/x.py", "  - Ida Example (!UNKNOWN) <ida.example@mailhost.io>", []string{"note"}},
		{"based on", "x.py", "# Based on lvol module by Jo Example <jo.example@mailhost.io>", []string{"note"}},
		{"AUTHORS file", "AUTHORS.md", "* Kim Example <kim.example@mailhost.io>", []string{"note"}},
		{"MAINTAINERS file", "vendor/lib/MAINTAINERS", "Lu Example <lu.example@mailhost.io> (@luex)", []string{"note"}},
		{"third-party licenses", "vendor/x/LICENSE-THIRD-PARTY", "Copyright 2013 Xia Example <xia.example@mailhost.io>", []string{"note"}},
		{"notice", "NOTICE.txt", "Yan Example yan.example@mailhost.io", []string{"note"}},
		{"credit on the next line", "tests/x.py", "# Largely adapted from test_x by\n# Zoe Example (zoe.example@mailhost.io)\n#\nfixture = 'zed.example@mailhost.io'", []string{"note", "warning"}},
		{"security contact", "SECURITY.txt", "Contact: mailto:abe.example@mailhost.io", []string{"note"}},
		{"mailmap", ".mailmap", "Mo Example <mo.example@mailhost.io> <mo@old-mailhost.io>", []string{"note", "note"}},
		{"author block", "plugins/x.py", "author:\n  - Nia Example <nia.example@mailhost.io>\n  - Oli Example\nnotes:\n  - write to pat.example@mailhost.io", []string{"note", "warning"}},
		{"authors list at key indent", "galaxy.yml", "authors:\n- Quinn Example <quinn.example@mailhost.io>\nrepository: x\ncontact: rae.example@mailhost.io", []string{"note", "warning"}},
		{"fixture", "tests/test_users.py", `    email="sam.example@mailhost.io",`, []string{"warning"}},
		{"authorized is not author", "x.yml", `authorized_users: ["tia.example@mailhost.io"]`, []string{"warning"}},
		{"authority is not author", "x.cfg", "authority = uma.example@mailhost.io", []string{"warning"}},
		{"a plain list item", "x.yml", "  - Vic Example <vic.example@mailhost.io>", []string{"warning"}},
		// mailto: in documentation is a published contact.
		{"mailto in markdown", "docs/support.md", "Report it to [the team](mailto:abe.example@mailhost.io).", []string{"note"}},
		{"mailto in rst", "README.rst", "`Ana <mailto:ana.example@mailhost.io>`_", []string{"note"}},
		{"mailto in docs html", "site/docs/contact.html", `<a href="mailto:bo.example@mailhost.io">Bo</a>`, []string{"note"}},
		{"mistyped mailto in markdown", "README.md", "- [Ana](mailto::ana.example@mailhost.io)", []string{"note"}},
		{"markdown link to an address", "README.md", "* [Bo](bo.example@mailhost.io)", []string{"note"}},
		{"markdown link in code", "src/page.js", "const md = '* [Bo](bo.example@mailhost.io)'", []string{"warning"}},
		{"bare address in markdown", "docs/support.md", "write to abe.example@mailhost.io", []string{"warning"}},
		{"mailto in code", "web/contact.js", `href = "mailto:cy.example@mailhost.io"`, []string{"warning"}},
		{"mailto in a fixture's markdown", "tests/fixtures/page.md", "[x](mailto:dee.example@mailhost.io)", []string{"warning"}},
		{"mailto in html outside docs", "web/index.html", `<a href="mailto:eve.example@mailhost.io">`, []string{"warning"}},
		{"mailto in html at the root", "about.html", `<a href="mailto:fay.example@mailhost.io">Fay</a>`, []string{"note"}},
		{"mailto in a maven site faq", "src/site/fml/faq.fml", `<a href="mailto:gus.example@mailhost.io">the list</a>`, []string{"note"}},
		{"mailto in a maven site apt", "module/src/site/apt/index.apt", "Mail {{{mailto:hal.example@mailhost.io}Hal}}.", []string{"note"}},
		{"bare address in html at the root", "about.html", "<p>write to ida.example@mailhost.io</p>", []string{"warning"}},
		{"mailto in a site-like source dir", "src/main/site.java", `"mailto:jo.example@mailhost.io"`, []string{"warning"}},
		{"mailto in root js", "index.js", `"mailto:kim.example@mailhost.io"`, []string{"warning"}},
		{"a license-like name", "tests/licensee.json", `{"to": "wes.example@mailhost.io"}`, []string{"warning"}},
		// A credit that names several holders, one per line.
		{"copyright holders one per line", "src/Util/Pkg.php",
			"/*\n * This file is part of Pkg.\n *\n * (c) Ana Example <ana.example@mailhost.io>\n *     Bo Example <bo.example@mailhost.io>\n *     Cy Example <cy.example@mailhost.io>\n */\n$to = 'dee.example@mailhost.io';",
			[]string{"note", "note", "note", "warning"}},
		{"copyright holders in a hash comment", "lib/x.rb", "# Copyright 2024 Eve Example <eve.example@mailhost.io>\n#                Fay Example <fay.example@mailhost.io>", []string{"note", "note"}},
		{"an ident line with no credit before it", "src/x.php", "$x = 1;\n *     Gus Example <gus.example@mailhost.io>", []string{"warning"}},
		{"an ident line after a blank line", "src/x.php", "$x = 1;\n * (c) Hal Example <hal.example@mailhost.io>\n *\n *     Ida Example <ida.example@mailhost.io>", []string{"note", "warning"}},
		// A file's header comment names its authors and translators.
		{"translator in a header", "language/tool.lang-xx.php", "<?php\n/**\n * Xx language file\n * @package Tool\n * Version by Ana Example <ana.example@mailhost.io>\n * Bo Example - bo.example@mailhost.io\n */\n$L['x'] = 'cy.example@mailhost.io';", []string{"note", "note", "warning"}},
		{"header by address", "lib/x.py", "#!/usr/bin/env python\n# x.py: a helper, by dee.example@mailhost.io\nimport os", []string{"note"}},
		// A header comment's bare address is no credit: whom a script is for.
		{"header bare address", "scripts/export.sh", "#!/bin/sh\n# Export the ledger for fay.example@mailhost.io\n# contact: gil.example@mailhost.io\n# TODO - hal.example@mailhost.io\nset -e", []string{"warning", "warning", "warning"}},
		{"header name and comma", "src/x.c", "/*\n * Ida Example, ida.example@mailhost.io\n */\nint x;", []string{"note"}},
		{"header comment in a fixture", "tests/data/x.php", "<?php\n/* Version by Eve Example <eve.example@mailhost.io> */", []string{"warning"}},
		{"comment after code", "lib/x.py", "import os\n# ask fay.example@mailhost.io", []string{"warning"}},
		{"comment past the header lines", "lib/x.py", strings.Repeat("#\n", 25) + "# gus.example@mailhost.io", []string{"warning"}},
		{"header lines in a message", "", "# hal.example@mailhost.io", []string{"warning"}},
		// A contributor table as git shortlog -sn and git summary print it.
		{"git summary table", "Readme.md", "     1\tana.example@mailhost.io      0.1%", []string{"note"}},
		{"git shortlog table", "docs/people.md", "   12\tbo.example@mailhost.io", []string{"note"}},
		{"a numbered note is no table", "README.md", "1. write to cy.example@mailhost.io", []string{"warning"}},
		{"a table in code", "src/x.txt.go", "     1\tdee.example@mailhost.io      0.1%", []string{"warning"}},
		// A document's authors section.
		{"man page author", "man/man1/tool.1", strings.Repeat(".TP\n", 30) + ".SH AUTHOR\nSam Example (sam.example@mailhost.io)\n.SH SEE ALSO\nmail tia.example@mailhost.io", []string{"note", "warning"}},
		{"pod author", "build/release", strings.Repeat("x\n", 30) + "=head1 AUTHOR\n\numa example, C<< <uma.example@mailhost.io> >>\n\n=cut\nmy $to = 'vic.example@mailhost.io';", []string{"note", "warning"}},
		{"markdown authors heading", "README.md", strings.Repeat("x\n", 30) + "## Authors\n- wes.example@mailhost.io\n## Usage\nwrite to xia.example@mailhost.io", []string{"note", "warning"}},
		{"a hash comment is no heading in code", "lib/x.py", strings.Repeat("x = 1\n", 30) + "# Authors\nuser = 'yan.example@mailhost.io'", []string{"warning"}},
		{"authors section in a fixture", "tests/data/tool.1", strings.Repeat(".TP\n", 30) + ".SH AUTHOR\nzed.example@mailhost.io", []string{"warning"}},
		// Change logs credit an entry's author in parentheses.
		{"changelog entry author", "History.txt", "  * Added a proxy key (ida.example@mailhost.io)\n  * Fixed x (jo.example@mailhost.io).", []string{"note", "note"}},
		{"changelog entry author first", "CHANGES", "   Kim Example (kim.example@mailhost.io): fixed y", []string{"note"}},
		{"changelog parenthesis mid-sentence", "CHANGES", "   mail (lu.example@mailhost.io) if it breaks", []string{"warning"}},
		{"parenthesis outside a changelog", "src/x.rb", "class X\n  # Fixed x (mo.example@mailhost.io)", []string{"warning"}},
		// Files and words that credit people.
		{"acknowledgements", "acknowledgements.txt", "     Nia Example (nia.example@mailhost.io): fix for the runner", []string{"note"}},
		{"patch from", "src/x/Failure.java", "class X { // Inspired by a patch from Oli Example mailto:oli.example@mailhost.io", []string{"note"}},
		{"pom template developers", "build/lib-pom-template.xml", "  <developers>\n    <developer>\n      <email>pat.example@mailhost.io</email>", []string{"note"}},
		{"svg creator", "assets/logo.svg", `<dc:creator><cc:Agent><dc:title>Quinn Example &lt;quinn.example@mailhost.io&gt;</dc:title>`, []string{"note"}},
		{"po last translator", "po/xx.po", `msgid ""` + "\n" + `"Last-Translator: Rae Example <rae.example@mailhost.io>\n"`, []string{"note"}},
		{"a fixture after a credit", "x.py", "# Copyright 2024 Jo Example <jo.example@mailhost.io>\nuser = 'Kim Example <kim.example@mailhost.io>'", []string{"note", "warning"}},
		{"code after a credit", "x.go", "// (c) Lu Example <lu.example@mailhost.io>\nsend(\"Mo Example <mo.example@mailhost.io>\")", []string{"note", "warning"}},
		// The text of a link to a mailto: contact is the same contact.
		{"mailto link text in docs", "CONTRIBUTING.md", "e-mail [nia.example@mailhost.io](mailto:nia.example@mailhost.io)", []string{"note", "note"}},
		{"mailto link text in code", "src/page.js", "'[oli.example@mailhost.io](mailto:oli.example@mailhost.io)'", []string{"warning", "warning"}},
		{"link text to a web page", "README.md", "[pat.example@mailhost.io](https://mailhost.io/u/pat)", []string{"warning"}},
		// A mailing list named as such in documentation is a published contact.
		{"mailing list in a list item", "CONTRIBUTING.rst", "-   The mailing list tool-talk@mailhost.io for long term discussion or larger", []string{"note"}},
		{"mailing list after the address", "docs/community.md", "Ask on the pkgtalk@mailhost.io mailing list.", []string{"note"}},
		{"subscribe", "README.md", "To follow releases, subscribe by writing to pkgnews@mailhost.io.", []string{"note"}},
		{"google group", "docs/help.txt", "Our Google Group (pkgforum@mailhost.io) answers questions.", []string{"note"}},
		{"a list word in another sentence", "README.md", "We have a mailing list. Write to ana.example@mailhost.io for access.", []string{"warning"}},
		{"a person beside a list word", "README.md", "Ana maintains it; mail ana.example@mailhost.io about the mailing list.", []string{"note"}}, // the sentence names a list: a published contact either way
		{"mailing list in code", "src/config.py", "LIST = 'pkgtalk@mailhost.io'  # mailing list", []string{"warning"}},
		{"mailing list in a fixture's docs", "tests/fixtures/README.md", "The mailing list pkgtalk@mailhost.io", []string{"warning"}},
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
