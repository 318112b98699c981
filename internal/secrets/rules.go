//lint:file-ignore SA1019 the deprecated [allowlist] table is still what gitleaks v8 default config uses

package secrets

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// table is the gitleaks default configuration, decoded once per process
// but compiled lazily: a rule's regexes are compiled the first time one of
// its keywords is seen (its plan) and the first time its plan lets a
// window through (its gitleaks detector). It is shared by every Detector;
// what it caches is immutable once built.
type table struct {
	vc      config.ViperConfig
	rules   []*tableRule // rules with a regex, in config order
	kw      *keywordMatcher
	kwRules [][]int32 // keyword -> indices into rules
	always  []int32   // rules without keywords: gitleaks runs them on every text

	pathsOnce sync.Once
	paths     *regexp.Regexp // global allowlists' paths (OR condition)
	pathMu    sync.Mutex
	pathCache map[string]bool // path -> paths matched it

	globalOnce sync.Once
	global     []*config.Allowlist // allowlists applying to every rule
	globalErr  error
}

// tableRule is one regex rule and its lazily compiled forms.
type tableRule struct {
	id, description string
	vcIndex         int      // index into table.vc.Rules
	keywords        []string // lowercase

	planOnce sync.Once
	plan     plan
	path     *regexp.Regexp // the rule's path condition, if any

	glOnce sync.Once
	gl     *detect.Detector // a gitleaks detector holding this rule only
	dec    *detect.Detector // the same with gitleaks' decoding on
	rule   config.Rule
	glErr  error
}

// defaultTable is the decoded default configuration, shared by every
// Detector.
var defaultTable = sync.OnceValues(loadTable)

func loadTable() (*table, error) {
	// Silence gitleaks before any other call into it. Every gitleaks call
	// in this process goes through this package and so happens after this
	// assignment (sync.OnceValues orders it before every New returns).
	silenceGitleaks()

	t := &table{}
	// go-toml decodes into ViperConfig exactly as viper does (the test
	// suite checks it) at a fraction of the cost.
	if err := toml.Unmarshal([]byte(config.DefaultConfig), &t.vc); err != nil {
		return nil, fmt.Errorf("secrets: decode gitleaks default config: %w", err)
	}
	// Fold the deprecated single [allowlist] table into [[allowlists]], as
	// Translate does.
	if t.vc.AllowList != nil {
		if len(t.vc.Allowlists) > 0 {
			return nil, errors.New("secrets: gitleaks default config mixes [allowlist] and [[allowlists]]")
		}
		t.vc.Allowlists = append(t.vc.Allowlists, t.vc.AllowList)
		t.vc.AllowList = nil
	}
	kwIndex := map[string]int32{}
	var keywords []string
	seen := map[string]bool{}
	for i, vr := range t.vc.Rules {
		if seen[vr.ID] {
			return nil, fmt.Errorf("secrets: gitleaks rule %s defined twice", vr.ID)
		}
		seen[vr.ID] = true
		if vr.Regex == "" {
			continue // path-only rules never produce a Match
		}
		r := &tableRule{id: vr.ID, description: vr.Description, vcIndex: i}
		idx := int32(len(t.rules))
		for _, k := range vr.Keywords {
			k = strings.ToLower(k)
			if slices.Contains(r.keywords, k) {
				continue
			}
			r.keywords = append(r.keywords, k)
			ki, ok := kwIndex[k]
			if !ok {
				ki = int32(len(keywords))
				kwIndex[k] = ki
				keywords = append(keywords, k)
				t.kwRules = append(t.kwRules, nil)
			}
			t.kwRules[ki] = append(t.kwRules[ki], idx)
		}
		if len(r.keywords) == 0 {
			t.always = append(t.always, idx)
		}
		t.rules = append(t.rules, r)
	}
	kw, err := newKeywordMatcher(keywords)
	if err != nil {
		return nil, fmt.Errorf("secrets: gitleaks keywords: %w", err)
	}
	t.kw = kw
	return t, nil
}

// getPlan returns the rule's plan, building it on first use.
func (r *tableRule) getPlan(t *table) *tableRule {
	r.planOnce.Do(func() {
		vr := &t.vc.Rules[r.vcIndex]
		r.plan = newPlan(vr.Regex, r.keywords, vr.Entropy, vr.SecretGroup)
		if vr.Path != "" {
			// Used to skip the rule on other paths, as gitleaks does. If
			// it does not compile here, gitleaks decides alone.
			r.path, _ = regexp.Compile(vr.Path)
		}
	})
	return r
}

// pathExcluded reports whether gitleaks skips the rule for path.
func (r *tableRule) pathExcluded(path string) bool {
	return r.path != nil && !r.path.MatchString(path)
}

// detector returns a gitleaks detector holding only rule r, and the
// translated rule, building them on first use.
func (r *tableRule) detector(t *table) (*detect.Detector, *config.Rule, error) {
	r.glOnce.Do(func() {
		global, err := t.globalAllowlists()
		if err != nil {
			r.glErr = err
			return
		}
		el := t.vc.Rules[r.vcIndex]
		// Translate lowercases keywords in place and appends to the
		// allowlists: give it copies.
		el.Keywords = slices.Clone(el.Keywords)
		el.Tags = slices.Clone(el.Tags)
		el.Allowlists = slices.Clip(slices.Clone(el.Allowlists))
		// gitleaks builds an Aho-Corasick trie of a 256-way table per
		// state for stopwords: ~15 ms for generic-api-key's 1,400. Such
		// lists are left out of the translation and set afterwards, which
		// makes gitleaks test them one by one (ContainsStopWord's fallback,
		// same result) at a few µs per candidate secret.
		deferred := map[int][]string{}
		for k, a := range el.Allowlists {
			if len(a.StopWords) > maxTrieStopWords && len(a.Regexes)+len(a.Paths)+len(a.Commits) > 0 {
				c := *a
				deferred[k] = c.StopWords
				c.StopWords = nil
				el.Allowlists[k] = &c
			}
		}
		vc := config.ViperConfig{}
		vc.Rules = append(vc.Rules, el)
		// Global allowlists targeting this rule become its own.
		for _, a := range t.vc.Allowlists {
			if slices.Contains(a.TargetRules, r.id) {
				c := *a
				c.TargetRules = []string{r.id}
				vc.Allowlists = append(vc.Allowlists, &c)
			}
		}
		cfg, err := translate(&vc)
		if err != nil {
			r.glErr = fmt.Errorf("secrets: compile gitleaks rule %s: %w", r.id, err)
			return
		}
		rule, ok := cfg.Rules[r.id]
		if !ok || len(cfg.Rules) != 1 {
			r.glErr = fmt.Errorf("secrets: compile gitleaks rule %s: rule missing", r.id)
			return
		}
		for k, words := range deferred {
			rule.Allowlists[k].StopWords = lowerUnique(words)
		}
		cfg.Allowlists = global
		cfg.Path = ""
		gl := detect.NewDetector(cfg)
		// Decoding (base64, hex, percent-encoding, escapes) is left to
		// dec, which runs only around lines holding encoded segments.
		gl.MaxDecodeDepth = 0
		gl.Verbose = false
		dec := detect.NewDetector(cfg)
		dec.MaxDecodeDepth = maxDecodeDepth
		dec.Verbose = false
		r.gl, r.dec, r.rule = gl, dec, rule
	})
	return r.gl, &r.rule, r.glErr
}

// globalAllowlists returns the compiled allowlists that apply to every
// rule, compiling them on first use.
func (t *table) globalAllowlists() ([]*config.Allowlist, error) {
	t.globalOnce.Do(func() {
		vc := config.ViperConfig{}
		for _, a := range t.vc.Allowlists {
			if len(a.TargetRules) == 0 {
				c := *a
				vc.Allowlists = append(vc.Allowlists, &c)
			}
		}
		cfg, err := translate(&vc)
		if err != nil {
			t.globalErr = fmt.Errorf("secrets: compile gitleaks allowlists: %w", err)
			return
		}
		t.global = cfg.Allowlists
	})
	return t.global, t.globalErr
}

// pathAllowed reports whether gitleaks skips every rule for a text at
// path: whether the path matches a global allowlist whose condition is OR
// (so its path alone decides). It compiles only those path patterns, joined
// as gitleaks joins them; other allowlists are left to gitleaks.
func (t *table) pathAllowed(path string) bool {
	if path == "" {
		return false
	}
	t.pathsOnce.Do(func() {
		var pats []string
		for _, a := range t.vc.Allowlists {
			switch strings.ToUpper(a.Condition) {
			case "", "OR", "||":
				if len(a.TargetRules) == 0 {
					pats = append(pats, a.Paths...)
				}
			}
		}
		if len(pats) > 0 {
			t.paths, _ = regexp.Compile("(?:" + strings.Join(pats, "|") + ")")
		}
		t.pathCache = map[string]bool{}
	})
	if t.paths == nil {
		return false
	}
	// The joined expression costs tens of µs per path; scans see the same
	// paths again and again (a file in many commits, runs of one file).
	t.pathMu.Lock()
	allowed, ok := t.pathCache[path]
	t.pathMu.Unlock()
	if ok {
		return allowed
	}
	allowed = t.paths.MatchString(path)
	t.pathMu.Lock()
	if len(t.pathCache) >= maxPathCache {
		clear(t.pathCache)
	}
	t.pathCache[path] = allowed
	t.pathMu.Unlock()
	return allowed
}

// maxPathCache bounds the cache of global path allowlist decisions.
const maxPathCache = 1 << 14

// maxTrieStopWords is the longest stopword list gitleaks compiles itself.
const maxTrieStopWords = 64

// lowerUnique returns words lowercased, without duplicates, sorted, as
// gitleaks' Allowlist.Validate keeps stopwords (but for the order, which
// matters to no result).
func lowerUnique(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ToLower(w)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// translate runs gitleaks' Translate, which panics on a regex that does
// not compile.
func translate(vc *config.ViperConfig) (cfg config.Config, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("invalid regular expression")
		}
	}()
	return vc.Translate()
}
