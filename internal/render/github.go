package render

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/privscan/privscan/finding"
)

// GitHub annotation caps per step (GitHub documents 10 error and 10 warning
// annotations per step, and 50 per job). Notices share the warning budget
// here to stay conservative.
const (
	MaxErrorAnnotations   = 10
	MaxWarningAnnotations = 10
	MaxNoticeAnnotations  = 10
)

// GitHub writes workflow-command annotations (::error file=…::message). It
// buffers findings and writes the most severe first, up to the per-step caps,
// then a notice counting what was left out. Messages and properties are
// escaped as the runner requires; they never contain values.
type GitHub struct {
	w        *bufio.Writer
	findings []*finding.Finding
	// Caps; zero values mean the package defaults.
	MaxError, MaxWarning, MaxNotice int
}

// NewGitHub returns a GitHub annotations renderer writing to w.
func NewGitHub(w io.Writer) *GitHub { return &GitHub{w: bufio.NewWriter(w)} }

// Finding implements finding.Handler.
func (g *GitHub) Finding(f *finding.Finding) error {
	g.findings = append(g.findings, f)
	return nil
}

// Summary implements finding.Handler.
func (g *GitHub) Summary(s *finding.Summary) error {
	caps := map[finding.Severity]int{
		finding.SeverityError:   orDefault(g.MaxError, MaxErrorAnnotations),
		finding.SeverityWarning: orDefault(g.MaxWarning, MaxWarningAnnotations),
		finding.SeverityNote:    orDefault(g.MaxNotice, MaxNoticeAnnotations),
	}
	sorted := append([]*finding.Finding(nil), g.findings...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Severity > sorted[j].Severity })
	left := 0
	for _, f := range sorted {
		if caps[f.Severity] <= 0 {
			left++
			continue
		}
		caps[f.Severity]--
		g.w.WriteString(Annotation(f))
		g.w.WriteByte('\n')
	}
	if s.PolicyChanged {
		fmt.Fprintf(g.w, "::notice title=privscan policy changed::%s\n", escapeData("This change edits the repository's privscan policy; the base's policy judged it, and the new policy applies once merged."))
	}
	if left > 0 {
		fmt.Fprintf(g.w, "::notice title=privscan::%s\n", escapeData(fmt.Sprintf("%d more finding%s not annotated (GitHub limits annotations per step); see the SARIF upload or the job summary", left, plural(left))))
	}
	return g.w.Flush()
}

// Annotation returns the workflow command for one finding.
func Annotation(f *finding.Finding) string {
	cmd := "notice"
	switch f.Severity {
	case finding.SeverityError:
		cmd = "error"
	case finding.SeverityWarning:
		cmd = "warning"
	}
	props := []string{}
	if f.Path != "" && f.Kind != finding.KindCommitMessage {
		props = append(props, "file="+escapeProperty(DisplayPath(f.Path)), fmt.Sprintf("line=%d", f.Line), fmt.Sprintf("col=%d", f.Column), fmt.Sprintf("endColumn=%d", f.EndColumn))
	}
	props = append(props, "title="+escapeProperty("privscan "+f.RuleID))
	msg := Message(f)
	if f.Kind == finding.KindCommitMessage || f.Path == "" {
		msg = fmt.Sprintf("%s, line %d: %s", Location(f), f.Line, msg)
	}
	if f.Suppressed == finding.SuppressInlineAdded {
		msg += " Suppressed only by a privscan:allow marker that this change adds: under review."
	}
	return "::" + cmd + " " + strings.Join(props, ",") + "::" + escapeData(msg)
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

func escapeData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	return strings.ReplaceAll(s, "\n", "%0A")
}

func escapeProperty(s string) string {
	s = escapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}
