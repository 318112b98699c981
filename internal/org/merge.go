package org

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/privscan/privscan/sarif"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/render"
)

// Merged is the joined result of shard output folders.
type Merged struct {
	Repos []RepoResult
	// Missing names the planned repositories (or parts, "name#i") with no
	// result in any folder.
	Missing []string
	// Findings are every finding once, repository by repository.
	Findings []RepoFinding
	// runs are each repository's SARIF run, in Repos order.
	runs []map[string]any
}

// RepoResult is one repository's line of the merged report.
type RepoResult struct {
	Name     string          `json:"name"`
	Status   string          `json:"status"` // done, failed, partial
	Reason   string          `json:"reason,omitempty"`
	Findings int             `json:"findings"`
	Summary  finding.Summary `json:"summary"`
}

// RepoFinding is a finding with its repository.
type RepoFinding struct {
	Repository string `json:"repository"`
	finding.Finding
}

// maxReportBytes bounds one report file read by merge.
const maxReportBytes = 1 << 30

// Merge joins shard output folders. It is idempotent: a folder given
// twice, a unit in two folders, a report written twice or overlapping
// ranges count each finding once (repository, fingerprint, commit,
// location).
func Merge(dirs []string) (*Merged, error) {
	planned := map[string]bool{}
	type unitRec struct {
		dir string
		d   *Done
	}
	units := map[string][]unitRec{} // unit ID → records from the folders
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, ManifestName)); err != nil {
			return nil, fmt.Errorf("%w: a folder has no %s (not a shard output)", ErrMerge, ManifestName)
		}
		m, err := ReadManifest(dir)
		if err != nil {
			return nil, err
		}
		for _, n := range m.Planned {
			planned[n] = true
		}
		for id, d := range m.Units {
			units[id] = append(units[id], unitRec{dir, d})
		}
	}
	repos := map[string]*repoAcc{}
	acc := func(name string) *repoAcc {
		a := repos[name]
		if a == nil {
			a = &repoAcc{res: RepoResult{Name: name}, done: map[int]bool{}, seen: map[string]bool{}, reports: map[string]bool{}}
			repos[name] = a
		}
		return a
	}
	ids := make([]string, 0, len(units))
	for id := range units {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	m := &Merged{}
	for _, id := range ids {
		for _, rec := range units[id] {
			d := rec.d
			a := acc(d.Repo)
			a.parts = max(a.parts, d.Parts)
			if d.Status == StatusFailed {
				a.failed = append(a.failed, d.Reason)
				continue
			}
			a.done[d.Part] = true
			for _, rep := range d.Reports {
				if err := a.addReport(rec.dir, d.Part, rep, m); err != nil {
					return nil, err
				}
			}
		}
	}
	for n := range planned {
		acc(n)
	}
	names := make([]string, 0, len(repos))
	for n := range repos {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := repos[n]
		parts := max(a.parts, 1)
		var missing []string
		for i := range parts {
			if !a.done[i] {
				missing = append(missing, fmt.Sprintf("%s#%d", n, i))
			}
		}
		switch {
		case len(missing) == 0:
			a.res.Status = StatusDone
		case len(a.failed) > 0:
			a.res.Status = StatusFailed
			a.res.Reason = a.failed[0]
		case len(a.done) == 0:
			a.res.Status = "missing"
			m.Missing = append(m.Missing, n)
		default:
			a.res.Status = "partial"
			m.Missing = append(m.Missing, missing...)
		}
		m.Repos = append(m.Repos, a.res)
		if run := joinRuns(a.runs); run != nil {
			m.runs = append(m.runs, run)
		}
	}
	return m, nil
}

// ErrMerge is wrapped by merge input errors.
var ErrMerge = errors.New("cannot merge")

// repoAcc gathers one repository's results.
type repoAcc struct {
	res    RepoResult
	parts  int
	done   map[int]bool
	failed []string
	seen   map[string]bool
	// reports are the (unit, range) pairs added: a report read twice
	// (a folder given twice) adds nothing.
	reports map[string]bool
	runs    []map[string]any
}

// addReport adds a report pair's findings (each once) and its SARIF run.
func (a *repoAcc) addReport(dir string, part int, rep Report, m *Merged) error {
	rk := fmt.Sprintf("%d\x00%s\x00%s", part, rep.From, rep.To)
	if a.reports[rk] {
		return nil
	}
	a.reports[rk] = true
	b, err := readReport(dir, rep.JSON)
	if err != nil {
		return err
	}
	var r render.Report
	if err := json.Unmarshal(b, &r); err != nil || r.Version != render.Version {
		return fmt.Errorf("%w: a JSON report is not a privscan report", ErrMerge)
	}
	for _, f := range r.Findings {
		k := findingKey(f)
		if a.seen[k] {
			continue
		}
		a.seen[k] = true
		m.Findings = append(m.Findings, RepoFinding{Repository: a.res.Name, Finding: f})
		a.res.Findings++
		a.res.Summary.Findings++
	}
	a.res.Summary.Suppressed += r.Summary.Suppressed
	a.res.Summary.FilesScanned += r.Summary.FilesScanned
	a.res.Summary.LinesScanned += r.Summary.LinesScanned
	a.res.Summary.CommitsScanned += r.Summary.CommitsScanned
	sb, err := readReport(dir, rep.SARIF)
	if err != nil {
		return err
	}
	var log struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal(sb, &log); err != nil || len(log.Runs) != 1 {
		return fmt.Errorf("%w: a SARIF report is not a privscan report", ErrMerge)
	}
	a.runs = append(a.runs, log.Runs[0])
	return nil
}

// findingKey identifies a finding across reports: repository (implied),
// fingerprint, commit and location.
func findingKey(f finding.Finding) string {
	return strings.Join([]string{f.Fingerprint, f.Commit, string(f.Kind), f.Path,
		fmt.Sprint(f.Line), fmt.Sprint(f.Column), fmt.Sprint(f.EndColumn), f.RuleID}, "\x00")
}

func readReport(dir, rel string) ([]byte, error) {
	if !localPath(rel) {
		return nil, fmt.Errorf("%w: a report path leaves its folder", ErrMerge)
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("%w: a report the manifest names is missing: %w", ErrMerge, errors.Unwrap(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil || len(b) > maxReportBytes {
		return nil, fmt.Errorf("%w: a report is unreadable or too large", ErrMerge)
	}
	return b, nil
}

// joinRuns makes one SARIF run of a repository's runs (parts, increments):
// the first run's tool and settings, every rule once (result indexes
// renumbered), every result once (by rule, fingerprints and location).
func joinRuns(runs []map[string]any) map[string]any {
	if len(runs) == 0 {
		return nil
	}
	if len(runs) == 1 {
		return runs[0]
	}
	out := map[string]any{}
	for k, v := range runs[0] {
		out[k] = v
	}
	var rules []any
	ruleIdx := map[string]int{}
	var results []any
	seen := map[string]bool{}
	for _, run := range runs {
		var runRules []any
		if tool, ok := run["tool"].(map[string]any); ok {
			if drv, ok := tool["driver"].(map[string]any); ok {
				runRules, _ = drv["rules"].([]any)
			}
		}
		for _, r := range runRules {
			rm, _ := r.(map[string]any)
			id, _ := rm["id"].(string)
			if _, ok := ruleIdx[id]; !ok {
				ruleIdx[id] = len(rules)
				rules = append(rules, r)
			}
		}
		rs, _ := run["results"].([]any)
		for _, r := range rs {
			rm, ok := r.(map[string]any)
			if !ok {
				continue
			}
			id, _ := rm["ruleId"].(string)
			key, _ := json.Marshal([]any{id, rm["partialFingerprints"], rm["locations"]})
			if seen[string(key)] {
				continue
			}
			seen[string(key)] = true
			if i, ok := ruleIdx[id]; ok {
				cp := map[string]any{}
				for k, v := range rm {
					cp[k] = v
				}
				cp["ruleIndex"] = i
				rm = cp
			}
			results = append(results, rm)
		}
	}
	if tool, ok := out["tool"].(map[string]any); ok {
		t := map[string]any{}
		for k, v := range tool {
			t[k] = v
		}
		if drv, ok := tool["driver"].(map[string]any); ok {
			d := map[string]any{}
			for k, v := range drv {
				d[k] = v
			}
			if len(rules) > 0 {
				d["rules"] = rules
			}
			t["driver"] = d
		}
		out["tool"] = t
	}
	if results == nil {
		results = []any{}
	}
	out["results"] = results
	return out
}

// Runs is the number of runs WriteSARIF writes: one per repository with a
// result.
func (m *Merged) Runs() int { return len(m.runs) }

// WriteSARIF writes one SARIF 2.1.0 log with a run per repository that
// has a result, each with its own automationDetails.id
// ("privscan-org/<name>/"), as GitHub code scanning requires of several
// runs in one file.
func (m *Merged) WriteSARIF(w io.Writer) error {
	runs := m.runs
	if runs == nil {
		runs = []map[string]any{}
	}
	b, err := json.MarshalIndent(map[string]any{"version": "2.1.0", "$schema": sarif.SchemaURI, "runs": runs}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// MergedVersion is the version of the merged JSON report.
const MergedVersion = 1

// WriteJSON writes the merged JSON report: per-repository results, the
// missing ones, every finding with its repository, and totals.
func (m *Merged) WriteJSON(w io.Writer, tool render.ToolInfo) error {
	findings := m.Findings
	if findings == nil {
		findings = []RepoFinding{}
	}
	missing := m.Missing
	if missing == nil {
		missing = []string{}
	}
	var total finding.Summary
	failed := 0
	for _, r := range m.Repos {
		total.Findings += r.Summary.Findings
		total.Suppressed += r.Summary.Suppressed
		total.FilesScanned += r.Summary.FilesScanned
		total.LinesScanned += r.Summary.LinesScanned
		total.CommitsScanned += r.Summary.CommitsScanned
		if r.Status == StatusFailed {
			failed++
		}
	}
	doc := struct {
		Version      int             `json:"version"`
		Tool         render.ToolInfo `json:"tool"`
		Repositories []RepoResult    `json:"repositories"`
		Missing      []string        `json:"missing"`
		Findings     []RepoFinding   `json:"findings"`
		Summary      any             `json:"summary"`
	}{MergedVersion, tool, m.Repos, missing, findings, struct {
		finding.Summary
		Repositories int `json:"repositories"`
		Failed       int `json:"failed"`
		Missing      int `json:"missing"`
	}{total, len(m.Repos), failed, len(m.Missing)}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteMarkdown writes a summary: totals, a table of repositories with
// their counts, failures and missing results.
func (m *Merged) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	total, withFindings := 0, 0
	var failed, clean []RepoResult
	for _, r := range m.Repos {
		total += r.Findings
		if r.Findings > 0 {
			withFindings++
		}
		if r.Status == StatusFailed {
			failed = append(failed, r)
		} else if r.Status == StatusDone && r.Findings == 0 {
			clean = append(clean, r)
		}
	}
	fmt.Fprintf(&b, "## privscan organisation backfill\n\n")
	fmt.Fprintf(&b, "%d findings in %d of %d repositories; %d failed, %d without a result.\n\n",
		total, withFindings, len(m.Repos), len(failed), len(m.Missing))
	fmt.Fprintf(&b, "| repository | status | findings | commits scanned |\n| --- | --- | ---: | ---: |\n")
	for _, r := range m.Repos {
		status := r.Status
		if r.Reason != "" {
			status += ": " + r.Reason
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d |\n", mdCell(r.Name), mdCell(status), r.Findings, r.Summary.CommitsScanned)
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\n### Failed\n\n")
		for _, r := range failed {
			fmt.Fprintf(&b, "- %s: %s\n", mdCell(r.Name), mdCell(r.Reason))
		}
	}
	if len(m.Missing) > 0 {
		fmt.Fprintf(&b, "\n### No result\n\nThese planned repositories have no result in the merged folders:\n\n")
		for _, n := range m.Missing {
			fmt.Fprintf(&b, "- %s\n", mdCell(n))
		}
	}
	if len(clean) > 0 {
		fmt.Fprintf(&b, "\n%d repositories were scanned with no finding.\n", len(clean))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func mdCell(s string) string {
	return strings.NewReplacer("|", "\\|", "`", "'", "<", "&lt;", ">", "&gt;").Replace(render.OneLine(s))
}
