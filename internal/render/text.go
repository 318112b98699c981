package render

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/privscan/privscan/finding"
)

// Text writes one short line per finding, in the style of compilers:
//
//	path:line:col  severity  rule  description
//
// then, past a handful of findings, a table of findings per rule, and a
// summary line. A finding in a commit message is located as "commit
// <short id> message:line:col". Colour is used only when Color is set (the
// CLI sets it for terminals without NO_COLOR).
type Text struct {
	w     *bufio.Writer
	Color bool
	Quiet bool // no table and no summary line
	// Fingerprints appends each finding's fingerprint, to copy into
	// .privscanignore.
	Fingerprints bool
	// Commits ends a history finding's line with its commit's short ID
	// and the author date the finding carries (finding.Finding.Date, set
	// by the history walk; left out when zero).
	Commits bool
	// Context, when set, gives the line of a finding with every match on
	// it masked (-v); it is printed indented under the finding. It must
	// return text in which nothing matched remains.
	Context func(f *finding.Finding) (string, bool)
	// LineFlush writes every finding through at once (a terminal, or a
	// progress bar that must not be drawn over a half-written line).
	LineFlush bool

	rules map[string]*ruleCount
}

type ruleCount struct {
	rule     string
	severity finding.Severity
	n        int
}

// tableMin is the number of findings from which the per-rule table is
// printed: below it, the lines themselves are the table.
const tableMin = 6

// NewText returns a text renderer writing to w.
func NewText(w io.Writer) *Text { return &Text{w: bufio.NewWriter(w), rules: map[string]*ruleCount{}} }

const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
)

func (t *Text) paint(color, s string) string {
	if !t.Color {
		return s
	}
	return color + s + ansiReset
}

func severityColor(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return ansiRed
	case finding.SeverityWarning:
		return ansiYellow
	}
	return ansiBlue
}

// ShortDescription is a finding's description for one line: what kind of
// thing a built-in detector found (its rule ID says which), or the catalog
// rule's value-free description.
func ShortDescription(f *finding.Finding) string {
	switch f.Source {
	case finding.SourcePII:
		return "possible " + strings.TrimPrefix(f.RuleID, "pii/")
	case finding.SourceSecret:
		return "possible secret"
	}
	if d := strings.TrimRight(strings.TrimSpace(OneLine(f.Description)), ". "); d != "" {
		return d
	}
	if f.Category != "" {
		return f.Category
	}
	return "catalogued value"
}

// Finding implements finding.Handler.
func (t *Text) Finding(f *finding.Finding) error {
	rc := t.rules[f.RuleID]
	if rc == nil {
		rc = &ruleCount{rule: f.RuleID, severity: f.Severity}
		t.rules[f.RuleID] = rc
	}
	rc.n++
	where := DisplayPath(f.Path)
	switch {
	case f.Kind == finding.KindCommitMessage:
		where = "commit " + short7(f.Commit) + " message"
	case where == "":
		where = "<text>"
	}
	loc := fmt.Sprintf("%s:%d:%d", OneLine(where), f.Line, f.Column)
	sev := fmt.Sprintf("%-7s", f.Severity.String())
	fmt.Fprintf(t.w, "%s  %s  %s  %s", t.paint(ansiBold, loc), t.paint(severityColor(f.Severity), sev), f.RuleID, ShortDescription(f))
	if t.Commits && f.Commit != "" {
		// A message finding names its commit already.
		var added []string
		if f.Kind != finding.KindCommitMessage {
			added = append(added, short7(f.Commit))
		}
		if !f.Date.IsZero() {
			added = append(added, f.Date.Format(time.DateOnly))
		}
		if len(added) > 0 {
			fmt.Fprintf(t.w, "  %s", t.paint(ansiDim, strings.Join(added, " ")))
		}
	}
	if t.Fingerprints && f.Fingerprint != "" {
		fmt.Fprintf(t.w, "  %s", t.paint(ansiDim, "fingerprint "+f.Fingerprint))
	}
	if f.Suppressed == finding.SuppressInlineAdded {
		fmt.Fprintf(t.w, "  %s", t.paint(ansiDim, "(marker added by this change: under review)"))
	}
	if r := f.CorroboratedBy; r != nil {
		fmt.Fprintf(t.w, "  %s", t.paint(ansiDim, fmt.Sprintf("(same record as %s at line %d)", r.RuleID, r.Line)))
	} else if f.Uncorroborated {
		fmt.Fprintf(t.w, "  %s", t.paint(ansiDim, "(uncorroborated)"))
	}
	t.w.WriteByte('\n')
	if t.Context != nil {
		if line, ok := t.Context(f); ok {
			fmt.Fprintf(t.w, "    %s %s\n", t.paint(ansiDim, "|"), line)
		}
	}
	if t.LineFlush {
		return t.w.Flush()
	}
	return nil
}

// Summary implements finding.Handler.
func (t *Text) Summary(s *finding.Summary) error {
	if !t.Quiet {
		if s.Findings >= tableMin && len(t.rules) > 0 {
			t.table()
		}
		t.w.WriteString(ReviewLines(s))
		fmt.Fprintln(t.w, SummaryLine(s))
	}
	return t.w.Flush()
}

// table writes the number of findings per rule, most first.
func (t *Text) table() {
	rows := make([]*ruleCount, 0, len(t.rules))
	for _, rc := range t.rules {
		rows = append(rows, rc)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].n != rows[j].n {
			return rows[i].n > rows[j].n
		}
		return rows[i].rule < rows[j].rule
	})
	w := len("findings")
	if n := len(fmt.Sprint(rows[0].n)); n > w {
		w = n
	}
	fmt.Fprintf(t.w, "\n%*s  %-8s  %s\n", w, "findings", "severity", "rule")
	for _, rc := range rows {
		fmt.Fprintf(t.w, "%*d  %-8s  %s\n", w, rc.n, rc.severity, rc.rule)
	}
}

// short7 is the short commit ID of text lines (git's default length).
func short7(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}

// ReviewLines are the value-free summary lines about a change's own policy:
// an edit of the policy files, and findings that only markers added by the
// change suppress. Each line ends with a newline.
func ReviewLines(s *finding.Summary) string {
	var b strings.Builder
	if s.PolicyChanged {
		b.WriteString("privscan: this change edits the repository's privscan policy (.privscan.toml, .privscanignore or a catalog file); the base's policy judged it, and the new policy applies once merged\n")
	}
	if n := s.SuppressedBy[finding.SuppressInlineAdded]; n > 0 {
		fmt.Fprintf(&b, "privscan: %d finding%s suppressed only by privscan:allow markers that this change adds: reported for review\n", n, plural(n))
	}
	return b.String()
}

// SummaryLine is the one-line, value-free summary of a run.
func SummaryLine(s *finding.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "privscan: %d finding%s", s.Findings, plural(s.Findings))
	if s.Findings > 0 {
		var parts []string
		for _, sev := range []string{"error", "warning", "note"} {
			if n := s.BySeverity[sev]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, sev))
			}
		}
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	fmt.Fprintf(&b, ", %d suppressed; %d file%s, %d line%s scanned", s.Suppressed, s.FilesScanned, plural(s.FilesScanned), s.LinesScanned, plural(s.LinesScanned))
	if s.CommitsScanned > 0 {
		fmt.Fprintf(&b, " in %d commit%s", s.CommitsScanned, plural(s.CommitsScanned))
	}
	if len(s.Skipped) > 0 {
		keys := make([]string, 0, len(s.Skipped))
		for k := range s.Skipped {
			keys = append(keys, string(k))
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%d %s", s.Skipped[finding.Skip(k)], k))
		}
		b.WriteString("; skipped " + strings.Join(parts, ", "))
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
