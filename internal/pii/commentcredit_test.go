package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound15Rules: a header comment's signature (a name line, then the
// address alone on the next line), credits in comments by grammar (a
// participle of work on the code before "by", a contribution noun before
// "from") and a CI notification block commented out line by line are
// notes; an address alone after any other line, outside the header,
// after "owned by", "used by", "forwarded to", "copied from", inside a
// string literal, in a fixture, or a commented address in a CI file that
// is not under email: or recipients: keeps the warning. Synthetic names
// and hosts only; each fragment is the added lines alone, as a diff gives
// them.
func TestRound15Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// 1. A header signature.
		{"header signature", "src/tool-conf", finding.KindDiff, "#! /bin/sh\n#\n# tool-conf -- print settings\n#\n# Ana Example\n# ana.example@mailhost.io\n\n# Copyright (C) 2001 Example Org", []string{"note"}},
		{"header signature in angle brackets", "lib/x.c", finding.KindDiff, "/*\n * Bo B. Example\n * <bo.example@mailhost.io>\n */", []string{"note"}},
		{"a lowercase particle is not a signature name", "x.sh", finding.KindDiff, "# Cy de La Example\n# cy.example@mailhost.io", []string{"warning"}},
		{"header signature with initials", "x.sh", finding.KindDiff, "# D. E. Example\n# dee.example@mailhost.io", []string{"note"}},
		{"after a sentence", "x.sh", finding.KindDiff, "# run this for the backup of\n# eve.example@mailhost.io", []string{"warning"}},
		{"after a label", "x.sh", finding.KindDiff, "# Contact:\n# fay.example@mailhost.io", []string{"warning"}},
		{"after one word", "x.sh", finding.KindDiff, "# Gus\n# gus.example@mailhost.io", []string{"warning"}},
		{"not alone on its line", "x.sh", finding.KindDiff, "# Hal Example\n# mail hal.example@mailhost.io", []string{"warning"}},
		{"outside the header", "x.sh", finding.KindDiff, "x=1\n# Ida Example\n# ida.example@mailhost.io", []string{"warning"}},
		{"not the next line", "x.sh", finding.KindDiff, "# Jo Example\n#\n# jo.example@mailhost.io", []string{"warning"}},
		{"in a fixture", "testdata/x.sh", finding.KindDiff, "# Kit Example\n# kit.example@mailhost.io", []string{"warning"}},
		// 2. Credits in comments by grammar.
		{"lightly tested by", "src/tool-conf", finding.KindDiff, "x-*gcc*)\t\t# lightly tested by lee.example@mailhost.io", []string{"note"}},
		{"originally written by Name <address>", "lib/x.py", finding.KindDiff, "# originally written by Max Example <max.example@mailhost.io>", []string{"note"}},
		{"fixed by, in a C comment", "x.c", finding.KindDiff, "  /* fixed by ned.example@mailhost.io */", []string{"note"}},
		{"fix from", "src/tool-conf", finding.KindDiff, "\t# Fix to use gcc linker driver from oli.example@mailhost.io", []string{"note"}},
		{"change from Name <address>", "src/tool-conf", finding.KindDiff, "#\tChange from Pat Example <pat.example@mailhost.io>.  If you have problems,", []string{"note"}},
		{"patches from, in a doc", "docs/history.md", finding.KindDiff, "Many of these changes came from Quin Example (quin.example@mailhost.io).", []string{"note"}},
		{"a participle in a commit message", "", finding.KindCommitMessage, "Subject\n\nThe port was reviewed by ray.example@mailhost.io", []string{"note"}},
		{"owned by", "x.go", finding.KindDiff, "package x\n// Customer account owned by sam.example@mailhost.io", []string{"warning"}},
		{"used by", "x.go", finding.KindDiff, "package x\n// the key used by tia.example@mailhost.io", []string{"warning"}},
		{"forwarded by", "x.go", finding.KindDiff, "package x\n// a message forwarded by uma.example@mailhost.io", []string{"warning"}},
		{"owned by, in a header (headerCredit's by)", "x.go", finding.KindDiff, "// Customer account owned by ann.example@mailhost.io", []string{"note"}},
		{"forwarded to", "x.sh", finding.KindDiff, "# forwarded to val.example@mailhost.io", []string{"warning"}},
		{"send mail to", "x.sh", finding.KindDiff, "# send mail to wes.example@mailhost.io", []string{"warning"}},
		{"copied from an address's home", "x.sh", finding.KindDiff, "# copied from xia.example@mailhost.io's home dir", []string{"warning"}},
		{"by, then not a name", "x.sh", finding.KindDiff, "# tested by the team of yan.example@mailhost.io", []string{"warning"}},
		{"from, without a contribution noun", "x.sh", finding.KindDiff, "# a mail from zed.example@mailhost.io", []string{"warning"}},
		{"noun in an earlier clause", "x.sh", finding.KindDiff, "# A fix. Mail from abe.example@mailhost.io", []string{"warning"}},
		{"not a comment", "x.go", finding.KindDiff, "owner := \"tested by bea.example@mailhost.io\"", []string{"warning"}},
		{"a marker inside a string", "x.py", finding.KindDiff, "s = \"x # tested by cal.example@mailhost.io\"", []string{"warning"}},
		{"a data file", "data/users.csv", finding.KindDiff, "1,signed up,tested by dan.example@mailhost.io", []string{"warning"}},
		{"in a fixture", "testdata/x.sh", finding.KindDiff, "# lightly tested by eli.example@mailhost.io", []string{"warning"}},
		{"a participle and a noun in a doc about data", "docs/x.md", finding.KindDiff, "The account is owned by fox.example@mailhost.io", []string{"warning"}},
		// 3. A CI notification block commented out line by line.
		{"commented email block", ".travis.yml", finding.KindDiff, "notifications:\n  irc:\n    skip_join: true\n#  email:\n#    - gia.example@mailhost.io", []string{"note"}},
		{"commented recipients block", ".travis.yml", finding.KindDiff, "#notifications:\n#  email:\n#    recipients:\n#      - \"hal.example@mailhost.io\"", []string{"note"}},
		{"commented address not under email:", ".travis.yml", finding.KindDiff, "#  env:\n#    - ian.example@mailhost.io", []string{"warning"}},
		{"block closed by a live line", ".travis.yml", finding.KindDiff, "#  email:\nscript: make\n#    - jay.example@mailhost.io", []string{"warning"}},
		{"not a CI file", "config/x.yml", finding.KindDiff, "#  email:\n#    - kay.example@mailhost.io", []string{"warning"}},
		{"commented key and value on one line", ".travis.yml", finding.KindDiff, "#  email: lou.example@mailhost.io", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 10, cases)
}
