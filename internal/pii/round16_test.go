package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound16Rules: an HTTP digest realm passed as an argument of the A1
// computation is not reported (as realm="…" is not), and a gettext
// catalog's Report-Msgid-Bugs-To field and its header comment's translator
// lines are notes; the same address as another call's argument, in a
// translation's text, further down the file, or in a fixture's catalog
// keeps the warning. Synthetic names and hosts only; each fragment is the
// added lines alone, numbered from line 1 of the file.
func TestRound16Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	po := "locale/xx_XX/LC_MESSAGES/tool.po"
	cases := []severityCase{
		// The digest realm as an argument of the A1 computation.
		{"compute_ha1 with a hash name", "test/features/digest_test.rb", finding.KindDiff, `    ha1 = feature.send(:compute_ha1, "MD5", "ana.lima@mailhost.io",`, nil},
		{"MD5-sess", "test/features/digest_test.rb", finding.KindDiff, `    ha1 = feature.send(:compute_ha1, "MD5-sess", "ana.lima@mailhost.io",`, nil},
		{"HA1( call, single quotes", "auth/digest.py", finding.KindDiff, `h = HA1('bo', 'ana.lima@mailhost.io', 'secret')`, nil},
		{"digest_a1", "auth/digest.go", finding.KindDiff, `a := digest_a1(user, "ana.lima@mailhost.io", pass)`, nil},
		{"camel case computeHa1", "src/Digest.java", finding.KindDiff, `String h = computeHa1(user, "ana.lima@mailhost.io", pass);`, nil},
		{"digest with SHA-256", "src/auth.js", finding.KindDiff, `const r = digestAuth("SHA-256", "ana.lima@mailhost.io", nonce)`, nil},
		// Recall: the same address elsewhere keeps the warning.
		{"another call with a hash name", "src/mail.py", finding.KindDiff, `send_mail("MD5", "ana.lima@mailhost.io")`, []string{"warning"}},
		{"digest word without a hash name", "src/mail.py", finding.KindDiff, `send_digest(user, "ana.lima@mailhost.io")`, []string{"warning"}},
		{"ha1 word, address not an argument", "src/mail.py", finding.KindDiff, `ha1 = x  # ask ana.lima@mailhost.io`, []string{"warning"}},
		{"a word holding the letters", "src/mail.py", finding.KindDiff, `sha1sum("ana.lima@mailhost.io")`, []string{"warning"}},
		{"a1 inside a word", "src/mail.py", finding.KindDiff, `data1("ana.lima@mailhost.io")`, []string{"warning"}},
		{"the username, A1's first argument", "auth/digest.py", finding.KindDiff, `h = HA1("ana.lima@mailhost.io", realm, "secret")`, []string{"warning"}},
		{"the username first, a hash name after it", "test/digest_test.rb", finding.KindDiff, `ha1 = compute_ha1("ana.lima@mailhost.io", "MD5", pw)`, []string{"warning"}},
		// gettext headers.
		{"Report-Msgid-Bugs-To", po, finding.KindDiff, "msgid \"\"\nmsgstr \"\"\n\"Project-Id-Version: tool\\n\"\n\"Report-Msgid-Bugs-To: Ana Lima <ana.lima@mailhost.io>\\n\"", []string{"note"}},
		{"Report-Msgid-Bugs-To in a template", "po/tool.pot", finding.KindDiff, "\"Report-Msgid-Bugs-To: bo.lima@mailhost.io\\n\"", []string{"note"}},
		{"translator line", po, finding.KindDiff, "# Tool's Xx translation.\n# Copyright (C) 2017 THE PACKAGE'S COPYRIGHT HOLDER\n# Ana Lima <ana.lima@mailhost.io>, 2017.\n#\nmsgid \"\"", []string{"note"}},
		{"translator line without a name", po, finding.KindDiff, "# Xx translations for PACKAGE package.\n#  <ana.lima@mailhost.io>, 2017.\n#\nmsgid \"\"", []string{"note"}},
		{"translator line, several years", po, finding.KindDiff, "# Translations.\n#  <ana.lima@mailhost.io>, 2017, 2019-2020.", []string{"note"}},
		// Recall.
		{"in a translation's text", po, finding.KindDiff, "msgid \"Report bugs\"\nmsgstr \"Report-Msgid-Bugs-To: <ana.lima@mailhost.io>\"", []string{"warning"}},
		{"a translation's continuation", po, finding.KindDiff, "msgid \"Write to us\"\nmsgstr \"\"\n\"Schreib an ana.lima@mailhost.io\\n\"", []string{"warning"}},
		{"translator form after the header", po, finding.KindDiff, "msgid \"\"\nmsgstr \"\"\n\n#  <ana.lima@mailhost.io>, 2017.", []string{"warning"}},
		{"translator form, other text after", po, finding.KindDiff, "#  <ana.lima@mailhost.io>, ask her.", []string{"warning"}},
		{"a flags comment", po, finding.KindDiff, "#, <ana.lima@mailhost.io>, 2017.", []string{"warning"}},
		{"Report-Msgid-Bugs-To in a fixture", "tests/fixtures/xx.po", finding.KindDiff, "\"Report-Msgid-Bugs-To: <ana.lima@mailhost.io>\\n\"", []string{"warning"}},
		{"translator line in a fixture", "testdata/xx.po", finding.KindDiff, "#  <ana.lima@mailhost.io>, 2017.", []string{"warning"}},
		{"translator form in another file", "src/x.sh", finding.KindDiff, "#  <ana.lima@mailhost.io>, 2017.", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 10, cases)
}
