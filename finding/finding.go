// Package finding is privscan's protocol: the types every part of the
// program exchanges about a scan — a rule's Severity, where a finding came
// from (Source, Kind), the Finding itself, the run's Summary and the
// Handler that receives the stream. It imports nothing of privscan, so
// renderers, detectors and doors can share it without depending on the
// catalog matcher or the scanner.
//
// A Finding never holds matched text: it names a rule, a location and a
// keyed fingerprint, so no renderer can print a catalog value.
package finding

import (
	"fmt"
	"strings"
	"time"
)

// Severity of a rule or finding. The zero value is invalid; as a fail-on
// level it means "never".
type Severity uint8

const (
	SeverityNote Severity = iota + 1
	SeverityWarning
	SeverityError
)

// ParseSeverity parses "error", "warning" or "note".
func ParseSeverity(s string) (Severity, bool) {
	switch s {
	case "error":
		return SeverityError, true
	case "warning":
		return SeverityWarning, true
	case "note":
		return SeverityNote, true
	}
	return 0, false
}

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityNote:
		return "note"
	}
	return fmt.Sprintf("severity(%d)", uint8(s))
}

// MarshalText renders the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, ok := ParseSeverity(strings.TrimSpace(string(b)))
	if !ok {
		return fmt.Errorf("unknown severity (want error, warning or note)")
	}
	*s = v
	return nil
}

// Source names the detector family that reported a finding.
type Source = string

const (
	SourceCatalog Source = "catalog" // a rule of the user's catalog
	SourcePII     Source = "pii"     // a built-in PII detector
	SourceSecret  Source = "secret"  // a gitleaks secret rule
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

// Suppression sources counted in Summary.SuppressedBy besides the
// fingerprint files ("ignore-file", "baseline").
const (
	// SuppressInline counts findings silenced by a privscan:allow marker.
	SuppressInline = "inline"
	// SuppressInlineAdded marks findings covered by a marker that the
	// change under review itself adds: counted as suppressed and still
	// reported, with Finding.Suppressed set.
	SuppressInlineAdded = "inline-added"
)

// Finding is one reported match. It holds no matched text.
type Finding struct {
	RuleID      string   `json:"ruleId"`
	Source      Source   `json:"source"`
	Category    string   `json:"category"`
	Severity    Severity `json:"severity"`
	Kind        Kind     `json:"kind"`
	Path        string   `json:"path"`
	Commit      string   `json:"commit"`
	Line        int      `json:"line"`
	Column      int      `json:"column"`    // code points, 1-based
	EndColumn   int      `json:"endColumn"` // code points, exclusive
	Fingerprint string   `json:"fingerprint"`
	// Suppressed is set on a finding that is reported although suppressed:
	// SuppressInlineAdded when a privscan:allow marker that the change
	// itself adds covers it.
	Suppressed string `json:"suppressed,omitempty"`
	// CorroboratedBy, for a match of a record rule (a catalog rule that
	// counts only when a value of the same row matches near it), names
	// the corroborating match: its rule and location, never its text.
	CorroboratedBy *Related `json:"corroboratedBy,omitempty"`
	// Uncorroborated is set on a match of a record rule that found no
	// corroborating match and is reported at the rule's fallback severity
	// (note) instead of being dropped.
	Uncorroborated bool `json:"uncorroborated,omitempty"`

	// Not part of the JSON contract.
	Description string    `json:"-"` // value-free rule description
	Date        time.Time `json:"-"` // author date of Commit (history); zero otherwise
	Column16    int       `json:"-"` // UTF-16 code units, 1-based (SARIF)
	EndColumn16 int       `json:"-"` // UTF-16 code units, exclusive
}

// Related is a second location of a finding: the corroborating match of
// a record rule. It holds no matched text.
type Related struct {
	RuleID    string `json:"ruleId"`
	Path      string `json:"path"`
	Commit    string `json:"commit"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`    // code points, 1-based
	EndColumn int    `json:"endColumn"` // code points, exclusive

	Column16    int `json:"-"` // UTF-16 code units, 1-based (SARIF)
	EndColumn16 int `json:"-"`
}

// Fails reports whether f counts towards a fail-on level: it is at or
// above level (0: never), and either not suppressed or suppressed only by
// a marker the change adds while such markers are not allowed.
func (f *Finding) Fails(level Severity, allowNewMarkers bool) bool {
	if level == 0 || f.Severity < level {
		return false
	}
	return f.Suppressed == "" || (f.Suppressed == SuppressInlineAdded && !allowNewMarkers)
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
	PolicyChanged bool `json:"policyChanged,omitempty"`
	// Uncorroborated counts the matches of record rules dropped because
	// no value of the same row matched within the rule's window.
	Uncorroborated int            `json:"uncorroborated,omitempty"`
	BySeverity     map[string]int `json:"-"`
}

// Handler receives the findings stream. Finding is called in the stream's
// deterministic order; Summary is called once at the end of a successful run.
type Handler interface {
	Finding(*Finding) error
	Summary(*Summary) error
}
