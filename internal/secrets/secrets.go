// Package secrets adapts the gitleaks v8 default rule set to scanner.Detector.
//
// gitleaks is quarantined here: none of its types leave this package, its
// logger is silenced, and its findings are turned into value-free
// scanner.Match values at once (the secret, match and line texts it returns
// are dropped, never stored or logged).
//
// Results are those of running gitleaks (Detector.Detect, decoding
// base64, hex, percent-encoded and escaped segments up to depth 5 as
// gitleaks git does by default) on each run of consecutive lines of a
// fragment with all rules, but the work is narrowed first, so that neither start-up nor scanning costs what
// gitleaks does (its rules run on Go's regexp at about 1 MB/s each, and
// real code holds keywords like key, token and api on most lines):
//
//   - Lazy rules. New decodes nothing: the rules, decoded, and one keyword
//     automaton over all rules' keywords are generated ahead of time for
//     the linked gitleaks version (index.go; checked against the embedded
//     configuration's digest, which falls back to decoding it whole with
//     go-toml, not viper). A rule's plan (see plan) is built the first
//     time one of its keywords is seen, a gitleaks detector holding that
//     rule alone without allowlists the first time it has a window to
//     scan, and one with the rule's and the global allowlists the first
//     time that one finds a candidate secret (allowlists only drop
//     findings: a window the first finds nothing in needs no second look).
//   - Keyword windows. Each line is searched for keywords, ASCII case
//     folded as gitleaks lowercases text. For each occurrence of one of a
//     rule's keywords, the rule's plan checks with an anchored DFA that a
//     match can start there and bounds the lines such a match can span
//     (multi-line rules such as private keys and curl commands included);
//     gitleaks then runs that rule only over the merged windows of lines so
//     found, each ending with the newline that follows it in the run.
//     Windows hold every match gitleaks finds in the whole run, and no
//     match crosses a window's edge, so the matches are the same. Rules
//     whose regex the plan cannot split (8 of 221, whose keywords are not
//     where a match starts) run over whole runs holding their keywords, as
//     in gitleaks.
//   - Entropy. A window is skipped for a rule with an entropy threshold if
//     no run of the bytes its secret can hold has enough distinct bytes to
//     pass it.
//   - Decoding (see decode.go). Lines holding a segment gitleaks' decoder
//     decodes are found by a byte loop that rejects almost every line;
//     around those lines, the rules whose keywords occur in the run or in
//     the decoded text are run with gitleaks' decoding on, and the
//     findings of decoded passes kept. Such a finding's span is the
//     original text its match maps back to, as gitleaks reports it: the
//     whole encoded segment when the match lies inside its decoded value.
//   - gitleaks' cross-rule step (a generic-api-key finding yields to a
//     specific rule's finding of the same secret on the same line) is
//     applied per run, as gitleaks applies it per call.
//
// The only known differences from gitleaks, neither reachable with the
// default rules on ordinary text: a case-insensitive rule matching U+017F
// (ſ, which (?i)s matches but which does not lowercase to s) where no
// keyword is spelled out is not found; and the line text gitleaks tests
// "line" allowlists and gitleaks:allow against lacks the leading newline
// it has in the whole run when the match is on a window's first line (the
// default rules' line allowlists are unanchored).
package secrets

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

const (
	// Name is the detector name and the Match.Source and Match.Category of
	// every secret match.
	Name = finding.SourceSecret
	// RulePrefix prefixes gitleaks rule IDs in Match.RuleID.
	RulePrefix = "secret/"
)

// Detector finds secrets with the gitleaks default rules. It is safe for
// concurrent use.
type Detector struct {
	t *table
}

var _ scanner.Detector = (*Detector)(nil)

// silenceGitleaks replaces gitleaks' package-level logger, which writes to
// stderr and whose debug and trace events quote secrets, with one that
// discards everything. gitleaks logs through nothing else.
func silenceGitleaks() { logging.Logger = zerolog.Nop() }

// New returns a Detector using the gitleaks v8 default rules. Rules are
// compiled when first needed; the configuration is decoded once per
// process.
func New() (*Detector, error) {
	t, err := defaultTable()
	if err != nil {
		return nil, err
	}
	return &Detector{t: t}, nil
}

// Name returns "secret".
func (d *Detector) Name() string { return Name }

// Rules describes every secret rule, sorted by ID, for reports that list
// rules (SARIF). IDs carry the "secret/" prefix.
func (d *Detector) Rules() []catalog.RuleInfo {
	out := make([]catalog.RuleInfo, 0, len(d.t.rules))
	for _, r := range d.t.rules {
		out = append(out, catalog.RuleInfo{
			ID:          RulePrefix + r.id,
			Category:    Name,
			Severity:    finding.SeverityError,
			Description: r.description,
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
	if f == nil || len(f.Lines) == 0 || d.t.pathAllowed(f.Path) {
		return
	}
	var ms []scanner.Match
	var hits []hit
	for lo := 0; lo < len(f.Lines); {
		hi := lo + 1
		for hi < len(f.Lines) && adjacent(f.Lines[hi-1].Number, f.Lines[hi].Number) {
			hi++
		}
		ms, hits = d.detectRun(f.Path, f.Lines, lo, hi, ms, hits)
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

// hit is an occurrence of one of a rule's keywords in a run.
type hit struct {
	rule int32 // index into table.rules
	line int32 // index into the run
	pos  int32 // byte offset in the line; -1 if unknown
}

// runState is the scratch state of one run's scan.
type runState struct {
	path  string
	t     text    // the run's text
	views []text  // windows scanned, by index
	first []int   // each window's first line in the run
	found []found // gitleaks findings, before the generic filter
}

// found is a gitleaks finding, kept only until it is located: its match
// and secret texts are dropped at the end of the run's scan.
type found struct {
	rule          *config.Rule
	view          int // index into runState.views
	line          int // run line where the match starts (gitleaks' StartLine)
	col           int // gitleaks' StartColumn
	match, secret string
	// A finding of a decoded pass is located by its reported span alone
	// (its match is decoded text): gitleaks' EndLine (run line) and
	// EndColumn.
	decoded         bool
	endLine, endCol int
}

// detectRun scans lines[lo:hi], one run, and appends its matches. hits is
// scratch space, returned for reuse.
func (d *Detector) detectRun(path string, lines []scanner.Line, lo, hi int, ms []scanner.Match, hits []hit) ([]scanner.Match, []hit) {
	run := lines[lo:hi]
	hits = hits[:0]
	var enc []int     // lines holding an encoded segment
	var decHits []hit // keywords in their decoded forms
	for i, l := range run {
		if len(l.Text) > MaxLineBytes {
			continue // scanned as empty
		}
		d.t.kw.lineKeywords(l.Text, func(start int, kw int32) {
			for _, r := range d.t.kwRules[kw] {
				hits = append(hits, hit{rule: r, line: int32(i), pos: int32(start)})
			}
		})
		if mayDecode(l.Text) && d.decodeLine(l.Text, i, &decHits) {
			enc = append(enc, i)
		}
	}
	if len(hits) == 0 && len(d.t.always) == 0 && len(decHits) == 0 {
		return ms, hits
	}
	st := &runState{path: path, t: newText(run)}
	byRule := groupByRule(hits, len(d.t.rules))
	for a := 0; a < len(byRule); {
		b := a + 1
		for b < len(byRule) && byRule[b].rule == byRule[a].rule {
			b++
		}
		d.detectRule(st, d.t.rules[byRule[a].rule], byRule[a:b])
		a = b
	}
	for _, r := range d.t.always {
		d.detectRule(st, d.t.rules[r], nil)
	}
	if len(enc) > 0 {
		d.detectDecoded(st, enc, byRule, decHits)
	}
	return st.matches(lo, ms), hits
}

// detectDecoded runs gitleaks with decoding around the lines of the run
// that hold encoded segments (enc, in order). A match of a decoded pass
// overlaps a segment and holds a keyword occurrence, in the decoded text
// of a segment line (decHits, position unknown) or in text decoding leaves
// as it is (a hit of byRule that mayStartDecoded passes, within a match's
// reach of a segment line); it lies within the rule's reach of that
// occurrence's line. So each rule is run over the lines within its reach
// of such occurrences. Only findings of decoded passes are kept: the
// others are detectRule's.
func (d *Detector) detectDecoded(st *runState, enc []int, byRule []hit, decHits []hit) {
	isEnc := make([]bool, len(st.t.starts))
	for _, i := range enc {
		isEnc[i] = true
	}
	anchors := decHits
	for _, h := range byRule {
		p := &d.t.rules[h.rule].getPlan(d.t).plan
		if (p.reach < 0 || nearLine(enc, reachOf(isEnc, int(h.line), p.reach))) && p.mayStartDecoded(st.t, h, enc) {
			anchors = append(anchors, h)
		}
	}
	for _, r := range d.t.always {
		anchors = append(anchors, hit{rule: r, line: -1, pos: -1})
	}
	anchors = groupByRule(anchors, len(d.t.rules))
	var wins [][2]int
	for a := 0; a < len(anchors); {
		b := a + 1
		for b < len(anchors) && anchors[b].rule == anchors[a].rule {
			b++
		}
		tr := d.t.rules[anchors[a].rule]
		wins = d.decodeWindows(st, tr, anchors[a:b], isEnc, wins[:0])
		a = b
		if tr.pathExcluded(st.path) {
			continue
		}
		det, final, err := tr.firstDetectors(d.t)
		if err != nil {
			continue
		}
		for _, w := range wins {
			v := st.t.sub(w[0], w[1])
			//lint:ignore SA1019 see detectRule
			frag := detect.Fragment{Raw: v.s, FilePath: st.path}
			findings := det.decoder().Detect(frag)
			if !final && slices.ContainsFunc(findings, func(fd report.Finding) bool {
				return fd.RuleID == tr.id && isDecodedFinding(fd.Tags)
			}) {
				// See detectRule.
				if det, err = tr.detectors(d.t); err != nil {
					break
				}
				final = true
				findings = det.decoder().Detect(frag)
			}
			if !final {
				continue
			}
			rule := det.rule
			viewed := false
			for _, fd := range findings {
				if fd.RuleID != rule.RuleID || !isDecodedFinding(fd.Tags) {
					continue
				}
				if !viewed {
					st.views = append(st.views, v)
					st.first = append(st.first, w[0])
					viewed = true
				}
				st.found = append(st.found, found{
					rule: rule, view: len(st.views) - 1,
					line: w[0] + fd.StartLine, col: fd.StartColumn,
					endLine: w[0] + fd.EndLine, endCol: fd.EndColumn,
					match: fd.Match, secret: fd.Secret, decoded: true,
				})
			}
		}
	}
}

// decodeLine reports whether gitleaks' decoder finds a segment in line i,
// and appends to decHits the rules with a keyword in its decoded forms.
func (d *Detector) decodeLine(line []byte, i int, decHits *[]hit) bool {
	return decodeLine(line, func(decoded string) {
		d.t.kw.lineKeywords([]byte(decoded), func(_ int, kw int32) {
			for _, r := range d.t.kwRules[kw] {
				*decHits = append(*decHits, hit{rule: r, line: int32(i), pos: -1})
			}
		})
	})
}

// decodeWindows appends to wins the merged line ranges of the run within
// rule r's reach of its anchors (whole run if unbounded).
func (d *Detector) decodeWindows(st *runState, r *tableRule, anchors []hit, isEnc []bool, wins [][2]int) [][2]int {
	reach := r.getPlan(d.t).plan.reach
	for _, h := range anchors {
		if reach < 0 || h.line < 0 {
			return append(wins[:0], [2]int{0, len(isEnc) - 1})
		}
		wins = append(wins, reachOf(isEnc, int(h.line), reach))
	}
	return mergeWindows(wins)
}

// reachOf returns the lines a match holding a point of line i and at
// most reach newlines of decoded text can span. A run of segment lines
// counts as one line: U+ escapes separated by a newline decode as one
// segment, which holds no newline.
func reachOf(isEnc []bool, i, reach int) [2]int {
	lo, hi := i, i
	for n := 0; lo > 0; lo-- {
		if !isEnc[lo] || !isEnc[lo-1] {
			if n == reach {
				break
			}
			n++
		}
	}
	for n := 0; hi+1 < len(isEnc); hi++ {
		if !isEnc[hi] || !isEnc[hi+1] {
			if n == reach {
				break
			}
			n++
		}
	}
	return [2]int{lo, hi}
}

// nearLine reports whether a line of lines (sorted) is within w.
func nearLine(lines []int, w [2]int) bool {
	k, _ := slices.BinarySearch(lines, w[0])
	return k < len(lines) && lines[k] <= w[1]
}

// mayStartDecoded reports whether a match of a decoded pass can contain
// keyword hit h, given the run lines holding encoded segments (enc,
// sorted): false only when no branch's f matches at the hit on text that
// holds no segment (decoding leaves such text as it is).
func (p *plan) mayStartDecoded(t text, h hit, enc []int) bool {
	i := int(h.line)
	if p.wholeRun || h.pos < 0 {
		return true
	}
	q := t.starts[i] + int(h.pos)
	next, _ := slices.BinarySearch(enc, i) // the first segment line from i on
	for k := range p.branches {
		b := &p.branches[k]
		if b.fMax < 0 {
			return true
		}
		end := min(len(t.s), q+b.fMax+1)
		if next < len(enc) && t.lineOf(max(end-1, q)) >= enc[next] {
			return true // f reads text that decoding may change
		}
		in := t.s[q:end]
		matched, ok := b.f.match(in)
		if !ok {
			re := b.fre.get()
			matched = re == nil || re.MatchString(in)
		}
		if matched {
			return true
		}
	}
	return false
}

// groupByRule returns hits ordered by rule, keeping their (line) order
// within a rule: a counting sort, as runs of code hold many hits.
func groupByRule(hits []hit, rules int) []hit {
	start := make([]int32, rules+1)
	for _, h := range hits {
		start[h.rule+1]++
	}
	for r := 1; r <= rules; r++ {
		start[r] += start[r-1]
	}
	out := make([]hit, len(hits))
	for _, h := range hits {
		out[start[h.rule]] = h
		start[h.rule]++
	}
	return out
}

// detectRule runs rule r over the windows of the run that its keyword
// hits (in line order) call for; nil hits mean the whole run.
func (d *Detector) detectRule(st *runState, r *tableRule, hits []hit) {
	r.getPlan(d.t)
	if r.pathExcluded(st.path) {
		return
	}
	p := &r.plan
	t := st.t
	last := len(t.starts) - 1
	var wins [][2]int
	tail := last + 1 // the least start of a window reaching the last line
	if hits == nil || p.wholeRun {
		wins = append(wins, [2]int{0, last})
		hits = nil
	}
	for _, h := range hits {
		i := int(h.line)
		// Later hits' windows start at i-p.before or later (at 0 if
		// unbounded): from tail on, they lie in a window reaching the end.
		if (p.before >= 0 && i-p.before >= tail) || tail == 0 {
			break
		}
		for k := range p.branches {
			b := &p.branches[k]
			lo := 0
			if b.nlBefore >= 0 {
				lo = max(0, i-b.nlBefore)
			}
			if hi, ok := b.windowEnd(t, i, int(h.pos), last); ok {
				wins = append(wins, [2]int{lo, hi})
				if hi == last {
					tail = min(tail, lo)
				}
			}
		}
	}
	if len(wins) == 0 {
		return
	}
	det, final, err := r.firstDetectors(d.t)
	if err != nil {
		return // a rule that does not compile finds nothing
	}
	for _, w := range mergeWindows(wins) {
		v := t.sub(w[0], w[1])
		if !p.secret.possible(v.s) {
			continue // no secret could pass the rule's entropy threshold
		}
		// detect.Fragment is deprecated in favour of sources.Fragment in
		// v9, but v8's Detect, the only call taking a file path without
		// accumulating findings in the detector, still requires it.
		//lint:ignore SA1019 no v8 alternative
		frag := detect.Fragment{Raw: v.s, FilePath: st.path}
		findings := det.gl.Detect(frag)
		if len(findings) == 0 {
			continue // so would the rule with its allowlists
		}
		if !final {
			if det, err = r.detectors(d.t); err != nil {
				return
			}
			final = true
			if findings = det.gl.Detect(frag); len(findings) == 0 {
				continue
			}
		}
		rule := det.rule
		st.views = append(st.views, v)
		st.first = append(st.first, w[0])
		for _, fd := range findings {
			if fd.RuleID != rule.RuleID {
				continue
			}
			st.found = append(st.found, found{
				rule: rule, view: len(st.views) - 1,
				line: w[0] + fd.StartLine, col: fd.StartColumn,
				match: fd.Match, secret: fd.Secret,
			})
		}
	}
}

// mergeWindows sorts line ranges and merges those that overlap or touch:
// gitleaks must see each maximal run of window lines as one text.
func mergeWindows(wins [][2]int) [][2]int {
	slices.SortFunc(wins, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	out := wins[:1]
	for _, w := range wins[1:] {
		if l := &out[len(out)-1]; w[0] <= l[1]+1 {
			l[1] = max(l[1], w[1])
		} else {
			out = append(out, w)
		}
	}
	return out
}

// windowEnd returns the last line a match of the branch containing a
// keyword occurrence at byte pos of line i of t can reach, or false if no
// match can contain it. pos < 0 means the position is unknown.
func (b *branch) windowEnd(t text, i, pos, last int) (int, bool) {
	if pos < 0 {
		if b.nlAfter < 0 {
			return last, true
		}
		return min(last, i+b.nlAfter), true
	}
	q := t.starts[i] + pos
	in := t.s[q:]
	if b.fMax >= 0 {
		in = in[:min(len(in), b.fMax+1)]
	}
	matched, ok := b.f.match(in)
	if !ok {
		re := b.fre.get()
		matched = re == nil || re.MatchString(in)
	}
	if !matched {
		return 0, false
	}
	switch {
	case b.nlAfter == 0:
		return i, true
	case b.nlAfter < 0:
		return last, true
	}
	end := len(t.s)
	if b.esMax >= 0 {
		end = min(end, q+b.esMax+1)
	}
	es := b.es.get()
	if es == nil {
		return last, true
	}
	loc := es.FindStringIndex(t.s[q:end])
	if loc == nil {
		return 0, false
	}
	// The line holding the longest match's last byte (a joining newline
	// counts as part of the line it ends: the window text keeps it).
	return t.lineOf(q + max(loc[1], 1) - 1), true
}

// matches applies gitleaks' cross-rule filter to the run's findings,
// locates the survivors and appends them to ms as matches; lo is the
// run's first line in the fragment. The findings' texts are dropped.
func (st *runState) matches(lo int, ms []scanner.Match) []scanner.Match {
	defer clear(st.found)
	for i := range st.found {
		fd := &st.found[i]
		if isGeneric(fd.rule.RuleID) && st.superseded(i) {
			continue
		}
		v := st.views[fd.view]
		first := st.first[fd.view]
		var start, end int
		var ok bool
		if fd.decoded {
			start, end, ok = v.decodedSpan(fd.line-first, fd.col, fd.endLine-first, fd.endCol)
		} else {
			start, end, ok = v.secretSpan(*fd.rule, fd.line-first, fd.col, fd.match, fd.secret)
		}
		if !ok {
			continue
		}
		li, s, e := v.lineSpan(start, end)
		ms = append(ms, scanner.Match{
			Line:        lo + first + li,
			Start:       s,
			End:         e,
			RuleID:      RulePrefix + fd.rule.RuleID,
			Source:      Name,
			Category:    Name,
			Severity:    finding.SeverityError,
			Description: fd.rule.Description,
		})
	}
	return ms
}

// isGeneric reports whether gitleaks lets other rules' findings take
// precedence over a rule's findings.
func isGeneric(ruleID string) bool {
	return strings.Contains(strings.ToLower(ruleID), "generic")
}

// superseded reports whether gitleaks drops generic finding i of the run
// because a finding of a specific rule on the same line holds its secret
// (gitleaks' detect.filter, applied per Detect call, here per run).
func (st *runState) superseded(i int) bool {
	f := &st.found[i]
	for j := range st.found {
		g := &st.found[j]
		if g.line == f.line && g.rule.RuleID != f.rule.RuleID &&
			!isGeneric(g.rule.RuleID) && strings.Contains(g.secret, f.secret) {
			return true
		}
	}
	return false
}
