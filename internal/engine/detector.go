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
	// rec holds, per rule that takes part in record rules, what its
	// matches carry (record IDs are added per match); nil: none.
	rec  []*scanner.MatchRecord
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
	if m.HasRecords() {
		d.rec = make([]*scanner.MatchRecord, len(d.rules))
		widest := 0
		for i := range d.rules {
			info := m.RecordInfo(i)
			if info == nil {
				continue
			}
			mr := &scanner.MatchRecord{Hidden: info.Hidden}
			if len(info.By) > 0 {
				rr := &scanner.RecordRule{Within: info.Within, Uncorroborated: info.Uncorroborated}
				if info.Within == catalog.WithinFile {
					rr.Within, widest = -1, -1
				} else if widest >= 0 {
					widest = max(widest, info.Within)
				}
				for _, b := range info.By {
					rr.By = append(rr.By, d.ids[b])
				}
				mr.Rule = rr
			}
			d.rec[i] = mr
		}
		for _, mr := range d.rec {
			if mr != nil {
				mr.Window = widest
			}
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
			var rec *scanner.MatchRecord
			if d.rec != nil && d.rec[m.Rule] != nil {
				// The rows of the matched value, as keyed IDs: the text
				// itself goes no further than this lookup.
				mr := *d.rec[m.Rule]
				mr.IDs = d.m.Records(m.Rule, f.Lines[i].Text[m.Start:m.End], nil)
				rec = &mr
			}
			emit(scanner.Match{
				Line: i, Start: m.Start, End: m.End,
				RuleID: d.ids[m.Rule], Source: finding.SourceCatalog, Category: r.Category,
				Severity: r.Severity, Description: r.Description,
				FingerprintKey: d.keys[m.Rule], Record: rec,
			})
		}
		*buf = ms
	}
	d.pool.Put(buf)
}
