package pii

import (
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// apache11 is a licence header in the shape of the Apache Software
// License 1.1 (its clause 4 names whom to ask for permission), with a
// synthetic project and host.
func apache11(contact string) string {
	return "/*\n * The Demo Software License, Version 1.1\n *\n * Copyright (c) 2031 The Demo Foundation.  All rights\n * reserved.\n *\n" +
		" * Redistribution and use in source and binary forms, with or without\n * modification, are permitted provided that the following conditions\n * are met:\n *\n" +
		strings.Repeat(" *    (a condition of the licence, wrapped)\n", 20) +
		" * 4. The names \"Demo\" and \"Demo Foundation\" must not be used to endorse or\n *    promote products derived from this software without prior written\n" +
		" *    permission. For written permission, please contact " + contact + ".\n */\npackage demo;\n"
}

// TestRound27Rules: the shapes held-out rounds 27 and 28 showed, and near
// misses that keep their warning. Synthetic names and hosts only.
func TestRound27Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	puppet := "# == Class: demo\n#\n# Installs the demo.\n#\n# === Parameters\n#\n# [*ensure*]\n#   String.\n#\n# === Authors\n#\n" +
		"# * Ada Example <mailto:ada.example@mailhost.io>\n# * Bo Sample <mailto:bo.sample@mailhost.io>\n#\n# === Copyright\n#\n# Demo Labs\n"
	cases := []severityCase{
		// A licence notice's permission contact, 30 lines into its block.
		{"apache 1.1 contact", "src/java/org/demo/Parser.java", finding.KindDiff, apache11("permissions@demofound.io"), []string{"note"}},
		{"mit header with holder's address", "lib/demo.js", finding.KindDiff, "// Copyright 2031 Ada Example\n//\n// Permission is hereby granted, free of charge, to any person\n// obtaining a copy ...\n//\n// Questions: ada.example@mailhost.io\n", []string{"note"}},
		// Recall: a comment block without a licence's terms, the address
		// in code after the licence block, a licence in a fixture.
		{"comment without terms", "src/java/org/demo/Parser.java", finding.KindDiff, "/*\n * Parses the demo format.\n * Questions: ada.example@mailhost.io\n */", []string{"warning"}},
		{"code after the licence", "src/demo.go", finding.KindDiff, "// Licensed under the Demo License.\n\npackage demo\n\n// Owner: ada.example@mailhost.io\n", []string{"warning"}},
		// A licence is the licence in a test source too.
		{"licence in a test source", "src/test/org/graphkit/ParserTest.java", finding.KindDiff, apache11("ada.example@mailhost.io"), []string{"note"}},
		// An authors section under an RDoc heading in a doc comment.
		{"puppet authors section", "manifests/init.pp", finding.KindDiff, puppet, []string{"note", "note"}},
		{"markdown heading in python comments", "demo/tool.py", finding.KindDiff, "# ## Maintainers\n#\n# - Ada Example, ada.example@mailhost.io\nimport os\n", []string{"note"}},
		// Recall: the section ends at the next heading, at code, and
		// another heading's section is not an authors one.
		{"after the copyright heading", "manifests/init.pp", finding.KindDiff, "# === Authors\n#\n# Demo Labs\n#\n# === Copyright\n#\n# ada.example@mailhost.io\n", []string{"warning"}},
		{"code after the section", "manifests/init.pp", finding.KindDiff, "# === Authors\n#\n# * Ada Example\nclass demo {\n  $owner = 'ada.example@mailhost.io'\n}\n", []string{"warning"}},
		{"parameters section", "manifests/init.pp", finding.KindDiff, "# === Parameters\n#\n# [*admin*]\n#   e.g. ada.example@mailhost.io\n", []string{"warning"}},
		{"authors section in a fixture", "spec/fixtures/init.pp", finding.KindDiff, puppet, []string{"warning", "warning"}},
		// A Maven descriptor's mailing lists and Maven 1's developers.
		{"maven 1 mailing list", "project.xml", finding.KindDiff, "  <mailingLists>\n    <mailingList>\n      <name>Demo Dev List</name>\n      <subscribe>graphkit-join@demofound.io</subscribe>\n      <post>graphkit-talk@demofound.io</post>\n      <archive>https://archive.demofound.io/?list=graphkit-talk@demofound.io</archive>", []string{"note", "note", "note"}},
		{"maven 1 developer", "project.xml", finding.KindDiff, "  <developers>\n    <developer>\n      <name>Ada Example</name>\n      <email>ada.example@mailhost.io</email>\n    </developer>", []string{"note"}},
		{"maven 1 nag address", "project.xml", finding.KindDiff, "  <nagEmailAddress>graphkit-talk@demofound.io</nagEmailAddress>", []string{"note"}},
		// Recall: the same element in another XML file.
		{"post element elsewhere", "config/site.xml", finding.KindDiff, "<post>ada.example@mailhost.io</post>", []string{"warning"}},
		// Gump's nag element.
		{"gump nag", "gump.xml", finding.KindDiff, "    <nag from=\"Demo Builds &lt;graphkit-buildmaster@demofound.io&gt;\"\n         to=\"graphkit-talk@demofound.io\"/>", []string{"note", "note"}},
		// Recall: another element, the nag tag closed before.
		{"gump other element", "gump.xml", finding.KindDiff, "<project name=\"demo\">\n  <owner>ada.example@mailhost.io</owner>", []string{"warning"}},
		{"after the nag tag", "gump.xml", finding.KindDiff, "<nag to=\"x\">\n  <contact>ada.example@mailhost.io</contact>", []string{"warning"}},
		// Round 29: Maven's changes.xml credit, CruiseControl's email
		// publisher, a C library's block-comment header, a signing key's
		// and a no-response sender's mailboxes.
		{"changes.xml due-to-email", "src/changes/changes.xml", finding.KindDiff, "      <action dev=\"ada\" due-to=\"Bo Sample\" due-to-email=\"bo.sample@mailhost.io\" type=\"add\">", []string{"note"}},
		{"cruisecontrol publisher", "config.xml", finding.KindDiff, "        <htmlemail mailhost=\"localhost\"\n                   returnaddress=\"builds@graphkit.io\">\n            <always address=\"graphkit-talk@graphkit.io\" />\n            <failure address=\"ada.example@mailhost.io\" />\n            <map alias=\"bo\" address=\"bo.sample@mailhost.io\" />", []string{"note", "note", "note", "warning"}},
		{"block comment header", "miniz-sys/miniz.c", finding.KindDiff, "/* miniz.c v1.0 - deflate/inflate\n   See the licence at the end of this file.\n   Ada Example <ada.example@mailhost.io>, last updated 2031\n*/\nint x = 1; // bo.sample@mailhost.io", []string{"note", "warning"}},
		{"signing key and no-response mailboxes", "docs/download.rst", finding.KindDiff, "Graphkit <pgp@graphkit.io>\nsender=no-response@graphkit.io", []string{}},
		// Recall: due-to-email glued to another name, another attribute,
		// address attributes of other elements.
		{"other attribute", "src/changes/changes.xml", finding.KindDiff, "<action dev=\"ada\" reviewer-email=\"bo.sample@mailhost.io\">", []string{"warning"}},
		{"address of another element", "config.xml", finding.KindDiff, "<owner address=\"ada.example@mailhost.io\" />", []string{"warning"}},
		// Round 30: a copy of the Public Suffix List, by name or by its
		// section markers; not in fixtures, not on an entry's line.
		{"psl by name", "data/public_suffix_list.dat", finding.KindDiff, "// graphkit : https://graphkit.io\n// Submitted by Ada Example <ada.example@mailhost.io>\ngraphkit.io", []string{"note"}},
		{"psl by markers", "data/A/C/0a1b2c3d", finding.KindDiff, "// ===BEGIN PRIVATE DOMAINS===\n// Submitted by Ada Example <ada.example@mailhost.io>\ngraphkit.io", []string{"note"}},
		{"psl in a fixture", "tests/data/public_suffix_list.dat", finding.KindDiff, "// Submitted by Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"psl registry in a fixture", "tests/data/public_suffix_list.dat", finding.KindDiff, "// Submitted by registry <graphkit.nic@mailhost.io>\n// Confirmed by registry <graphkit.tech@mailhost.io> 2031-06-17", []string{"note", "note"}},
		{"psl in a test data directory", "test_data/public_suffix_list.dat", finding.KindDiff, "// ===BEGIN PRIVATE DOMAINS===\n// Contact: ada.example@mailhost.io", []string{"warning"}},
		{"psl marker text elsewhere", "src/notes.go", finding.KindDiff, "// the list begins at ===BEGIN ICANN DOMAINS===\n// Owner: ada.example@mailhost.io", []string{"warning"}},
		// A list or team named by its role suffix, outside fixtures.
		{"list suffix in a message", "", finding.KindCommitMessage, "move the lists\n\ns/graphkit-dev@oldhost.io/graphkit-user@demofound.io/", []string{"note", "note"}},
		{"team with a tag in ci", ".ci/jobs/defaults.yml", finding.KindDiff, "    - email:\n        recipients: infra-root+build@demofound.io", []string{"note"}},
		{"list suffix in a fixture", "spec/fixtures/mail.yml", finding.KindDiff, "to: graphkit-dev@demofound.io", []string{"warning"}},
		// Recall: a person's handle, a one-word local part that is a name.
		{"person with a hyphen", "src/owner.go", finding.KindDiff, `const owner = "ada-example@mailhost.io"`, []string{"warning"}},
		{"suffix word glued", "src/owner.go", finding.KindDiff, `const owner = "adadev@mailhost.io"`, []string{"warning"}},
		// A copyright holder's address wrapped onto the next line.
		{"copyright wrapped", "lib/graphkit/lookup.py", finding.KindDiff, "# lookup.py\n# Copyright (C) 2030, 2031 Ada Example \n# ada.example@mailhost.io\n#", []string{"note"}},
		// Recall: words beside the address, a copyright line that ends in
		// a year, an address after a line that is no copyright.
		{"copyright wrapped, words after", "lib/graphkit/lookup.py", finding.KindDiff, "# Copyright (C) 2031 Ada Example\n# ada.example@mailhost.io wrote this", []string{"warning"}},
		{"copyright ending in a year", "lib/graphkit/lookup.py", finding.KindDiff, "# Copyright (C) Ada Example 2031\n# ada.example@mailhost.io", []string{"warning"}},
		{"after another comment", "lib/graphkit/lookup.py", finding.KindDiff, "# Maintained at Demo Labs\n# ada.example@mailhost.io", []string{"warning"}},
		// SSH algorithm names at any domain, in any file.
		{"ssh cipher in a change log", "CHANGES.txt", finding.KindDiff, "* Support `chacha20-poly1305@sshdemo.io` cypher [#9]", []string{"note"}},
		{"ssh cipher in a test", "test/transport/test_cipher.rb", finding.KindDiff, `assert_equal [32, 16], factory.lengths("rijndael-cbc@cryptolab.se")`, []string{"note"}},
		{"ssh cipher alone", "lib/algorithms.rb", finding.KindDiff, "      camellia192-ctr@sshdemo.org", []string{"note"}},
		// Recall: a person whose local part starts with a family's letters.
		{"family letters in a name", "src/owner.go", finding.KindDiff, `owners := "skyler-jones@mailhost.io aesop@mailhost.io rsa.example@mailhost.io sk-ada@mailhost.io"`, []string{"warning", "warning", "warning", "warning"}},
		// A company's ident.
		{"company ident", "Sniffs/FileCommentSniff.php", finding.KindDiff, "$expected = 'Demo Pty Ltd <products@demolabs.io>';", []string{"note"}},
		{"company ident with a comma", "src/header.c", finding.KindDiff, " * Author: Demo Labs, Inc. <ada.example@demolabs.io>", []string{"note"}},
		// Recall: a person's ident, a legal form glued to the address.
		{"person ident", "Sniffs/FileCommentSniff.php", finding.KindDiff, "$expected = 'Ada Example <ada.example@mailhost.io>';", []string{"warning"}},
		{"surname spelled like a legal form", "src/names.py", finding.KindDiff, "x = 'Ana Sa <ana.sa@mailhost.io>'", []string{"warning"}},
		{"legal form glued", "Sniffs/FileCommentSniff.php", finding.KindDiff, "$expected = 'Demo Ltd<ada.example@mailhost.io>';", []string{"warning"}},
		// A GnuPG signature listing.
		{"keys sig lines", "KEYS", finding.KindDiff, "pub   1024D/0A1B2C3D 2031-03-19\nuid                  Ada Example (release) <ada.example@mailhost.io>\nsig 3        0A1B2C3D 2031-03-19  Ada Example (release) <ada.example@mailhost.io>\nsig          0A1B2C3D 2031-03-19  Ada Example <ada.example@mailhost.io>", []string{"note", "note", "note"}},
		// Recall: "sig" as a word of prose, a key ID without a date.
		{"sig in prose", "docs/notes.txt", finding.KindDiff, "sig by ada.example@mailhost.io", []string{"warning"}},
		{"sig without date", "KEYS.txt", finding.KindDiff, "sig 0A1B2C3D ada.example@mailhost.io", []string{"warning"}},
		// cruft's replay file.
		{"cruft context", ".cruft.json", finding.KindDiff, "{\n  \"context\": {\n    \"cookiecutter\": {\n      \"full_name\": \"Ada Example\",\n      \"email\": \"ada.example@mailhost.io\",", []string{"note"}},
		// Recall: another key, another JSON file.
		{"cruft other key", ".cruft.json", finding.KindDiff, "      \"notes\": \"ada.example@mailhost.io\",", []string{"warning"}},
		{"email key elsewhere", "config/app.json", finding.KindDiff, "      \"email\": \"ada.example@mailhost.io\",", []string{"warning"}},
		// A README author's first-person contact.
		{"ping me at", "README.md", finding.KindDiff, "I'm available for consulting. Ping me at: Ada Example <ada.example@mailhost.io>.", []string{"note"}},
		{"directly to me", "README.md", finding.KindDiff, "If you have private questions you can send them directly to me: ada.example@mailhost.io", []string{"note"}},
		// Recall: "me" in another sentence, the same phrase in code, a
		// word that holds the phrase.
		{"me in an earlier sentence", "README.md", finding.KindDiff, "Ping me at the meetup. The organiser is ada.example@mailhost.io", []string{"warning"}},
		{"first person in code", "src/mail.go", finding.KindDiff, `// send to me: ada.example@mailhost.io`, []string{"warning"}},
		{"phrase inside a word", "README.md", finding.KindDiff, "Go to meeting notes by ada.example@mailhost.io", []string{"warning"}},
		// An RDoc mailto link in a change log.
		{"rdoc mailto", "CHANGELOG", finding.KindDiff, "* Added frames (Thanks Ada[mailto:ada.example@mailhost.io])", []string{"note"}},
		{"rdoc braced mailto", "README.rdoc", finding.KindDiff, "{Ada Example}[mailto:ada.example@mailhost.io]", []string{"note"}},
		// Recall: the same link in code.
		{"rdoc mailto in code", "lib/demo.rb", finding.KindDiff, "x = 'Ada[mailto:ada.example@mailhost.io]'", []string{"warning"}},
		// A moderation contact beside a code of conduct.
		{"moderation contact", "CONTRIBUTING.md", finding.KindDiff, "## Conduct\n\nThis tracker follows the [Demo Code of Conduct]. For escalation or moderation\nissues please contact Ada (ada.example@mailhost.io) instead.", []string{"note"}},
		// Recall: a contact sentence without conduct words.
		{"contact without conduct", "CONTRIBUTING.md", finding.KindDiff, "For release questions\nplease contact Ada (ada.example@mailhost.io) instead.", []string{"warning"}},
		// A Message-ID as a mail header's name/value pair.
		{"header pair message id", "events/testdata/mail-event.json", finding.KindDiff, "            {\n              \"name\": \"Message-ID\",\n              \"value\": \"<CAE1x2y3z@mailhost.io>\"", []string{"note"}},
		// Recall: the From header's pair keeps its warning.
		{"header pair from", "events/testdata/mail-event.json", finding.KindDiff, "            {\n              \"name\": \"From\",\n              \"value\": \"Ada Example <ada.example@mailhost.io>\"", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}

// TestKeyRunPhone: a number typed as runs of repeated digits is a note;
// a number with one single digit among the runs keeps its warning.
func TestKeyRunPhone(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []ruleCase{
		{"runs after a country code", `      "phone_number": "+12223334455"`, []string{"note"}},
		{"runs with separators", `phone: +44 22 3344 5566`, []string{"note"}},
		// Recall: one single digit among the runs.
		{"one single digit", `      "phone_number": "+12223334456"`, []string{"warning"}},
		{"an ordinary number", `      "phone_number": "+16173942817"`, []string{"warning"}},
	}
	runRuleCases(t, d, "events/testdata/user.json", "pii/phone", cases)
}

// TestListLocal: the local-part grammar of lists and teams alone.
func TestListLocal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"graphkit-dev@h.io", true},
		{"graphkit_user@h.io", true},
		{"turbine-graphkit-dev@h.io", true},
		{"infra-root+build@h.io", true},
		{"dev@h.io", false},
		{"-dev@h.io", false},
		{"graphkit-@h.io", false},
		{"ada-example@h.io", false},
		{"ada-example+dev@h.io", false},
		{"developer.ada@h.io", false},
	} {
		if got := listLocal([]byte(c.in)); got != c.want {
			t.Errorf("listLocal(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// FuzzRound27 runs the detectors over arbitrary fragments of the files
// rounds 27 and 28's rules read, the lines numbered with gaps where sel
// says.
func FuzzRound27(f *testing.F) {
	f.Add(apache11("a@mailhost.io"), uint8(0))
	f.Add("# === Authors\n#\n# * A <mailto:a@mailhost.io>\n# == x\n# b@mailhost.io\nc@mailhost.io", uint8(1))
	f.Add("<subscribe>a-dev@mailhost.io</subscribe>\n<nagEmailAddress>b@mailhost.io\n<email>c@mailhost.io", uint8(2))
	f.Add("<nag from=\"&lt;a@mailhost.io&gt;\"\n to=\"b@mailhost.io\"/>\n<nag\n>c@mailhost.io", uint8(3))
	f.Add("sig 3 0A1B2C3D 2031-01-01 A <a@mailhost.io>\nsig 0A1B2C3D2 2031- b@mailhost.io\nrev", uint8(4))
	f.Add("\"email\": \"a@mailhost.io\"\n\"\": \"b@mailhost.io\"\n:\"c@mailhost.io\"", uint8(5))
	f.Add("Ping me at: a@mailhost.io. to me b@mailhost.io\nX[mailto:c@mailhost.io] [mailto:d@mailhost.io]", uint8(6))
	f.Add("moderation\ncontact (a@mailhost.io)\n\"name\": \"Message-ID\",\n\"value\": \"<b@mailhost.io>\" +12223334455 +1", uint8(7))
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	paths := []string{"src/A.java", "manifests/init.pp", "project.xml", "gump.xml", "KEYS", ".cruft.json", "README.md", "CONTRIBUTING.md"}
	f.Fuzz(func(t *testing.T, text string, sel uint8) {
		fr := gappedFragment(paths[int(sel)%len(paths)], text, sel)
		d.Detect(fr, func(m scanner.Match) { checkMatch(t, fr, m) })
	})
}
