package render

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/privscan/privscan/finding"
)

// Version is the version of the JSON report format (docs/findings.md).
const Version = 1

// JSON streams the docs/findings.md report: findings are written as they arrive, so
// a run with many findings needs no memory for them.
type JSON struct {
	w       *bufio.Writer
	tool    ToolInfo
	started bool
	n       int
}

// NewJSON returns a JSON renderer writing to w.
func NewJSON(w io.Writer, tool ToolInfo) *JSON {
	return &JSON{w: bufio.NewWriter(w), tool: tool}
}

func (j *JSON) start() error {
	if j.started {
		return nil
	}
	j.started = true
	tool, err := json.Marshal(j.tool)
	if err != nil {
		return err
	}
	_, err = j.w.WriteString(`{"version":1,"tool":` + string(tool) + `,"findings":[`)
	return err
}

// Finding implements finding.Handler.
func (j *JSON) Finding(f *finding.Finding) error {
	if err := j.start(); err != nil {
		return err
	}
	if p := DisplayPath(f.Path); p != f.Path {
		cp := *f
		cp.Path = p
		f = &cp
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if j.n > 0 {
		j.w.WriteByte(',')
	}
	j.n++
	j.w.WriteString("\n")
	_, err = j.w.Write(b)
	return err
}

// Summary implements finding.Handler.
func (j *JSON) Summary(s *finding.Summary) error {
	if err := j.start(); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if j.n > 0 {
		j.w.WriteString("\n")
	}
	j.w.WriteString(`],"summary":`)
	j.w.Write(b)
	j.w.WriteString("}\n")
	return j.w.Flush()
}

// Report is the decoded form of a JSON report (for --baseline).
type Report struct {
	Version  int               `json:"version"`
	Tool     ToolInfo          `json:"tool"`
	Findings []finding.Finding `json:"findings"`
	Summary  finding.Summary   `json:"summary"`
}
