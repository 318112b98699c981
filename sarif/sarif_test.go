package sarif

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	gosarif "github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/sarifcheck"
	"github.com/privscan/privscan/internal/textpos"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// schemaPath is the OASIS SARIF 2.1.0 schema kept in the repository.
const schemaPath = "../testdata/schemas/sarif-schema-2.1.0.json"

// validate checks doc against the schema and GitHub's rules.
func validate(t *testing.T, doc []byte) {
	t.Helper()
	v, err := validator()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(doc); err != nil {
		t.Fatalf("invalid SARIF:\n%v", err)
	}
}

// validator compiles the schema once for all tests.
var validator = sync.OnceValues(func() (*sarifcheck.Validator, error) {
	return sarifcheck.NewValidator(schemaPath)
})

const (
	commitA = "0123456789abcdef0123456789abcdef01234567"
	fpA     = "9f86d081884c7d659a2feaa0c55ad015"
)

func catalogFinding(id, cat string, sev finding.Severity, path string, line, col, end int) finding.Finding {
	return finding.Finding{
		RuleID: "catalog/" + id, Source: "catalog", Category: cat, Severity: sev,
		Kind: finding.KindDiff, Path: path, Line: line,
		Column: col, EndColumn: end, Column16: col, EndColumn16: end,
		Fingerprint: fp(id, path, line), Description: "Customer and colleague names",
	}
}

func fp(parts ...any) string {
	b, _ := json.Marshal(parts)
	const hex = "0123456789abcdef"
	var h uint64 = 1469598103934665603
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	out := make([]byte, 16)
	for i := range out {
		out[i] = hex[h>>(4*uint(i))&0xf]
	}
	return string(out)
}

func mixedFindings() []finding.Finding {
	return []finding.Finding{
		{RuleID: "secret/aws-access-token", Source: "secret", Category: "secret", Severity: finding.SeverityError,
			Kind: finding.KindDiff, Path: "deploy/config.yaml", Line: 12, Column: 15, EndColumn: 35, Column16: 15, EndColumn16: 35,
			Fingerprint: fp("aws", 12), Description: "AWS access key ID"},
		catalogFinding("PER-001", "person", finding.SeverityError, "internal/users/fixtures.go", 42, 17, 25),
		{RuleID: "pii/email", Source: "pii", Category: "contact", Severity: finding.SeverityWarning,
			Kind: finding.KindFile, Path: "README.md", Line: 3, Column: 9, EndColumn: 30, Column16: 9, EndColumn16: 30,
			Fingerprint: fp("email", 3), Description: "E-mail address"},
		catalogFinding("PER-001", "person", finding.SeverityError, "internal/users/fixtures.go", 43, 5, 13),
		{RuleID: "pii/ip-address", Source: "pii", Category: "network", Severity: finding.SeverityNote,
			Kind: finding.KindDiff, Path: "docs/net.md", Line: 7, Column: 1, EndColumn: 12, Column16: 1, EndColumn16: 12,
			Fingerprint: fp("ip", 7), Description: "IPv4 or IPv6 address"},
		{RuleID: "pii/credit-card", Source: "pii", Category: "financial", Severity: finding.SeverityError,
			Kind: finding.KindDiff, Path: "testdata/orders.csv", Line: 2, Column: 20, EndColumn: 39, Column16: 20, EndColumn16: 39,
			Fingerprint: fp("cc", 2), Description: "Payment card number (Luhn-valid)"},
	}
}

func messageFindings() []finding.Finding {
	return []finding.Finding{
		{RuleID: "catalog/PROJ-ZEPHYR", Source: "catalog", Category: "codename", Severity: finding.SeverityError,
			Kind: finding.KindCommitMessage, Commit: commitA, Line: 1, Column: 8, EndColumn: 14, Column16: 8, EndColumn16: 14,
			Fingerprint: fp("zephyr", commitA), Description: "Unreleased project codenames"},
		{RuleID: "pii/phone", Source: "pii", Category: "contact", Severity: finding.SeverityWarning,
			Kind: finding.KindText, Line: 4, Column: 3, EndColumn: 15, Column16: 3, EndColumn16: 15,
			Fingerprint: fp("phone", 4), Description: "Phone number"},
	}
}

// unicodeFindings has a path with a space and non-ASCII letters and a
// match after an emoji (two UTF-16 code units, one code point).
func unicodeFindings(t testing.TB) []finding.Finding {
	line := []byte("// 👋 Grüße an Jürgen Müller")
	start := bytes.Index(line, []byte("Jürgen"))
	span := textpos.Columns(line, start, start+len("Jürgen Müller"))
	if span.Column16 != span.Column+1 {
		t.Fatalf("test setup: emoji should add one UTF-16 unit: %+v", span)
	}
	return []finding.Finding{{
		RuleID: "catalog/PER-002", Source: "catalog", Category: "person", Severity: finding.SeverityError,
		Kind: finding.KindDiff, Path: "docs/Über uns/team notes.md", Line: 9,
		Column: span.Column, EndColumn: span.EndColumn, Column16: span.Column16, EndColumn16: span.EndColumn16,
		Fingerprint: fp("per2", 9), Description: "Colleague names",
	}}
}

func truncationFindings() []finding.Finding {
	sevs := []finding.Severity{finding.SeverityNote, finding.SeverityWarning, finding.SeverityError,
		finding.SeverityNote, finding.SeverityError, finding.SeverityWarning, finding.SeverityError}
	var fs []finding.Finding
	for i, s := range sevs {
		f := catalogFinding("SEV-"+s.String(), "test", s, "src/app.go", i+1, 1, 5)
		fs = append(fs, f)
	}
	return fs
}

func summaryFor(fs []finding.Finding) *finding.Summary {
	return &finding.Summary{
		Findings: len(fs), Suppressed: 2, FilesScanned: 4, LinesScanned: 120, CommitsScanned: 1,
		Skipped:      map[finding.Skip]int{finding.SkipBinary: 1},
		SuppressedBy: map[string]int{"inline": 1, "ignore-file": 1},
	}
}

func render(t testing.TB, opts Options, fs []finding.Finding, s *finding.Summary) []byte {
	t.Helper()
	var buf bytes.Buffer
	h := NewHandler(&buf, opts)
	for i := range fs {
		if err := h.Finding(&fs[i]); err != nil {
			t.Fatalf("Finding %d: %v", i, err)
		}
	}
	if err := h.Summary(s); err != nil {
		t.Fatalf("Summary: %v", err)
	}
	return buf.Bytes()
}

// sarifLog is the part of the output the tests inspect.
type sarifLog struct {
	Schema string `json:"$schema"`
	Runs   []struct {
		Tool struct {
			Driver struct {
				Name            string `json:"name"`
				Version         string `json:"version"`
				SemanticVersion string `json:"semanticVersion"`
				Rules           []struct {
					ID                   string `json:"id"`
					Name                 string `json:"name"`
					DefaultConfiguration struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
					Help struct {
						Text, Markdown string
					} `json:"help"`
					Properties struct {
						Tags             []string `json:"tags"`
						Precision        string   `json:"precision"`
						SecuritySeverity string   `json:"security-severity"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		AutomationDetails *struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		ColumnKind string         `json:"columnKind"`
		Properties map[string]any `json:"properties"`
		Results    []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
						EndColumn   int `json:"endColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

func decode(t testing.TB, doc []byte) sarifLog {
	t.Helper()
	var l sarifLog
	if err := json.Unmarshal(doc, &l); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if len(l.Runs) != 1 {
		t.Fatalf("want one run, got %d", len(l.Runs))
	}
	return l
}

type goldenCase struct {
	name     string
	opts     Options
	findings func(testing.TB) []finding.Finding
	policy   bool // the change edits its policy
}

// underReviewFindings: one finding that only a marker added by the change
// suppresses, beside an ordinary one.
func underReviewFindings() []finding.Finding {
	fs := mixedFindings()[:2]
	fs[1].Suppressed = finding.SuppressInlineAdded
	return fs
}

// recordFindings: a record rule's match corroborated by a match of the
// same record two lines below, and one reported at note uncorroborated.
func recordFindings() []finding.Finding {
	fs := mixedFindings()[:1]
	f := fs[0]
	f.RuleID, f.Source, f.Category = "catalog/CUST-NAME", finding.SourceCatalog, "person"
	f.CorroboratedBy = &finding.Related{RuleID: "catalog/CUST-EMAIL", Path: f.Path, Commit: f.Commit, Line: f.Line + 2,
		Column: 3, EndColumn: 27, Column16: 3, EndColumn16: 27}
	g := f
	g.CorroboratedBy, g.Uncorroborated, g.Severity, g.Line, g.Fingerprint = nil, true, finding.SeverityNote, f.Line+40, "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	return []finding.Finding{f, g}
}

func goldenCases() []goldenCase {
	base := Options{ToolVersion: "v1.2.3"}
	return []goldenCase{
		{"empty", base, func(testing.TB) []finding.Finding { return nil }, false},
		{"mixed", Options{ToolVersion: "1.2.3-rc.1", Category: "privscan"}, func(testing.TB) []finding.Finding { return mixedFindings() }, false},
		{"commit-message", base, func(testing.TB) []finding.Finding { return messageFindings() }, false},
		{"unicode", base, unicodeFindings, false},
		{"truncated", Options{ToolVersion: "dev", Category: "privacy/", MaxResults: 4}, func(testing.TB) []finding.Finding { return truncationFindings() }, false},
		{"under-review", base, func(testing.TB) []finding.Finding { return underReviewFindings() }, true},
		{"record-rules", base, func(testing.TB) []finding.Finding { return recordFindings() }, false},
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			fs := tc.findings(t)
			sum := summaryFor(fs)
			sum.PolicyChanged = tc.policy
			got := render(t, tc.opts, fs, sum)
			validate(t, got)
			again := render(t, tc.opts, fs, sum)
			if !bytes.Equal(got, again) {
				t.Fatal("output is not deterministic")
			}
			path := filepath.Join("testdata", tc.name+".sarif")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run go test -update to accept):\n%s", path, got)
			}
		})
	}
}

// TestGoldenFilesValid validates the committed golden files themselves.
func TestGoldenFilesValid(t *testing.T) {
	files, err := filepath.Glob("testdata/*.sarif")
	if err != nil || len(files) < len(goldenCases()) {
		t.Fatalf("want %d golden files, got %v (%v)", len(goldenCases()), files, err)
	}
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { validate(t, doc) })
	}
}

func TestEmptyRun(t *testing.T) {
	doc := render(t, Options{}, nil, nil)
	validate(t, doc)
	for _, want := range []string{`"results": []`, `"rules": []`, `"columnKind": "utf16CodeUnits"`, `"executionSuccessful": true`} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("empty run lacks %s", want)
		}
	}
	if bytes.Contains(doc, []byte("null")) {
		t.Error("empty run contains null")
	}
	l := decode(t, doc)
	d := l.Runs[0].Tool.Driver
	if d.Name != "privscan" || d.Version != "" || l.Runs[0].AutomationDetails != nil {
		t.Errorf("driver/automation: %+v %+v", d, l.Runs[0].AutomationDetails)
	}
}

func TestMixed(t *testing.T) {
	fs := mixedFindings()
	doc := render(t, Options{ToolVersion: "v2.0.0", Category: "privscan"}, fs, summaryFor(fs))
	validate(t, doc)
	l := decode(t, doc)
	run := l.Runs[0]
	d := run.Tool.Driver
	if d.Version != "v2.0.0" || d.SemanticVersion != "2.0.0" {
		t.Errorf("version %q semanticVersion %q", d.Version, d.SemanticVersion)
	}
	if run.AutomationDetails == nil || run.AutomationDetails.ID != "privscan/" {
		t.Errorf("automationDetails: %+v", run.AutomationDetails)
	}
	wantRules := []string{"catalog/PER-001", "pii/credit-card", "pii/email", "pii/ip-address", "secret/aws-access-token"}
	if len(d.Rules) != len(wantRules) {
		t.Fatalf("rules: got %d, want %d", len(d.Rules), len(wantRules))
	}
	type meta struct{ level, sev, prec string }
	wantMeta := map[string]meta{
		"catalog/PER-001":         {"error", "8.0", "high"},
		"pii/credit-card":         {"error", "8.0", "high"},
		"pii/email":               {"warning", "5.0", "medium"},
		"pii/ip-address":          {"note", "2.0", "low"},
		"secret/aws-access-token": {"error", "8.0", "high"},
	}
	for i, r := range d.Rules {
		if r.ID != wantRules[i] {
			t.Errorf("rule %d: %s, want %s (sorted by ID)", i, r.ID, wantRules[i])
		}
		m := wantMeta[r.ID]
		if r.DefaultConfiguration.Level != m.level || r.Properties.SecuritySeverity != m.sev || r.Properties.Precision != m.prec {
			t.Errorf("%s: level %s severity %s precision %s, want %+v", r.ID, r.DefaultConfiguration.Level, r.Properties.SecuritySeverity, r.Properties.Precision, m)
		}
		if !strings.Contains(r.Help.Text, "privscan:allow "+r.ID) || !strings.Contains(r.Help.Markdown, ".privscanignore") {
			t.Errorf("%s: help lacks suppression advice", r.ID)
		}
		rotate := strings.Contains(r.Help.Text, "Rotate the secret")
		if rotate != strings.HasPrefix(r.ID, "secret/") {
			t.Errorf("%s: rotation advice present = %v", r.ID, rotate)
		}
		if !strings.Contains(r.Help.Text, "synthetic data") && !strings.HasPrefix(r.ID, "secret/") {
			t.Errorf("%s: help lacks synthetic-data advice", r.ID)
		}
	}
	if d.Rules[0].Name != "CatalogPer001" || d.Rules[4].Name != "SecretAwsAccessToken" {
		t.Errorf("names: %s, %s", d.Rules[0].Name, d.Rules[4].Name)
	}
	if len(run.Results) != len(fs) {
		t.Fatalf("results: %d, want %d", len(run.Results), len(fs))
	}
	msgRE := regexp.MustCompile(`^(Catalog rule|PII detector|Secret rule) [A-Za-z0-9-]+ \([a-z]+\) matched here; the value is withheld\.$`)
	for i, r := range run.Results {
		f := fs[i]
		if r.RuleID != f.RuleID || d.Rules[r.RuleIndex].ID != f.RuleID || r.Level != f.Severity.String() {
			t.Errorf("result %d: %s/%d/%s for %s", i, r.RuleID, r.RuleIndex, r.Level, f.RuleID)
		}
		if !msgRE.MatchString(r.Message.Text) {
			t.Errorf("result %d: message %q", i, r.Message.Text)
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != f.Path || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("result %d: location %+v", i, loc.ArtifactLocation)
		}
		if loc.Region.StartLine != f.Line || loc.Region.StartColumn != f.Column16 || loc.Region.EndColumn != f.EndColumn16 {
			t.Errorf("result %d: region %+v", i, loc.Region)
		}
		if r.PartialFingerprints[FingerprintKey] != f.Fingerprint {
			t.Errorf("result %d: partialFingerprints %v", i, r.PartialFingerprints)
		}
	}
	p := run.Properties
	if p["privscan/truncated"] != false || p["privscan/totalFindings"] != float64(len(fs)) || p["privscan/suppressedFindings"] != float64(2) {
		t.Errorf("run properties: %v", p)
	}
}

// TestRuleIndexStreamOrder covers go-sarif's ruleIndex trap: the first
// finding's rule sorts last.
func TestRuleIndexStreamOrder(t *testing.T) {
	fs := []finding.Finding{
		catalogFinding("ZZZ", "z", finding.SeverityError, "a.go", 1, 1, 2),
		catalogFinding("AAA", "a", finding.SeverityError, "a.go", 2, 1, 2),
		catalogFinding("ZZZ", "z", finding.SeverityError, "a.go", 3, 1, 2),
	}
	doc := render(t, Options{}, fs, nil)
	validate(t, doc)
	if bytes.Contains(doc, []byte("18446744073709551615")) {
		t.Fatal("uint(-1) ruleIndex in output")
	}
	l := decode(t, doc)
	got := []int{l.Runs[0].Results[0].RuleIndex, l.Runs[0].Results[1].RuleIndex, l.Runs[0].Results[2].RuleIndex}
	if got[0] != 1 || got[1] != 0 || got[2] != 1 {
		t.Errorf("ruleIndex: %v, want [1 0 1]", got)
	}
}

func TestMessages(t *testing.T) {
	fs := messageFindings()
	fs = append(fs, finding.Finding{RuleID: "pii/email", Source: "pii", Category: "contact", Severity: finding.SeverityWarning,
		Kind: finding.KindText, Path: "pr-body.md", Line: 2, Column16: 1, EndColumn16: 5, Fingerprint: "x"})
	doc := render(t, Options{}, fs, nil)
	validate(t, doc)
	l := decode(t, doc)
	want := []struct{ uri, msg string }{
		{".git/privscan/commit/" + commitA, "Catalog rule PROJ-ZEPHYR (codename) matched in the message of commit 0123456789ab, line 1; the value is withheld."},
		{".git/privscan/text", "PII detector phone (contact) matched in the scanned text, line 4; the value is withheld."},
		{"pr-body.md", "PII detector email (contact) matched here; the value is withheld."},
	}
	for i, w := range want {
		r := l.Runs[0].Results[i]
		if u := r.Locations[0].PhysicalLocation.ArtifactLocation.URI; u != w.uri {
			t.Errorf("result %d: uri %q, want %q", i, u, w.uri)
		}
		if r.Message.Text != w.msg {
			t.Errorf("result %d: message %q, want %q", i, r.Message.Text, w.msg)
		}
	}
}

func TestUnicodePathAndColumns(t *testing.T) {
	fs := unicodeFindings(t)
	doc := render(t, Options{}, fs, nil)
	validate(t, doc)
	r := decode(t, doc).Runs[0].Results[0]
	loc := r.Locations[0].PhysicalLocation
	if want := "docs/%C3%9Cber%20uns/team%20notes.md"; loc.ArtifactLocation.URI != want {
		t.Errorf("uri %q, want %q", loc.ArtifactLocation.URI, want)
	}
	// "// 👋 Grüße an " is 14 code points and 15 UTF-16 units; the match
	// ("Jürgen Müller", 13 units) starts at UTF-16 column 16.
	if loc.Region.StartColumn != 16 || loc.Region.EndColumn != 29 {
		t.Errorf("region %+v, want columns 16..29", loc.Region)
	}
	if fs[0].Column != 15 {
		t.Errorf("test setup: code-point column %d, want 15", fs[0].Column)
	}
}

func TestTruncation(t *testing.T) {
	fs := truncationFindings()
	var warnings []string
	opts := Options{MaxResults: 4, Warn: func(m string) { warnings = append(warnings, m) }}
	doc := render(t, opts, fs, summaryFor(fs))
	validate(t, doc)
	run := decode(t, doc).Runs[0]
	// Three errors (lines 3, 5, 7) and the first warning (line 2), in stream order.
	var lines []int
	for _, r := range run.Results {
		lines = append(lines, r.Locations[0].PhysicalLocation.Region.StartLine)
	}
	if want := []int{2, 3, 5, 7}; !equalInts(lines, want) {
		t.Errorf("kept lines %v, want %v", lines, want)
	}
	for _, r := range run.Tool.Driver.Rules {
		if r.ID == "catalog/SEV-note" {
			t.Error("rule of a dropped result is listed")
		}
	}
	p := run.Properties
	if p["privscan/truncated"] != true || p["privscan/totalFindings"] != float64(7) || p["privscan/reportedFindings"] != float64(4) {
		t.Errorf("run properties: %v", p)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "4 of 7") {
		t.Errorf("warnings: %q", warnings)
	}

	warnings = nil
	render(t, Options{MaxResults: 7, Warn: func(m string) { warnings = append(warnings, m) }}, fs, nil)
	if len(warnings) != 0 {
		t.Errorf("warned without truncation: %q", warnings)
	}
}

func TestMaxResultsDefault(t *testing.T) {
	for _, n := range []int{0, -1, 1_000_000} {
		if got := NewHandler(nil, Options{MaxResults: n}).opts.MaxResults; got != DefaultMaxResults {
			t.Errorf("MaxResults %d: got %d", n, got)
		}
	}
}

func TestDefaultLimitTruncates(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large single-goroutine output; skipped with -short and -race")
	}
	n := DefaultMaxResults + 10
	fs := make([]finding.Finding, n)
	for i := range fs {
		fs[i] = catalogFinding("BULK", "bulk", finding.SeverityWarning, "gen/data.txt", i+1, 1, 4)
		fs[i].Fingerprint = fp(i)
	}
	warned := false
	doc := render(t, Options{Warn: func(string) { warned = true }}, fs, nil)
	if err := sarifcheck.Check(doc); err != nil {
		t.Fatal(err)
	}
	if got := len(decode(t, doc).Runs[0].Results); got != DefaultMaxResults || !warned {
		t.Errorf("results %d (warned %v), want %d", got, warned, DefaultMaxResults)
	}
}

// TestGzipLimit lowers the compressed-size limit so that the results must
// be halved, and checks the halving is deterministic and sufficient.
func TestGzipLimit(t *testing.T) {
	fs := make([]finding.Finding, 256)
	for i := range fs {
		fs[i] = catalogFinding("BULK", "bulk", finding.SeverityWarning, "gen/"+fp(i, "p")+".txt", i+1, 1, 4)
		fs[i].Fingerprint = fp(i, "f")
	}
	run := func(limit int) ([]byte, []string) {
		var buf bytes.Buffer
		var warnings []string
		h := NewHandler(&buf, Options{Warn: func(m string) { warnings = append(warnings, m) }})
		h.maxGzip = limit
		for i := range fs {
			if err := h.Finding(&fs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := h.Summary(nil); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), warnings
	}
	full, _ := run(MaxUploadBytes)
	fullSize := gz(t, full)
	limit := fullSize * 2 / 5
	doc, warnings := run(limit)
	validate(t, doc)
	if s := gz(t, doc); s > limit {
		t.Fatalf("compressed size %d > limit %d", s, limit)
	}
	got := len(decode(t, doc).Runs[0].Results)
	if got == 0 || got >= len(fs) || len(fs)%got != 0 || (len(fs)/got)&(len(fs)/got-1) != 0 {
		t.Errorf("kept %d of %d results; want a halving", got, len(fs))
	}
	if len(warnings) != 1 {
		t.Errorf("warnings: %q", warnings)
	}
	again, _ := run(limit)
	if !bytes.Equal(doc, again) {
		t.Error("halving is not deterministic")
	}
	// A limit nothing fits keeps zero results but still writes a valid log.
	doc, _ = run(1)
	validate(t, doc)
	if n := len(decode(t, doc).Runs[0].Results); n != 0 {
		t.Errorf("kept %d results under an impossible limit", n)
	}
}

func gz(t *testing.T, b []byte) int {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Len()
}

func TestFindingErrors(t *testing.T) {
	good := catalogFinding("PER-001", "person", finding.SeverityError, "a.go", 1, 1, 2)
	cases := []struct {
		name string
		mut  func(*finding.Finding)
	}{
		{"no rule", func(f *finding.Finding) { f.RuleID = "" }},
		{"zero severity", func(f *finding.Finding) { f.Severity = 0 }},
		{"unknown severity", func(f *finding.Finding) { f.Severity = 9 }},
		{"line 0", func(f *finding.Finding) { f.Line = 0 }},
		{"no fingerprint", func(f *finding.Finding) { f.Fingerprint = "" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := good
			tc.mut(&f)
			h := NewHandler(&bytes.Buffer{}, Options{})
			if err := h.Finding(&f); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	h := NewHandler(&bytes.Buffer{}, Options{})
	if err := h.Finding(nil); err == nil {
		t.Error("nil finding accepted")
	}
	if err := h.Summary(nil); err != nil {
		t.Fatal(err)
	}
	if err := h.Finding(&good); err == nil {
		t.Error("finding after summary accepted")
	}
	if err := h.Summary(nil); err == nil {
		t.Error("second summary accepted")
	}
}

// TestFindingCopied: the handler must not alias the caller's finding.
func TestFindingCopied(t *testing.T) {
	f := catalogFinding("PER-001", "person", finding.SeverityError, "a.go", 1, 1, 2)
	var buf bytes.Buffer
	h := NewHandler(&buf, Options{})
	if err := h.Finding(&f); err != nil {
		t.Fatal(err)
	}
	f.Path = "changed.go"
	if err := h.Summary(nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"a.go"`)) || bytes.Contains(buf.Bytes(), []byte("changed.go")) {
		t.Error("handler aliased the finding")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	h := NewHandler(failWriter{}, Options{})
	if err := h.Summary(nil); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("got %v", err)
	}
}

func TestSemanticVersion(t *testing.T) {
	cases := map[string]string{
		"v1.2.3": "1.2.3", "1.2.3": "1.2.3", "v1.2.3-rc.1+abc": "1.2.3-rc.1+abc",
		"dev": "", "(devel)": "", "v1.2": "", "01.2.3": "",
	}
	for v, want := range cases {
		l := decode(t, render(t, Options{ToolVersion: v}, nil, nil))
		if got := l.Runs[0].Tool.Driver.SemanticVersion; got != want {
			t.Errorf("%q: semanticVersion %q, want %q", v, got, want)
		}
	}
}

func TestRuleName(t *testing.T) {
	cases := map[string]string{
		"catalog/PER-001":          "CatalogPer001",
		"pii/credit-card":          "PiiCreditCard",
		"secret/aws-access-token":  "SecretAwsAccessToken",
		"secret/generic_api_key":   "SecretGenericApiKey",
		"catalog/ÄÖ":               "Catalog",
		"///":                      "PrivscanRule",
		"catalog/mixedCase.Rule_2": "CatalogMixedcaseRule2",
	}
	for in, want := range cases {
		if got := ruleName(in); got != want {
			t.Errorf("ruleName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTags(t *testing.T) {
	cases := []struct {
		source, category string
		want             []string
	}{
		{"catalog", "person", []string{"privacy", "security", "catalog", "person", "external/cwe/cwe-359"}},
		{"secret", "secret", []string{"privacy", "security", "secret", "external/cwe/cwe-798"}},
		{"pii", "Privacy", []string{"privacy", "security", "pii", "external/cwe/cwe-359"}},
		{"other", "", []string{"privacy", "security", "other"}},
	}
	for _, tc := range cases {
		if got := tags(tc.source, tc.category); !equalStrings(got, tc.want) {
			t.Errorf("tags(%q, %q) = %v, want %v", tc.source, tc.category, got, tc.want)
		}
	}
}

func TestEncodePath(t *testing.T) {
	cases := map[string]string{
		"src/main.go":         "src/main.go",
		"a b/c d.txt":         "a%20b/c%20d.txt",
		"docs/Über/ü.md":      "docs/%C3%9Cber/%C3%BC.md",
		"100%/x":              "100%25/x",
		"c:/x":                "c%3A/x",
		"/abs/path":           "abs/path",
		"q?x#y[z]":            "q%3Fx%23y%5Bz%5D",
		"tab\there":           "tab%09here",
		"back\\slash":         "back%5Cslash",
		"a+b=c;d,e!f'(g)*~@h": "a+b=c;d,e!f'(g)*~@h",
		"😀.txt":               "%F0%9F%98%80.txt",
	}
	for in, want := range cases {
		if got := encodePath(in); got != want {
			t.Errorf("encodePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNaiveGoSarifRejected shows that the validator used above catches the
// go-sarif traps this package works around: a result added before its
// rule (ruleIndex uint(-1)) and a rule without a short description.
func TestNaiveGoSarifRejected(t *testing.T) {
	report, err := gosarif.New(gosarif.Version210)
	if err != nil {
		t.Fatal(err)
	}
	run := gosarif.NewRunWithInformationURI("privscan", DefaultInformationURI)
	run.CreateResultForRule("catalog/A").WithMessage(gosarif.NewTextMessage("m"))
	run.AddRule("catalog/A")
	report.AddRun(run)
	var buf bytes.Buffer
	if err := report.PrettyWrite(&buf); err != nil {
		t.Fatal(err)
	}
	doc := buf.Bytes()
	if !bytes.Contains(doc, []byte("18446744073709551615")) || !bytes.Contains(doc, []byte(`"shortDescription": null`)) {
		t.Fatalf("go-sarif no longer shows the traps; revisit the workarounds:\n%s", doc)
	}
	err = sarifcheck.Check(doc)
	if err == nil {
		t.Fatal("naive go-sarif output accepted")
	}
	for _, want := range []string{"ruleIndex", "shortDescription", "null"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
	v, verr := validator()
	if verr != nil {
		t.Fatal(verr)
	}
	if err := v.Validate(doc); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("schema accepted naive output: %v", err)
	}
}
