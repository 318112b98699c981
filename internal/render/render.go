// Package render turns privscan's findings stream into text, JSON, GitHub
// workflow commands and Markdown. Every renderer is a finding.Handler; none
// of them ever sees a matched value, because findings carry none.
package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/privscan/privscan/finding"
)

// ToolInfo names the tool in reports.
type ToolInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Message is the value-free sentence that describes a finding.
func Message(f *finding.Finding) string {
	var b strings.Builder
	switch f.Source {
	case finding.SourceCatalog:
		fmt.Fprintf(&b, "catalog rule %s (%s) matched", strings.TrimPrefix(f.RuleID, "catalog/"), f.Category)
	case finding.SourcePII:
		fmt.Fprintf(&b, "possible %s (%s)", strings.TrimPrefix(f.RuleID, "pii/"), f.RuleID)
	case finding.SourceSecret:
		fmt.Fprintf(&b, "possible secret (%s)", f.RuleID)
	default:
		fmt.Fprintf(&b, "%s (%s) matched", f.RuleID, f.Category)
	}
	if f.Description != "" {
		b.WriteString(": ")
		b.WriteString(strings.TrimRight(OneLine(f.Description), ". "))
	}
	b.WriteString("; value withheld")
	return b.String()
}

// Location is the human form of where a finding is: path, or a commit
// message, or the scanned text.
func Location(f *finding.Finding) string {
	switch {
	case f.Kind == finding.KindCommitMessage:
		return "commit " + short(f.Commit) + " message"
	case f.Path == "":
		return "<text>"
	}
	return DisplayPath(f.Path)
}

// DisplayPath is a path as reports show it: unchanged when it is valid
// UTF-8; otherwise quoted as git quotes it (`git diff` with
// core.quotePath): in double quotes, with backslash escapes and every byte
// that is not printable ASCII in octal. So two names that differ only in
// bytes that are not UTF-8 stay distinct in JSON (where those bytes would
// all become U+FFFD) and text. SARIF keeps the raw bytes, percent-encoded
// in the URI.
func DisplayPath(p string) string {
	if utf8.ValidString(p) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// Error writes an error as every privscan command reports one on stderr:
//
//	privscan: error: <msg>
//	privscan: hint: <hint>      (when hint is not empty)
//
// each through OneLine.
func Error(w io.Writer, msg, hint string) {
	fmt.Fprintf(w, "privscan: error: %s\n", OneLine(msg))
	if hint != "" {
		fmt.Fprintf(w, "privscan: hint: %s\n", OneLine(hint))
	}
}

// OneLine makes s safe to print as (part of) one line of output, to a
// terminal, a log or a report: line breaks and tabs (including Unicode's
// line and paragraph separators and NEL) become spaces; other C0 and C1
// control characters, DEL, and the invisible format characters that can
// make text display differently from what it is (bidirectional overrides
// and isolates, zero-width characters, the BOM) are dropped. It is the one
// sanitiser for text of uncertain origin in every door's output.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029:
			return ' '
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return -1
		case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff, r == 0x061c:
			return -1
		}
		return r
	}, s)
}
