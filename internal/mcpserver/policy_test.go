package mcpserver

import (
	"path/filepath"
	"testing"
)

// TestScanDiffPolicyFromBase: scan_diff between two commits follows the
// same rules as the command line: the base's policy judges the change,
// the change's policy edit is reported, and a marker it adds is listed
// as suppressed=inline-added.
func TestScanDiffPolicyFromBase(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "repo")
	gitRepo(t, dir)
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	base := git(t, dir, "rev-parse", "HEAD")
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\nvar x = \""+canaryName+"\"\nvar y = \""+canaryName+"\" // privscan:allow\n")
	writeFile(t, filepath.Join(dir, ".privscan.toml"), "[severity]\n\"catalog/PER-001\" = \"off\"\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "change")
	head := git(t, dir, "rev-parse", "HEAD")

	h := f.start(t)
	r := scanResult(t, h.call(t, "scan_diff", map[string]any{"repo": "repo", "base": base, "head": head}))
	if !r.Summary.PolicyChanged {
		t.Error("policyChanged not set")
	}
	if r.Summary.Findings != 1 || r.Summary.SuppressedBy["inline-added"] != 1 || len(r.Findings) != 2 {
		t.Fatalf("summary %+v, %d findings listed", r.Summary, len(r.Findings))
	}
	if r.Findings[0].Suppressed != "" || r.Findings[1].Suppressed != "inline-added" || r.Findings[1].Line != 4 {
		t.Fatalf("findings %+v %+v", r.Findings[0], r.Findings[1])
	}
	// The working tree comparison reads the working tree's policy: the
	// severity override applies there.
	r = scanResult(t, h.call(t, "scan_diff", map[string]any{"repo": "repo", "base": base}))
	if r.Summary.Findings != 0 || r.Summary.PolicyChanged {
		t.Fatalf("working tree: %+v", r.Summary)
	}
}
