package render

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/privscan/privscan/finding"
)

// Markdown writes a value-free summary for a pull request or a job summary:
// counts per rule and a table of locations, capped at MaxRows rows and
// MaxBytes bytes (GitHub caps a step summary at 1 MiB).
type Markdown struct {
	w        *bufio.Writer
	findings []*finding.Finding
	MaxRows  int // 0 = 200
	MaxBytes int // 0 = 1 MiB - 1 KiB
}

// NewMarkdown returns a Markdown renderer writing to w.
func NewMarkdown(w io.Writer) *Markdown { return &Markdown{w: bufio.NewWriter(w)} }

// Finding implements finding.Handler.
func (m *Markdown) Finding(f *finding.Finding) error {
	m.findings = append(m.findings, f)
	return nil
}

// Summary implements finding.Handler.
func (m *Markdown) Summary(s *finding.Summary) error {
	var b strings.Builder
	b.WriteString("## privscan\n\n")
	if s.PolicyChanged {
		b.WriteString("> **Policy changed.** This change edits the repository's privscan policy (`.privscan.toml`, `.privscanignore` or a catalog file). The base's policy judged it; the new policy applies once merged.\n\n")
	}
	if n := s.SuppressedBy[finding.SuppressInlineAdded]; n > 0 {
		fmt.Fprintf(&b, "> **%d finding%s under review:** suppressed only by `privscan:allow` markers that this change adds.\n\n", n, plural(n))
	}
	if len(m.findings) == 0 {
		fmt.Fprintf(&b, "No findings. %d file%s and %d line%s scanned", s.FilesScanned, plural(s.FilesScanned), s.LinesScanned, plural(s.LinesScanned))
		if s.Suppressed > 0 {
			fmt.Fprintf(&b, "; %d suppressed", s.Suppressed)
		}
		b.WriteString(".\n")
		m.w.WriteString(b.String())
		return m.w.Flush()
	}
	head := fmt.Sprintf("**%d finding%s**", s.Findings, plural(s.Findings))
	if sc := severityCounts(s); sc != "" {
		head += " (" + sc + ")"
	}
	if n := s.SuppressedBy[finding.SuppressInlineAdded]; n > 0 {
		// Every listed finding may be one under review: say what they are
		// rather than "0 findings ()" beside a failing check.
		head += fmt.Sprintf(" and **%d under review** (listed below; they count against fail-on unless markers are allowed)", n)
	}
	fmt.Fprintf(&b, "%s; %d suppressed; %d file%s, %d line%s scanned. Values are withheld.\n\n",
		head, s.Suppressed, s.FilesScanned, plural(s.FilesScanned), s.LinesScanned, plural(s.LinesScanned))

	type ruleCount struct {
		id, category, severity string
		n                      int
	}
	counts := map[string]*ruleCount{}
	for _, f := range m.findings {
		rc := counts[f.RuleID]
		if rc == nil {
			rc = &ruleCount{id: f.RuleID, category: f.Category, severity: f.Severity.String()}
			counts[f.RuleID] = rc
		}
		rc.n++
	}
	rules := make([]*ruleCount, 0, len(counts))
	for _, rc := range counts {
		rules = append(rules, rc)
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].id < rules[j].id })
	b.WriteString("| Rule | Category | Severity | Findings |\n| --- | --- | --- | ---: |\n")
	for _, rc := range rules {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d |\n", codeCell(rc.id), cell(rc.category), rc.severity, rc.n)
	}

	maxRows := orDefault(m.MaxRows, 200)
	maxBytes := orDefault(m.MaxBytes, 1<<20-1<<10)
	sorted := append([]*finding.Finding(nil), m.findings...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Severity > sorted[j].Severity })
	b.WriteString("\n| Severity | Rule | Location |\n| --- | --- | --- |\n")
	shown := 0
	for _, f := range sorted {
		sev := f.Severity.String()
		if f.Suppressed == finding.SuppressInlineAdded {
			sev += " (new marker, under review)"
		}
		row := fmt.Sprintf("| %s | `%s` | %s |\n", sev, codeCell(f.RuleID), cell(Location(f))+fmt.Sprintf(":%d:%d", f.Line, f.Column))
		if shown >= maxRows || b.Len()+len(row)+200 > maxBytes {
			break
		}
		b.WriteString(row)
		shown++
	}
	if shown < len(sorted) {
		fmt.Fprintf(&b, "\n%d more finding%s not listed.\n", len(sorted)-shown, plural(len(sorted)-shown))
	}
	m.w.WriteString(b.String())
	return m.w.Flush()
}

func severityCounts(s *finding.Summary) string {
	var parts []string
	for _, sev := range []string{"error", "warning", "note"} {
		if n := s.BySeverity[sev]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, sev))
		}
	}
	return strings.Join(parts, ", ")
}

// cellEscaper makes repository-controlled text (paths, commit subjects,
// branch names) plain text in a GitHub-flavoured Markdown table cell: HTML
// is entity-escaped, and every ASCII punctuation character that Markdown
// or GitHub's extensions interpret (links, images, emphasis, code, strike,
// headings, tables, autolinks of URLs, www. hosts and email addresses) is
// backslash-escaped. CommonMark allows a backslash before any ASCII
// punctuation and renders the character itself.
var cellEscaper = func() *strings.Replacer {
	pairs := []string{"&", "&amp;", "<", "&lt;", ">", "&gt;"}
	for _, c := range "\\`*_{}[]()!|~:@" {
		pairs = append(pairs, string(c), "\\"+string(c))
	}
	return strings.NewReplacer(pairs...)
}()

// wwwRE finds the start of GitHub's "www." autolinks.
var wwwRE = regexp.MustCompile(`(?i)(www)\.`)

// cell escapes text for a Markdown table cell (see cellEscaper). A dot is
// escaped only after "www", where it would start an autolink.
func cell(s string) string {
	return wwwRE.ReplaceAllString(cellEscaper.Replace(OneLine(s)), `$1\.`)
}

// codeCell escapes text for a code span in a table cell: a code span shows
// its text literally, but a pipe still ends the cell and a backtick the
// span.
func codeCell(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'").Replace(OneLine(s))
}
