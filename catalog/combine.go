package catalog

import (
	"errors"
	"fmt"
	"slices"
)

// ErrDuplicateRule is returned (wrapped, naming the rule ID) by Combine when
// two of the catalogs define the same rule ID.
var ErrDuplicateRule = errors.New("duplicate rule ID")

// DuplicateRuleError names a rule ID that two combined catalogs define.
// First and Second are the indexes of those catalogs in Combine's
// arguments. It holds no value.
type DuplicateRuleError struct {
	ID            string
	First, Second int
}

func (e *DuplicateRuleError) Error() string {
	return fmt.Sprintf("rule %s is defined in catalog %d and again in catalog %d (rule IDs must be unique across combined catalogs)", e.ID, e.First+1, e.Second+1)
}

// Is matches ErrDuplicateRule.
func (e *DuplicateRuleError) Is(target error) bool { return target == ErrDuplicateRule }

// Combine returns one Matcher that finds what each of ms finds: the rules
// of ms[0] first, then those of ms[1], and so on (Match.Rule indexes the
// combined Rules). Rule IDs must be unique across ms: a duplicate is a
// *DuplicateRuleError. With one Matcher, Combine returns it unchanged.
//
// Fingerprint keys: FingerprintKey of the combination is that of ms[0],
// and RuleFingerprintKey gives each rule the key of its own catalog, so a
// rule's findings keep their fingerprints when catalogs are added to or
// removed from a combination.
//
// The combination shares the tables of ms (nothing is copied or
// recompiled) and is safe for concurrent use.
func Combine(ms ...*Matcher) (*Matcher, error) {
	switch len(ms) {
	case 0:
		return nil, errors.New("combine: no catalog")
	case 1:
		return ms[0], nil
	}
	c := &Matcher{fpKey: ms[0].fpKey}
	seen := map[string]int{}
	for j, p := range ms {
		if p == nil {
			return nil, errors.New("combine: nil catalog")
		}
		// A combination of combinations is flattened.
		subs, bases := []*Matcher{p}, []int{0}
		if p.parts != nil {
			subs, bases = p.parts, p.partBase
		}
		off := len(c.rules)
		for k, s := range subs {
			c.parts = append(c.parts, s)
			c.partBase = append(c.partBase, off+bases[k])
		}
		for _, r := range p.rules {
			if first, dup := seen[r.ID]; dup {
				return nil, &DuplicateRuleError{ID: r.ID, First: first, Second: j}
			}
			seen[r.ID] = j
		}
		c.rules = append(c.rules, p.rules...)
		c.modes = append(c.modes, p.modes...)
	}
	return c, nil
}

// RuleFingerprintKey returns the fingerprint key of rule i (an index of
// Rules): the key of the catalog that defines it. For a single catalog it
// is FingerprintKey for every rule.
func (m *Matcher) RuleFingerprintKey(i int) [32]byte {
	if m.parts == nil {
		return m.fpKey
	}
	return m.parts[m.part(i)].fpKey
}

// part returns the index in m.parts of the part that holds rule i.
func (m *Matcher) part(i int) int {
	j, found := slices.BinarySearch(m.partBase, i)
	if !found {
		j--
	}
	// Parts without rules share a base with the next part: take the last
	// part whose base is i, the one that has rules.
	for j+1 < len(m.partBase) && m.partBase[j+1] == i {
		j++
	}
	return max(j, 0)
}

// findParts is Find for a combination: each part's matches, renumbered,
// in the order Find promises.
func (m *Matcher) findParts(line []byte, dst []Match) []Match {
	base := len(dst)
	hits := 0
	for j, p := range m.parts {
		n := len(dst)
		dst = p.Find(line, dst)
		if len(dst) == n {
			continue
		}
		hits++
		for k := n; k < len(dst); k++ {
			dst[k].Rule += m.partBase[j]
		}
	}
	if hits > 1 {
		slices.SortFunc(dst[base:], func(a, b Match) int {
			if a.Start != b.Start {
				return a.Start - b.Start
			}
			if a.End != b.End {
				return a.End - b.End
			}
			return a.Rule - b.Rule
		})
	}
	return dst
}
