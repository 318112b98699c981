package scanner

import (
	"context"
	"time"

	"github.com/privscan/privscan/finding"
)

// The stream's types live in package finding; these names remain for the
// scanner's callers.
type (
	Kind    = finding.Kind
	Skip    = finding.Skip
	Finding = finding.Finding
	Summary = finding.Summary
	Handler = finding.Handler
)

const (
	KindDiff          = finding.KindDiff
	KindFile          = finding.KindFile
	KindCommitMessage = finding.KindCommitMessage
	KindText          = finding.KindText

	SkipNone      = finding.SkipNone
	SkipBinary    = finding.SkipBinary
	SkipLFS       = finding.SkipLFS
	SkipSubmodule = finding.SkipSubmodule
	SkipExcluded  = finding.SkipExcluded
)

// Line is one line of scanned text. Text excludes the line terminator
// ("\n" or "\r\n").
type Line struct {
	Number int // 1-based line number in the new file (or text)
	Text   []byte
}

// Fragment is the unit a Source yields: the added lines of one file in one
// diff, a whole file, a commit message, or a text.
type Fragment struct {
	Kind   Kind
	Path   string // slash-separated, relative to the repository root; "" for messages and stdin
	Commit string // full hex commit ID for history and commit messages; "" otherwise
	// Date is the author date of Commit, for history; zero otherwise.
	Date  time.Time
	Lines []Line
	// Skipped is set (and Lines is empty) when the file was not scanned.
	Skipped Skip
	// BaseMarkers, for a diff fragment, holds the base side of added lines
	// that carry a privscan:allow marker: by index into Lines, the lines
	// the same hunk removed that carry one too. A marker is on the base
	// side when such a removed line allows the same rule; every other
	// marker on an added line was added by the change. Nil when no added
	// line has a marker, and for other kinds of fragment.
	BaseMarkers map[int][][]byte
	// Context, for a diff fragment, holds lines of the new file that the
	// change did not add: up to ContextLines of them before each run of
	// added lines, in line order, never overlapping Lines. A detector may
	// read them to understand the added lines (the key of the list an
	// item was appended to, the heading of the section it is in) and
	// never reports on them; nothing else reads them. They are file
	// content: the invariant holds for them as for Lines. Nil for other
	// kinds of fragment.
	Context []Line
}

// ContextLines bounds the lines of Fragment.Context before one run of
// added lines.
const ContextLines = 32

// Source yields fragments in a deterministic order.
type Source interface {
	// Fragments calls yield for every fragment, in order, and stops with
	// yield's error if it returns one. It must honour ctx.
	Fragments(ctx context.Context, yield func(*Fragment) error) error
}

// Match is what a Detector reports: a rule and a byte span in one line of
// the fragment. It never carries the matched text.
type Match struct {
	Line        int // index into Fragment.Lines
	Start, End  int // byte offsets into that line's Text, End exclusive
	RuleID      string
	Source      finding.Source
	Category    string
	Severity    finding.Severity
	Description string // value-free rule description
	// FingerprintKey, when set, keys this match's fingerprint instead of
	// Options.FingerprintKey: a rule of a combined catalog keeps the key
	// of its own catalog (catalog.Matcher.RuleFingerprintKey).
	FingerprintKey *[32]byte
	// Record, when set, makes the match take part in a record rule.
	Record *MatchRecord
}

// MatchRecord is what a match of a rule that takes part in record rules
// carries: the keyed identifiers of the rows its value is in (never
// text) and, for a record rule, when it counts.
type MatchRecord struct {
	// IDs are keyed row identifiers: two matches are of the same row when
	// their IDs intersect.
	IDs []uint64
	// Rule, when set, makes the match count only when corroborated.
	Rule *RecordRule
	// Hidden: the match only corroborates and is never reported.
	Hidden bool
	// Window is the widest window of the record rules of the match's
	// catalog (< 0: a whole file): how many lines of matches before a
	// match the ordered stage keeps, so that a record rule's match that
	// comes later still sees its corroboration.
	Window int
}

// RecordRule says when a match of a record rule counts: a match of one of
// By (rule IDs, as Match.RuleID) whose IDs intersect, at most Within lines
// away in the same file (or commit message, or text); Within < 0: anywhere
// in it. Otherwise it is dropped, or reported at Uncorroborated when set.
type RecordRule struct {
	By             []string
	Within         int
	Uncorroborated finding.Severity
}

// Detector finds matches in a fragment. Detect must be safe for concurrent
// use; it reports each match through emit.
type Detector interface {
	Name() string
	Detect(f *Fragment, emit func(Match))
}
