package catalog_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/privscan/privscan/catalog"
)

// compileKeyed compiles specs with a fingerprint-key of 32 bytes fill.
func compileKeyed(t *testing.T, fill byte, specs ...rspec) *catalog.Matcher {
	t.Helper()
	c := buildCatalog(specs...)
	c.FingerprintKey = make([]byte, 32)
	for i := range c.FingerprintKey {
		c.FingerprintKey[i] = fill
	}
	m, err := catalog.Compile(c, &catalog.CompileOptions{HashKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCombine(t *testing.T) {
	a := compileKeyed(t, 1, rspec{id: "A-1", values: []string{"Jane Doe", "Acme Corp"}},
		rspec{id: "A-2", match: catalog.MatchRegex, values: []string{`EMP-\d{6}`}})
	b := compileKeyed(t, 2, rspec{id: "B-1", match: catalog.MatchIdentifier, values: []string{"Jane Doe"}},
		rspec{id: "B-2", nb: true, values: []string{"internal-host"}})
	empty := compileKeyed(t, 3)
	c := compileKeyed(t, 4, rspec{id: "C-1", cs: true, values: []string{"Zulu Yankee"}})

	m, err := catalog.Combine(a, empty, b, c)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range m.Rules() {
		ids = append(ids, r.ID)
	}
	if want := []string{"A-1", "A-2", "B-1", "B-2", "C-1"}; !slices.Equal(ids, want) {
		t.Fatalf("rules %v, want %v", ids, want)
	}
	parts := []struct {
		m    *catalog.Matcher
		base int
	}{{a, 0}, {b, 2}, {c, 4}}
	lines := []string{
		"Jane Doe and JaneDoe at Acme Corp, EMP-123456 on xinternal-hostx",
		"Zulu Yankee, zulu yankee, jane_doe",
		"nothing here",
		"",
		"Jürgen Jane\u0301 Doe Jane Doe",
	}
	for _, line := range lines {
		// The combination finds the union of its parts' matches,
		// renumbered, in Find's order.
		var want []catalog.Match
		for _, p := range parts {
			for _, x := range p.m.Find([]byte(line), nil) {
				x.Rule += p.base
				want = append(want, x)
			}
		}
		slices.SortFunc(want, func(x, y catalog.Match) int {
			if x.Start != y.Start {
				return x.Start - y.Start
			}
			if x.End != y.End {
				return x.End - y.End
			}
			return x.Rule - y.Rule
		})
		prefix := []catalog.Match{{Rule: 99}}
		got := m.Find([]byte(line), prefix)
		if got[0].Rule != 99 || !slices.Equal(got[1:], want) {
			t.Errorf("%q: got %v, want %v", line, got[1:], want)
		}
	}
	if len(m.Find([]byte("Jane Doe"), nil)) != 2 {
		t.Fatal("both catalogs' rules should match Jane Doe")
	}

	// Normalize uses the rule's own settings.
	if got := string(m.Normalize(nil, []byte("Jane_Doe"), 2)); got != "janedoe" {
		t.Fatalf("Normalize identifier rule: %q", got)
	}
	if got := string(m.Normalize(nil, []byte("Zulu  Yankee"), 4)); got != "Zulu Yankee" {
		t.Fatalf("Normalize case-sensitive rule: %q", got)
	}

	// Fingerprint keys: the first catalog's for the combination, each
	// rule its own catalog's.
	if m.FingerprintKey() != a.FingerprintKey() {
		t.Fatal("FingerprintKey is not the first catalog's")
	}
	wantKeys := []*catalog.Matcher{a, a, b, b, c}
	for i, w := range wantKeys {
		if m.RuleFingerprintKey(i) != w.FingerprintKey() {
			t.Fatalf("rule %d: key of another catalog", i)
		}
	}

	// One matcher is returned as is; a combination of combinations is
	// flattened.
	if one, err := catalog.Combine(a); err != nil || one != a {
		t.Fatal("Combine of one matcher should return it")
	}
	ab, _ := catalog.Combine(a, b)
	nested, err := catalog.Combine(ab, c)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wantKeys {
		if nested.RuleFingerprintKey(i) != m.RuleFingerprintKey(i) {
			t.Fatalf("nested: rule %d key differs", i)
		}
	}
	if got := nested.Find([]byte(lines[0]), nil); !slices.Equal(got, m.Find([]byte(lines[0]), nil)) {
		t.Fatalf("nested: %v", got)
	}
}

func TestCombineDuplicateRule(t *testing.T) {
	a := compile(t, rspec{id: "A-1", values: []string{"Jane Doe"}})
	b := compile(t, rspec{id: "B-1", values: []string{"Other Name"}})
	dup := compile(t, rspec{id: "A-1", values: []string{"Secret Value"}})
	_, err := catalog.Combine(a, b, dup)
	var d *catalog.DuplicateRuleError
	if !errors.As(err, &d) || !errors.Is(err, catalog.ErrDuplicateRule) || d.ID != "A-1" || d.First != 0 || d.Second != 2 {
		t.Fatalf("got %v", err)
	}
	if want := "rule A-1 is defined in catalog 1 and again in catalog 3 (rule IDs must be unique across combined catalogs)"; err.Error() != want {
		t.Fatalf("message %q", err)
	}
	if _, err := catalog.Combine(); err == nil {
		t.Fatal("Combine() should fail")
	}
}
