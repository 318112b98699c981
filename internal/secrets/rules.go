//lint:file-ignore SA1019 the deprecated [allowlist] table is still what gitleaks v8 default config uses

package secrets

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// table is the gitleaks default configuration, decoded and compiled
// lazily: a rule is decoded and its regexes are compiled the first time one
// of its keywords is seen (its plan), its gitleaks detector without
// allowlists is built the first time its plan lets a window through, and
// its detector with allowlists the first time that one finds a candidate
// secret (see bareDetectors). What it needs up front
// (rule IDs, keywords, the keyword automaton) and the rules decoded come
// from an index generated ahead of time for the linked gitleaks version
// (see index.go), or from decoding the whole configuration if that index
// does not fit it. It is shared by every Detector; what it caches is
// immutable once built.
type table struct {
	// src is the configuration text whose rules and allowlists are decoded
	// when first needed (copied from the index's data, or decoded from
	// their tables in src); empty if vc holds it decoded whole.
	src        string
	vc         config.ViperConfig
	allowSpans [][2]int32            // global allowlist tables in src
	alData     []*viperAllowlistData // the global allowlists decoded, if alDataOK
	alDataOK   bool

	rules   []*tableRule // rules with a regex, in config order
	kw      *keywordMatcher
	kwRules [][]int32 // keyword -> indices into rules
	always  []int32   // rules without keywords: gitleaks runs them on every text

	alOnce sync.Once
	al     config.ViperConfig // Allowlists: the global allowlists, [allowlist] folded in
	alErr  error

	pathPattern   string   // the global allowlists' paths (OR condition), joined
	pathFactors   []string // one of which a path matching pathPattern holds
	pathFactorsOK bool     // whether pathFactors may rule paths out
	pathsOnce     sync.Once
	paths         *regexp.Regexp // pathPattern compiled
	pathMu        sync.Mutex
	pathCache     map[string]bool // path -> paths matched it

	globalOnce sync.Once
	global     []*config.Allowlist // allowlists applying to every rule
	globalErr  error
}

// tableRule is one regex rule and its lazily decoded and compiled forms.
type tableRule struct {
	*indexRule // ID, keywords, and the rule's table in table.src

	vcOnce sync.Once
	vc     *config.ViperConfig // Rules[0]: the rule as decoded
	vcErr  error

	planOnce sync.Once
	plan     plan
	path     *regexp.Regexp // the rule's path condition, if any

	bareOnce sync.Once
	bare     *ruleDetectors // this rule without allowlists
	bareErr  error

	glOnce sync.Once
	gl     *ruleDetectors // this rule with its allowlists and the global ones
	glErr  error
	built  atomic.Pointer[ruleDetectors] // gl, once built without error
}

// ruleDetectors are gitleaks detectors holding one rule only.
type ruleDetectors struct {
	cfg  config.Config
	rule *config.Rule     // the rule, translated
	gl   *detect.Detector // without decoding

	decOnce sync.Once
	dec     *detect.Detector // with gitleaks' decoding on
}

// defaultTable is the default configuration, shared by every Detector.
var defaultTable = sync.OnceValues(loadDefaultTable)

// loadDefaultTable builds the table from the generated index if it was
// generated from this very configuration text, and from the whole decoded
// configuration otherwise (gitleaks upgraded without go generate), so that
// results never depend on the index being current.
func loadDefaultTable() (*table, error) {
	if !genIndex.fits(config.DefaultConfig) {
		return loadTable()
	}
	// Silence gitleaks before any other call into it. Every gitleaks call
	// in this process goes through this package and so happens after this
	// assignment (sync.OnceValues orders it before every New returns).
	silenceGitleaks()
	return newTable(&genIndex, config.DefaultConfig, config.ViperConfig{}), nil
}

// loadTable decodes the whole default configuration and indexes it.
func loadTable() (*table, error) {
	silenceGitleaks()
	var vc config.ViperConfig
	// go-toml decodes into ViperConfig exactly as viper does (the test
	// suite checks it) at a fraction of the cost.
	if err := toml.Unmarshal([]byte(config.DefaultConfig), &vc); err != nil {
		return nil, fmt.Errorf("secrets: decode gitleaks default config: %w", err)
	}
	if err := foldAllowlist(&vc); err != nil {
		return nil, err
	}
	ix, err := indexConfig(&vc)
	if err != nil {
		return nil, err
	}
	return newTable(ix, "", vc), nil
}

// foldAllowlist folds the deprecated single [allowlist] table into
// [[allowlists]], as Translate does.
func foldAllowlist(vc *config.ViperConfig) error {
	if vc.AllowList != nil {
		if len(vc.Allowlists) > 0 {
			return errors.New("secrets: gitleaks default config mixes [allowlist] and [[allowlists]]")
		}
		vc.Allowlists = append(vc.Allowlists, vc.AllowList)
		vc.AllowList = nil
	}
	return nil
}

// indexConfig computes the index of a decoded configuration (without the
// text spans, which only a generated index has).
func indexConfig(vc *config.ViperConfig) (*index, error) {
	ix := &index{}
	kwIndex := map[string]int32{}
	var keywords []string
	seen := map[string]bool{}
	for i, vr := range vc.Rules {
		if seen[vr.ID] {
			return nil, fmt.Errorf("secrets: gitleaks rule %s defined twice", vr.ID)
		}
		seen[vr.ID] = true
		if vr.Regex == "" {
			continue // path-only rules never produce a Match
		}
		r := indexRule{id: vr.ID, description: vr.Description, vcIndex: i}
		idx := int32(len(ix.rules))
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
				ix.kwRules = append(ix.kwRules, nil)
			}
			ix.kwRules[ki] = append(ix.kwRules[ki], idx)
		}
		if len(r.keywords) == 0 {
			ix.always = append(ix.always, idx)
		}
		ix.rules = append(ix.rules, r)
	}
	kw, err := newKeywordMatcher(keywords)
	if err != nil {
		return nil, fmt.Errorf("secrets: gitleaks keywords: %w", err)
	}
	ix.kw = *kw
	ix.pathPattern = globalPathPattern(vc)
	if ix.pathPattern != "" {
		ix.pathFactors, ix.pathFactorsOK = pathFactors(ix.pathPattern)
	}
	return ix, nil
}

// newTable returns the table of index ix over the configuration text src
// (its tables decoded when needed) or, if src is empty, the decoded
// configuration vc.
func newTable(ix *index, src string, vc config.ViperConfig) *table {
	t := &table{
		src: src, vc: vc, allowSpans: ix.allowSpans, alData: ix.allowlists, alDataOK: ix.allowData,
		kw: &ix.kw, kwRules: ix.kwRules, always: ix.always,
		pathPattern: ix.pathPattern, pathFactors: ix.pathFactors, pathFactorsOK: ix.pathFactorsOK,
	}
	rules := make([]tableRule, len(ix.rules))
	t.rules = make([]*tableRule, len(ix.rules))
	for i := range rules {
		rules[i].indexRule = &ix.rules[i]
		t.rules[i] = &rules[i]
	}
	return t
}

// decoded returns the rule as decoded from the configuration (Rules[0]),
// decoding its table on first use.
func (r *tableRule) decoded(t *table) (*config.ViperConfig, error) {
	r.vcOnce.Do(func() {
		vc := &config.ViperConfig{}
		switch {
		case t.src == "":
			vc.Rules = t.vc.Rules[r.vcIndex : r.vcIndex+1 : r.vcIndex+1]
		case r.data != nil && fillRule(vc, r.data) == nil:
		default:
			*vc = config.ViperConfig{}
			if err := toml.Unmarshal([]byte(t.src[r.span[0]:r.span[1]]), vc); err != nil {
				r.vcErr = fmt.Errorf("secrets: decode gitleaks rule %s: %w", r.id, err)
				return
			}
		}
		if len(vc.Rules) != 1 || vc.Rules[0].ID != r.id {
			r.vcErr = fmt.Errorf("secrets: decode gitleaks rule %s: rule missing", r.id)
			return
		}
		r.vc = vc
	})
	return r.vc, r.vcErr
}

// allowlists returns the global allowlists as decoded from the
// configuration (Allowlists), decoding their tables on first use.
func (t *table) allowlists() (*config.ViperConfig, error) {
	t.alOnce.Do(func() {
		if t.src == "" {
			t.al.Allowlists = t.vc.Allowlists
			return
		}
		if t.alDataOK && fillViper(reflect.ValueOf(&t.al.Allowlists).Elem(), reflect.ValueOf(t.alData)) == nil {
			return
		}
		t.al = config.ViperConfig{}
		var b []byte
		for _, s := range t.allowSpans {
			b = append(b, t.src[s[0]:s[1]]...)
		}
		if err := toml.Unmarshal(b, &t.al); err != nil {
			t.alErr = fmt.Errorf("secrets: decode gitleaks allowlists: %w", err)
			return
		}
		t.alErr = foldAllowlist(&t.al)
	})
	return &t.al, t.alErr
}

// fillRule sets vc's rules to the one rule of data.
func fillRule(vc *config.ViperConfig, data *viperRuleData) error {
	rules := reflect.ValueOf(&vc.Rules).Elem()
	rules.Set(reflect.MakeSlice(rules.Type(), 1, 1))
	return fillViper(rules.Index(0), reflect.ValueOf(data).Elem())
}

// getPlan returns the rule's plan, building it on first use.
func (r *tableRule) getPlan(t *table) *tableRule {
	r.planOnce.Do(func() {
		vc, err := r.decoded(t)
		if err != nil {
			// Scanned whole, where detector reports the error.
			r.plan = plan{wholeRun: true, reach: -1}
			return
		}
		vr := &vc.Rules[0]
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

// detector returns a gitleaks detector holding only rule r (with its own
// and the global allowlists), and the translated rule, building them on
// first use.
func (r *tableRule) detector(t *table) (*detect.Detector, *config.Rule, error) {
	rd, err := r.detectors(t)
	if err != nil {
		return nil, nil, err
	}
	return rd.gl, rd.rule, nil
}

// detectors returns rule r's detectors with its allowlists, building them
// on first use.
func (r *tableRule) detectors(t *table) (*ruleDetectors, error) {
	r.glOnce.Do(func() {
		r.gl, r.glErr = r.compile(t, false)
		if r.glErr == nil {
			r.built.Store(r.gl)
		}
	})
	return r.gl, r.glErr
}

// firstDetectors returns the detectors to run first on rule r's windows,
// and whether their findings are final: the rule's detectors once built,
// its bare detectors until then. A window on which bare detectors find a
// candidate is scanned again with detectors.
func (r *tableRule) firstDetectors(t *table) (rd *ruleDetectors, final bool, err error) {
	if rd := r.built.Load(); rd != nil {
		return rd, true, nil
	}
	rd, err = r.bareDetectors(t)
	return rd, false, err
}

// bareDetectors returns rule r's detectors without any allowlist,
// building them on first use. An allowlist only drops findings (gitleaks
// skips an allowed finding or file, and its generic-rule filter has
// nothing to drop among one rule's findings), so a text on which they
// find nothing is one on which detectors find nothing: detectors, whose
// allowlists cost milliseconds to compile (the global one's 39 regexes are
// compiled twice, alone and joined), are built only for texts that hold a
// candidate secret.
func (r *tableRule) bareDetectors(t *table) (*ruleDetectors, error) {
	r.bareOnce.Do(func() {
		r.bare, r.bareErr = r.compile(t, true)
	})
	return r.bare, r.bareErr
}

// decoder returns the detector with gitleaks' decoding on, building it on
// first use: decoding (base64, hex, percent-encoding, escapes) is left to
// it, and it runs only around lines holding encoded segments.
func (rd *ruleDetectors) decoder() *detect.Detector {
	rd.decOnce.Do(func() {
		rd.dec = newGitleaks(rd.cfg, maxDecodeDepth)
	})
	return rd.dec
}

// newGitleaks returns a quiet gitleaks detector of cfg decoding to depth.
func newGitleaks(cfg config.Config, depth int) *detect.Detector {
	gl := detect.NewDetector(cfg)
	gl.MaxDecodeDepth = depth
	gl.Verbose = false
	return gl
}

// compile translates rule r alone, with its allowlists and the global
// ones unless bare, and returns its gitleaks detectors.
func (r *tableRule) compile(t *table, bare bool) (*ruleDetectors, error) {
	var err error
	var global []*config.Allowlist
	al := &config.ViperConfig{}
	if !bare {
		if global, err = t.globalAllowlists(); err != nil {
			return nil, err
		}
		if al, err = t.allowlists(); err != nil {
			return nil, err
		}
	}
	rvc, err := r.decoded(t)
	if err != nil {
		return nil, err
	}
	el := rvc.Rules[0]
	// Translate lowercases keywords in place and appends to the
	// allowlists: give it copies.
	el.Keywords = slices.Clone(el.Keywords)
	el.Tags = slices.Clone(el.Tags)
	el.Allowlists = slices.Clip(slices.Clone(el.Allowlists))
	if bare {
		el.AllowList, el.Allowlists = nil, nil
	}
	// gitleaks builds an Aho-Corasick trie of a 256-way table per state
	// for stopwords: ~15 ms for generic-api-key's 1,400. Such lists are
	// left out of the translation and set afterwards, which makes gitleaks
	// test them one by one (ContainsStopWord's fallback, same result) at a
	// few µs per candidate secret.
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
	for _, a := range al.Allowlists {
		if slices.Contains(a.TargetRules, r.id) {
			c := *a
			c.TargetRules = []string{r.id}
			vc.Allowlists = append(vc.Allowlists, &c)
		}
	}
	cfg, err := translate(&vc)
	if err != nil {
		return nil, fmt.Errorf("secrets: compile gitleaks rule %s: %w", r.id, err)
	}
	translated, ok := cfg.Rules[r.id]
	if !ok || len(cfg.Rules) != 1 {
		return nil, fmt.Errorf("secrets: compile gitleaks rule %s: rule missing", r.id)
	}
	for k, words := range deferred {
		translated.Allowlists[k].StopWords = lowerUnique(words)
	}
	cfg.Allowlists = global
	cfg.Path = ""
	return &ruleDetectors{cfg: cfg, rule: &translated, gl: newGitleaks(cfg, 0)}, nil
}

// globalAllowlists returns the compiled allowlists that apply to every
// rule, compiling them on first use.
func (t *table) globalAllowlists() ([]*config.Allowlist, error) {
	t.globalOnce.Do(func() {
		al, err := t.allowlists()
		if err != nil {
			t.globalErr = err
			return
		}
		// The paths of OR allowlists are pathAllowed's: Detect hands
		// gitleaks no text at a path they match, so gitleaks would find
		// none matching; it need not compile them (each alone, then
		// joined) nor test them on every call. Unless they do not compile,
		// which gitleaks reports.
		strip := t.pathPattern == "" || t.pathRegexp() != nil
		vc := config.ViperConfig{}
		for _, a := range al.Allowlists {
			if len(a.TargetRules) > 0 {
				continue
			}
			c := *a
			if strip && isOrCondition(c.Condition) {
				c.Paths = nil
				if len(c.Commits)+len(c.Regexes)+len(c.StopWords) == 0 {
					continue
				}
			}
			vc.Allowlists = append(vc.Allowlists, &c)
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
// as gitleaks joins them, and only for a path holding one of the strings a
// match needs (most paths hold none); other allowlists are left to
// gitleaks.
func (t *table) pathAllowed(path string) bool {
	if path == "" || t.pathPattern == "" {
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
	if !t.pathFactorsOK || holdsFactor(path, t.pathFactors) {
		re := t.pathRegexp()
		allowed = re != nil && re.MatchString(path)
	}
	t.pathMu.Lock()
	if t.pathCache == nil || len(t.pathCache) >= maxPathCache {
		t.pathCache = map[string]bool{}
	}
	t.pathCache[path] = allowed
	t.pathMu.Unlock()
	return allowed
}

// pathRegexp returns pathPattern compiled, or nil if it does not compile,
// compiling it on first use.
func (t *table) pathRegexp() *regexp.Regexp {
	t.pathsOnce.Do(func() {
		t.paths, _ = regexp.Compile(t.pathPattern)
	})
	return t.paths
}

// globalPathPattern joins the paths of the global allowlists whose
// condition is OR and that target no rule: each allowlist's as gitleaks
// joins them (a flag such as (?i) in one path holds for the paths after
// it), and those of several allowlists as alternatives; "" if none.
func globalPathPattern(vc *config.ViperConfig) string {
	var pats []string
	for _, a := range vc.Allowlists {
		if isOrCondition(a.Condition) && len(a.TargetRules) == 0 && len(a.Paths) > 0 {
			pats = append(pats, "(?:"+strings.Join(a.Paths, "|")+")")
		}
	}
	return strings.Join(pats, "|")
}

// isOrCondition reports whether an allowlist condition is OR, as gitleaks
// reads it.
func isOrCondition(condition string) bool {
	switch strings.ToUpper(condition) {
	case "", "OR", "||":
		return true
	}
	return false
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
