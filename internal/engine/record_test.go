package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// Synthetic look-alike customers (no real person): a common name on two
// rows (2 and 3) with different emails and accounts.
const recordTestTable = "name,email,account\n" +
	"Quilla Varnstedt,quilla.v@example.invalid,ACCT-700001\n" +
	"Maro Castellane,maro.one@example.invalid,ACCT-700002\n" +
	"Maro Castellane,maro.two@example.invalid,ACCT-700003\n"

// recordTestSchema: the name counts only with an email or account of its
// row within WITHIN; the account only corroborates.
const recordTestSchema = `
format = "csv"
fingerprint-key = "0202020202020202020202020202020202020202020202020202020202020202"

[[columns]]
name = "name"
rule = "CUST-NAME"
category = "person"
match = "identifier"
RECORD

[[columns]]
name = "email"
rule = "CUST-EMAIL"
category = "email"

[[columns]]
name = "account"
rule = "CUST-ACCT"
category = "account-id"
case = "sensitive"
ACCOUNT
`

// recordMatcher seals the synthetic table with record settings rec (""
// for none) and loads it.
func recordMatcher(t testing.TB, rec string) *catalog.Matcher {
	t.Helper()
	account := ""
	if strings.Contains(rec, "account") {
		account = "search = false"
	}
	schema := strings.NewReplacer("RECORD", rec, "ACCOUNT", account).Replace(recordTestSchema)
	s, err := catalog.ParseSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := catalog.ReadTable(strings.NewReader(recordTestTable), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{0x5c, 0x21, 0x9e, 0x47}, 8)
	var b bytes.Buffer
	if err := catalog.Seal(&b, c, key, nil); err != nil {
		t.Fatal(err)
	}
	m, _, err := catalog.LoadSealed(b.Bytes(), key)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type fragSource []*scanner.Fragment

func (s fragSource) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	for _, f := range s {
		if err := yield(f); err != nil {
			return err
		}
	}
	return nil
}

type recCollected struct {
	findings []*finding.Finding
	sum      *finding.Summary
}

func (c *recCollected) Finding(f *finding.Finding) error {
	c.findings = append(c.findings, f)
	return nil
}
func (c *recCollected) Summary(s *finding.Summary) error { c.sum = s; return nil }

// frag is a fragment of path (a diff) whose lines are numbered from first.
func frag(kind finding.Kind, path, commit string, first int, lines ...string) *scanner.Fragment {
	f := &scanner.Fragment{Kind: kind, Path: path, Commit: commit}
	for i, l := range lines {
		f.Lines = append(f.Lines, scanner.Line{Number: first + i, Text: []byte(l)})
	}
	return f
}

func runRecords(t testing.TB, m *catalog.Matcher, src scanner.Source) *recCollected {
	t.Helper()
	c := &recCollected{}
	if _, err := scanner.Run(context.Background(), src, scanner.Options{
		Detectors: []scanner.Detector{NewCatalogDetector(m)}, FingerprintKey: m.FingerprintKey(), Workers: 3, Buffer: 2,
	}, c); err != nil {
		t.Fatal(err)
	}
	return c
}

// describe renders findings as "rule@line[<-rule@line][~severity]".
func describe(fs []*finding.Finding) string {
	var out []string
	for _, f := range fs {
		s := fmt.Sprintf("%s@%d", strings.TrimPrefix(f.RuleID, "catalog/"), f.Line)
		if f.Commit != "" || f.Kind == finding.KindCommitMessage {
			s = string(f.Kind) + ":" + s
		}
		if r := f.CorroboratedBy; r != nil {
			s += fmt.Sprintf("<-%s@%d", strings.TrimPrefix(r.RuleID, "catalog/"), r.Line)
		}
		if f.Uncorroborated {
			s += "~" + f.Severity.String()
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func blank(n int) []string { return make([]string, n) }

func TestRecordRulesScan(t *testing.T) {
	within3 := "corroborated-by = [\"email\", \"account\"]\nwithin = 3"
	lines := func(first int, at map[int]string, n int) []string {
		out := blank(n)
		for k, v := range at {
			out[k-first] = v
		}
		return out
	}
	for _, tc := range []struct {
		name, rec string
		src       fragSource
		want      string
		dropped   int
	}{
		{"fires within 3 lines", within3,
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, lines(1, map[int]string{1: "hi quilla_varnstedt", 4: "mail quilla.v@example.invalid"}, 4)...)},
			"CUST-NAME@1<-CUST-EMAIL@4 CUST-EMAIL@4", 0},
		{"silent at 4 lines", within3,
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, lines(1, map[int]string{1: "hi quilla_varnstedt", 5: "mail quilla.v@example.invalid"}, 5)...)},
			"CUST-EMAIL@5", 1},
		{"corroboration before the name", within3,
			fragSource{frag(finding.KindDiff, "a.txt", "", 10, lines(10, map[int]string{10: "quilla.v@example.invalid", 13: "Quilla Varnstedt"}, 4)...)},
			"CUST-EMAIL@10 CUST-NAME@13<-CUST-EMAIL@10", 0},
		{"same line", "corroborated-by = [\"email\"]\nwithin = 0",
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, "Maro Castellane <maro.two@example.invalid>")},
			"CUST-NAME@1<-CUST-EMAIL@1 CUST-EMAIL@1", 0},
		{"another row's email does not corroborate", within3,
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, "Quilla Varnstedt", "maro.one@example.invalid", "Maro Castellane", "quilla.v@example.invalid")},
			// Maro Castellane (rows 2 and 3) is not corroborated by quilla's
			// email (row 1), nor Quilla by maro.one (row 2); a common name's
			// rows are corroborated by either row's email (below).
			"CUST-NAME@1<-CUST-EMAIL@4 CUST-EMAIL@2 CUST-NAME@3<-CUST-EMAIL@2 CUST-EMAIL@4", 0},
		{"a common name and the other row's field", within3,
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, "Quilla Varnstedt", "ACCT-700003")},
			"", 1},
		{"a hidden column corroborates and is not reported", within3,
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, "MaroCastellane", "x", "ref ACCT-700002")},
			"CUST-NAME@1<-CUST-ACCT@3", 0},
		{"across fragments of one file", within3,
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, lines(1, map[int]string{100: "Quilla Varnstedt"}, 100)...),
				frag(finding.KindDiff, "a.txt", "", 101, "", "quilla.v@example.invalid")},
			"CUST-NAME@100<-CUST-EMAIL@102 CUST-EMAIL@102", 0},
		{"not across files", within3,
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, "Quilla Varnstedt"), frag(finding.KindDiff, "b.txt", "", 2, "quilla.v@example.invalid")},
			"CUST-EMAIL@2", 1},
		{"file window", "corroborated-by = [\"email\"]\nwithin = \"file\"",
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, lines(1, map[int]string{1: "Quilla Varnstedt", 900: "quilla.v@example.invalid"}, 900)...),
				frag(finding.KindDiff, "b.txt", "", 1, "Maro Castellane")},
			"CUST-NAME@1<-CUST-EMAIL@900 CUST-EMAIL@900", 1},
		{"commit message window", "corroborated-by = [\"email\"]\nwithin = \"file\"",
			fragSource{
				frag(finding.KindCommitMessage, "", "c1", 1, "Fix for Maro Castellane", "", "Reported at maro.one@example.invalid"),
				frag(finding.KindDiff, "a.txt", "c1", 1, "Quilla Varnstedt"),
				frag(finding.KindCommitMessage, "", "c2", 1, "quilla.v@example.invalid"),
			},
			"commit-message:CUST-NAME@1<-CUST-EMAIL@3 commit-message:CUST-EMAIL@3 commit-message:CUST-EMAIL@1", 1},
		{"note fallback", within3 + "\nuncorroborated = \"note\"",
			fragSource{frag(finding.KindDiff, "a.txt", "", 1, "Quilla Varnstedt", "x", "x", "x", "x", "Maro Castellane", "maro.two@example.invalid")},
			"CUST-NAME@1~note CUST-NAME@6<-CUST-EMAIL@7 CUST-EMAIL@7", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := runRecords(t, recordMatcher(t, tc.rec), tc.src)
			if got := describe(c.findings); got != tc.want {
				t.Errorf("findings\n got %s\nwant %s", got, tc.want)
			}
			if c.sum.Uncorroborated != tc.dropped {
				t.Errorf("dropped %d, want %d", c.sum.Uncorroborated, tc.dropped)
			}
		})
	}
}

// TestRecordRulesLongLine: the window is carried across the fragment
// boundary that a 16 MiB line makes in a streamed text.
func TestRecordRulesLongLine(t *testing.T) {
	long := strings.Repeat("padding ", 2<<20) + "Quilla Varnstedt"
	// Lines 2 and 5 are 16 MiB long, each a fragment of its own.
	text := "start\n" + long + "\nquilla.v@example.invalid\nx\n" + long + "\nx\nx\nquilla.v@example.invalid\n"
	c := runRecords(t, recordMatcher(t, "corroborated-by = [\"email\"]\nwithin = 1"), &scanner.TextSource{R: strings.NewReader(text)})
	if got, want := describe(c.findings), "CUST-NAME@2<-CUST-EMAIL@3 CUST-EMAIL@3 CUST-EMAIL@8"; got != want {
		t.Fatalf("findings\n got %s\nwant %s", got, want)
	}
	if c.sum.Uncorroborated != 1 {
		t.Fatalf("dropped %d", c.sum.Uncorroborated)
	}
}

// TestRecordRulesKeepFingerprints: a corroborated finding has the
// fingerprint the same match has without record rules, and findings of
// other rules are unchanged.
func TestRecordRulesKeepFingerprints(t *testing.T) {
	src := fragSource{frag(finding.KindDiff, "a.txt", "", 1, "Quilla Varnstedt", "quilla.v@example.invalid", "Maro Castellane")}
	plain := runRecords(t, recordMatcher(t, ""), src)
	rec := runRecords(t, recordMatcher(t, "corroborated-by = [\"email\"]\nwithin = 2\nuncorroborated = \"note\""), src)
	if len(plain.findings) != 3 || len(rec.findings) != 3 {
		t.Fatalf("%s / %s", describe(plain.findings), describe(rec.findings))
	}
	for i := range plain.findings {
		if plain.findings[i].Fingerprint != rec.findings[i].Fingerprint {
			t.Errorf("finding %d: fingerprint changed with record rules", i)
		}
	}
	if rec.findings[2].Severity != finding.SeverityNote || plain.findings[2].Severity != finding.SeverityError {
		t.Error("fallback severity")
	}
}
