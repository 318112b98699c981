package engine

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/pii"
	"github.com/privscan/privscan/internal/secrets"
	"github.com/privscan/privscan/scanner"
)

// DetectorSet is every detector privscan has, assembled in this one place
// for the doors that must find whatever any scan could report, whatever a
// repository's policy says: the catalog, every built-in PII detector
// (processor test card numbers included) and the secret rules, at their
// default severities, with no exclusion, override or suppression file.
// The Claude Code guard, MCP read_redacted, the command line's -v context
// lines and its error-echo screen use it; Scan and Redactor apply a
// repository's policy on top of the same detectors.
//
// Detection against a sealed catalog reads its pages lazily and checks
// each page once: a damaged page finds nothing. Every use of a set
// therefore ends with Err, and what was detected is trusted only when it
// is nil (fail closed).
type DetectorSet struct {
	m    *catalog.Matcher // nil: no catalog (none is set up)
	opts scanner.Options
}

// DetectorSet returns the full detector set for catalog m (nil: PII and
// secrets only, for a machine with no catalog set up). The engine's
// NoSecrets setting applies.
func (e *Engine) DetectorSet(m *catalog.Matcher) (*DetectorSet, error) {
	var dets []scanner.Detector
	var key [32]byte
	if m != nil {
		dets = append(dets, NewCatalogDetector(m))
		key = m.FingerprintKey()
	}
	p, err := pii.New(pii.Config{})
	if err != nil {
		return nil, err
	}
	dets = append(dets, p)
	if !e.opts.NoSecrets {
		sec, err := secrets.New()
		if err != nil {
			return nil, fmt.Errorf("loading the secret rules: %w", err)
		}
		dets = append(dets, sec)
	}
	return &DetectorSet{m: m, opts: scanner.Options{Detectors: dets, FingerprintKey: key, Workers: e.opts.Workers}}, nil
}

// CatalogDetectorSet opens catalog key through the engine's cache and
// returns its full detector set.
func (e *Engine) CatalogDetectorSet(key string) (*DetectorSet, error) {
	m, _, err := e.Catalog(key)
	if err != nil {
		return nil, err
	}
	return e.DetectorSet(m)
}

// Options returns the scanner options of the set (a copy: callers may
// set Workers or Severity on it).
func (d *DetectorSet) Options() scanner.Options { return d.opts }

// Redactor returns a new redactor over the set's detectors. Check Err
// when done with it.
func (d *DetectorSet) Redactor() *scanner.Redactor { return scanner.NewRedactor(d.opts) }

// Err reports a sealed catalog page that a detection of this set (or of
// any other user of the same catalog) found damaged, as catalog_invalid.
// What was detected is unreliable then: a value on the damaged page went
// unseen.
func (d *DetectorSet) Err() error {
	if d.m == nil {
		return nil
	}
	if err := d.m.IntegrityErr(); err != nil {
		return broker.IntegrityError(err)
	}
	return nil
}

// Run scans src with the set into h, then checks integrity: a scan that
// read a damaged page fails with catalog_invalid, never reports fewer
// findings.
func (d *DetectorSet) Run(ctx context.Context, src scanner.Source, h finding.Handler) (*finding.Summary, error) {
	sum, err := scanner.Run(ctx, src, d.opts, h)
	if ierr := d.Err(); ierr != nil {
		return nil, ierr
	}
	if err != nil {
		return nil, ScanError(err)
	}
	return sum, nil
}

// RunText scans text (a prompt, a URL, a tool argument) as kind, with
// path naming it in findings.
func (d *DetectorSet) RunText(ctx context.Context, text, path string, kind finding.Kind, h finding.Handler) (*finding.Summary, error) {
	var r io.Reader = strings.NewReader(text)
	return d.Run(ctx, &scanner.TextSource{R: r, Path: path, Kind: kind}, h)
}
