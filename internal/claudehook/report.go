package claudehook

import (
	"errors"
	"fmt"
	"io"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/engine"
)

// report writes the value-free explanation Claude reads and
// returns the error that makes the exit code 2.
func report(w io.Writer, found []blocked) error {
	total := 0
	for _, b := range found {
		total += b.total
	}
	what := found[0].what
	if what == "" {
		what = "git commit"
	}
	scope := map[string]string{"git commit": "what it would commit", "git push": "the commits it would publish",
		"gh": "the title and body it would publish", "edit": "the lines this edit added", "new commits": "the commits the command just made"}[what]
	fmt.Fprintf(w, "privscan: blocked %s: %d finding%s at or above %s in %s. Matched text is withheld; locations and rules:\n",
		what, total, plural(total), found[0].level, scope)
	for _, b := range found {
		if len(found) > 1 {
			fmt.Fprintf(w, "in %s:\n", oneLine(b.dir))
		}
		for i := range b.findings {
			f := &b.findings[i]
			loc := f.Path
			switch {
			case f.Kind == finding.KindCommitMessage && f.Commit != "":
				loc = "commit " + f.Commit[:min(12, len(f.Commit))] + " message"
			case f.Kind == finding.KindCommitMessage:
				loc = "commit message"
			case f.Kind == finding.KindText:
				loc = "title and body"
			case f.Commit != "":
				loc = f.Path + " in commit " + f.Commit[:min(12, len(f.Commit))]
			}
			fmt.Fprintf(w, "  %s:%d:%d-%d %s %s (%s)", oneLine(loc), f.Line, f.Column, f.EndColumn, f.RuleID, f.Severity, f.Category)
			if f.Description != "" {
				fmt.Fprintf(w, ": %s", oneLine(f.Description))
			}
			if f.Suppressed == finding.SuppressInlineAdded {
				fmt.Fprint(w, " [a privscan:allow marker this change adds does not count]")
			}
			fmt.Fprintln(w)
		}
		if n := b.total - len(b.findings); n > 0 {
			fmt.Fprintf(w, "  … and %d more\n", n)
		}
	}
	exception := " Markers and policy edits in the change itself do not count: a deliberate exception is the user's decision (they run it themselves, outside the agent, or allow it in the committed .privscan.toml or .privscanignore)"
	switch what {
	case "edit":
		return engine.WithHint(errors.New("the edit added catalogued or personal data"),
			"replace each flagged span with synthetic data, such as \"Jane Doe\", user@example.com or 192.0.2.10: the privscan MCP tool redact_file does it in place (style synthetic), and read_redacted shows the lines with placeholders; for replacements ask the privacy-scanner subagent")
	case "new commits":
		return engine.WithHint(errors.New("the command committed catalogued or personal data"),
			"the commits have not left this machine: fix each flagged span and rewrite them before pushing (git commit --amend for the last commit, git reset --soft or git rebase -i for earlier ones); the push gate blocks them until then."+exception)
	case "git push":
		return engine.WithHint(errors.New("git push blocked by the privacy check"),
			"the commits listed have not left this machine yet: fix each flagged span with synthetic data and rewrite them (git commit --amend for the last commit, git rebase -i for earlier ones) before pushing; for replacements ask the privacy-scanner subagent."+exception)
	case "gh":
		return engine.WithHint(errors.New("gh blocked by the privacy check"),
			"rewrite the title or body without the flagged spans (line 1 is the title, the body starts at line 3) and run it again."+exception)
	}
	return engine.WithHint(errors.New("git commit blocked by the privacy check"),
		"replace each flagged span (columns are code points, end exclusive) with synthetic data, such as \"Jane Doe\", user@example.com or 192.0.2.10 (the privscan MCP tool redact_file rewrites a file that way; read_redacted shows its lines with placeholders), then stage the change and commit again; for replacements ask the privacy-scanner subagent."+exception)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
