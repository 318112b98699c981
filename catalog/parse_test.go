package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// specExample is the example catalog of docs/catalog.md.
const specExample = "# Team privacy catalog\n" +
	"\n" +
	"Prose outside rule sections is ignored.\n" +
	"\n" +
	"## PER-001\n" +
	"- category: person\n" +
	"- severity: error\n" +
	"- description: Customer contact names\n" +
	"\n" +
	"```values\n" +
	"Jane Doe\n" +
	"Jürgen Müller\n" +
	"```\n" +
	"\n" +
	"## EMP-ID\n" +
	"- category: employee-id\n" +
	"- match: regex\n" +
	"\n" +
	"```values\n" +
	"EMP-\\d{6}\n" +
	"```\n"

func mustParse(t *testing.T, src string) *Catalog {
	t.Helper()
	c, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse: unexpected error: %v", err)
	}
	return c
}

func plain(vs []Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.reveal()
	}
	return out
}

// fencedValues returns the trimmed, non-blank lines inside every mdFence whose
// info string starts with "values" — an independent, deliberately loose
// reading of the input used to check that errors never quote values.
func fencedValues(src string) []string {
	var out []string
	var ch byte
	n := 0
	inValues := false
	for _, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		t := strings.TrimLeft(line, " ")
		if n > 0 {
			if len(line)-len(t) <= 3 && strings.TrimRight(strings.TrimLeft(t, string(ch)), " \t") == "" && len(t)-len(strings.TrimLeft(t, string(ch))) >= n {
				n = 0
				continue
			}
			if inValues {
				if v := strings.TrimSpace(line); v != "" {
					out = append(out, v)
				}
			}
			continue
		}
		if len(line)-len(t) <= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			ch = t[0]
			rest := strings.TrimLeft(t, string(ch))
			n = len(t) - len(rest)
			inValues = strings.HasPrefix(strings.TrimSpace(rest), "values")
		}
	}
	return out
}

// assertNoLeak fails if msg contains any of secrets or any value of src.
func assertNoLeak(t *testing.T, msg, src string, secrets ...string) {
	t.Helper()
	for _, s := range append(fencedValues(src), secrets...) {
		if s != "" && strings.Contains(msg, s) {
			t.Errorf("message leaks %q: %s", s, msg)
		}
	}
}

func TestParseSpecExample(t *testing.T) {
	c := mustParse(t, specExample)
	if len(c.Rules) != 2 {
		t.Fatalf("got %d rules, want 2", len(c.Rules))
	}
	r := c.Rules[0]
	if r.ID != "PER-001" || r.Category != "person" || r.Severity != SeverityError ||
		r.Description != "Customer contact names" || r.Match != MatchLiteral ||
		r.CaseSensitive || r.NoBoundary || r.Line != 5 {
		t.Errorf("rule 0 = %+v", r)
	}
	if got := plain(r.Values); strings.Join(got, "|") != "Jane Doe|Jürgen Müller" {
		t.Errorf("rule 0 values = %q", got)
	}
	if fmt.Sprint(r.ValueLines) != "[11 12]" {
		t.Errorf("rule 0 value lines = %v", r.ValueLines)
	}
	r = c.Rules[1]
	if r.ID != "EMP-ID" || r.Category != "employee-id" || r.Match != MatchRegex || r.Severity != SeverityError || r.Line != 15 {
		t.Errorf("rule 1 = %+v", r)
	}
	if got := plain(r.Values); len(got) != 1 || got[0] != `EMP-\d{6}` {
		t.Errorf("rule 1 values = %q", got)
	}
	if c.FingerprintKey != nil {
		t.Errorf("FingerprintKey = %x, want nil", c.FingerprintKey)
	}
}

func TestParseDigest(t *testing.T) {
	a := mustParse(t, specExample)
	b := mustParse(t, specExample+"\nmore prose\n")
	if a.Digest == b.Digest {
		t.Error("digest does not depend on the catalog bytes")
	}
	if a.Digest != mustParse(t, specExample).Digest {
		t.Error("digest is not deterministic")
	}
	if a.Digest != sha256.Sum256([]byte(specExample)) {
		t.Error("digest is not the SHA-256 of the catalog")
	}
	// With a fingerprint-key the digest is not needed, and not computed.
	const key = "- fingerprint-key: 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"
	if d := mustParse(t, key+specExample).Digest; d != [32]byte{} {
		t.Errorf("digest %x computed for a catalog with a fingerprint-key", d[:4])
	}
	big := key + rule("- category: person\n```values\n"+strings.Repeat("Jane Doe\n", parallelDigestBytesForTest/8)+"```\n")
	if d := mustParse(t, big).Digest; d != [32]byte{} {
		t.Errorf("digest %x computed for a large catalog with a fingerprint-key", d[:4])
	}
	if d := mustParse(t, big[len(key):]).Digest; d != sha256.Sum256([]byte(big[len(key):])) {
		t.Error("large catalog: digest is not the SHA-256 of the catalog")
	}
}

// parallelDigestBytesForTest is above Parse's threshold for hashing in a
// second goroutine.
const parallelDigestBytesForTest = 2 << 20

func rule(body string) string {
	return "## R1\n" + body
}

func TestParseSettings(t *testing.T) {
	const vals = "```values\nAcme Corp\n```\n"
	tests := []struct {
		name string
		body string
		want func(Rule) bool
	}{
		{"defaults", "- category: org\n" + vals, func(r Rule) bool {
			return r.Severity == SeverityError && r.Match == MatchLiteral && !r.CaseSensitive && !r.NoBoundary && r.Description == ""
		}},
		{"severity warning", "- category: org\n- severity: warning\n" + vals, func(r Rule) bool { return r.Severity == SeverityWarning }},
		{"severity note", "- category: org\n- severity: note\n" + vals, func(r Rule) bool { return r.Severity == SeverityNote }},
		{"severity error", "- category: org\n- severity: error\n" + vals, func(r Rule) bool { return r.Severity == SeverityError }},
		{"match identifier", "- category: org\n- match: identifier\n" + vals, func(r Rule) bool { return r.Match == MatchIdentifier }},
		{"match literal", "- category: org\n- match: literal\n" + vals, func(r Rule) bool { return r.Match == MatchLiteral }},
		{"match regex", "- category: org\n- match: regex\n" + vals, func(r Rule) bool { return r.Match == MatchRegex }},
		{"case sensitive", "- category: org\n- case: sensitive\n" + vals, func(r Rule) bool { return r.CaseSensitive }},
		{"case insensitive", "- category: org\n- case: insensitive\n" + vals, func(r Rule) bool { return !r.CaseSensitive }},
		{"boundary none", "- category: org\n- boundary: none\n" + vals, func(r Rule) bool { return r.NoBoundary }},
		{"boundary word", "- category: org\n- boundary: word\n" + vals, func(r Rule) bool { return !r.NoBoundary }},
		{"description kept as is", "- category: org\n- description: Names of *key* accounts: see wiki\n" + vals,
			func(r Rule) bool { return r.Description == "Names of *key* accounts: see wiki" }},
		{"star and plus bullets, tabs", "*\tcategory:\torg\n+ severity:note\n" + vals,
			func(r Rule) bool { return r.Category == "org" && r.Severity == SeverityNote }},
		{"indented bullets", "   - category: org\n" + vals, func(r Rule) bool { return r.Category == "org" }},
		{"settings after values", vals + "- category: org\n- match: regex\n", func(r Rule) bool { return r.Match == MatchRegex }},
		{"category with digits and dash", "- category: org-2\n" + vals, func(r Rule) bool { return r.Category == "org-2" }},
		{"thematic break ignored", "- category: org\n- - -\n***\n" + vals, func(r Rule) bool { return r.Category == "org" }},
		{"level-3 heading and prose inside rule", "- category: org\n### Notes\nSome prose: not a setting.\n" + vals,
			func(r Rule) bool { return r.Category == "org" && len(r.Values) == 1 }},
		{"description may contain a value inside a word", "- category: org\n- description: Annual reports\n```values\nAnn\n```\n",
			func(r Rule) bool { return r.Description == "Annual reports" }},
		{"description case differs in a case-sensitive rule", "- category: org\n- case: sensitive\n- description: about ACME CORP\n" + vals,
			func(r Rule) bool { return r.CaseSensitive }},
		{"indented list item is prose", "- category: org\n    - not: a setting\n" + vals, func(r Rule) bool { return r.Category == "org" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, rule(tt.body))
			if len(c.Rules) != 1 || !tt.want(c.Rules[0]) {
				t.Errorf("unexpected rules: %+v", c.Rules)
			}
		})
	}
}

func TestParseHeadings(t *testing.T) {
	const body = "\n- category: org\n```values\nAcme Corp\n```\n"
	tests := []struct {
		heading string
		id      string
	}{
		{"## R1", "R1"},
		{"##   R1   ", "R1"},
		{"## R1 ##", "R1"},
		{"## R1 #####   ", "R1"},
		{"   ## R1", "R1"},
		{"##\tR1", "R1"},
		{"## a.b_c-D9", "a.b_c-D9"},
		{"## " + "A" + strings.Repeat("b", 63), "A" + strings.Repeat("b", 63)},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.heading+body)
		if len(c.Rules) != 1 || c.Rules[0].ID != tt.id {
			t.Errorf("%q: rules %+v, want ID %q", tt.heading, c.Rules, tt.id)
		}
	}
}

func TestParseFences(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"backticks", "```values\nAcme Corp\n```\n", []string{"Acme Corp"}},
		{"four backticks with inner three", "````values\nAcme Corp\n```\nInitech\n````\n", []string{"Acme Corp", "```", "Initech"}},
		{"tildes", "~~~values\nAcme Corp\n~~~\n", []string{"Acme Corp"}},
		{"four tildes with inner backticks", "~~~~values\nAcme Corp\n```\n~~~\n~~~~\n", []string{"Acme Corp", "```", "~~~"}},
		{"longer closing mdFence", "```values\nAcme Corp\n`````\n", []string{"Acme Corp"}},
		{"closing mdFence with trailing spaces", "```values\nAcme Corp\n```   \n", []string{"Acme Corp"}},
		{"indented fences", "   ```values\n   Acme Corp\n  ```\n", []string{"Acme Corp"}},
		{"info string with space", "``` values extra\nAcme Corp\n```\n", []string{"Acme Corp"}},
		{"tilde mdFence info may hold backticks", "~~~values `x`\nAcme Corp\n~~~\n", []string{"Acme Corp"}},
		{"other block ignored", "```text\n## FAKE\n- category: nope\n```\n```values\nAcme Corp\n```\n", []string{"Acme Corp"}},
		{"headings inside values are values", "```values\n## NOT-A-RULE\n# Nor this\n- category: x\n```\n",
			[]string{"## NOT-A-RULE", "# Nor this", "- category: x"}},
		{"blank lines and whitespace trimmed", "```values\n\n  Acme   Corp \t\n\u00a0Initech\u3000\n\n```\n", []string{"Acme   Corp", "Initech"}},
		{"mdFence with wrong char does not close", "```values\nAcme Corp\n~~~\n```\n", []string{"Acme Corp", "~~~"}},
		{"indented by four does not close", "```values\nAcme Corp\n    ```\n```\n", []string{"Acme Corp", "```"}},
		{"closing mdFence with text does not close", "```values\nAcme Corp\n``` x\n```\n", []string{"Acme Corp", "``` x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, "## R1\n- category: org\n"+tt.src)
			got := plain(c.Rules[0].Values)
			if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
				t.Errorf("values = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseProseAndFakeHeadings(t *testing.T) {
	src := "# Title\n\n" +
		"```markdown\n## FAKE-1\n- category: x\n```values\nnope\n```\n" + // a ```values line inside a ``` mdFence closes it? No: it has an info string.
		"~~~~\n## FAKE-2\n~~~\n## FAKE-3\n~~~~\n" +
		"    ## INDENTED-CODE\n" +
		"Some text ## NOT-HEADING\n" +
		"#NoSpace is not a heading\n" +
		"####### seven hashes is not a heading\n" +
		"- some prose bullet without a colon\n" +
		"## REAL\n- category: org\n```values\nAcme Corp\n```\n" +
		"# Appendix\n- Owner: the prose after a level-1 heading is ignored\n" +
		"```values\nignored too\n```\n" +
		"### Sub\n"
	c := mustParse(t, src)
	if len(c.Rules) != 1 || c.Rules[0].ID != "REAL" {
		t.Fatalf("rules = %+v", c.Rules)
	}
	if got := plain(c.Rules[0].Values); len(got) != 1 || got[0] != "Acme Corp" {
		t.Errorf("values = %q", got)
	}
}

func TestParseLineEndingsBOMTabs(t *testing.T) {
	crlf := strings.ReplaceAll(specExample, "\n", "\r\n")
	for name, src := range map[string]string{
		"crlf":        crlf,
		"bom":         "\uFEFF" + specExample,
		"bom+crlf":    "\uFEFF" + crlf,
		"no final nl": strings.TrimSuffix(specExample, "\n"),
	} {
		t.Run(name, func(t *testing.T) {
			c := mustParse(t, src)
			if len(c.Rules) != 2 || c.Rules[0].ID != "PER-001" || c.Rules[0].Line != 5 {
				t.Fatalf("rules = %+v", c.Rules)
			}
			if got := plain(c.Rules[0].Values); strings.Join(got, "|") != "Jane Doe|Jürgen Müller" {
				t.Errorf("values = %q", got)
			}
			if fmt.Sprint(c.Rules[1].ValueLines) != "[20]" {
				t.Errorf("value lines = %v", c.Rules[1].ValueLines)
			}
		})
	}
	c := mustParse(t, "##\tT1\t\n-\tcategory:\torg\t\n```values\n\tAcme\tCorp\t\n```\n")
	if c.Rules[0].ID != "T1" || c.Rules[0].Values[0].reveal() != "Acme\tCorp" {
		t.Errorf("tabs: %+v %q", c.Rules[0], plain(c.Rules[0].Values))
	}
}

func TestParseFingerprintKey(t *testing.T) {
	key := strings.Repeat("0123456789abcDEF", 4)
	c := mustParse(t, "# Catalog\n- fingerprint-key: "+key+"\n- prose item without colon\n\n"+rule("- category: org\n```values\nAcme Corp\n```\n"))
	if fmt.Sprintf("%x", c.FingerprintKey) != strings.ToLower(key) {
		t.Errorf("FingerprintKey = %x", c.FingerprintKey)
	}
}

func TestParseErrors(t *testing.T) {
	const vals = "```values\nAcme Corp\n```\n"
	const ok = "- category: org\n" + vals
	key := strings.Repeat("5ec7e7", 11)[:64]
	tests := []struct {
		name    string
		src     string
		line    int
		reason  string   // substring of the message
		secrets []string // strings that must not appear in the message
	}{
		{"NUL byte", "## R1\n- category: org\n```values\nAc\x00me Corp\n```\n", 4, "NUL byte", []string{"Ac"}},
		{"no rules", "# Just prose\n", 0, "no rules", nil},
		{"invalid rule ID", "## Jane Doe\n" + ok, 1, "not a valid rule ID", []string{"Jane", "Doe"}},
		{"rule ID too long", "## A" + strings.Repeat("b", 64) + "\n" + ok, 1, "not a valid rule ID", []string{"Abbb"}},
		{"empty heading", "##\n" + ok, 1, "not a valid rule ID", nil},
		{"closing hashes need a space", "## R1#\n" + ok, 1, "not a valid rule ID", nil},
		{"duplicate rule ID", rule(ok) + "\n## R1\n" + ok, 7, `duplicate rule ID "R1" (first defined on line 1)`, nil},
		{"missing category", rule(vals), 1, "rule R1: missing required setting category", nil},
		{"bad category", rule("- category: Zorblax-Cat\n" + vals), 2, "rule R1: category must be", []string{"Zorblax"}},
		{"category too long", rule("- category: " + strings.Repeat("z", 33) + "\n" + vals), 2, "category must be", []string{"zzzz"}},
		{"bad severity", rule(ok + "- severity: Zorblax\n"), 6, "severity must be error, warning or note", []string{"Zorblax"}},
		{"bad match", rule(ok + "- match: Zorblax\n"), 6, "match must be literal, identifier or regex", []string{"Zorblax"}},
		{"bad case", rule(ok + "- case: Zorblax\n"), 6, "case must be insensitive or sensitive", []string{"Zorblax"}},
		{"bad boundary", rule(ok + "- boundary: Zorblax\n"), 6, "boundary must be word or none", []string{"Zorblax"}},
		{"empty enum", rule(ok + "- boundary:\n"), 6, "boundary must be word or none", nil},
		{"unknown setting near miss is named", rule(ok + "- catgory: org\n"), 6, `unknown setting "catgory" (did you mean category?)`, nil},
		{"unknown setting other case is named", rule(ok + "- Severity: note\n"), 6, `unknown setting "Severity" (did you mean severity?)`, nil},
		{"unknown setting is not quoted", rule(ok + "- Zorblax: Quux\n"), 6, "rule R1: unknown setting (known: category, severity, match, case, boundary, description)", []string{"Zorblax", "Quux"}},
		{"unknown setting with spaces", rule(ok + "- Jane Doe: CEO\n"), 6, "unknown setting (known:", []string{"Jane", "CEO"}},
		{"list item without colon", rule(ok + "- Zorblax Quux\n"), 6, `list item is not a "key: value" setting`, []string{"Zorblax"}},
		{"duplicate setting", rule(ok + "- category: org\n"), 6, "duplicate setting category (first on line 2)", nil},
		{"duplicate setting with bad value", rule(ok + "- category: Zorblax\n"), 6, "duplicate setting category", []string{"Zorblax"}},
		{"description not UTF-8", rule(ok + "- description: Zorb\xffblax\n"), 6, "description is not valid UTF-8", []string{"Zorb"}},
		{"description control char", rule(ok + "- description: Zorb\x01blax\n"), 6, "description contains a control character", []string{"Zorb"}},
		{"description too long", rule(ok + "- description: " + strings.Repeat("Zorb ", 300) + "\n"), 6, "description is longer than 1024 bytes", []string{"Zorb"}},
		{"missing values", rule("- category: org\n"), 1, "rule R1: missing values block", nil},
		{"values with other info string", rule("- category: org\n```value\nZorblax\n```\n"), 1, "missing values block", nil},
		{"empty values", rule("- category: org\n\n```values\n\n  \n```\n"), 4, "rule R1: values block is empty", nil},
		{"second values block", rule(ok + "\n~~~values\nZorblax\n~~~\n"), 7, "second values block (the first is on line 3)", nil},
		{"unterminated values", rule("- category: org\n```values\nZorblax\n``\n## R2\n"), 3, "rule R1: values block is not closed", nil},
		{"unterminated values shorter close", rule("- category: org\n````values\nZorblax\n```\n"), 3, "values block is not closed", nil},
		{"unterminated other mdFence", rule(ok + "```text\nZorblax\n"), 6, "code mdFence is not closed", []string{"Zorblax"}},
		{"unterminated mdFence in prose", "# T\n~~~\n" + rule(ok), 2, "code mdFence is not closed", nil},
		{"short literal", rule("- category: org\n```values\nAcme Corp\nZb\n```\n"), 5, "rule R1: value is shorter than 3 characters", []string{"Zb"}},
		{"short identifier", rule("- category: org\n- match: identifier\n```values\nZ b\nÅø\n```\n"), 6, "value is shorter than 3 characters", []string{"Åø"}},
		{"long literal", rule("- category: org\n```values\n" + strings.Repeat("Zorblax ", 129) + "\n```\n"), 4, "value is longer than 1024 bytes", nil},
		{"long regex", rule("- category: org\n- match: regex\n```values\n" + strings.Repeat("Zorblax", 143) + "\n```\n"), 5, "regex value is longer than 1000 bytes", nil},
		{"invalid regex paren", rule("- category: org\n- match: regex\n```values\nZorb(lax\n```\n"), 5, "rule R1: invalid regex: missing closing )", nil},
		{"invalid regex bracket", rule("- category: org\n- match: regex\n```values\nZorb[lax\n```\n"), 5, "invalid regex: missing closing ]", nil},
		{"invalid regex perl", rule("- category: org\n- match: regex\n```values\nZorb(?!lax)\n```\n"), 5, "invalid regex: invalid or unsupported Perl syntax", nil},
		{"invalid regex repeat", rule("- category: org\n- match: regex\n```values\nZorblax{1001}\n```\n"), 5, "invalid regex: invalid repeat count", nil},
		{"invalid regex escape", rule("- category: org\n- match: regex\n```values\nZorb\\qlax\n```\n"), 5, "invalid regex: invalid escape sequence", nil},
		{"invalid regex too large", rule("- category: org\n- match: regex\n```values\n((((Zorblax{100}){100}){100}){100})\n```\n"), 5, "invalid regex", nil},
		{"match set after values", rule("```values\nZorb(lax\n```\n- category: org\n- match: regex\n"), 3, "invalid regex: missing closing )", nil},
		{"value not UTF-8", rule("- category: org\n```values\nZorb\xfflax\n```\n"), 4, "value is not valid UTF-8", []string{"Zorb", "lax"}},
		{"value control char", rule("- category: org\n```values\nZorb\x1blax\n```\n"), 4, "value contains a control character", nil},
		{"value C1 control", rule("- category: org\n```values\nZorb\u0085lax\n```\n"), 4, "value contains a control character", nil},
		{"value bare CR", rule("- category: org\n```values\nZorb\rlax\n```\n"), 4, "value contains a control character", nil},
		{"fingerprint-key short", "- fingerprint-key: " + key[:63] + "\n" + rule(ok), 1, "fingerprint-key must be 64 hexadecimal digits", []string{key[:20]}},
		{"fingerprint-key not hex", "- fingerprint-key: " + key[:63] + "g\n" + rule(ok), 1, "fingerprint-key must be 64 hexadecimal digits", []string{key[:20]}},
		{"fingerprint-key duplicate", "- fingerprint-key: " + key + "\n- fingerprint-key: " + key + "\n" + rule(ok), 2, "duplicate setting fingerprint-key (first on line 1)", []string{key[:20]}},
		{"unknown preamble setting", "- Zorblax: " + key + "\n" + rule(ok), 1, "unknown catalog setting before the first rule (the only one is fingerprint-key)", []string{"Zorblax", key[:20]}},
		{"preamble near miss", "- fingerprint_key: " + key + "\n" + rule(ok), 1, `unknown catalog setting "fingerprint_key" (did you mean fingerprint-key?)`, []string{key[:20]}},
		{"description leaks literal", rule("- category: org\n- description: all about ACME  corp deals\n" + vals), 3,
			"rule R1: description contains the value on line 5", []string{"ACME"}},
		{"description leaks identifier spelling", rule("- category: org\n- match: identifier\n- description: see AcmeCorp.\n" + vals), 4,
			"description contains the value on line 6", []string{"AcmeCorp"}},
		{"description leaks identifier with separators", rule("- category: org\n- match: identifier\n- description: the ACME_CORP-Accounts list\n" + vals), 4,
			"description contains the value on line 6", []string{"ACME"}},
		{"description leaks regex match", rule("- category: org\n- match: regex\n- description: like EMP-123456\n```values\nEMP-\\d{6}\n```\n"), 4,
			"description contains the value on line 6", []string{"EMP-123456"}},
		{"description leaks regex text", rule("- category: org\n- match: regex\n- description: EMP-\\d{6} ids\n```values\nEMP-\\d{6}\n```\n"), 4,
			"description contains the value", nil},
		{"description leaks NFC-equivalent", rule("- category: org\n- description: Mu\u0308ller family\n```values\nMüller\n```\n"), 3,
			"description contains the value on line 5", []string{"Mu\u0308ller"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.src))
			if err == nil {
				t.Fatalf("Parse succeeded (%d rules), want error", len(c.Rules))
			}
			if c != nil {
				t.Error("Parse returned a catalog with an error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			if pe.Line != tt.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, tt.line, err)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q does not contain %q", err, tt.reason)
			}
			assertNoLeak(t, err.Error(), tt.src, tt.secrets...)
		})
	}
}

func TestParseRegexEmpty(t *testing.T) {
	for _, re := range []string{`a*`, `^$`, `\b`, `(?m)^`, `x|`, `(?:Zorblax)?`, `\bZ*\b`, `$`, `()`, `(?i)`, `[a-z]{0,3}`, `\B`, `(a|b*)c?`} {
		src := rule("- category: org\n- match: regex\n```values\n" + re + "\n```\n")
		_, err := Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), "regex can match the empty string") {
			t.Errorf("%q: err = %v, want empty-match error", re, err)
			continue
		}
		if strings.Contains(err.Error(), re) {
			t.Errorf("%q: error quotes the pattern: %v", re, err)
		}
	}
	for _, re := range []string{`a`, `a+`, `\bfoo\b`, `^x$`, `(?m)^abc`, `a|bc`, `[a-z]{1,3}`, `x*y`, `\d{6}`, `.`} {
		mustParse(t, rule("- category: org\n- match: regex\n```values\n"+re+"\n```\n"))
	}
}

func TestParseMultipleErrors(t *testing.T) {
	src := "## R1\n- category: Zorblax\n```values\nAcme Corp\n```\n" + // line 2
		"## R2\n- category: org\n- severity: Zorblax\n```values\nAcme Corp\n```\n" + // line 8
		"## R3\n- category: org\n" // line 12 (missing values)
	_, err := Parse([]byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	var multi interface{ Unwrap() []error }
	if !errors.As(err, &multi) {
		t.Fatalf("error %T is not a joined error", err)
	}
	var lines []int
	for _, e := range multi.Unwrap() {
		var pe *ParseError
		if !errors.As(e, &pe) {
			t.Fatalf("%T is not a *ParseError", e)
		}
		lines = append(lines, pe.Line)
	}
	if fmt.Sprint(lines) != "[2 8 12]" {
		t.Errorf("lines = %v, want [2 8 12]", lines)
	}
	want := "catalog line 2: rule R1: category must be a lowercase letter, then up to 31 lowercase letters, digits or '-'\n" +
		"catalog line 8: rule R2: severity must be error, warning or note\n" +
		"catalog line 12: rule R3: missing values block (a fenced block with the info string \"values\")"
	if err.Error() != want {
		t.Errorf("error =\n%s\nwant\n%s", err, want)
	}
	assertNoLeak(t, err.Error(), src, "Zorblax")

	// More than MaxParseErrors problems: the first ones, then "too many errors".
	var b strings.Builder
	for i := range 15 {
		fmt.Fprintf(&b, "## R%d\n- category: org\n", i)
	}
	_, err = Parse([]byte(b.String()))
	if !errors.As(err, &multi) {
		t.Fatalf("error %T is not a joined error", err)
	}
	errs := multi.Unwrap()
	if len(errs) != MaxParseErrors+1 || errs[len(errs)-1].Error() != "catalog: too many errors" {
		t.Errorf("got %d errors, last %v", len(errs), errs[len(errs)-1])
	}
	var first *ParseError
	if errors.As(err, &first); first.Line != 1 {
		t.Errorf("first error line = %d, want 1", first.Line)
	}
}

func TestParseErrorFormat(t *testing.T) {
	if got := (&ParseError{Line: 7, Reason: "x"}).Error(); got != "catalog line 7: x" {
		t.Errorf("got %q", got)
	}
	if got := (&ParseError{Reason: "x"}).Error(); got != "catalog: x" {
		t.Errorf("got %q", got)
	}
}

// TestParseValuesShareBlock checks that a block's values are substrings of
// one copy, not one allocation each (and not the caller's buffer).
func TestParseValuesNotAliasingInput(t *testing.T) {
	src := []byte(rule("- category: org\n```values\nAcme Corp\nInitech\n```\n"))
	c, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	copy(src, bytes.Repeat([]byte{'x'}, len(src)))
	if got := plain(c.Rules[0].Values); strings.Join(got, "|") != "Acme Corp|Initech" {
		t.Errorf("values changed with the input buffer: %q", got)
	}
}

func TestParseLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large catalog")
	}
	src := largeCatalog(200_000)
	c, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range c.Rules {
		n += len(r.Values)
	}
	if n != 200_000 {
		t.Errorf("values = %d", n)
	}
}

// largeCatalog builds a catalog of n values spread over 100 rules.
func largeCatalog(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# Big\n- fingerprint-key: " + strings.Repeat("ab", 32) + "\n")
	per := n / 100
	for r := range 100 {
		fmt.Fprintf(&b, "\n## RULE-%d\n- category: cat-%d\n- description: generated rule\n\n```values\n", r, r%7)
		for i := range per {
			fmt.Fprintf(&b, "Person Name %07d-%d\n", i, r)
		}
		b.WriteString("```\n")
	}
	return b.Bytes()
}

func BenchmarkParse1M(b *testing.B) {
	src := largeCatalog(1_000_000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// Redaction: no formatting path of a Value, a Rule or a Catalog shows a value.

type holder struct {
	name string
	v    Value
}

func TestValueRedaction(t *testing.T) {
	const secret = "Zorblax Quux"
	v := NewValue(secret)
	c := mustParse(t, rule("- category: org\n- description: a rule\n```values\n"+secret+"\n```\n"))
	r := c.Rules[0]
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T", "%10.3s", "%-8v"} {
		outs = append(outs,
			fmt.Sprintf(verb, v), fmt.Sprintf(verb, &v), fmt.Sprintf(verb, r), fmt.Sprintf(verb, &r),
			fmt.Sprintf(verb, c), fmt.Sprintf(verb, *c), fmt.Sprintf(verb, holder{"h", v}),
			fmt.Sprintf(verb, []Value{v}), fmt.Sprintf(verb, map[string]Value{"k": v}))
	}
	outs = append(outs, fmt.Sprintln(v, r, c), fmt.Sprint(v), v.String(), v.GoString())
	for _, x := range []any{v, r, c, holder{"h", v}, []Value{v}} {
		j, err := json.Marshal(x)
		if err != nil {
			t.Fatalf("json.Marshal(%T): %v", x, err)
		}
		outs = append(outs, string(j))
	}
	if text, err := v.MarshalText(); err != nil || string(text) != Redacted {
		t.Errorf("MarshalText = %q, %v", text, err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	log.Info("msg", "value", v, "rule", r, "catalog", c, "values", r.Values, "holder", holder{"h", v})
	var tlogs bytes.Buffer
	slog.New(slog.NewTextHandler(&tlogs, nil)).Info("msg", "value", v, "rule", r)
	outs = append(outs, logs.String(), tlogs.String())
	for _, o := range outs {
		for _, needle := range []string{secret, "Zorblax", "5a6f72626c6178" /* hex */, "5A6F72626C6178"} {
			if strings.Contains(o, needle) {
				t.Errorf("output leaks %q: %s", needle, o)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(v), Redacted) || !strings.Contains(logs.String(), Redacted) {
		t.Errorf("redaction marker missing: %v / %s", v, logs.String())
	}
	if v.reveal() != secret || v.Len() != len(secret) {
		t.Error("reveal/Len broken")
	}
}

// TestBlockFacts checks the fast path of the value checks: every value of
// a block that blockFacts calls clean is valid UTF-8 without control
// characters (printable ASCII when it calls it ASCII), so that only its
// length needs checking. Blocks are random lines over an alphabet rich in
// white space, line breaks and control characters.
func TestBlockFacts(t *testing.T) {
	alphabet := []string{"a", "Z", " ", "\t", "\n", "\n", "\r", "\r\n", "\x00", "\x1b", "\x7f", "\v",
		"é", "\u0085", "\u00a0", "\u2003", "\u009f", "\xff", "\xc2", "\xe2\x80"}
	r := rand.New(rand.NewPCG(7, 8))
	clean, ascii := 0, 0
	for range 50000 {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		// The block as closeFence cuts it: from the first value's start to
		// the last value's end, values being trimmed lines.
		src := b.String()
		first, last := -1, -1
		var values []string
		off := 0
		for _, line := range strings.SplitAfter(src, "\n") {
			l := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			i, j := trimSpaceIdx([]byte(l))
			if i < j {
				if first < 0 {
					first = off + i
				}
				last = off + j
				values = append(values, l[i:j])
			}
			off += len(line)
		}
		if first < 0 {
			continue
		}
		c, a := blockFacts(src[first:last])
		if a && !c {
			t.Fatalf("blockFacts(%q): ASCII but not clean", src[first:last])
		}
		if !c {
			continue
		}
		clean++
		if a {
			ascii++
		}
		for _, v := range values {
			if !utf8.ValidString(v) || hasControlChar([]byte(v)) || (a && !asciiPrintable(v)) {
				t.Fatalf("blockFacts(%q) = %v, %v, but value %q is not", src[first:last], c, a, v)
			}
		}
	}
	if clean < 1000 || ascii < 100 {
		t.Errorf("only %d clean, %d ASCII blocks: the test does not exercise the fast path", clean, ascii)
	}
}
