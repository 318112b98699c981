package catalog_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
)

// recordSchema: a customer's name counts only with that customer's email
// or account number within 3 lines; the account column only corroborates
// (search = false). Synthetic look-alike data only.
const recordSchema = `
format = "csv"
fingerprint-key = "` + tableFPKey + `"

[[columns]]
name = "name"
rule = "CUST-NAME"
category = "person"
match = "identifier"
corroborated-by = ["email", "account"]
within = 3

[[columns]]
name = "email"
rule = "CUST-EMAIL"
category = "email"

[[columns]]
name = "account"
rule = "CUST-ACCT"
category = "account-id"
search = false
`

// recordTable has a common name on two rows (2 and 3) with different
// emails and accounts.
const recordTable = "name,email,account\n" +
	"Quilla Varnstedt,quilla.v@example.invalid,ACCT-700001\n" +
	"Maro Castellane,maro.one@example.invalid,ACCT-700002\n" +
	"Maro Castellane,maro.two@example.invalid,ACCT-700003\n"

func recordCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	s, err := catalog.ParseSchema([]byte(recordSchema))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := catalog.ReadTable(strings.NewReader(recordTable), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ruleIndex(t testing.TB, m *catalog.Matcher, id string) int {
	t.Helper()
	for i, r := range m.Rules() {
		if r.ID == id {
			return i
		}
	}
	t.Fatalf("no rule %s", id)
	return -1
}

func intersect(a, b []uint64) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// checkRecords checks what "same row" m decides for the synthetic table.
func checkRecords(t *testing.T, m *catalog.Matcher) {
	t.Helper()
	name, email, acct := ruleIndex(t, m, "CUST-NAME"), ruleIndex(t, m, "CUST-EMAIL"), ruleIndex(t, m, "CUST-ACCT")
	info := m.RecordInfo(name)
	if info == nil || !slices.Equal(info.By, []int{email, acct}) || info.Within != 3 || info.Uncorroborated != 0 || info.Hidden {
		t.Fatalf("name's record rule: %+v", info)
	}
	if a := m.RecordInfo(acct); a == nil || !a.Hidden || len(a.By) != 0 {
		t.Fatalf("account's record rule: %+v", a)
	}
	if e := m.RecordInfo(email); e == nil || e.Hidden {
		t.Fatalf("email's record rule: %+v", e)
	}
	common := m.Records(name, []byte("maro_castellane"), nil) // an identifier spelling
	if len(common) != 2 {
		t.Fatalf("a name on two rows has %d record IDs", len(common))
	}
	one := m.Records(email, []byte("MARO.ONE@example.invalid"), nil)
	two := m.Records(acct, []byte("ACCT-700003"), nil)
	quilla := m.Records(name, []byte("Quilla Varnstedt"), nil)
	if len(one) != 1 || len(two) != 1 || len(quilla) != 1 {
		t.Fatalf("record IDs: %d %d %d", len(one), len(two), len(quilla))
	}
	if !intersect(common, one) || !intersect(common, two) || intersect(one, two) || intersect(quilla, one) {
		t.Fatal("same-row decisions are wrong")
	}
	if got := m.Records(name, []byte("Nobody Known"), nil); len(got) != 0 {
		t.Fatal("a value not in the table has record IDs")
	}
}

func TestRecordRules(t *testing.T) {
	c := recordCatalog(t)
	m, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("compiled", func(t *testing.T) { checkRecords(t, m) })
	key := bytes.Repeat([]byte{0x42, 0x17, 0x99, 0x03}, 8)
	data := seal(t, c, key)
	sm, s := loadSealed(t, data, key)
	if s.Version != catalog.SealVersion {
		t.Fatalf("a catalog with record rules sealed as version %d", s.Version)
	}
	if r := s.Rules[0].Record; r == nil || !slices.Equal(r.By, []string{"CUST-EMAIL", "CUST-ACCT"}) || r.Within != 3 || r.Hidden ||
		s.Rules[1].Record == nil || s.Rules[1].Record.Hidden || s.Rules[2].Record == nil || !s.Rules[2].Record.Hidden {
		t.Fatalf("the sealed description's record rules: %+v", s.Rules)
	}
	t.Run("sealed", func(t *testing.T) { checkRecords(t, sm) })
	t.Run("combined", func(t *testing.T) {
		md, err := catalog.Parse([]byte("## OTHER\n- category: org\n\n```values\nVexmoor Holdings\n```\n"))
		if err != nil {
			t.Fatal(err)
		}
		om, err := catalog.Compile(md, nil)
		if err != nil {
			t.Fatal(err)
		}
		cm, err := catalog.Combine(om, sm)
		if err != nil {
			t.Fatal(err)
		}
		if cm.RecordInfo(0) != nil || !cm.HasRecords() {
			t.Fatal("combination's record rules")
		}
		checkRecords(t, cm)
	})
}

// TestMarkdownHasNoRecordRules: a Markdown catalog takes no part in
// record rules and still seals as version 3.
func TestMarkdownHasNoRecordRules(t *testing.T) {
	c, err := catalog.Parse([]byte("## PER\n- category: person\n\n```values\nMaro Castellane\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{0x42, 0x17, 0x99, 0x03}, 8)
	m, s := loadSealed(t, seal(t, c, key), key)
	if s.Version != 3 || m.HasRecords() || m.RecordInfo(0) != nil || len(m.Records(0, []byte("Maro Castellane"), nil)) != 0 {
		t.Fatalf("a Markdown catalog has record rules (version %d)", s.Version)
	}
}

func TestParseSchemaRecordRules(t *testing.T) {
	name := "[[columns]]\nname = \"n\"\nrule = \"N\"\ncategory = \"person\"\n"
	email := "[[columns]]\nname = \"e\"\nrule = \"E\"\ncategory = \"email\"\n"
	for _, tc := range []struct{ text, want string }{
		{name + "corroborated-by = [\"e\"]\n" + email, "needs within"},
		{name + "corroborated-by = [\"secret-column\"]\nwithin = 2\n" + email, "does not list"},
		{name + "corroborated-by = [\"n\"]\nwithin = 2\n" + email, "cannot corroborate itself"},
		{name + "corroborated-by = [\"e\"]\nwithin = -1\n" + email, "within must be 0 to"},
		{name + "corroborated-by = [\"e\"]\nwithin = 100001\n" + email, "within must be 0 to"},
		{name + "corroborated-by = [\"e\"]\nwithin = \"page\"\n" + email, "number of lines or \"file\""},
		{name + "corroborated-by = [\"e\"]\nwithin = 1.5\n" + email, "number of lines or \"file\""},
		{name + "corroborated-by = [\"e\"]\nwithin = 2\nuncorroborated = \"warn\"\n" + email, "drop or note"},
		{name + "within = 2\n" + email, "need corroborated-by"},
		{name + "uncorroborated = \"note\"\n" + email, "need corroborated-by"},
		{name + email + "search = false\n", "no column is corroborated by it"},
		{name + "search = false\ncorroborated-by = [\"e\"]\nwithin = 2\n" + email, "only corroborates"},
		{name + "corroborated-by = [\"m\"]\nwithin = 2\n[[columns]]\nname = \"m\"\nrule = \"N\"\ncategory = \"person\"\n", "same rule"},
		{name + "corroborated-by = [\"e\"]\nwithin = 2\n" + email + "[[columns]]\nname = \"n2\"\nrule = \"N\"\ncategory = \"person\"\n", "other record settings"},
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
	s, err := catalog.ParseSchema([]byte(name + "corroborated-by = [\"e\", \"e2\"]\nwithin = \"file\"\nuncorroborated = \"note\"\n" + email +
		"[[columns]]\nname = \"e2\"\nrule = \"E\"\ncategory = \"email\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Columns[0].Rule.Record
	if r == nil || !slices.Equal(r.By, []string{"E"}) || r.Within != catalog.WithinFile || r.Uncorroborated != catalog.SeverityNote {
		t.Fatalf("record rule %+v", r)
	}
	// Both columns of the corroborating rule take part.
	if s.Columns[1].Rule.Record == nil || s.Columns[2].Rule.Record == nil || s.Columns[1].Rule.Record.Hidden {
		t.Fatal("the corroborating rule does not take part")
	}
}
