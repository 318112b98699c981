package synth

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValuesDeterministicAndDistinct(t *testing.T) {
	a, b := Values(7, 2000), Values(7, 2000)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different values")
	}
	if c := Values(8, 2000); slices.Equal(a, c) {
		t.Fatal("different seeds gave the same values")
	}
	if len(a) != 2000 {
		t.Fatalf("got %d values, want 2000", len(a))
	}
	seen := map[string]bool{}
	nonASCII := 0
	for _, v := range a {
		if seen[v] {
			t.Fatalf("duplicate value at %d", len(seen))
		}
		seen[v] = true
		if utf8.RuneCountInString(v) < 3 {
			t.Fatalf("value shorter than 3 characters")
		}
		if len(v) != utf8.RuneCountInString(v) {
			nonASCII++
		}
	}
	if nonASCII == 0 {
		t.Fatal("no non-ASCII values generated")
	}
}

func TestCatalogMatchesValues(t *testing.T) {
	c := Catalog(3, 1000)
	var n int
	for _, r := range c.Rules {
		if r.Category == "" || r.ID == "" {
			t.Fatalf("rule without ID or category")
		}
		n += len(r.Values)
	}
	// 1000 literal values plus the three regex values.
	if n != 1003 {
		t.Fatalf("catalog has %d values, want 1003", n)
	}
}

func TestTextPlantsValues(t *testing.T) {
	plant := []string{"Plant Alpha One", "plant.beta@corp.example"}
	txt := Text(5, 64<<10, plant)
	if len(txt) < 64<<10 || len(txt) > 65<<10 {
		t.Fatalf("text size %d, want about 64 KiB", len(txt))
	}
	for _, p := range plant {
		if !bytes.Contains(txt, []byte(p)) {
			t.Fatalf("planted value %d missing", slices.Index(plant, p))
		}
	}
	if !bytes.Equal(txt, Text(5, 64<<10, plant)) {
		t.Fatal("same seed gave different text")
	}
	if bytes.Contains(Text(5, 64<<10, nil), []byte("Plant Alpha")) {
		t.Fatal("text without plants contains a plant")
	}
}

func TestUniqueValues(t *testing.T) {
	const n = 20000
	_, counts := UniqueRules(n)
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != n {
		t.Fatalf("rule counts add up to %d, want %d", total, n)
	}
	seen := map[string]bool{}
	for i := range n {
		v := UniqueValue(3, n, i)
		if v != UniqueValue(3, n, i) {
			t.Fatal("not deterministic")
		}
		k := strings.ToLower(v)
		if seen[k] {
			t.Fatalf("value %d repeats an earlier one (case folded)", i)
		}
		seen[k] = true
	}
	if UniqueValue(3, n, 5) == UniqueValue(4, n, 5) {
		t.Error("different seeds gave the same value")
	}
	if UniqueTag(0, 10_000_000) != "aaaaa" || UniqueTag(27, 100) != "aabb" {
		t.Errorf("tags %q %q", UniqueTag(0, 10_000_000), UniqueTag(27, 100))
	}
}
