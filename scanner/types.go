package scanner

import (
	"context"

	"github.com/privscan/privscan/catalog"
)

// Kind says where a fragment of text came from.
type Kind string

const (
	KindDiff          Kind = "diff"           // added lines of a diff
	KindFile          Kind = "file"           // a whole working-tree file
	KindCommitMessage Kind = "commit-message" // a commit's message
	KindText          Kind = "text"           // free text (stdin, a PR body)
)

// Skip says why a fragment carries no lines.
type Skip string

const (
	SkipNone      Skip = ""
	SkipBinary    Skip = "binary"
	SkipLFS       Skip = "lfs"
	SkipSubmodule Skip = "submodule"
	SkipExcluded  Skip = "excluded"
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
	Lines  []Line
	// Skipped is set (and Lines is empty) when the file was not scanned.
	Skipped Skip
	// BaseMarkers, for a diff fragment, holds the base side of added lines
	// that carry a privscan:allow marker: by index into Lines, the lines
	// the same hunk removed that carry one too. A marker is on the base
	// side when such a removed line allows the same rule; every other
	// marker on an added line was added by the change. Nil when no added
	// line has a marker, and for other kinds of fragment.
	BaseMarkers map[int][][]byte
}

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
	Source      string // "catalog", "pii" or "secret"
	Category    string
	Severity    catalog.Severity
	Description string // value-free rule description
}

// Detector finds matches in a fragment. Detect must be safe for concurrent
// use; it reports each match through emit.
type Detector interface {
	Name() string
	Detect(f *Fragment, emit func(Match))
}

// Finding is one reported match. It holds no matched text.
type Finding struct {
	RuleID      string           `json:"ruleId"`
	Source      string           `json:"source"`
	Category    string           `json:"category"`
	Severity    catalog.Severity `json:"severity"`
	Kind        Kind             `json:"kind"`
	Path        string           `json:"path"`
	Commit      string           `json:"commit"`
	Line        int              `json:"line"`
	Column      int              `json:"column"`    // code points, 1-based
	EndColumn   int              `json:"endColumn"` // code points, exclusive
	Fingerprint string           `json:"fingerprint"`
	// Suppressed is set on a finding that is reported although suppressed:
	// SuppressInlineAdded when a privscan:allow marker that the change
	// itself adds covers it (under review: see Options.Markers).
	Suppressed string `json:"suppressed,omitempty"`

	// Not part of the JSON contract.
	Description string `json:"-"` // value-free rule description
	Column16    int    `json:"-"` // UTF-16 code units, 1-based (SARIF)
	EndColumn16 int    `json:"-"` // UTF-16 code units, exclusive
}

// Summary counts what a run saw.
type Summary struct {
	Findings       int            `json:"findings"`
	Suppressed     int            `json:"suppressed"`
	FilesScanned   int            `json:"filesScanned"`
	LinesScanned   int            `json:"linesScanned"`
	CommitsScanned int            `json:"commitsScanned,omitempty"`
	Skipped        map[Skip]int   `json:"skipped,omitempty"`
	SuppressedBy   map[string]int `json:"suppressedBy,omitempty"` // "inline", "inline-added", "ignore-file", "baseline"
	// PolicyChanged is set when the change under review edits the
	// repository's policy files (.privscan.toml, .privscanignore, a
	// catalog kept in the repository): the policy of the trusted side
	// judged it, and the new policy applies once merged.
	PolicyChanged bool           `json:"policyChanged,omitempty"`
	BySeverity    map[string]int `json:"-"`
}

// Fails reports whether f counts towards a fail-on level: it is at or
// above level (0: never), and either not suppressed or suppressed only by
// a marker the change adds while such markers are not allowed.
func (f *Finding) Fails(level catalog.Severity, allowNewMarkers bool) bool {
	if level == 0 || f.Severity < level {
		return false
	}
	return f.Suppressed == "" || (f.Suppressed == SuppressInlineAdded && !allowNewMarkers)
}

// Handler receives the findings stream. Finding is called in the stream's
// deterministic order; Summary is called once at the end of a successful run.
type Handler interface {
	Finding(*Finding) error
	Summary(*Summary) error
}
