// Package catalog parses privscan's Markdown catalog format and compiles it
// into a matcher that holds no plaintext.
//
// The format is described in docs/catalog.md: level-2 headings name rules, a bullet
// list holds their settings, and a fenced block with the info string "values"
// holds one value per line. Parse never returns an error that quotes catalog
// text: errors carry a line number and a reason only.
//
// Lint reports entries that are legal but likely mistakes (duplicates,
// common words, regexes that match a single character), and Catalog.Counts
// summarises a catalog per category and severity; neither shows a value.
package catalog

import (
	"fmt"

	"github.com/privscan/privscan/finding"
)

// Severity of a rule (see package finding).
type Severity = finding.Severity

const (
	SeverityNote    = finding.SeverityNote
	SeverityWarning = finding.SeverityWarning
	SeverityError   = finding.SeverityError
)

// ParseSeverity parses "error", "warning" or "note".
func ParseSeverity(s string) (Severity, bool) { return finding.ParseSeverity(s) }

// MatchKind is a rule's `match` setting.
type MatchKind uint8

const (
	// MatchLiteral matches the value's text (the default).
	MatchLiteral MatchKind = iota
	// MatchIdentifier also matches the value's words spelled as a code
	// identifier: AcmeCorp, acme_corp, ACME-CORP, acmecorp.
	MatchIdentifier
	// MatchRegex treats each value as a Go RE2 pattern.
	MatchRegex
)

func (k MatchKind) String() string {
	switch k {
	case MatchLiteral:
		return "literal"
	case MatchIdentifier:
		return "identifier"
	case MatchRegex:
		return "regex"
	}
	return fmt.Sprintf("match(%d)", uint8(k))
}

// Rule is one catalog rule: a level-2 section of the catalog.
type Rule struct {
	ID            string
	Category      string
	Severity      Severity
	Description   string
	Match         MatchKind
	CaseSensitive bool // `case: sensitive`
	NoBoundary    bool // `boundary: none`
	Values        []Value
	ValueLines    []int32 // 1-based line of each value, parallel to Values
	Line          int     // 1-based line of the rule's heading
	// Record, for a rule of a catalog read from a table, is its part in
	// record rules (record.go); nil: none.
	Record *RecordRule
}

// Catalog is a parsed catalog. It still holds values (as Value); compile it
// and drop it to keep plaintext out of long-lived memory.
type Catalog struct {
	// FingerprintKey is the 32-byte `fingerprint-key` setting, or nil.
	FingerprintKey []byte
	// Digest is the SHA-256 of the catalog's bytes as parsed, for a
	// catalog without FingerprintKey (Compile derives the fingerprint key
	// from it); Parse leaves it zero when FingerprintKey is set.
	Digest [32]byte
	Rules  []Rule
}

// RuleInfo is the value-free description of a rule that findings carry.
type RuleInfo struct {
	ID          string
	Category    string
	Severity    Severity
	Description string
}

// Match is one catalog match in a line of text.
type Match struct {
	Rule       int // index into Matcher.Rules()
	Start, End int // byte offsets into the line, End exclusive
}
