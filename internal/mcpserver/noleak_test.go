package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoLeak runs every tool, successfully and into every kind of error,
// with canary values in the catalog and in the scanned content, and checks
// that no reply, error, stderr line or audit record contains any of them,
// in any case and with or without spaces.
func TestNoLeak(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "repo")
	c1, c2 := diffRepo(t, dir)
	// A secret and more PII in the diff, and a long line.
	writeFile(t, filepath.Join(dir, "cfg.env"), "AWS_ACCESS_KEY_ID=AKIAZQ7CANARY2XYZ4AB\nCARD=4111 1111 1111 1111\n"+strings.Repeat("x", 5000)+canaryName+"\n")
	f.write(t, filepath.Join(f.cfgDir, "broken.md"), "## B\n- category: person\n- match: regex\n\n```values\n("+canaryHost+"\n```\n")
	f.write(t, filepath.Join(f.cfgDir, "short.md"), "## S\n- category: person\n\n```values\nZq\n```\n")
	f.writeMap(t, "[keys]\nprivacy-guide = \"guide.md\"\n"+canaryKey+" = \"guide.md\"\ncat-as-context = \"catalog.md\"\n[catalogs]\ndefault = \"catalog.md\"\nbroken = \"broken.md\"\nshort = \"short.md\"\n")
	h := f.start(t)
	content := "msg " + canaryName + " " + canaryEmail + " " + canaryID + " " + canaryHost + " AKIAZQ7CANARY2XYZ4AB\n"
	calls := []struct {
		tool string
		args map[string]any
	}{
		{ToolLoadContext, map[string]any{"key": canaryKey}},
		{ToolLoadContext, map[string]any{"key": "cat-as-context"}},
		{ToolLoadContext, map[string]any{"key": "default"}},
		{ToolScanText, map[string]any{"text": content}},
		{ToolScanText, map[string]any{"text": content, "catalog_key": "broken"}},
		{ToolScanText, map[string]any{"text": content, "catalog_key": "short"}},
		{ToolScanText, map[string]any{"text": content, "unexpected": content}},
		{ToolScanText, map[string]any{"text": content + strings.Repeat("y", MaxScanText)}},
		{ToolRedactText, map[string]any{"text": content}},
		{ToolRedactText, map[string]any{"text": content, "catalog_key": "broken"}},
		{ToolRedactText, map[string]any{"text": content + strings.Repeat("y", MaxRedactText)}},
		{ToolScanDiff, map[string]any{"repo": "repo"}},
		{ToolScanDiff, map[string]any{"repo": "repo", "staged": true}},
		{ToolScanDiff, map[string]any{"repo": "repo", "base": c1, "head": c2}},
		{ToolScanDiff, map[string]any{"repo": "repo", "base": c1 + "..." + c2}},
		{ToolScanDiff, map[string]any{"repo": "repo", "catalog_key": "broken"}},
		{ToolScanDiff, map[string]any{"repo": "repo", "base": "missing-rev"}},
		{ToolScanDiff, map[string]any{"repo": "repo", "paths": []any{"../../x"}}},
		// Revisions and argument names are free text: never repeated.
		{ToolScanDiff, map[string]any{"repo": "repo", "base": canaryID}},
		{ToolScanDiff, map[string]any{"repo": "repo", "base": c1, "head": canaryID}},
		{ToolScanDiff, map[string]any{"repo": "repo", "base": c1 + ".." + canaryID}},
		{ToolScanText, map[string]any{"text": "x", canaryName: true}},
	}
	for _, c := range calls {
		h.call(t, c.tool, c.args)
	}
	audit, err := os.ReadFile(f.auditPath())
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"stderr": h.stderr.String(),
		"audit":  string(audit),
	}
	for i, r := range h.replies {
		outputs["reply "+calls[i].tool+" #"+string(rune('a'+i))] = r
	}
	canaries := []string{canaryName, canaryHost, canaryID, canaryEmail, "AKIAZQ7CANARY2XYZ4AB", "4111 1111 1111 1111", `QZX-\\d{6}`, "QZX-\\d"}
	for name, out := range outputs {
		low := strings.ToLower(out)
		squashed := strings.NewReplacer(" ", "", "-", "", "_", "", ".", "").Replace(low)
		for _, c := range canaries {
			lc := strings.ToLower(c)
			sc := strings.NewReplacer(" ", "", "-", "", "_", "", ".", "").Replace(lc)
			if strings.Contains(low, lc) || strings.Contains(squashed, sc) {
				t.Errorf("%s contains canary %q:\n%.2000s", name, c, out)
			}
		}
	}
	// Keys never reach the audit log.
	for _, k := range []string{canaryKey, "privacy-guide", "cat-as-context", `"default"`, `"broken"`} {
		if strings.Contains(string(audit), k) {
			t.Errorf("audit log contains key %s", k)
		}
	}
	// The calls did what they should, so the test is not vacuous.
	if !strings.Contains(h.replies[3], `"catalog/PER-001"`) || !strings.Contains(h.replies[8], "[person:1]") || !strings.Contains(h.replies[11], `"secret/`) {
		t.Fatalf("calls did not find the canaries:\n%s\n%s\n%s", h.replies[3], h.replies[8], h.replies[11])
	}
}
