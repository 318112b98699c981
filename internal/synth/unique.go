package synth

import (
	"math/rand/v2"
	"strings"

	"github.com/privscan/privscan/catalog"
)

// UniqueRules returns the five literal rules of Catalog (no values) with
// the number of values each gets in a catalog of n unique values
// (UniqueValue), in rule order.
func UniqueRules(n int) ([]catalog.Rule, []int) {
	nP := n * sharePersons / 100
	nE := n * shareEmails / 100
	nH := n * shareHosts / 100
	nC := n * shareCodenames / 100
	nA := n - nP - nE - nH - nC
	rules := []catalog.Rule{
		{ID: "PER-001", Category: "person", Description: "Customer and colleague names"},
		{ID: "EMAIL-001", Category: "email", Description: "Personal email addresses"},
		{ID: "HOST-001", Category: "hostname", Description: "Internal host names"},
		{ID: "CODE-001", Category: "codename", Match: catalog.MatchIdentifier, Description: "Project codenames"},
		{ID: "ACCT-001", Category: "account", CaseSensitive: true, Description: "Customer account numbers"},
	}
	return rules, []int{nP, nE, nH, nC, nA}
}

// UniqueValue returns value i (0 ≤ i < n) of a catalog of n unique values:
// a value of the kind of its rule (UniqueRules), drawn from a generator
// seeded by seed and i (so any value is computed on its own, in O(1)),
// with a tag that spells i in lowercase letters (uppercase for account
// IDs) appended to one of its words, so that it has as many words as a
// value of Values. Tags have one width per n: every value is distinct,
// also after case folding and identifier splitting, for any n up to 26^7
// (Values runs out of distinct values at a few million).
func UniqueValue(seed int64, n, i int) string {
	_, counts := UniqueRules(n)
	g, j := 0, i
	for g < len(counts)-1 && j >= counts[g] {
		j -= counts[g]
		g++
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x0411<<32|uint64(i)))
	t := UniqueTag(i, n)
	switch g {
	case 0:
		return Person(r) + t
	case 1:
		v := Email(r)
		at := strings.LastIndexByte(v, '@')
		return v[:at] + t + v[at:]
	case 2:
		v := Host(r)
		dot := strings.IndexByte(v, '.')
		return v[:dot] + t + v[dot:]
	case 3:
		return Codename(r) + t
	}
	return Account(r) + strings.ToUpper(t)
}

// UniqueTag spells i in base 26 (a-z), as wide as n needs and at least 4
// letters: distinct for distinct i below n, and the same width for all.
func UniqueTag(i, n int) string {
	w := 4
	for p := 26 * 26 * 26 * 26; p < n; p *= 26 {
		w++
	}
	b := make([]byte, w)
	for k := w - 1; k >= 0; k-- {
		b[k] = 'a' + byte(i%26)
		i /= 26
	}
	return string(b)
}
