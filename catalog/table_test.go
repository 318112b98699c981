package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
)

const tableFPKey = "0101010101010101010101010101010101010101010101010101010101010101"

// tableSchema maps three columns of a synthetic customer export to rules;
// "notes" is not listed, so it is never a value. phone and mobile feed one
// rule.
const tableSchema = `
max-bad-rows = 100
fingerprint-key = "` + tableFPKey + `"

[[columns]]
name = "full name"
rule = "CUST-NAME"
category = "person"
match = "identifier"
description = "Customer names"

[[columns]]
name = "email"
rule = "CUST-EMAIL"
category = "email"
severity = "warning"

[[columns]]
name = "account"
rule = "CUST-ACCT"
category = "account-id"
case = "sensitive"
boundary = "none"

[[columns]]
name = "phone"
rule = "CUST-PHONE"
category = "phone"

[[columns]]
name = "mobile"
rule = "CUST-PHONE"
category = "phone"
`

// tableCols is the header of the synthetic export.
var tableCols = []string{"id", "full name", "email", "notes", "account", "phone", "mobile"}

// tableRow is one row of the synthetic export and whether it is good in
// each format (a TSV cell cannot hold a tab or a newline; JSON escapes
// them, CSV quotes them).
type tableRow struct {
	cells []string
	bad   bool // a bad row in every format (its values are not kept)
}

// syntheticRows are look-alike rows (no real person): quotes, commas,
// leading and trailing spaces, non-ASCII names, blank cells, and bad ones.
func syntheticRows() []tableRow {
	rows := []tableRow{
		{cells: []string{"1", "Zelda Quartermaine", "zelda.q@example.invalid", "plain", "ACC-000101", "+1 555 0100", ""}},
		{cells: []string{"2", `Olwen "Ollie" Featherstonehaugh`, "ollie@example.invalid", `says "hi", twice`, "ACC-000102", "", "+1 555 0102"}},
		{cells: []string{"3", "  Jürgen Mülléwski  ", "jm@example.invalid", "trailing, comma,", "acc-000103", "+1 555 0103", "+1 555 0113"}},
		{cells: []string{"4", "", "", "", "", "", ""}},                                                                  // blank: nothing, not bad
		{cells: []string{"5", "Yo", "yo@example.invalid", "", "ACC-000105", "", ""}, bad: true},                         // a name under 3 characters
		{cells: []string{"6", "Bad\xe9Latin", "latin1@example.invalid", "", "ACC-000106", "", ""}, bad: true},           // not UTF-8
		{cells: []string{"7", "Ingrid Thorvaldsdottir", "ingrid@example.invalid", "x", "ACC-000107", "", ""}},           // good
		{cells: []string{"8", "Null\x00Byte", "nul@example.invalid", "", "ACC-000108", "", ""}, bad: true},              // a control character
		{cells: []string{"9", "Ramón Castellanos-Vidal", "ramon@example.invalid", "", "ACC-000109", "", ""}},            // good
		{cells: []string{"10", strings.Repeat("x", 1025), "long@example.invalid", "", "ACC-000110", "", ""}, bad: true}, // too long
	}
	for i := range 40 {
		rows = append(rows, tableRow{cells: []string{fmt.Sprint(100 + i), fmt.Sprintf("Synthia Number%03d", i), fmt.Sprintf("s%03d@example.invalid", i), "", fmt.Sprintf("ACC-9%05d", i), "", ""}})
	}
	return rows
}

func csvField(s string) string {
	if strings.ContainsAny(s, "\",\n\r") || strings.TrimSpace(s) != s {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// tableFiles encodes rows in each format, with the hostile rows each
// format can hold, and returns the rows that every format keeps.
func tableFiles(rows []tableRow) (csvText, tsvText, jsonl string) {
	var c, t, j strings.Builder
	c.WriteString("\ufeff") // a BOM, as spreadsheet exports write
	t.WriteString("\ufeff")
	for i, h := range tableCols {
		if i > 0 {
			c.WriteByte(',')
			t.WriteByte('\t')
		}
		c.WriteString(csvField(h))
		t.WriteString(h)
	}
	c.WriteString("\r\n")
	t.WriteString("\n")
	for _, r := range rows {
		for i, v := range r.cells {
			if i > 0 {
				c.WriteByte(',')
				t.WriteByte('\t')
			}
			c.WriteString(csvField(v))
			t.WriteString(v)
		}
		c.WriteString("\r\n")
		t.WriteString("\n")
		obj := map[string]string{}
		for i, v := range r.cells {
			if v != "" {
				obj[tableCols[i]] = v
			}
		}
		b, _ := json.Marshal(obj)
		if strings.Contains(r.cells[1], "\xe9") {
			// json.Marshal would replace the invalid byte: write it raw.
			b = bytes.Replace(b, []byte(`\ufffd`), []byte("\xe9"), 1)
		}
		j.Write(b)
		j.WriteString("\n")
	}
	// Rows that are bad only in the way each format can be.
	c.WriteString("20,\"Embedded\nNewline Name\",nl@example.invalid,,ACC-000120,,\r\n") // a value with a newline
	c.WriteString("21,Too,Few\r\n")                                                     // wrong number of fields
	c.WriteString("22,\"Quoted \"\"Ok\"\" Name\",q@example.invalid,\"multi\nline\nnote\",ACC-000122,,\r\n")
	t.WriteString("21\tToo\tFew\n")
	t.WriteString("\n") // a blank line
	j.WriteString(`{"full name": ["Array", "Name"]}` + "\n")
	j.WriteString(`not json at all` + "\n")
	j.WriteString("\n")
	j.WriteString(`{"full name": "Quoted \"Ok\" Name", "email": "q@example.invalid", "account": "ACC-000122", "notes": "multi\nline"}` + "\n")
	j.WriteString(`{"full name": "Embedded\nNewline Name", "email": "nl@example.invalid", "account": 120}` + "\n")
	return c.String(), t.String(), j.String()
}

// equivalentMarkdown is the Markdown catalog of the good rows.
func equivalentMarkdown(rows []tableRow, quotedRow bool) string {
	var b strings.Builder
	b.WriteString("- fingerprint-key: " + tableFPKey + "\n\n")
	type col struct {
		rule, settings string
		idx            []int
	}
	cols := []col{
		{"CUST-NAME", "- category: person\n- match: identifier\n- description: Customer names\n", []int{1}},
		{"CUST-EMAIL", "- category: email\n- severity: warning\n", []int{2}},
		{"CUST-ACCT", "- category: account-id\n- case: sensitive\n- boundary: none\n", []int{4}},
		{"CUST-PHONE", "- category: phone\n", []int{5, 6}},
	}
	extra := map[string]string{"CUST-NAME": `Quoted "Ok" Name`, "CUST-EMAIL": "q@example.invalid", "CUST-ACCT": "ACC-000122"}
	for _, c := range cols {
		b.WriteString("## " + c.rule + "\n" + c.settings + "\n```values\n")
		for _, r := range rows {
			if r.bad {
				continue
			}
			for _, i := range c.idx {
				if v := strings.TrimSpace(r.cells[i]); v != "" {
					b.WriteString(v + "\n")
				}
			}
		}
		if quotedRow && extra[c.rule] != "" {
			b.WriteString(extra[c.rule] + "\n")
		}
		b.WriteString("```\n\n")
	}
	return b.String()
}

// probeLines holds every value of the rows (good and bad) in context and
// spelled as identifiers, and decoys.
func probeLines(rows []tableRow) [][]byte {
	var lines [][]byte
	for _, r := range rows {
		for _, v := range r.cells[1:] {
			v = strings.TrimSpace(v)
			if v == "" {
				continue
			}
			lines = append(lines, []byte("contact: "+v+"; ok"), []byte(strings.ReplaceAll(v, " ", "")+"Client"), []byte("x"+v))
		}
	}
	for _, s := range []string{"Quoted \"Ok\" Name", "QuotedOkName", "Embedded Newline Name", "ACC-000122", "acc-000122", "ACC-000120", "multi line note", "Too Few", "Array Name"} {
		lines = append(lines, []byte("see "+s+" here"))
	}
	return lines
}

func TestTableMatchesMarkdown(t *testing.T) {
	rows := syntheticRows()
	csvText, tsvText, jsonl := tableFiles(rows)
	s, err := catalog.ParseSchema([]byte(tableSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		format    catalog.TableFormat
		text      string
		quotedRow bool
		badLines  []int
	}{
		// CSV lines: 1 header, rows 2..51, then the newline row at 52-53,
		// the short row at 54, the quoted row at 55-57.
		{"csv", catalog.TableCSV, csvText, true, []int{6, 7, 9, 11, 52, 54}},
		{"tsv", catalog.TableTSV, tsvText, false, []int{6, 7, 9, 11, 52}},
		{"jsonl", catalog.TableJSONL, jsonl, true, []int{5, 6, 8, 10, 51, 52, 55}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progressed int
			c, rep, err := catalog.ReadTable(strings.NewReader(tc.text), s, &catalog.TableOptions{Format: tc.format, Progress: func(rows int, n int64) { progressed = rows }})
			if err != nil {
				t.Fatalf("ReadTable: %v", err)
			}
			var lines []int
			for _, b := range rep.Bad {
				lines = append(lines, b.Line)
				for _, r := range rows {
					for _, v := range r.cells[1:] {
						if len(v) >= 3 && strings.Contains(b.Reason, v) {
							t.Errorf("bad row reason %q quotes a cell", b.Reason)
						}
					}
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(tc.badLines) || rep.BadRows != len(tc.badLines) {
				t.Errorf("bad rows %v (%d), want lines %v; %v", lines, rep.BadRows, tc.badLines, rep.Bad)
			}
			if progressed != rep.Rows || rep.Rows == 0 {
				t.Errorf("progress saw %d rows, the report %d", progressed, rep.Rows)
			}
			md, err := catalog.Parse([]byte(equivalentMarkdown(rows, tc.quotedRow)))
			if err != nil {
				t.Fatalf("equivalent Markdown: %v", err)
			}
			if got, want := c.Counts(), md.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("counts %v, Markdown's %v", got, want)
			}
			if rep.Values != md.Counts().Values {
				t.Errorf("report counts %d values, the catalog %d", rep.Values, md.Counts().Values)
			}
			mt, err := catalog.Compile(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			mm, err := catalog.Compile(md, nil)
			if err != nil {
				t.Fatal(err)
			}
			probes := probeLines(rows)
			found := sameFinds(t, mm, mt, probes)
			sealed, _ := loadSealed(t, seal(t, c, sealKey), sealKey)
			if n := sameFinds(t, mm, sealed, probes); n != found || found < 100 {
				t.Fatalf("found %d (sealed %d), want the same and at least 100", found, n)
			}
		})
	}
}

func TestTableBadRowLimit(t *testing.T) {
	s, err := catalog.ParseSchema([]byte("[[columns]]\nname = \"n\"\nrule = \"R\"\ncategory = \"person\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	text := "n\nAlpha Person\nab\nBeta Person\nxy\n"
	_, rep, err := catalog.ReadTable(strings.NewReader(text), s, &catalog.TableOptions{Format: catalog.TableCSV})
	var te *catalog.TableError
	if !errors.As(err, &te) || te.Line != 3 {
		t.Fatalf("err %v, want a TableError at line 3", err)
	}
	if rep.BadRows != 1 {
		t.Fatalf("bad rows %d, want 1 (it stops at the first past the limit)", rep.BadRows)
	}
	s.MaxBadRows = 2
	c, rep, err := catalog.ReadTable(strings.NewReader(text), s, &catalog.TableOptions{Format: catalog.TableCSV})
	if err != nil || rep.BadRows != 2 || c.Counts().Values != 2 {
		t.Fatalf("err %v, report %+v", err, rep)
	}
	// Without a fingerprint key, the table's digest keys fingerprints.
	if c.Digest == ([32]byte{}) || c.FingerprintKey != nil {
		t.Fatal("no digest")
	}
}

func TestTableErrors(t *testing.T) {
	schema := "[[columns]]\nname = \"name\"\nrule = \"R\"\ncategory = \"person\"\n"
	s, err := catalog.ParseSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		format     catalog.TableFormat
		want       string
	}{
		{"no format", "name\n", catalog.TableUnknown, "unknown format"},
		{"empty csv", "", catalog.TableCSV, "no header"},
		{"empty tsv", "", catalog.TableTSV, "no header"},
		{"missing column", "other\nSecret Value\n", catalog.TableCSV, `no column "name"`},
		{"duplicate column", "name,name\nSecret Value,x\n", catalog.TableCSV, "more than once"},
		{"utf-16", "\xff\xfen\x00", catalog.TableCSV, "UTF-16"},
		{"no values", "name\n\n", catalog.TableTSV, "no values"},
		{"open quote", "name\n\"Secret Value\n", catalog.TableCSV, "max-bad-rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := catalog.ReadTable(strings.NewReader(tc.text), s, &catalog.TableOptions{Format: tc.format})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "Secret") {
				t.Fatalf("error %q quotes the table", err)
			}
		})
	}
}

func TestParseSchemaErrors(t *testing.T) {
	col := "[[columns]]\nname = \"n\"\nrule = \"R\"\ncategory = \"person\"\n"
	for _, tc := range []struct{ text, want string }{
		{"", "no [[columns]]"},
		{"format = \"xls\"\n" + col, "format must be"},
		{"max-bad-rows = -1\n" + col, "negative"},
		{"fingerprint-key = \"abc\"\n" + col, "64 hexadecimal"},
		{"colour = 1\n" + col, "line 1: unknown key"},
		{"[[columns]]\nname = \"n\"\nrule = \"1R\"\ncategory = \"person\"\n", "rule must be"},
		{"[[columns]]\nname = \"n\"\nrule = \"R\"\n", "category is required"},
		{col + "severity = \"high\"\n", "severity must"},
		{col + "match = \"regex\"\n", "not available for a table"},
		{col + "match = \"fuzzy\"\n", "literal or identifier"},
		{col + "case = \"upper\"\n", "case must"},
		{col + "boundary = \"line\"\n", "boundary must"},
		{col + "description = \"a\\nb\"\n", "one line"},
		{col + col, "listed twice"},
		{col + "[[columns]]\nname = \"m\"\nrule = \"R\"\ncategory = \"email\"\n", "other settings"},
		{"name = = \"secret\"", "schema line 1: invalid TOML"},
		{"\"0\\b0000\"=\"\"", "unknown key"}, // go-toml v2.2.3 panicked reporting this unknown key
		{"[[columns]]\nname = \"\"\nrule = \"R\"\ncategory = \"person\"\n", "name must be"},
	} {
		_, err := catalog.ParseSchema([]byte(tc.text))
		var se *catalog.SchemaError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.text, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: error quotes the schema", tc.text)
		}
	}
	s, err := catalog.ParseSchema([]byte("format = \"ndjson\"\n" + col + "severity = \"note\"\nmatch = \"identifier\"\n"))
	if err != nil || s.Format != catalog.TableJSONL || s.Columns[0].Rule.Severity != catalog.SeverityNote || s.Columns[0].Rule.Match != catalog.MatchIdentifier {
		t.Fatalf("%+v %v", s, err)
	}
}

// BenchmarkReadTable reads a synthetic CSV of 100,000 rows of three value
// columns and a note (bench/cmd/gentable's shape).
func BenchmarkReadTable(b *testing.B) {
	var t strings.Builder
	t.WriteString("id,full_name,email,account,note\r\n")
	for i := range 100000 {
		fmt.Fprintf(&t, "%d,Synthia Number%06d,s%06d@example.invalid,ACCT-%010d,\"called about \"\"invoice\"\", twice\"\r\n", i, i, i, i)
	}
	text := t.String()
	s, err := catalog.ParseSchema([]byte("format = \"csv\"\nfingerprint-key = \"" + tableFPKey + "\"\n" +
		"[[columns]]\nname = \"full_name\"\nrule = \"N\"\ncategory = \"person\"\nmatch = \"identifier\"\n" +
		"[[columns]]\nname = \"email\"\nrule = \"E\"\ncategory = \"email\"\n" +
		"[[columns]]\nname = \"account\"\nrule = \"A\"\ncategory = \"account\"\ncase = \"sensitive\"\n"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, _, err := catalog.ReadTable(strings.NewReader(text), s, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTableLongLines: a TSV or JSON Lines line of MaxTableLineBytes is
// read, one byte more is a bad row, and the rows after it are read (the
// reader's 1 MiB buffer is crossed many times on the way).
func TestTableLongLines(t *testing.T) {
	s, err := catalog.ParseSchema([]byte("max-bad-rows = 5\n[[columns]]\nname = \"n\"\nrule = \"R\"\ncategory = \"person\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tsv := func(name string, width int) string { // a row of width bytes
		return name + "\t" + strings.Repeat("x", width-len(name)-1) + "\n"
	}
	jsonl := func(name string, width int) string {
		head := `{"n": "` + name + `", "pad": "`
		return head + strings.Repeat("x", width-len(head)-2) + "\"}\n"
	}
	for _, tc := range []struct {
		format catalog.TableFormat
		header string
		row    func(string, int) string
	}{
		{catalog.TableTSV, "n\tpad\n", tsv},
		{catalog.TableJSONL, "", jsonl},
	} {
		t.Run(tc.format.String(), func(t *testing.T) {
			text := tc.header + tc.row("Alpha Person", catalog.MaxTableLineBytes) + // exactly the limit: read
				tc.row("Beta Person", catalog.MaxTableLineBytes+1) + // one byte over: bad
				tc.row("Gamma Person", 100) +
				strings.TrimSuffix(tc.row("Delta Person", catalog.MaxTableLineBytes+3), "\n") // over, at the end, no newline
			c, rep, err := catalog.ReadTable(strings.NewReader(text), s, &catalog.TableOptions{Format: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			first := 2
			if tc.header == "" {
				first = 1
			}
			want := fmt.Sprint([]catalog.BadRow{{Line: first + 1, Reason: "line is longer than 16 MiB"}, {Line: first + 3, Reason: "line is longer than 16 MiB"}})
			if got := fmt.Sprint(rep.Bad); got != want || rep.Rows != 4 {
				t.Fatalf("bad rows %s (rows %d), want %s", got, rep.Rows, want)
			}
			m, err := catalog.Compile(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]int{"Alpha Person": 1, "Beta Person": 0, "Gamma Person": 1, "Delta Person": 0} {
				if got := len(m.Find([]byte("x "+name+" y"), nil)); got != want {
					t.Errorf("%s: %d matches, want %d", name, got, want)
				}
			}
		})
	}
}

// TestTableLongCSVRecord: a CSV record over MaxTableLineBytes (a quote
// left open, here) stops the read with a TableError instead of holding the
// rest of the file in memory; a long field below the limit is read.
func TestTableLongCSVRecord(t *testing.T) {
	s, err := catalog.ParseSchema([]byte("max-bad-rows = 5\n[[columns]]\nname = \"n\"\nrule = \"R\"\ncategory = \"person\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x\n", catalog.MaxTableLineBytes/4)
	text := "n,pad\nAlpha Person,\"" + pad + "\"\nGamma Person,\"" + pad + pad + pad + "x\n"
	_, _, err = catalog.ReadTable(strings.NewReader(text), s, &catalog.TableOptions{Format: catalog.TableCSV})
	var te *catalog.TableError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "longer than 16 MiB") {
		t.Fatalf("err %v, want a record over 16 MiB", err)
	}
	c, rep, err := catalog.ReadTable(strings.NewReader(text[:strings.Index(text, "Gamma")]), s, &catalog.TableOptions{Format: catalog.TableCSV})
	if err != nil || rep.BadRows != 0 || c.Counts().Values != 1 {
		t.Fatalf("err %v, report %+v", err, rep)
	}
}
