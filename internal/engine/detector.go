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
	pool  sync.Pool
}

// NewCatalogDetector wraps m.
func NewCatalogDetector(m *catalog.Matcher) *CatalogDetector {
	d := &CatalogDetector{m: m, rules: m.Rules()}
	for _, r := range d.rules {
		d.ids = append(d.ids, "catalog/"+r.ID)
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
			})
		}
		*buf = ms
	}
	d.pool.Put(buf)
}
