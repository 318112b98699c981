package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

type fpCollect map[string]string

func (c fpCollect) Finding(f *finding.Finding) error { c[f.RuleID] = f.Fingerprint; return nil }
func (c fpCollect) Summary(*finding.Summary) error   { return nil }

func parseCompile(t *testing.T, src string) *catalog.Matcher {
	t.Helper()
	c, err := catalog.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fingerprints scans text with m (its FingerprintKey for Options, as the
// engine does) and returns the fingerprint of each rule's finding.
func fingerprints(t *testing.T, m *catalog.Matcher, text string) map[string]string {
	t.Helper()
	out := fpCollect{}
	opts := scanner.Options{Detectors: []scanner.Detector{NewCatalogDetector(m)}, FingerprintKey: m.FingerprintKey()}
	src := &scanner.TextSource{R: strings.NewReader(text), Path: "a.txt"}
	if _, err := scanner.Run(context.Background(), src, opts, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCombinedCatalogKeepsEachCatalogsFingerprints: adding a second
// catalog does not change the fingerprints of the first catalog's
// findings, and a rule of the second keeps its own catalog's key.
func TestCombinedCatalogKeepsEachCatalogsFingerprints(t *testing.T) {
	a := parseCompile(t, "- fingerprint-key: "+hex64('a')+"\n\n## A-1\n- category: person\n\n```values\nJane Doe\n```\n")
	b := parseCompile(t, "## B-1\n- category: host\n\n```values\nbuild.internal\n```\n")
	const text = "ping Jane Doe at build.internal\nJane Doe again\n"
	alone := fingerprints(t, a, text)
	aloneB := fingerprints(t, b, text)
	for _, order := range [][]*catalog.Matcher{{a, b}, {b, a}} {
		m, err := catalog.Combine(order...)
		if err != nil {
			t.Fatal(err)
		}
		got := fingerprints(t, m, text)
		if len(got) != 2 || got["catalog/A-1"] != alone["catalog/A-1"] || got["catalog/B-1"] != aloneB["catalog/B-1"] {
			t.Fatalf("combined %v, alone %v and %v", got, alone, aloneB)
		}
	}
	if alone["catalog/A-1"] == "" || aloneB["catalog/B-1"] == "" {
		t.Fatal("no findings")
	}
}

func hex64(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return string(b)
}
