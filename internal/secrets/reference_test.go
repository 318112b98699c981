//lint:file-ignore SA1019 the reference mirrors gitleaks v8 APIs, deprecated ones included

package secrets

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// reference is the unoptimised adapter the Detector must agree with: the
// whole default configuration decoded by viper and compiled up front, and
// one gitleaks Detect call per run of consecutive lines, decoding as
// gitleaks git does by default (depth 5).
type reference struct {
	vc  config.ViperConfig
	cfg config.Config
	gl  *detect.Detector
}

var loadReference = sync.OnceValues(func() (*reference, error) {
	silenceGitleaks()
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, err
	}
	ref := &reference{}
	if err := v.Unmarshal(&ref.vc); err != nil {
		return nil, err
	}
	// Translate mutates its receiver: keep ref.vc as decoded.
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, err
	}
	ref.cfg = cfg
	ref.gl = detect.NewDetector(cfg)
	ref.gl.MaxDecodeDepth = maxDecodeDepth
	return ref, nil
})

func newReference(t testing.TB) *reference {
	t.Helper()
	ref, err := loadReference()
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// detect is the reference path: every run scanned whole by gitleaks with
// all rules.
func (ref *reference) detect(f *scanner.Fragment) []scanner.Match {
	if f == nil {
		return nil
	}
	var ms []scanner.Match
	for lo := 0; lo < len(f.Lines); {
		hi := lo + 1
		for hi < len(f.Lines) && adjacent(f.Lines[hi-1].Number, f.Lines[hi].Number) {
			hi++
		}
		t := newText(f.Lines[lo:hi])
		//lint:ignore SA1019 the API the adapter uses
		for _, fd := range ref.gl.Detect(detect.Fragment{Raw: t.s, FilePath: f.Path}) {
			rule, ok := ref.cfg.Rules[fd.RuleID]
			if !ok || rule.Regex == nil {
				continue
			}
			var start, end int
			if isDecodedFinding(fd.Tags) {
				start, end, ok = t.decodedSpan(fd.StartLine, fd.StartColumn, fd.EndLine, fd.EndColumn)
			} else {
				start, end, ok = t.secretSpan(rule, fd.StartLine, fd.StartColumn, fd.Match, fd.Secret)
			}
			if !ok {
				continue
			}
			li, s, e := t.lineSpan(start, end)
			ms = append(ms, scanner.Match{
				Line: lo + li, Start: s, End: e,
				RuleID: RulePrefix + fd.RuleID, Source: Name, Category: Name,
				Severity: finding.SeverityError, Description: rule.Description,
			})
		}
		lo = hi
	}
	slices.SortFunc(ms, func(a, b scanner.Match) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Start, b.Start),
			cmp.Compare(a.End, b.End), cmp.Compare(a.RuleID, b.RuleID))
	})
	return slices.CompactFunc(ms, func(a, b scanner.Match) bool {
		return a.Line == b.Line && a.Start == b.Start && a.End == b.End && a.RuleID == b.RuleID
	})
}

// TestDecodeMatchesViper pins the go-toml decoding of the default config
// to viper's, which gitleaks uses.
func TestDecodeMatchesViper(t *testing.T) {
	ref := newReference(t)
	tb, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	want := ref.vc
	// loadTable folds the deprecated [allowlist] into [[allowlists]].
	if want.AllowList != nil {
		want.Allowlists = append(slices.Clone(want.Allowlists), want.AllowList)
		want.AllowList = nil
	}
	if !reflect.DeepEqual(tb.vc, want) {
		t.Fatal("go-toml and viper decode the default config differently")
	}
}

// TestRulesTranslateAlone checks that every rule compiled on its own
// equals the rule compiled with the whole config.
func TestRulesTranslateAlone(t *testing.T) {
	ref := newReference(t)
	d := newDetector(t)
	n := 0
	for id, want := range ref.cfg.Rules {
		if want.Regex == nil {
			continue
		}
		n++
		var got *config.Rule
		for _, r := range d.t.rules {
			if r.id == id {
				_, rule, err := r.detector(d.t)
				if err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				got = rule
			}
		}
		if got == nil {
			t.Fatalf("rule %s missing", id)
		}
		if got.Regex.String() != want.Regex.String() || got.Description != want.Description ||
			got.Entropy != want.Entropy || got.SecretGroup != want.SecretGroup ||
			!slices.Equal(got.Keywords, want.Keywords) || len(got.Allowlists) != len(want.Allowlists) ||
			(got.Path == nil) != (want.Path == nil) || len(got.RequiredRules) != len(want.RequiredRules) ||
			got.SkipReport != want.SkipReport {
			t.Errorf("rule %s differs when compiled alone", id)
		}
		for i, a := range got.Allowlists {
			b := want.Allowlists[i]
			if a.RegexTarget != b.RegexTarget || a.MatchCondition != b.MatchCondition ||
				len(a.Regexes) != len(b.Regexes) || len(a.StopWords) != len(b.StopWords) || len(a.Paths) != len(b.Paths) {
				t.Errorf("rule %s: allowlist %d differs", id, i)
			}
		}
	}
	if n != len(d.t.rules) {
		t.Errorf("%d regex rules in the config, %d in the table", n, len(d.t.rules))
	}
	global, err := d.t.globalAllowlists()
	if err != nil || len(global) != len(ref.cfg.Allowlists) {
		t.Fatalf("global allowlists: %d, %v; want %d", len(global), err, len(ref.cfg.Allowlists))
	}
}

// compareDetect fails t if the Detector and the reference disagree on f.
func compareDetect(t *testing.T, d *Detector, ref *reference, f *scanner.Fragment) []scanner.Match {
	t.Helper()
	want := ref.detect(f)
	got := detectAll(t, d, f)
	if !reflect.DeepEqual(got, want) {
		gs, ws := spans(got), spans(want)
		t.Errorf("%s: got %d matches, want %d\n got  %+v\n want %+v", f.Path, len(got), len(want), diffSpans(gs, ws), diffSpans(ws, gs))
	}
	return want
}

// diffSpans returns the spans of a not in b.
func diffSpans(a, b []span) []span {
	var out []span
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestPathAllowed checks the global path pre-check, cached or not, against
// gitleaks' compiled global allowlists.
func TestPathAllowed(t *testing.T) {
	ref := newReference(t)
	d := newDetector(t)
	paths := []string{"go.sum", "a/go.mod", "vendor/github.com/x/y.go", "vendor/modules.txt", "node_modules/a/b.js",
		"img/logo.PNG", "src/main.go", "", "docs/gitleaks.toml", "app/package-lock.json", "lib/jquery-3.1.min.js",
		"venv/lib/python3.11/site-packages/x.py", "x.go.sum.txt"}
	for range 2 {
		for _, p := range paths {
			want := false
			for _, a := range ref.cfg.Allowlists {
				if p != "" && a.MatchCondition == config.AllowlistMatchOr && a.PathAllowed(p) {
					want = true
				}
			}
			if got := d.t.pathAllowed(p); got != want {
				t.Errorf("pathAllowed(%q) = %v, want %v", p, got, want)
			}
		}
	}
}
