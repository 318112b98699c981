package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound18Rules: the credits held-out round 18 showed in forms the
// rules did not read, and the same addresses where they stay warnings.
// Synthetic names and hosts only; each fragment is the added lines
// alone, numbered from line 1 of the file.
func TestRound18Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	pad := "x = 1\n" // a line of code, so that the header rules do not apply
	pad30 := ""
	for i := 0; i < 30; i++ {
		pad30 += pad
	}
	cases := []severityCase{
		// The wrapped credit in a comment block, past the header.
		{"block comment body, Author: Name", "dist/tool.js", finding.KindDiff, pad30 + "/*\n        Author: Ana Lima\n      <ana.lima@mailhost.io>\n*/", []string{"note"}},
		{"starred comment, by Name", "src/x.c", finding.KindDiff, pad30 + " * originally written by Bo Example\n * <bo.example@mailhost.io>", []string{"note"}},
		{"XML comments, by Name", "config/style.xsl", finding.KindDiff, pad30 + "\t<!-- (based on a.xsl by Ana Lima       -->\n\t<!--  <ana.lima@mailhost.io> and a patch by Bo)   -->", []string{"note"}},
		{"hash comments, Maintainer: Name", "scripts/run.sh", finding.KindDiff, pad30 + "# Maintainer: Ana Lima\n# <ana.lima@mailhost.io>", []string{"note"}},
		{"Name <address> after the label", "dist/tool.js", finding.KindDiff, pad30 + "// Author:\n// Ana Lima <ana.lima@mailhost.io>", []string{"note"}},
		{"based on x by Name", "dist/tool.js", finding.KindDiff, pad30 + "// based on a.js by Ana Lima\n// <ana.lima@mailhost.io>", []string{"note"}},
		// Recall: an address alone with no credit and name before it.
		{"address alone after prose", "dist/tool.js", finding.KindDiff, pad30 + "/*\n  send the report to\n  <ana.lima@mailhost.io>\n*/", []string{"warning"}},
		{"address alone after the label alone", "dist/tool.js", finding.KindDiff, pad30 + "// Author:\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"a name after another label", "dist/tool.js", finding.KindDiff, pad30 + "// Contact: Ana Lima\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"address alone, first line", "dist/tool.js", finding.KindDiff, "// <ana.lima@mailhost.io>", []string{"warning"}},
		{"not the next line of the file", "dist/tool.js", finding.KindDiff, pad30 + "// Author: Ana Lima\n" + pad + "// <ana.lima@mailhost.io>", []string{"warning"}},
		{"code before the address", "dist/tool.js", finding.KindDiff, pad30 + "// Author: Ana Lima\nsend(<ana.lima@mailhost.io>)", []string{"warning"}},
		{"in a fixture", "test/data/tool.js", finding.KindDiff, pad30 + "// Author: Ana Lima\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"a noun before by", "dist/tool.js", finding.KindDiff, pad30 + "// the queue of Ana Lima\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"a participle of data before by", "dist/tool.js", finding.KindDiff, pad30 + "// owned by Ana Lima\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"address without brackets", "dist/tool.js", finding.KindDiff, pad30 + "// Author: Ana Lima\n// ana.lima@mailhost.io", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}
