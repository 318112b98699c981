package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/config"
	"github.com/privscan/privscan/scanner"
)

type collect struct{ rules []string }

func (c *collect) Finding(f *finding.Finding) error { c.rules = append(c.rules, f.RuleID); return nil }
func (c *collect) Summary(*finding.Summary) error   { return nil }

func matcher(t *testing.T) *catalog.Matcher {
	t.Helper()
	c, err := catalog.Parse([]byte("## P\n- category: person\n\n```values\nZelda Quartermaine\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOptionsDetectors: the repository's [detectors] choose the built-in
// detectors; processor test card numbers are skipped unless asked for.
func TestOptionsDetectors(t *testing.T) {
	text := "card 4111 1111 1111 1111 for Zelda Quartermaine, real-looking 4539 1488 0343 6467"
	cases := []struct {
		name string
		det  map[string]bool
		want string
	}{
		{"defaults: test cards skipped", nil, "[catalog/P pii/credit-card]"},
		{"test cards asked for", map[string]bool{"credit-card-test-numbers": true}, "[catalog/P pii/credit-card pii/credit-card]"},
		{"credit-card off", map[string]bool{"credit-card": false}, "[catalog/P]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts, err := options(settings{matcher: matcher(t), repo: &config.Repo{Detectors: c.det}})
			if err != nil {
				t.Fatal(err)
			}
			var got collect
			if _, err := scanner.Run(context.Background(), &scanner.TextSource{R: stringsReader(text)}, opts, &got); err != nil {
				t.Fatal(err)
			}
			if s := fmtRules(got.rules); s != c.want {
				t.Errorf("rules %s, want %s", s, c.want)
			}
		})
	}
	if _, err := options(settings{}); err == nil {
		t.Error("Options without a catalog: no error")
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

func fmtRules(r []string) string {
	sort.Strings(r)
	return fmt.Sprint(r)
}

// TestRedactorCatalogError: a catalog that cannot be opened is the
// Redactor's error (a redactor has no target and reads no repository).
func TestRedactorCatalogError(t *testing.T) {
	e := New(Config{Getenv: func(string) string { return "" }})
	if _, err := e.Redactor(Request{}); err == nil {
		t.Fatal("Redactor without any catalog: no error")
	}
}
