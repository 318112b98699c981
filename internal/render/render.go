// Package render turns privscan's findings stream into text, JSON, GitHub
// workflow commands and Markdown. Every renderer is a scanner.Handler; none
// of them ever sees a matched value, because findings carry none.
package render

import (
	"fmt"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// ToolInfo names the tool in reports.
type ToolInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Message is the value-free sentence that describes a finding.
func Message(f *scanner.Finding) string {
	var b strings.Builder
	switch f.Source {
	case "catalog":
		fmt.Fprintf(&b, "catalog rule %s (%s) matched", strings.TrimPrefix(f.RuleID, "catalog/"), f.Category)
	case "pii":
		fmt.Fprintf(&b, "possible %s (%s)", strings.TrimPrefix(f.RuleID, "pii/"), f.RuleID)
	case "secret":
		fmt.Fprintf(&b, "possible secret (%s)", f.RuleID)
	default:
		fmt.Fprintf(&b, "%s (%s) matched", f.RuleID, f.Category)
	}
	if f.Description != "" {
		b.WriteString(": ")
		b.WriteString(strings.TrimRight(oneLine(f.Description), ". "))
	}
	b.WriteString("; value withheld")
	return b.String()
}

// Location is the human form of where a finding is: path, or a commit
// message, or the scanned text.
func Location(f *scanner.Finding) string {
	switch {
	case f.Kind == scanner.KindCommitMessage:
		return "commit " + short(f.Commit) + " message"
	case f.Path == "":
		return "<text>"
	}
	return f.Path
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
