package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound25Rules: the shapes held-out round 25 showed, and near misses
// that keep their warning. Synthetic names and hosts only; each fragment
// is the added lines alone, numbered from line 1 of the file.
func TestRound25Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// A people dunder's list of "Name <address>" strings.
		{"__contributors__ list", "demo/graph.py", finding.KindDiff, "__contributors__ = [\n    \"Ada Example <ada.example@mailhost.io>\",\n    \"Bo Sample <https://bo.example.org/>\",\n    \"Cy Demo <cy.demo@mailhost.io>\",\n]", []string{"note", "note"}},
		{"__credits__ tuple", "demo/__init__.py", finding.KindDiff, "__credits__ = (\n    'Ada Example <ada.example@mailhost.io>',\n    'Bo Sample <bo.sample@mailhost.io>'\n)", []string{"note", "note"}},
		{"a name alone and a missing comma between", "demo/graph.py", finding.KindDiff, "__contributors__ = [\n    \"Ada Example <https://ada.example.org/>\"\n    \"Bo Sample\",\n    \"Cy Demo <cy.demo@mailhost.io>\",\n]", []string{"note"}},
		{"__maintainers__ on one line", "demo/__init__.py", finding.KindDiff, "__maintainers__ = [\"Ada Example <ada.example@mailhost.io>\"]", []string{"note"}},
		// Recall: after the list closes, a gap in the hunk, another
		// variable, an item with words after it, a fixture, not Python.
		{"after the list closes", "demo/graph.py", finding.KindDiff, "__contributors__ = [\n    \"Ada Example <ada.example@mailhost.io>\",\n]\n    \"Bo Sample <bo.sample@mailhost.io>\",", []string{"note", "warning"}},
		{"gap in the hunk", "demo/graph.py", finding.KindDiff, "__contributors__ = [\n\n    \"Bo Sample <bo.sample@mailhost.io>\",", []string{"warning"}},
		{"another variable", "demo/graph.py", finding.KindDiff, "USERS = [\n    \"Ada Example <ada.example@mailhost.io>\",\n]", []string{"warning"}},
		{"item with more text", "demo/graph.py", finding.KindDiff, "__contributors__ = [\n    \"Ada Example <ada.example@mailhost.io>\", send(\"x\"),\n]", []string{"warning"}},
		{"item without a name", "demo/graph.py", finding.KindDiff, "__contributors__ = [\n    \"<ada.example@mailhost.io>\",\n]", []string{"warning"}},
		{"contributors list in a fixture", "tests/fixtures/graph.py", finding.KindDiff, "__contributors__ = [\n    \"Ada Example <ada.example@mailhost.io>\",\n]", []string{"warning"}},
		{"contributors list in a ruby file", "lib/graph.rb", finding.KindDiff, "__contributors__ = [\n    \"Ada Example <ada.example@mailhost.io>\",\n]", []string{"warning"}},
		// A Javadoc or KDoc @author tag whose address wraps onto the next
		// comment line.
		{"kdoc author, address wrapped", "src/main/kotlin/demo/Reader.kt", finding.KindDiff, "/**\n * @author Ada Example\n *\t\t  ada.example@mailhost.io\n **/", []string{"note"}},
		{"javadoc author, address in brackets", "src/main/java/demo/Reader.java", finding.KindDiff, "/**\n *  @author Ada Example\n *          <ada.example@mailhost.io>\n */", []string{"note"}},
		{"line comment author", "src/demo/reader.go", finding.KindDiff, "// @author Ada Example\n// ada.example@mailhost.io", []string{"note"}},
		// Recall: the lines not adjacent, words beside the address, a
		// tag other than @author, an @author with no name, a fixture.
		{"author tag not adjacent", "src/main/kotlin/demo/Reader.kt", finding.KindDiff, " * @author Ada Example\n *\n * ada.example@mailhost.io", []string{"warning"}},
		{"words beside the address", "src/main/kotlin/demo/Reader.kt", finding.KindDiff, " * @author Ada Example\n * write to ada.example@mailhost.io", []string{"warning"}},
		{"another tag", "src/main/kotlin/demo/Reader.kt", finding.KindDiff, " * @param user Ada Example\n * ada.example@mailhost.io", []string{"warning"}},
		{"author tag with no name", "src/main/kotlin/demo/Reader.kt", finding.KindDiff, " * @author\n * ada.example@mailhost.io", []string{"warning"}},
		{"author wrapped in a fixture", "src/test/fixtures/Reader.kt", finding.KindDiff, " * @author Ada Example\n * ada.example@mailhost.io", []string{"warning"}},
		// "by Name <address>" after a title line: a docstring's summary,
		// or a title after "Based on:".
		{"based on, title, by", "demo/graph.py", finding.KindDiff, "\"\"\"\ngraph.py - a demo generator\n\nBased on:\n  Demo Graph Tool\n  by Ada Example <ada.example@mailhost.io>\n\"\"\"", []string{"note"}},
		{"based on in comments", "demo/graph.go", finding.KindDiff, "// Based on:\n//   Demo Graph Tool\n//   by Ada Example (ada.example@mailhost.io).", []string{"note"}},
		{"docstring summary, by", "demo/graph.py", finding.KindDiff, "#!/usr/bin/env python\n\"\"\"Demo model to graph converter\nby Ada Example <ada.example@mailhost.io>", []string{"note"}},
		// Recall: a gap between the lines, two title lines, another
		// word than "Based on:", words after the address, a bare address,
		// a fixture.
		{"based on with a gap", "demo/graph.py", finding.KindDiff, "Based on:\n  Demo Graph Tool\n\n  by Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"based on, two title lines", "demo/graph.py", finding.KindDiff, "Based on:\n  Demo Graph Tool\n  second line\n  by Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"another label", "demo/graph.py", finding.KindDiff, "Send to:\n  Demo Graph Tool\n  by Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		{"words after the address", "demo/graph.py", finding.KindDiff, "\"\"\"Demo converter\nby Ada Example <ada.example@mailhost.io> on request", []string{"warning"}},
		{"bare address after by", "demo/graph.py", finding.KindDiff, "\"\"\"Demo converter\nby ada.example@mailhost.io", []string{"warning"}},
		{"based on in a fixture", "tests/fixtures/graph.py", finding.KindDiff, "Based on:\n  Demo Graph Tool\n  by Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		// A Composer manifest variant's authors array.
		{"composer variant authors", "composer-php52.json", finding.KindDiff, "{\n  \"authors\": [\n    {\n      \"name\": \"Ada Example\",\n      \"email\": \"ada.example@mailhost.io\"\n    }\n  ],", []string{"note"}},
		// Recall: an email key after the array closes, no authors
		// opener, another JSON file, a fixture.
		{"composer variant after authors", "composer-php52.json", finding.KindDiff, "  \"authors\": [\n    {\"name\": \"Ada\"}\n  ],\n  \"support\": {\n    \"email\": \"ada.example@mailhost.io\"", []string{"warning"}},
		{"composer variant without opener", "composer-php52.json", finding.KindDiff, "      \"email\": \"ada.example@mailhost.io\"", []string{"warning"}},
		{"another json file", "config-php52.json", finding.KindDiff, "  \"authors\": [\n    {\n      \"email\": \"ada.example@mailhost.io\"", []string{"warning"}},
		{"composer variant in a fixture", "tests/fixtures/composer-php52.json", finding.KindDiff, "  \"authors\": [\n    {\n      \"email\": \"ada.example@mailhost.io\"", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}
