// Package secrets adapts the gitleaks v8 default rule set to scanner.Detector.
//
// gitleaks is quarantined here: none of its types leave this package, its
// logger is silenced, and its findings are turned into value-free
// scanner.Match values at once (the secret, match and line texts it returns
// are dropped, never stored or logged).
package secrets

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/scanner"
)

const (
	// Name is the detector name and the Match.Source and Match.Category of
	// every secret match.
	Name = "secret"
	// RulePrefix prefixes gitleaks rule IDs in Match.RuleID.
	RulePrefix = "secret/"
)

// Detector finds secrets with the gitleaks default rules. It is safe for
// concurrent use.
type Detector struct {
	cfg *config.Config
	// gl is shared by all goroutines: on the path Detect uses
	// (detect.Detector.DetectContext) gitleaks only reads the detector
	// and its config, apart from an atomic byte counter. The maps and
	// mutexes it holds serve DetectSource/AddFinding, which are not used.
	gl *detect.Detector
}

var _ scanner.Detector = (*Detector)(nil)

// defaultConfig is the parsed gitleaks default configuration. It is
// immutable once built and shared by every Detector.
var defaultConfig = sync.OnceValues(loadDefaultConfig)

// silenceGitleaks replaces gitleaks' package-level logger, which writes to
// stderr and whose debug and trace events quote secrets, with one that
// discards everything. gitleaks logs through nothing else.
func silenceGitleaks() { logging.Logger = zerolog.Nop() }

func loadDefaultConfig() (*config.Config, error) {
	// Silence gitleaks before any other call into it. Every gitleaks call
	// in this process goes through this package and so happens after this
	// assignment (sync.OnceValues orders it before every New returns).
	silenceGitleaks()

	// A private viper instance: detect.NewDetectorDefaultConfig reads the
	// config into the global viper, which races under concurrent use.
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("secrets: read gitleaks default config: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("secrets: decode gitleaks default config: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("secrets: compile gitleaks default config: %w", err)
	}
	return &cfg, nil
}

// New returns a Detector using the gitleaks v8 default rules.
func New() (*Detector, error) {
	cfg, err := defaultConfig()
	if err != nil {
		return nil, err
	}
	gl := detect.NewDetector(*cfg)
	// No recursive decoding (base64, hex, percent-encoding): positions of
	// decoded findings do not map onto the scanned lines.
	gl.MaxDecodeDepth = 0
	gl.Verbose = false
	return &Detector{cfg: cfg, gl: gl}, nil
}

// Name returns "secret".
func (d *Detector) Name() string { return Name }

// Rules describes every secret rule, sorted by ID, for reports that list
// rules (SARIF). IDs carry the "secret/" prefix.
func (d *Detector) Rules() []catalog.RuleInfo {
	out := make([]catalog.RuleInfo, 0, len(d.cfg.Rules))
	for id, r := range d.cfg.Rules {
		if r.Regex == nil {
			continue // path-only rules never produce a Match
		}
		out = append(out, catalog.RuleInfo{
			ID:          RulePrefix + id,
			Category:    Name,
			Severity:    catalog.SeverityError,
			Description: r.Description,
		})
	}
	slices.SortFunc(out, func(a, b catalog.RuleInfo) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Detect reports the secrets in f, each as the byte span of the secret
// itself (not the surrounding assignment) on the line where it starts; a
// secret spanning lines is clipped to the end of its first line. Runs of
// consecutive line numbers are scanned as one text, so multi-line secrets
// (private keys) are found; lines that are not adjacent in the file are
// never joined. Matches are emitted in (line, start, end, rule) order.
func (d *Detector) Detect(f *scanner.Fragment, emit func(scanner.Match)) {
	if f == nil || len(f.Lines) == 0 {
		return
	}
	var ms []scanner.Match
	for lo := 0; lo < len(f.Lines); {
		hi := lo + 1
		for hi < len(f.Lines) && adjacent(f.Lines[hi-1].Number, f.Lines[hi].Number) {
			hi++
		}
		ms = d.detectRun(f.Path, f.Lines, lo, hi, ms)
		lo = hi
	}
	slices.SortFunc(ms, func(a, b scanner.Match) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Start, b.Start),
			cmp.Compare(a.End, b.End), cmp.Compare(a.RuleID, b.RuleID))
	})
	ms = slices.CompactFunc(ms, func(a, b scanner.Match) bool {
		return a.Line == b.Line && a.Start == b.Start && a.End == b.End && a.RuleID == b.RuleID
	})
	for _, m := range ms {
		emit(m)
	}
}

// adjacent reports whether line numbers a then b belong to one run. Lines
// without numbers (0) are treated as adjacent.
func adjacent(a, b int) bool {
	return a <= 0 || b <= 0 || b == a+1
}

// detectRun scans lines[lo:hi] joined with "\n" and appends its matches.
func (d *Detector) detectRun(path string, lines []scanner.Line, lo, hi int, ms []scanner.Match) []scanner.Match {
	run := lines[lo:hi]
	t := newText(run)
	// detect.Fragment is deprecated in favour of sources.Fragment in v9, but
	// v8's Detect, the only call taking a file path without accumulating
	// findings in the detector, still requires it.
	//lint:ignore SA1019 no v8 alternative
	findings := d.gl.Detect(detect.Fragment{Raw: t.s, FilePath: path})
	for i := range findings {
		fd := &findings[i]
		rule, ok := d.cfg.Rules[fd.RuleID]
		if !ok || rule.Regex == nil {
			continue // path-only rule: no position in the text
		}
		start, end, ok := t.secretSpan(rule, fd.StartLine, fd.StartColumn, fd.Match, fd.Secret)
		// Drop the texts as soon as they have been located.
		fd.Match, fd.Secret, fd.Line = "", "", ""
		if !ok {
			continue
		}
		li, s, e := t.lineSpan(start, end)
		ms = append(ms, scanner.Match{
			Line:        lo + li,
			Start:       s,
			End:         e,
			RuleID:      RulePrefix + fd.RuleID,
			Source:      Name,
			Category:    Name,
			Severity:    catalog.SeverityError,
			Description: rule.Description,
		})
	}
	return ms
}
