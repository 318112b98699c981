package render

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/privscan/privscan/finding"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func sampleFindings() []*finding.Finding {
	return []*finding.Finding{
		{RuleID: "catalog/PER-001", Source: "catalog", Category: "person", Severity: finding.SeverityError, Kind: finding.KindDiff,
			Path: "internal/users/fixtures.go", Line: 42, Column: 17, EndColumn: 25, Column16: 17, EndColumn16: 25,
			Fingerprint: "00112233445566778899aabbccddeeff", Description: "Customer contact names"},
		{RuleID: "pii/email", Source: "pii", Category: "email", Severity: finding.SeverityWarning, Kind: finding.KindDiff,
			Path: "docs/Über uns, team|notes.md", Line: 3, Column: 5, EndColumn: 20, Fingerprint: "ffeeddccbbaa99887766554433221100",
			Description: "An email address.\nSecond line"},
		{RuleID: "catalog/CODE", Source: "catalog", Category: "codename", Severity: finding.SeverityNote, Kind: finding.KindCommitMessage,
			Commit: "0123456789abcdef0123456789abcdef01234567", Line: 1, Column: 9, EndColumn: 19, Fingerprint: "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"},
		{RuleID: "secret/github-pat", Source: "secret", Category: "secret", Severity: finding.SeverityError, Kind: finding.KindText,
			Line: 7, Column: 1, EndColumn: 41, Fingerprint: "abababababababababababababababab", Description: "GitHub token; 100% bad"},
	}
}

func sampleSummary() *finding.Summary {
	return &finding.Summary{Findings: 4, Suppressed: 2, FilesScanned: 3, LinesScanned: 120, CommitsScanned: 1,
		Skipped:      map[finding.Skip]int{finding.SkipBinary: 2},
		SuppressedBy: map[string]int{"inline": 1, "baseline": 1},
		BySeverity:   map[string]int{"error": 2, "warning": 1, "note": 1}}
}

func render(t *testing.T, h finding.Handler, fs []*finding.Finding, s *finding.Summary) []byte {
	t.Helper()
	for _, f := range fs {
		if err := h.Finding(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Summary(s); err != nil {
		t.Fatal(err)
	}
	return nil
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
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
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestGolden(t *testing.T) {
	empty := &finding.Summary{FilesScanned: 1, LinesScanned: 10, BySeverity: map[string]int{}}
	tests := []struct {
		name string
		make func(*bytes.Buffer) finding.Handler
	}{
		{"text", func(b *bytes.Buffer) finding.Handler { return NewText(b) }},
		{"text-color", func(b *bytes.Buffer) finding.Handler { t := NewText(b); t.Color = true; return t }},
		{"json", func(b *bytes.Buffer) finding.Handler { return NewJSON(b, ToolInfo{Name: "privscan", Version: "1.2.3"}) }},
		{"github", func(b *bytes.Buffer) finding.Handler { return NewGitHub(b) }},
		{"markdown", func(b *bytes.Buffer) finding.Handler { return NewMarkdown(b) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			render(t, tt.make(&b), sampleFindings(), sampleSummary())
			golden(t, tt.name+".golden", b.Bytes())
			var e bytes.Buffer
			render(t, tt.make(&e), nil, empty)
			golden(t, tt.name+"-empty.golden", e.Bytes())
		})
	}
}

// historyFindings are findings of a history scan: files in commits, a
// commit message, more than a handful (the per-rule table).
func historyFindings() []*finding.Finding {
	fs := sampleFindings()[:3]
	for i := 0; i < 4; i++ {
		fs = append(fs, &finding.Finding{RuleID: "pii/email", Source: "pii", Category: "email", Severity: finding.SeverityWarning, Kind: finding.KindDiff,
			Path: "svc/users.go", Commit: "89abcdef0123456789abcdef0123456789abcdef", Line: 10 + i, Column: 3, EndColumn: 20,
			Fingerprint: fmt.Sprintf("%032x", i+1)})
	}
	fs[0].Commit = "fedcba9876543210fedcba9876543210fedcba98"
	fs[0].Date = time.Date(2025, 12, 31, 23, 0, 0, 0, time.FixedZone("x", -3600))
	fs[1].Commit = "0123456789abcdef0123456789abcdef01234567"
	fs[1].Date = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fs[2].Date = fs[1].Date // the same commit's message
	return fs
}

// TestTextVariants pins the text renderer's optional parts: commit and
// date of history findings, fingerprints, the per-rule table, masked
// context lines.
func TestTextVariants(t *testing.T) {
	sum := &finding.Summary{Findings: 7, FilesScanned: 3, LinesScanned: 70, CommitsScanned: 3,
		BySeverity: map[string]int{"error": 1, "warning": 5, "note": 1}}
	tests := []struct {
		name string
		set  func(*Text)
	}{
		{"text-history", func(x *Text) { x.Commits = true }},
		{"text-fingerprints", func(x *Text) { x.Fingerprints = true }},
		{"text-context", func(x *Text) {
			x.Context = func(f *finding.Finding) (string, bool) {
				if f.Kind == finding.KindCommitMessage {
					return "", false
				}
				return fmt.Sprintf("contact := %q // line %d", "[email:1]", f.Line), true
			}
		}},
		{"text-quiet", func(x *Text) { x.Quiet = true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			x := NewText(&b)
			tt.set(x)
			render(t, x, historyFindings(), sum)
			golden(t, tt.name+".golden", b.Bytes())
		})
	}
}

// TestTextLineFlush checks that with LineFlush every finding reaches the
// writer whole before the next one is rendered.
func TestTextLineFlush(t *testing.T) {
	var b bytes.Buffer
	x := NewText(&b)
	x.LineFlush = true
	for i, f := range historyFindings() {
		if err := x.Finding(f); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(b.String(), "\n"); got != i+1 || !strings.HasSuffix(b.String(), "\n") {
			t.Fatalf("after finding %d the writer holds %d whole lines:\n%s", i+1, got, b.String())
		}
	}
}

func TestJSONShape(t *testing.T) {
	var b bytes.Buffer
	render(t, NewJSON(&b, ToolInfo{Name: "privscan", Version: "1"}), sampleFindings(), sampleSummary())
	var rep Report
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b.Bytes())
	}
	if rep.Version != 1 || len(rep.Findings) != 4 || rep.Summary.Findings != 4 || rep.Findings[0].Fingerprint == "" {
		t.Errorf("decoded report = %+v", rep)
	}
	var raw map[string]any
	json.Unmarshal(b.Bytes(), &raw)
	f0 := raw["findings"].([]any)[0].(map[string]any)
	want := []string{"ruleId", "source", "category", "severity", "kind", "path", "commit", "line", "column", "endColumn", "fingerprint"}
	if len(f0) != len(want) {
		t.Errorf("finding has keys %v, want exactly %v", f0, want)
	}
	for _, k := range want {
		if _, ok := f0[k]; !ok {
			t.Errorf("finding lacks %q", k)
		}
	}
	// an empty run has "findings": [] (not null)
	var e bytes.Buffer
	render(t, NewJSON(&e, ToolInfo{}), nil, &finding.Summary{})
	if !strings.Contains(e.String(), `"findings":[]`) {
		t.Errorf("empty report: %s", e.String())
	}
}

func TestGitHubCapsMostSevereFirst(t *testing.T) {
	var fs []*finding.Finding
	for i := 0; i < 15; i++ {
		fs = append(fs, &finding.Finding{RuleID: "pii/email", Source: "pii", Severity: finding.SeverityWarning, Kind: finding.KindDiff, Path: "a", Line: i + 1, Column: 1, EndColumn: 2})
	}
	for i := 0; i < 12; i++ {
		fs = append(fs, &finding.Finding{RuleID: "catalog/X", Source: "catalog", Severity: finding.SeverityError, Kind: finding.KindDiff, Path: "b", Line: i + 1, Column: 1, EndColumn: 2})
	}
	var b bytes.Buffer
	render(t, NewGitHub(&b), fs, &finding.Summary{})
	out := b.String()
	if n := strings.Count(out, "::error "); n != 10 {
		t.Errorf("%d error annotations, want 10", n)
	}
	if n := strings.Count(out, "::warning "); n != 10 {
		t.Errorf("%d warning annotations, want 10", n)
	}
	if !strings.HasPrefix(out, "::error ") {
		t.Error("errors are not annotated first")
	}
	if !strings.Contains(out, "7 more findings not annotated") {
		t.Errorf("no overflow notice:\n%s", out)
	}
}

func TestMarkdownBounded(t *testing.T) {
	var fs []*finding.Finding
	for i := 0; i < 5000; i++ {
		fs = append(fs, &finding.Finding{RuleID: "catalog/X", Source: "catalog", Category: "person", Severity: finding.SeverityError, Kind: finding.KindDiff, Path: strings.Repeat("p", 200), Line: i + 1, Column: 1})
	}
	var b bytes.Buffer
	m := NewMarkdown(&b)
	m.MaxRows = 100000
	m.MaxBytes = 64 << 10
	render(t, m, fs, &finding.Summary{Findings: 5000, BySeverity: map[string]int{"error": 5000}})
	if b.Len() > 64<<10 {
		t.Errorf("summary is %d bytes, cap 64 KiB", b.Len())
	}
	if !strings.Contains(b.String(), "more findings not listed") {
		t.Error("no truncation note")
	}
}

// TestRecordRuleFindings: a corroborated record rule's finding names the
// corroborating rule and location in JSON (corroboratedBy) and text; an
// uncorroborated one reported at note says so.
func TestRecordRuleFindings(t *testing.T) {
	fs := []*finding.Finding{
		{RuleID: "catalog/CUST-NAME", Source: "catalog", Category: "person", Severity: finding.SeverityError, Kind: finding.KindDiff,
			Path: "a.txt", Line: 4, Column: 1, EndColumn: 16, Fingerprint: "00112233445566778899aabbccddeeff",
			CorroboratedBy: &finding.Related{RuleID: "catalog/CUST-EMAIL", Path: "a.txt", Line: 6, Column: 2, EndColumn: 26}},
		{RuleID: "catalog/CUST-NAME", Source: "catalog", Category: "person", Severity: finding.SeverityNote, Kind: finding.KindDiff,
			Path: "a.txt", Line: 40, Column: 1, EndColumn: 16, Fingerprint: "ffeeddccbbaa99887766554433221100", Uncorroborated: true},
	}
	var b bytes.Buffer
	render(t, NewJSON(&b, ToolInfo{Name: "privscan", Version: "1"}), fs, &finding.Summary{Findings: 2, Uncorroborated: 3})
	want := `"corroboratedBy":{"ruleId":"catalog/CUST-EMAIL","path":"a.txt","commit":"","line":6,"column":2,"endColumn":26}`
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), `"uncorroborated":true`) || !strings.Contains(b.String(), `"uncorroborated":3`) {
		t.Errorf("JSON lacks the record rule fields:\n%s", b.String())
	}
	var tx bytes.Buffer
	render(t, NewText(&tx), fs, &finding.Summary{Findings: 2})
	if !strings.Contains(tx.String(), "(same record as catalog/CUST-EMAIL at line 6)") || !strings.Contains(tx.String(), "(uncorroborated)") {
		t.Errorf("text lacks the record rule notes:\n%s", tx.String())
	}
}
