package engine

import (
	"sync"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// CatalogDetector runs a compiled catalog on every line of a fragment.
type CatalogDetector struct {
	m     *catalog.Matcher
	rules []catalog.RuleInfo
	ids   []string // "catalog/<id>" per rule
	// keys holds, per rule, the fingerprint key of its own catalog when
	// it differs from the matcher's FingerprintKey (a combination), else
	// nil.
	keys []*[32]byte
	pool sync.Pool
}

// NewCatalogDetector wraps m. The fingerprints of a rule of a combined
// catalog are keyed by its own catalog's key (see catalog.Combine).
func NewCatalogDetector(m *catalog.Matcher) *CatalogDetector {
	d := &CatalogDetector{m: m, rules: m.Rules()}
	first := m.FingerprintKey()
	d.keys = make([]*[32]byte, len(d.rules))
	for i, r := range d.rules {
		d.ids = append(d.ids, "catalog/"+r.ID)
		if k := m.RuleFingerprintKey(i); k != first {
			d.keys[i] = &k
		}
	}
	return d
}

// Name implements scanner.Detector.
func (d *CatalogDetector) Name() string { return finding.SourceCatalog }

// Detect implements scanner.Detector.
func (d *CatalogDetector) Detect(f *scanner.Fragment, emit func(scanner.Match)) {
	buf, _ := d.pool.Get().(*[]catalog.Match)
	if buf == nil {
		buf = new([]catalog.Match)
	}
	for i := range f.Lines {
		ms := d.m.Find(f.Lines[i].Text, (*buf)[:0])
		for _, m := range ms {
			r := &d.rules[m.Rule]
			emit(scanner.Match{
				Line: i, Start: m.Start, End: m.End,
				RuleID: d.ids[m.Rule], Source: finding.SourceCatalog, Category: r.Category,
				Severity: r.Severity, Description: r.Description,
				FingerprintKey: d.keys[m.Rule],
			})
		}
		*buf = ms
	}
	d.pool.Put(buf)
}
