package scanner

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/textpos"
)

// Options configure a Run.
type Options struct {
	// Detectors run on every fragment. Each must be safe for concurrent use.
	Detectors []Detector
	// FingerprintKey keys finding fingerprints (see Fingerprinter).
	FingerprintKey [32]byte
	// Workers is the number of fragments detected in parallel; 0 means
	// GOMAXPROCS.
	Workers int
	// Exclude reports whether a path is excluded from scanning (repo
	// config globs). nil excludes nothing.
	Exclude func(path string) bool
	// Severity overrides the severity of a rule ID; a zero Severity in the
	// map disables the rule.
	Severity map[string]finding.Severity
	// Suppressed maps fingerprints to the source that suppresses them
	// ("ignore-file", "baseline").
	Suppressed map[string]string
	// Buffer bounds how many fragments may be in flight (read but not yet
	// handed to the Handler); 0 means 64.
	Buffer int
	// Markers says how privscan:allow markers on new text suppress.
	Markers MarkerPolicy
	// PolicyChanged is copied into the Summary (see Summary.PolicyChanged).
	PolicyChanged bool
}

// MarkerPolicy says whether privscan:allow markers that the change under
// review adds may silence their own findings.
type MarkerPolicy int

const (
	// MarkersHonour: every marker suppresses (whole files, the working
	// tree, text a user scans: there the author is the reviewer).
	MarkersHonour MarkerPolicy = iota
	// MarkersReview: a marker on new text (an added diff line, a commit
	// message, a text such as a pull request body) that was not already on
	// the base side does not silence the finding: it is reported with
	// Suppressed set to SuppressInlineAdded. Lines of whole files (KindFile)
	// are not new text and keep their markers.
	MarkersReview
)

// AllowMarker is the inline suppression marker.
const AllowMarker = "privscan:allow"

// SuppressInline is the source name counted for privscan:allow comments.
const SuppressInline = finding.SuppressInline

// SuppressInlineAdded is the source name of findings covered by a marker
// the change itself adds (under MarkersReview): counted as suppressed and
// still reported, with Finding.Suppressed set.
const SuppressInlineAdded = finding.SuppressInlineAdded

// ErrDetectorPanic is returned (wrapped) when a detector panics. The panic
// value is dropped: it could carry the text being scanned.
var ErrDetectorPanic = errors.New("internal error: a detector crashed")

type job struct {
	seq     int
	frag    *Fragment
	results []result
	lines   int
	err     error
	done    chan struct{}
}

// result is a finding before ordering: its fingerprint still needs the
// occurrence count, which only the ordered stage knows.
type result struct {
	fd     *Finding
	key    *[32]byte // the match's own fingerprint key, or nil
	base   [32]byte
	inline bool         // suppressed by a privscan:allow marker
	added  bool         // ... that the change adds (MarkersReview): still reported
	rec    *MatchRecord // the match takes part in a record rule
}

// Run reads every fragment of src, runs the detectors on it in parallel and
// hands findings to h in the source's order, then calls h.Summary. It stops
// at the first error (from src, a detector panic, h, or ctx).
func Run(ctx context.Context, src Source, opts Options, h Handler) (*Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	buffer := opts.Buffer
	if buffer <= 0 {
		buffer = 64
	}
	fp := NewFingerprinter(opts.FingerprintKey)

	work := make(chan *job, buffer)
	ordered := make(chan *job, buffer)
	var srcErr error
	go func() {
		defer close(ordered)
		defer close(work)
		seq := 0
		srcErr = src.Fragments(ctx, func(f *Fragment) error {
			j := &job{seq: seq, frag: f, done: make(chan struct{})}
			seq++
			select {
			case ordered <- j: // bounded: at most buffer jobs in flight
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case work <- j:
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		})
	}()

	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				detect(j, &opts, fp)
				close(j.done)
			}
		}()
	}

	sum := &Summary{Skipped: map[Skip]int{}, SuppressedBy: map[string]int{}, BySeverity: map[string]int{}}
	out := &output{opts: &opts, fp: fp, occ: map[[32]byte]int{}, sum: sum, h: h}
	commits := map[string]bool{}
	lastFile := "" // commit + "\x00" + path of the previous fragment: a streamed file arrives as consecutive fragments
	var runErr error
	for j := range ordered {
		if runErr == nil {
			select {
			case <-j.done:
			case <-ctx.Done():
				runErr = ctx.Err()
				cancel()
				continue
			}
			runErr = emit(j, out, commits, &lastFile)
			if runErr != nil {
				cancel()
			}
		}
	}
	wg.Wait()
	if runErr == nil && srcErr != nil {
		runErr = srcErr
	}
	if runErr == nil {
		runErr = ctx.Err()
	}
	if runErr == nil {
		// The last file's record rules that are still waiting.
		runErr = out.rec.end(out)
	}
	if runErr != nil {
		return sum, runErr
	}
	if len(sum.Skipped) == 0 {
		sum.Skipped = nil
	}
	if len(sum.SuppressedBy) == 0 {
		sum.SuppressedBy = nil
	}
	sum.CommitsScanned = len(commits)
	sum.PolicyChanged = opts.PolicyChanged
	if err := h.Summary(sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// output is the ordered stage's state: it numbers occurrences, applies
// suppressions and hands findings to the Handler, in the source's order.
type output struct {
	opts *Options
	fp   *Fingerprinter
	occ  map[[32]byte]int
	sum  *Summary
	h    Handler
	rec  recordStage
}

func emit(j *job, out *output, commits map[string]bool, lastFile *string) error {
	if j.err != nil {
		return j.err
	}
	sum := out.sum
	f := j.frag
	// Record rules' windows are per file (its fragments are consecutive),
	// commit message or text: a new one ends the last one's.
	if err := out.rec.enter(out, f); err != nil {
		return err
	}
	if f.Commit != "" {
		commits[f.Commit] = true
	}
	if f.Skipped != SkipNone {
		sum.Skipped[f.Skipped]++
		return nil
	}
	if f.Kind != KindCommitMessage {
		if k := f.Commit + "\x00" + f.Path; k != *lastFile || f.Kind != KindText {
			*lastFile = k
			sum.FilesScanned++
		}
	}
	sum.LinesScanned += j.lines
	for i := range j.results {
		r := &j.results[i]
		if r.rec != nil || out.rec.holding() {
			if err := out.rec.add(out, r); err != nil {
				return err
			}
			continue
		}
		if err := out.result(r, false); err != nil {
			return err
		}
	}
	return nil
}

// result hands r to the Handler (numbering its occurrence and applying
// suppressions); with drop, r only takes its occurrence number (a record
// rule's match that was not corroborated), so that others keep theirs.
func (out *output) result(r *result, drop bool) error {
	opts, sum, h := out.opts, out.sum, out.h
	fd := r.fd
	n := out.occ[r.base]
	out.occ[r.base] = n + 1
	if drop {
		sum.Uncorroborated++
		return nil
	}
	fd.Fingerprint = out.fp.finish(r.key, r.base, n)
	if r.inline && r.added {
		sum.Suppressed++
		sum.SuppressedBy[SuppressInlineAdded]++
		fd.Suppressed = SuppressInlineAdded
		return h.Finding(fd)
	}
	if r.inline {
		sum.Suppressed++
		sum.SuppressedBy[SuppressInline]++
		return nil
	}
	if src, ok := opts.Suppressed[fd.Fingerprint]; ok {
		sum.Suppressed++
		sum.SuppressedBy[src]++
		return nil
	}
	sum.Findings++
	sum.BySeverity[fd.Severity.String()]++
	return h.Finding(fd)
}

// detect runs every detector on j.frag and turns matches into findings.
func detect(j *job, opts *Options, fp *Fingerprinter) {
	f := j.frag
	if f.Skipped != SkipNone {
		return
	}
	if f.Path != "" && opts.Exclude != nil && opts.Exclude(f.Path) {
		f.Skipped = SkipExcluded
		f.Lines = nil
		return
	}
	j.lines = len(f.Lines)
	defer func() {
		if r := recover(); r != nil {
			j.results = nil
			j.err = ErrDetectorPanic
		}
	}()
	var matches []Match
	for _, d := range opts.Detectors {
		d.Detect(f, func(m Match) {
			if m.Line < 0 || m.Line >= len(f.Lines) {
				return
			}
			text := f.Lines[m.Line].Text
			if m.Start < 0 || m.End > len(text) || m.Start >= m.End {
				return
			}
			matches = append(matches, m)
		})
	}
	if len(matches) == 0 {
		return
	}
	sort.SliceStable(matches, func(a, b int) bool {
		ma, mb := &matches[a], &matches[b]
		if ma.Line != mb.Line {
			return ma.Line < mb.Line
		}
		if ma.Start != mb.Start {
			return ma.Start < mb.Start
		}
		if ma.End != mb.End {
			return ma.End < mb.End
		}
		return ma.RuleID < mb.RuleID
	})
	scope := fingerprintScope(f)
	for i := range matches {
		m := &matches[i]
		if i > 0 && sameMatch(m, &matches[i-1]) {
			continue
		}
		sev := m.Severity
		hidden := m.Record != nil && m.Record.Hidden
		if s, ok := opts.Severity[m.RuleID]; ok && !hidden {
			if s == 0 {
				continue
			}
			sev = s
		}
		line := f.Lines[m.Line]
		fd := &Finding{
			RuleID:      m.RuleID,
			Source:      m.Source,
			Category:    m.Category,
			Severity:    sev,
			Description: m.Description,
			Kind:        f.Kind,
			Path:        f.Path,
			Commit:      f.Commit,
			Date:        f.Date,
			Line:        line.Number,
		}
		sp := textpos.Columns(line.Text, m.Start, m.End)
		fd.Column, fd.EndColumn = sp.Column, sp.EndColumn
		fd.Column16, fd.EndColumn16 = sp.Column16, sp.EndColumn16
		if hidden {
			// Only corroborates: never reported, no fingerprint.
			j.results = append(j.results, result{fd: fd, rec: m.Record})
			continue
		}
		// Inline-suppressed findings still take part in occurrence counting,
		// so adding a marker doesn't change other findings' fingerprints.
		r := result{
			fd:     fd,
			key:    m.FingerprintKey,
			base:   fp.base(m.FingerprintKey, m.RuleID, scope, line.Text),
			inline: allowedInline(line.Text, m.RuleID),
			rec:    m.Record,
		}
		if r.inline && opts.Markers == MarkersReview && f.Kind != KindFile {
			r.added = !markerOnBase(f.BaseMarkers[m.Line], m.RuleID)
		}
		j.results = append(j.results, r)
	}
}

func sameMatch(a, b *Match) bool {
	return a.Line == b.Line && a.Start == b.Start && a.End == b.End && a.RuleID == b.RuleID
}

func fingerprintScope(f *Fragment) string {
	switch f.Kind {
	case KindCommitMessage:
		return "commit-message"
	case KindText:
		if f.Path == "" {
			return "text"
		}
	}
	return "path:" + f.Path
}

// Fingerprinter computes finding fingerprints. A fingerprint is
//
//	hex(HMAC-SHA256(key, "privscan/fp/v1" | ruleID | scope | trimmed line | n))[:32]
//
// where scope is the file path (or "commit-message"/"text"), the trimmed line
// is the whole line with surrounding whitespace removed, and n counts earlier
// findings of the same rule on an identical line in the same scope. It does
// not depend on the line number (stable when lines move) and, being keyed
// with the catalog's fingerprint-key, cannot be recomputed to confirm a
// guessed value without the catalog. A match that carries its own key
// (Match.FingerprintKey: a rule of a combined catalog) is keyed by it.
type Fingerprinter struct {
	key [32]byte
}

// NewFingerprinter returns a Fingerprinter keyed by key.
func NewFingerprinter(key [32]byte) *Fingerprinter { return &Fingerprinter{key: key} }

// keyOf returns own when set, else the Fingerprinter's key.
func (p *Fingerprinter) keyOf(own *[32]byte) []byte {
	if own != nil {
		return own[:]
	}
	return p.key[:]
}

func (p *Fingerprinter) base(own *[32]byte, ruleID, scope string, line []byte) [32]byte {
	m := hmac.New(sha256.New, p.keyOf(own))
	m.Write([]byte("privscan/fp/v1\x00"))
	m.Write([]byte(ruleID))
	m.Write([]byte{0})
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write(bytes.TrimSpace(line))
	var out [32]byte
	m.Sum(out[:0])
	return out
}

func (p *Fingerprinter) finish(own *[32]byte, base [32]byte, n int) string {
	m := hmac.New(sha256.New, p.keyOf(own))
	m.Write(base[:])
	fmt.Fprintf(m, "\x00%d", n)
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// markerOnBase reports whether one of a line's base-side lines (see
// Fragment.BaseMarkers) already allowed ruleID.
func markerOnBase(base [][]byte, ruleID string) bool {
	for _, b := range base {
		if allowedInline(b, ruleID) {
			return true
		}
	}
	return false
}

// allowedInline reports whether line carries a privscan:allow marker that
// covers ruleID: "privscan:allow" alone covers every rule on the line;
// "privscan:allow a/b,c/d" covers only the listed rule IDs. The marker works
// in any comment syntax or string because only the marker itself is looked
// for.
func allowedInline(line []byte, ruleID string) bool {
	const marker = AllowMarker
	rest := line
	for {
		i := bytes.Index(rest, []byte(marker))
		if i < 0 {
			return false
		}
		rest = rest[i+len(marker):]
		if len(rest) > 0 && isRuleIDByte(rest[0]) || len(rest) > 0 && rest[0] == ':' {
			continue // e.g. "privscan:allowed": not our marker
		}
		ids := ruleList(rest)
		if len(ids) == 0 {
			return true
		}
		for _, id := range ids {
			if id == ruleID {
				return true
			}
		}
	}
}

// ruleList parses " id1,id2" after the marker. Rule IDs always carry a
// source prefix ("catalog/", "pii/", "secret/"); a word without a slash is
// prose ("privscan:allow test fixture") and ends the list.
func ruleList(b []byte) []string {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	var ids []string
	for {
		start := i
		for i < len(b) && isRuleIDByte(b[i]) {
			i++
		}
		if i == start || bytes.IndexByte(b[start:i], '/') < 0 {
			return ids
		}
		ids = append(ids, string(b[start:i]))
		j := i
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		if j >= len(b) || b[j] != ',' {
			return ids
		}
		i = j + 1
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
	}
}

func isRuleIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/'
}
