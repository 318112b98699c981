package catalog_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/synth"
	"github.com/privscan/privscan/internal/textpos"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

type rspec struct {
	id     string
	match  catalog.MatchKind
	cs, nb bool
	values []string
}

func buildCatalog(specs ...rspec) *catalog.Catalog {
	c := &catalog.Catalog{}
	for i, s := range specs {
		r := catalog.Rule{ID: s.id, Category: "test", Severity: catalog.SeverityError,
			Match: s.match, CaseSensitive: s.cs, NoBoundary: s.nb, Line: i + 1}
		for _, v := range s.values {
			r.Values = append(r.Values, catalog.NewValue(v))
		}
		c.Rules = append(c.Rules, r)
	}
	return c
}

func compile(t testing.TB, specs ...rspec) *catalog.Matcher {
	t.Helper()
	m, err := catalog.Compile(buildCatalog(specs...), &catalog.CompileOptions{HashKey: testKey})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return m
}

// stdRules is the catalog most table cases run against.
var stdRules = []rspec{
	{id: "PER", values: []string{"Jane Doe", "Jürgen Müller", "Zoë Ødegaard"}},
	{id: "EMAIL", values: []string{"jane.doe@corp.example"}},
	{id: "HOST", values: []string{"db-01.internal.corp"}},
	{id: "CODE", match: catalog.MatchIdentifier, values: []string{"Acme Corp", "Zephyr"}},
	{id: "ACCT", cs: true, values: []string{"ACCT-0042"}},
	{id: "NAME", values: []string{"O'Brien"}},
	{id: "SUFFIX", values: []string{".internal.example"}},
	{id: "SUB", nb: true, values: []string{"secretproj", "Nimbus  Core"}},
	{id: "EMP", match: catalog.MatchRegex, values: []string{`EMP-\d{6}`}},
	{id: "TKT", match: catalog.MatchRegex, cs: true, values: []string{`TKT-[0-9]{4}`}},
	{id: "CPP", values: []string{"C++"}},
	{id: "DESK", match: catalog.MatchRegex, values: []string{`desk-\d{3}`}},
	{id: "XR", match: catalog.MatchIdentifier, values: []string{"X Ray", "Jürgen Vogel"}},
}

type wantMatch struct {
	rule       string
	start, end int
}

// parseMarked turns "a «PER|Jane Doe» b" into the plain line and the
// expected matches (rule ID and byte offsets) it marks.
func parseMarked(t *testing.T, s string) ([]byte, []wantMatch) {
	t.Helper()
	var line []byte
	var want []wantMatch
	for {
		i := strings.Index(s, "«")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "»")
		bar := strings.Index(s[i:], "|")
		if j < 0 || bar < 0 || bar > j {
			t.Fatalf("bad marker in %q", s)
		}
		line = append(line, s[:i]...)
		rule := s[i+len("«") : i+bar]
		text := s[i+bar+1 : i+j]
		want = append(want, wantMatch{rule, len(line), len(line) + len(text)})
		line = append(line, text...)
		s = s[i+j+len("»"):]
	}
	return append(line, s...), want
}

func gotMatches(m *catalog.Matcher, line []byte) []wantMatch {
	rules := m.Rules()
	var got []wantMatch
	for _, x := range m.Find(line, nil) {
		got = append(got, wantMatch{rules[x.Rule].ID, x.Start, x.End})
	}
	return got
}

// findContexts are lines with marked matches of stdRules (parseMarked).
var findContexts = []struct{ name, line string }{
	{"go string", "\tname := \"«PER|Jane Doe»\""},
	{"go raw string", "\tq := `SELECT * FROM users WHERE name='«PER|Jane Doe»'`"},
	{"python string", "    owner = '«PER|Jane Doe»'  # fixme"},
	{"json", `{"user":"«EMAIL|jane.doe@corp.example»","id":7}`},
	{"json escaped", `{"msg":"hi \"«PER|Jane Doe»\"\n"}`},
	{"yaml", "  maintainer: «PER|Jürgen Müller»"},
	{"comment folded", "// TODO(«PER|jane doe»): remove"},
	{"comment upper non-ascii", "# owner: «PER|JÜRGEN MÜLLER»"},
	{"url path and query", "https://git.example/«CODE|acme-corp»/api?owner=«EMAIL|jane.doe@corp.example»&x=1"},
	{"url host", "dsn: postgres://app@«HOST|db-01.internal.corp»:5432/main"},
	{"email local part", "mailto:«EMAIL|jane.doe@corp.example»?subject=hi"},
	{"email domain is a host", "root@«HOST|db-01.internal.corp»"},
	{"csv", "42,«PER|Jane Doe»,«EMAIL|jane.doe@corp.example»,active"},
	{"markdown", "| **«PER|Jane Doe»** | [db](https://«HOST|db-01.internal.corp») |"},
	{"camelCase inside identifier", "client := New«CODE|AcmeCorp»Client()"},
	{"lower camel", "var «CODE|acmeCorp»ID int"},
	{"snake", "«CODE|acme_corp»_id = 1"},
	{"screaming snake", "const «CODE|ACME_CORP» = true"},
	{"kebab", "--«CODE|acme-corp»-token"},
	{"dotted", "import «CODE|acme.corp».client"},
	{"glued lower", "«CODE|acmecorp» := 1"},
	{"glued upper", "«CODE|ACMECORP»_TOKEN"},
	{"identifier literal spelling", "by «CODE|Acme Corp» Ltd"},
	{"single-word identifier in camel", "«CODE|zephyr»Client.Do(«CODE|ZEPHYR»)"},
	{"HTTP hump", "x := «CODE|ACMECorp»Server{}"},
	{"crlf", "name: «PER|Jane Doe»\r"},
	{"emoji before", "🎉«PER|Jane Doe» joined"},
	{"cjk with space", "名前: «PER|Jane Doe»"},
	{"whitespace run", "«PER|Jane\t  Doe»"},
	{"nfd text", "x «PER|Ju\u0308rgen Mu\u0308ller» y"},
	{"nfd upper", "«PER|JU\u0308RGEN MU\u0308LLER»"},
	{"nfc value with other letters", "«PER|Zoë Ødegaard», «PER|ZOË ØDEGAARD»"},
	{"apostrophe", "said «NAME|O'Brien», and «NAME|o'brien»."},
	{"leading punctuation", "see («SUFFIX|.internal.example»)"},
	{"case-sensitive", "«ACCT|ACCT-0042» acct-0042 Acct-0042"},
	{"punctuation end", "«CPP|C++» and «CPP|c++»; C++x"},
	{"no boundary", "x«SUB|secretproj»y «SUB|SECRETPROJ» «SUB|nimbus core»s"},
	{"regex", "id=«EMP|EMP-123456»; «EMP|emp-654321»"},
	{"regex decoys", "EMP-1234567 XEMP-123456 EMP-12345 éEMP-123456"},
	{"regex glued decoys", "xTKT-1234 is glued: aTKT-1234 «TKT|TKT-9876»"},
	{"regex case-sensitive", "tkt-1234 «TKT|TKT-4321»"},
	{"two matches, invalid utf-8 between", "«PER|Jane Doe»\xff\xfe«PER|Jane Doe»"},
	{"nul bytes", "\x00«PER|Jane Doe»\x00"},
	{"regex prefilter folds case", "«DESK|Desk-123» «DESK|DESK-456»"},
	{"regex (?i) k matches the Kelvin sign", "room «DESK|DES\u212a-123»"},
	{"one-letter first sub-word", "new«XR|XRay»Scanner «XR|x_ray» «XR|xray»"},
	{"non-ASCII identifier", "«XR|JürgenVogel»Test, «XR|JÜRGEN_VOGEL», «XR|jürgenvogel»"},
	{"nfd identifier", "«XR|Ju\u0308rgenVogel»"},
}

func TestFindContexts(t *testing.T) {
	m := compile(t, stdRules...)
	cases := findContexts
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line, want := parseMarked(t, tc.line)
			got := gotMatches(m, line)
			if !slices.Equal(got, want) {
				t.Errorf("line %q\n got %v\nwant %v", line, got, want)
			}
		})
	}
}

// findDecoys are near misses of stdRules' values.
var findDecoys = []string{
	"JaneDoes",
	"Jane Does",
	"xJane Doe",
	"Jane Doe_x",
	"Jane Doe2",
	"Jan Doe",
	"Jane Do",
	"Jane-Doe",
	"Jane\u00a0Doe", // a no-break space is not a space or tab
	"éJane Doe",
	"名Jane Doe",
	"Jane Doé",
	"Jane Doe\u0301", // combining accent glued to the last letter
	"AcmeCorporation",
	"xacmecorp",
	"acmecorporate",
	"Acme__Corp_", // empty sub-words are skipped, so this is acme,corp: see below
	"AcMeCorp",
	"jane.doe@corp.examples",
	"xjane.doe@corp.example",
	"db-01.internal.corporate",
	"db-011.internal.corp",
	"host.internal.example",
	"secretpro",
	"O'Briens",
	"OBrien",
	"ACCT-00420",
	"XRayed",
	"JürgenVogelsang",
	"Desk-12",
}

func TestFindDecoys(t *testing.T) {
	m := compile(t, stdRules...)
	decoys := findDecoys
	for _, d := range decoys {
		got := gotMatches(m, []byte(d))
		if d == "Acme__Corp_" {
			// Underscores only separate sub-words: this is ACME_CORP.
			want := []wantMatch{{"CODE", 0, 10}}
			if !slices.Equal(got, want) {
				t.Errorf("%q: got %v, want %v", d, got, want)
			}
			continue
		}
		if len(got) != 0 {
			t.Errorf("decoy %q matched: %v", d, got)
		}
	}
}

func TestFindIsPerLine(t *testing.T) {
	m := compile(t, stdRules...)
	for _, l := range []string{"owner: Jane", "Doe", "Jane\n", "Doe"} {
		if got := gotMatches(m, []byte(l)); len(got) != 0 {
			t.Errorf("%q matched %v", l, got)
		}
	}
}

func TestFindOverlaps(t *testing.T) {
	cases := []struct {
		name  string
		rules []rspec
		line  string
		want  []wantMatch
	}{
		{"two rules, nested spans",
			[]rspec{{id: "FIRST", values: []string{"Jane"}}, {id: "PER", values: []string{"Jane Doe"}}},
			"Jane Doe", []wantMatch{{"FIRST", 0, 4}, {"PER", 0, 8}}},
		{"same rule: longest at a start, contained dropped",
			[]rspec{{id: "R", values: []string{"Jane", "Jane Doe", "Doe"}}},
			"Jane Doe Jane", []wantMatch{{"R", 0, 8}, {"R", 9, 13}}},
		{"same rule: partial overlap kept",
			[]rspec{{id: "R", values: []string{"Jane Doe", "Doe Smith"}}},
			"Jane Doe Smith", []wantMatch{{"R", 0, 8}, {"R", 5, 14}}},
		{"same value in two rules",
			[]rspec{{id: "A", values: []string{"Jane Doe"}}, {id: "B", values: []string{"jane doe"}}},
			"x Jane Doe", []wantMatch{{"A", 2, 10}, {"B", 2, 10}}},
		{"case-sensitive and folded rules on one value",
			[]rspec{{id: "CS", cs: true, values: []string{"Jane Doe"}}, {id: "CI", values: []string{"Jane Doe"}}},
			"Jane Doe jane doe", []wantMatch{{"CS", 0, 8}, {"CI", 0, 8}, {"CI", 9, 17}}},
		{"identifier and literal on the same span, once",
			[]rspec{{id: "ID", match: catalog.MatchIdentifier, values: []string{"Zephyr"}}},
			"Zephyr zephyr_x", []wantMatch{{"ID", 0, 6}, {"ID", 7, 13}}},
		{"substring inside literal of another rule",
			[]rspec{{id: "L", values: []string{"Jane Doe"}}, {id: "S", nb: true, values: []string{"ane D"}}},
			"Jane Doe", []wantMatch{{"L", 0, 8}, {"S", 1, 6}}},
		{"regex and literal",
			[]rspec{{id: "L", values: []string{"EMP-123456"}}, {id: "X", match: catalog.MatchRegex, values: []string{`EMP-\d+`}}},
			"EMP-123456", []wantMatch{{"L", 0, 10}, {"X", 0, 10}}},
		{"regex retried inside a match that failed the boundary check",
			[]rspec{{id: "X", match: catalog.MatchRegex, values: []string{`[a-z.]+\.corp`}}},
			"é.db.corp", []wantMatch{{"X", 3, 10}}},
		{"values differing in length at one start, same rule",
			[]rspec{{id: "H", values: []string{"db-01", "db-01.internal.corp"}}},
			"db-01.internal.corp db-01", []wantMatch{{"H", 0, 19}, {"H", 20, 25}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := compile(t, tc.rules...)
			if got := gotMatches(m, []byte(tc.line)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFindColumns checks byte offsets and the columns findings report
// against hand-computed values.
func TestFindColumns(t *testing.T) {
	m := compile(t, stdRules...)
	cases := []struct {
		line                 string
		start, end           int
		col, endCol          int
		col16, endCol16      int
		wantRule, wantSubstr string
	}{
		// 🎉 is 4 bytes, 1 code point, 2 UTF-16 units.
		{"🎉 Jane Doe", 5, 13, 3, 11, 4, 12, "PER", "Jane Doe"},
		// 名前 are 3 bytes each.
		{"名前: Jürgen Müller", 8, 23, 5, 18, 5, 18, "PER", "Jürgen Müller"},
		// Decomposed ü: u + U+0308 (2 bytes); offsets are in the original line.
		{"x Ju\u0308rgen Mu\u0308ller", 2, 19, 3, 18, 3, 18, "PER", "Ju\u0308rgen Mu\u0308ller"},
		// 𝔘 (U+1D518) is outside the BMP: 2 UTF-16 units.
		{"𝔘𝔘 «jane.doe@corp.example»", 11, 32, 5, 26, 7, 28, "EMAIL", "jane.doe@corp.example"},
	}
	for _, tc := range cases {
		line := []byte(tc.line)
		ms := m.Find(line, nil)
		if len(ms) != 1 {
			t.Errorf("%q: got %d matches, want 1", tc.line, len(ms))
			continue
		}
		x := ms[0]
		if m.Rules()[x.Rule].ID != tc.wantRule || x.Start != tc.start || x.End != tc.end {
			t.Errorf("%q: got %s [%d,%d), want %s [%d,%d)", tc.line, m.Rules()[x.Rule].ID, x.Start, x.End, tc.wantRule, tc.start, tc.end)
			continue
		}
		if s := string(line[x.Start:x.End]); s != tc.wantSubstr {
			t.Errorf("%q: span holds %q, want %q", tc.line, s, tc.wantSubstr)
		}
		sp := textpos.Columns(line, x.Start, x.End)
		want := textpos.Span{Column: tc.col, EndColumn: tc.endCol, Column16: tc.col16, EndColumn16: tc.endCol16}
		if sp != want {
			t.Errorf("%q: columns %+v, want %+v", tc.line, sp, want)
		}
	}
}

func TestFindAppendsAndSorts(t *testing.T) {
	m := compile(t, stdRules...)
	dst := []catalog.Match{{Rule: 99, Start: 1000, End: 1001}}
	line := []byte("Jane Doe, EMP-111111, db-01.internal.corp, Jane Doe")
	dst = m.Find(line, dst)
	if dst[0].Rule != 99 {
		t.Fatal("Find overwrote dst")
	}
	got := dst[1:]
	if len(got) != 4 {
		t.Fatalf("got %d matches, want 4: %v", len(got), got)
	}
	if !slices.IsSortedFunc(got, func(a, b catalog.Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if a.End != b.End {
			return a.End - b.End
		}
		return a.Rule - b.Rule
	}) {
		t.Errorf("matches not sorted: %v", got)
	}
}

func TestFindHashKeyIndependence(t *testing.T) {
	c := buildCatalog(stdRules...)
	line := []byte("Jane Doe at db-01.internal.corp wrote NewAcmeCorpClient for ACCT-0042 (EMP-123456) secretproj")
	var prev []catalog.Match
	for i, key := range [][]byte{testKey, []byte("another key"), nil} {
		m, err := catalog.Compile(c, &catalog.CompileOptions{HashKey: key})
		if err != nil {
			t.Fatal(err)
		}
		got := m.Find(line, nil)
		if len(got) != 6 {
			t.Fatalf("key %d: got %d matches, want 6: %v", i, len(got), got)
		}
		if i > 0 && !slices.Equal(got, prev) {
			t.Errorf("key %d: results differ: %v vs %v", i, got, prev)
		}
		prev = got
	}
}

func TestCompileErrors(t *testing.T) {
	const secret = "SuperSecretValue"
	cases := []struct {
		name  string
		rules []rspec
		want  string
	}{
		{"short literal", []rspec{{id: "R1", values: []string{secret, "ab"}}}, "rule R1: value 2: literal shorter than 3 characters"},
		{"short after trim", []rspec{{id: "R2", values: []string{"  x \t"}}}, "rule R2: value 1"},
		{"short identifier", []rspec{{id: "R3", match: catalog.MatchIdentifier, values: []string{"é"}}}, "rule R3: value 1"},
		{"unknown kind", []rspec{{id: "R4", match: catalog.MatchKind(9), values: []string{secret}}}, "rule R4: unknown match kind"},
		{"bad regex", []rspec{{id: "R5", match: catalog.MatchRegex, values: []string{secret + "(["}}}, "rule R5: value 1: invalid regex"},
		{"empty regex", []rspec{{id: "R6", match: catalog.MatchRegex, values: []string{secret + "|x*"}}}, "rule R6: value 1: regex can match the empty string"},
		{"empty-width regex", []rspec{{id: "R7", match: catalog.MatchRegex, values: []string{`\b`}}}, "rule R7: value 1: regex can match the empty string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := catalog.Compile(buildCatalog(tc.rules...), nil)
			if err == nil {
				t.Fatal("Compile succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if strings.Contains(strings.ToLower(err.Error()), strings.ToLower(secret)) {
				t.Errorf("error leaks the value: %q", err)
			}
		})
	}
	t.Run("too many regex values", func(t *testing.T) {
		vals := make([]string, catalog.MaxRegexValues+1)
		for i := range vals {
			vals[i] = fmt.Sprintf("ID-%d", i)
		}
		_, err := catalog.Compile(buildCatalog(rspec{id: "RX", match: catalog.MatchRegex, values: vals}), nil)
		if err == nil || !strings.Contains(err.Error(), "regex values") || strings.Contains(err.Error(), "ID-") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("bad fingerprint key", func(t *testing.T) {
		c := buildCatalog(rspec{id: "R", values: []string{"Jane"}})
		c.FingerprintKey = []byte{1, 2, 3}
		if _, err := catalog.Compile(c, nil); err == nil {
			t.Error("Compile accepted a 3-byte fingerprint key")
		}
	})
	t.Run("nil catalog", func(t *testing.T) {
		if _, err := catalog.Compile(nil, nil); err == nil {
			t.Error("Compile accepted nil")
		}
	})
}

func TestRegexLimitAccepted(t *testing.T) {
	vals := make([]string, catalog.MaxRegexValues)
	for i := range vals {
		vals[i] = fmt.Sprintf(`ID%d-\d{4}`, i)
	}
	m := compile(t, rspec{id: "RX", match: catalog.MatchRegex, values: vals})
	got := gotMatches(m, []byte("x ID9999-1234 y ID12-12345"))
	want := []wantMatch{{"RX", 2, 13}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestFingerprintKeyAndRules(t *testing.T) {
	c := buildCatalog(rspec{id: "PER-001", values: []string{"Jane Doe"}})
	c.Rules[0].Category = "person"
	c.Rules[0].Description = "names"
	c.Digest[0] = 7
	m, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := c.Digest
	ref := sha256.Sum256(append([]byte("privscan/fingerprint/v1\x00"), d[:]...))
	if m.FingerprintKey() != ref {
		t.Errorf("derived fingerprint key mismatch")
	}
	c.FingerprintKey = bytes.Repeat([]byte{0xab}, 32)
	m, err = catalog.Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := m.FingerprintKey(); !bytes.Equal(k[:], c.FingerprintKey) {
		t.Errorf("explicit fingerprint key not used")
	}
	rules := m.Rules()
	want := []catalog.RuleInfo{{ID: "PER-001", Category: "person", Severity: catalog.SeverityError, Description: "names"}}
	if !slices.Equal(rules, want) {
		t.Errorf("Rules() = %v", rules)
	}
	rules[0].ID = "changed"
	if m.Rules()[0].ID != "PER-001" {
		t.Error("Rules() exposes internal state")
	}
}

func TestNormalize(t *testing.T) {
	m := compile(t, stdRules...)
	idx := func(id string) int {
		return slices.IndexFunc(m.Rules(), func(r catalog.RuleInfo) bool { return r.ID == id })
	}
	cases := []struct {
		rule int
		in   string
		want string
	}{
		{idx("PER"), "JU\u0308RGEN \t MÜLLER", "jürgen müller"},
		{idx("ACCT"), "ACCT-0042", "ACCT-0042"},
		{idx("CODE"), "ACME_CORP", "acmecorp"},
		{idx("CODE"), "AcmeCorp", "acmecorp"},
		{idx("CODE"), "acme-corp", "acmecorp"},
		{idx("EMP"), "EMP-123456", "emp-123456"},
		{-1, "Ju\u0308rgen", "Jürgen"},
	}
	for _, tc := range cases {
		if got := string(m.Normalize([]byte("pre:"), []byte(tc.in), tc.rule)); got != "pre:"+tc.want {
			t.Errorf("Normalize(%q, %d) = %q, want %q", tc.in, tc.rule, got, "pre:"+tc.want)
		}
	}
}

func TestFindNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	m := compile(t, stdRules...)
	dst := make([]catalog.Match, 0, 16)
	for _, l := range []string{
		"\tif err := s.db.QueryRowContext(ctx, q, id).Scan(&u.Name); err != nil {",
		"// Größe der Übertragung prüfen (délai: 20ms) Jane",
		"",
	} {
		line := []byte(l)
		if n := testing.AllocsPerRun(100, func() { dst = m.Find(line, dst[:0]) }); n != 0 {
			t.Errorf("%q: %v allocations per Find", l, n)
		}
	}
}

func TestFindHostileLines(t *testing.T) {
	m := compile(t, stdRules...)
	big := bytes.Repeat([]byte("Jane Doe, acme_corp \xff\x00 名 e\u0301 "), 1<<15)
	got := m.Find(big, nil)
	// Per repetition: Jane Doe, acme_corp.
	if len(got) != 2<<15 {
		t.Errorf("got %d matches in a long line, want %d", len(got), 2<<15)
	}
	for _, l := range [][]byte{
		bytes.Repeat([]byte{0xff}, 1000),
		bytes.Repeat([]byte("\u0301"), 1000),
		bytes.Repeat([]byte("a"), 1<<20),
		bytes.Repeat([]byte("aB_"), 1<<16),
		bytes.Repeat([]byte("-."), 1<<16),
		[]byte("\xe2\x82"), // truncated rune
		[]byte("Jane Doe\xe2"),
	} {
		for _, x := range m.Find(l, nil) {
			if x.Start < 0 || x.End > len(l) || x.Start >= x.End {
				t.Errorf("bad span %v in line of %d bytes", x, len(l))
			}
		}
	}
}

func TestFindConcurrent(t *testing.T) {
	m := compile(t, stdRules...)
	line := []byte("x Ju\u0308rgen Mu\u0308ller, Jane Doe and NewAcmeCorpClient EMP-123456")
	want := m.Find(line, nil)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dst []catalog.Match
			for i := 0; i < 200; i++ {
				dst = m.Find(line, dst[:0])
				if !slices.Equal(dst, want) {
					t.Error("concurrent Find differs")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestFindSynth plants catalog values in synthetic source text: every
// planted occurrence must be found with its exact offsets, and text without
// plants must yield no literal match.
func TestFindSynth(t *testing.T) {
	const n = 20000
	c := synth.Catalog(11, n)
	m, err := catalog.Compile(c, &catalog.CompileOptions{HashKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	vals := synth.Values(11, n)
	var plant []string
	for i := 0; i < len(vals); i += 97 {
		plant = append(plant, vals[i])
	}
	rules := m.Rules()
	ruleOf := map[string]string{}
	i := 0
	for _, r := range c.Rules {
		if r.Match == catalog.MatchRegex {
			continue
		}
		for range r.Values {
			ruleOf[vals[i]] = r.ID
			i++
		}
	}
	text := synth.Text(12, 1<<20, plant)
	found, planted := 0, 0
	for line := range bytes.Lines(text) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		ms := m.Find(line, nil)
		for _, p := range plant {
			at := bytes.Index(line, []byte(p))
			if at < 0 {
				continue
			}
			planted++
			ok := slices.ContainsFunc(ms, func(x catalog.Match) bool {
				return x.Start == at && x.End == at+len(p) && rules[x.Rule].ID == ruleOf[p]
			})
			if !ok {
				t.Errorf("planted value (rule %s) not found at %d in line of %d bytes: %v", ruleOf[p], at, len(line), ms)
			} else {
				found++
			}
		}
	}
	if planted < 100 {
		t.Fatalf("only %d plants in the text", planted)
	}
	clean := synth.Text(13, 1<<20, nil)
	for line := range bytes.Lines(clean) {
		for _, x := range m.Find(bytes.TrimSuffix(line, []byte("\n")), nil) {
			if id := rules[x.Rule].ID; id != "EMP-ID" && id != "TICKET" {
				t.Errorf("clean text matched rule %s: %q", id, line[x.Start:x.End])
			}
		}
	}
	t.Logf("found %d/%d planted values", found, planted)
}

func FuzzFind(f *testing.F) {
	m, err := catalog.Compile(buildCatalog(stdRules...), &catalog.CompileOptions{HashKey: testKey})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"Jane Doe", "x Ju\u0308rgen Mu\u0308ller", "NewAcmeCorpClient", "\xff\xfeJane\x00Doe",
		"secretproj EMP-123456 TKT-1234", "acme.corp-acme_corp", "e\u0301\u0301\u0301"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ms := m.Find(line, nil)
		for i, x := range ms {
			if x.Start < 0 || x.End > len(line) || x.Start >= x.End || x.Rule < 0 || x.Rule >= len(m.Rules()) {
				t.Fatalf("bad match %v for %d-byte line", x, len(line))
			}
			if i > 0 && ms[i-1].Start > x.Start {
				t.Fatalf("unsorted matches")
			}
		}
		if utf8.Valid(line) && !bytes.ContainsAny(line, "\x00") {
			// Appending an unrelated line after a space never removes
			// literal matches in the first part.
			ext := append(append(slices.Clip(line), ' ', ' '), line...)
			ms2 := m.Find(ext, nil)
			for _, x := range ms {
				if !slices.Contains(ms2, x) && !containedInSameRule(ms2, x) {
					t.Fatalf("match %v lost after extending the line", x)
				}
			}
		}
	})
}

func containedInSameRule(ms []catalog.Match, x catalog.Match) bool {
	return slices.ContainsFunc(ms, func(y catalog.Match) bool {
		return y.Rule == x.Rule && y.Start <= x.Start && y.End >= x.End
	})
}
