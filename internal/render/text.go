package render

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/scanner"
)

// Text writes one line per finding,
//
//	path:line:col ruleId severity category message
//
// and a summary line. Colour is used only when Color is set (the CLI sets
// it for terminals without NO_COLOR).
type Text struct {
	w     *bufio.Writer
	Color bool
	Quiet bool // no summary line
}

// NewText returns a text renderer writing to w.
func NewText(w io.Writer) *Text { return &Text{w: bufio.NewWriter(w)} }

const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiBold   = "\x1b[1m"
)

func (t *Text) paint(color, s string) string {
	if !t.Color {
		return s
	}
	return color + s + ansiReset
}

func severityColor(s catalog.Severity) string {
	switch s {
	case catalog.SeverityError:
		return ansiRed
	case catalog.SeverityWarning:
		return ansiYellow
	}
	return ansiBlue
}

// Finding implements scanner.Handler.
func (t *Text) Finding(f *scanner.Finding) error {
	loc := fmt.Sprintf("%s:%d:%d", Location(f), f.Line, f.Column)
	_, err := fmt.Fprintf(t.w, "%s %s %s %s %s\n",
		t.paint(ansiBold, loc), f.RuleID, t.paint(severityColor(f.Severity), f.Severity.String()), f.Category, Message(f))
	return err
}

// Summary implements scanner.Handler.
func (t *Text) Summary(s *scanner.Summary) error {
	if !t.Quiet {
		fmt.Fprintln(t.w, SummaryLine(s))
	}
	return t.w.Flush()
}

// SummaryLine is the one-line, value-free summary of a run.
func SummaryLine(s *scanner.Summary) string {
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
			parts = append(parts, fmt.Sprintf("%d %s", s.Skipped[scanner.Skip(k)], k))
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
