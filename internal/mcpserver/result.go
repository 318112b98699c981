package mcpserver

import (
	"encoding/json"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/render"
)

// Reply caps: a reply must stay well under the client's limit (Claude
// Code: 25,000 tokens), counting both its text and its structured copy.
const (
	// MaxFindings is the most findings one reply lists.
	MaxFindings = 100
	// findingsBudget bounds the JSON size of the listed findings.
	findingsBudget = 24 << 10
	// maxRedactedOutput bounds redact_text's output.
	maxRedactedOutput = 64 << 10
)

// ScanResult is the structured reply of scan_diff and scan_text: the JSON
// report of docs/findings.md, with findings capped.
type ScanResult struct {
	Version int             `json:"version"`
	Tool    render.ToolInfo `json:"tool"`
	// Comparison says what scan_diff compared; empty for scan_text.
	Comparison string             `json:"comparison,omitempty"`
	Findings   []*finding.Finding `json:"findings"`
	Summary    ScanSummary        `json:"summary"`
	// Truncated is set when findings were left out of the list; the counts
	// in Summary and Rules are complete.
	Truncated bool `json:"truncated"`
	// Rules counts findings per rule ID, with the rule's category,
	// severity and value-free description.
	Rules map[string]*RuleCount `json:"rules"`
}

// ScanSummary is the docs/findings.md summary plus the count of listed findings.
type ScanSummary struct {
	Findings       int            `json:"findings"`
	Returned       int            `json:"returned"`
	Suppressed     int            `json:"suppressed"`
	FilesScanned   int            `json:"filesScanned"`
	LinesScanned   int            `json:"linesScanned"`
	CommitsScanned int            `json:"commitsScanned"`
	BySeverity     map[string]int `json:"bySeverity"`
	Skipped        map[string]int `json:"skipped"`
	SuppressedBy   map[string]int `json:"suppressedBy"`
	PolicyChanged  bool           `json:"policyChanged"`
	// Uncorroborated counts record rules' matches dropped for want of a
	// corroborating match (docs/catalog.md, "Record rules").
	Uncorroborated int `json:"uncorroborated,omitempty"`
}

// RuleCount is one entry of ScanResult.Rules.
type RuleCount struct {
	Count       int    `json:"count"`
	Category    string `json:"category"`
	Severity    string `json:"severity"`
	Description string `json:"description,omitempty"`
}

// RedactResult is the structured reply of redact_text.
type RedactResult struct {
	Text         string         `json:"text"`
	Replacements int            `json:"replacements"`
	Lines        int            `json:"lines"`
	ByCategory   map[string]int `json:"byCategory"`
}

// collector is the finding.Handler of a scan reply: it keeps the first
// findings within the caps and counts all of them.
type collector struct {
	res  *ScanResult
	used int
}

func newCollector(version string) *collector {
	return &collector{res: &ScanResult{
		Version:  render.Version,
		Tool:     render.ToolInfo{Name: "privscan", Version: version},
		Findings: []*finding.Finding{},
		Rules:    map[string]*RuleCount{},
		Summary: ScanSummary{
			BySeverity:   map[string]int{},
			Skipped:      map[string]int{},
			SuppressedBy: map[string]int{},
		},
	}}
}

func (c *collector) Finding(f *finding.Finding) error {
	r := c.res
	rc := r.Rules[f.RuleID]
	if rc == nil {
		rc = &RuleCount{Category: f.Category, Severity: f.Severity.String(), Description: f.Description}
		r.Rules[f.RuleID] = rc
	}
	rc.Count++
	if r.Truncated || len(r.Findings) >= MaxFindings {
		r.Truncated = true
		return nil
	}
	cp := *f
	cp.Path = render.DisplayPath(f.Path)
	b, err := json.Marshal(&cp)
	if err != nil {
		return err
	}
	if c.used+len(b) > findingsBudget {
		r.Truncated = true
		return nil
	}
	c.used += len(b) + 1
	r.Findings = append(r.Findings, &cp)
	return nil
}

func (c *collector) Summary(s *finding.Summary) error {
	out := &c.res.Summary
	out.Findings = s.Findings
	out.Suppressed = s.Suppressed
	out.FilesScanned = s.FilesScanned
	out.LinesScanned = s.LinesScanned
	out.CommitsScanned = s.CommitsScanned
	out.PolicyChanged = s.PolicyChanged
	out.Uncorroborated = s.Uncorroborated
	for k, v := range s.BySeverity {
		out.BySeverity[k] = v
	}
	for k, v := range s.Skipped {
		out.Skipped[string(k)] = v
	}
	for k, v := range s.SuppressedBy {
		out.SuppressedBy[k] = v
	}
	return nil
}

// result returns the reply, with Returned set; the findings are in the
// scanner's order.
func (c *collector) result() *ScanResult {
	c.res.Summary.Returned = len(c.res.Findings)
	return c.res
}
