package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

var update = flag.Bool("update", false, "rewrite the tool schema snapshot")

func TestToolsListSnapshot(t *testing.T) {
	h := newFixture(t).start(t)
	res, err := h.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(ToolNames) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(ToolNames))
	}
	byName := map[string]mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	for _, name := range ToolNames {
		tl, ok := byName[name]
		if !ok {
			t.Fatalf("tool %s not listed", name)
		}
		a := tl.Annotations
		// redact_file is the one tool that writes: not read-only, and
		// destructive (it replaces the file's content).
		writes := name == ToolRedactFile
		if a.ReadOnlyHint == nil || *a.ReadOnlyHint == writes || a.DestructiveHint == nil || *a.DestructiveHint != writes ||
			a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v: want read-only %v, destructive %v, idempotent, closed-world", name, a, !writes, writes)
		}
		if tl.Description == "" || tl.Title == "" {
			t.Errorf("%s: no description or title", name)
		}
	}
	// The snapshot is the wire form of the tools, in registration order.
	var wire []json.RawMessage
	for _, tl := range Tools() {
		b, err := json.Marshal(tl)
		if err != nil {
			t.Fatal(err)
		}
		wire = append(wire, b)
	}
	got, err := json.MarshalIndent(wire, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "tools.json")
	want, err := os.ReadFile(path)
	switch {
	case *update:
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	case os.IsNotExist(err) && os.Getenv("CI") == "true":
		t.Fatalf("%s is missing: run go test ./internal/mcpserver -run TestToolsListSnapshot -update and commit it", path)
	case os.IsNotExist(err):
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the missing snapshot %s", path)
		return
	case err != nil:
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("tool schemas differ from %s; if the change is intended, run with -update and review the diff", path)
	}
}

func TestPrefixedToolNamesFit(t *testing.T) {
	for _, tl := range Tools() {
		if n := len(ToolPrefix + tl.Name); n > 64 {
			t.Errorf("%s%s is %d characters; Claude Code allows 64", ToolPrefix, tl.Name, n)
		}
	}
}

func TestSchemasAreTyped(t *testing.T) {
	// Every schema node carries a type: portable across clients (the MCP
	// Inspector's --strict check flags untyped nodes and type unions).
	var walk func(path string, n any)
	walk = func(path string, n any) {
		m, ok := n.(map[string]any)
		if !ok {
			return
		}
		if ty, ok := m["type"].(string); !ok || ty == "" {
			t.Errorf("%s: no single type", path)
		}
		if p, ok := m["properties"].(map[string]any); ok {
			for k, v := range p {
				walk(path+"."+k, v)
			}
		}
		if it, ok := m["items"]; ok {
			walk(path+"[]", it)
		}
		if ap, ok := m["additionalProperties"].(map[string]any); ok {
			walk(path+"{}", ap)
		}
	}
	for _, tl := range Tools() {
		var in, out any
		json.Unmarshal(tl.RawInputSchema, &in)
		walk(tl.Name+".input", in)
		if tl.RawOutputSchema != nil {
			json.Unmarshal(tl.RawOutputSchema, &out)
			walk(tl.Name+".output", out)
		}
	}
}

func TestLoadContext(t *testing.T) {
	f := newFixture(t)
	f.write(t, filepath.Join(f.cfgDir, "notes.txt"), "text")
	if err := os.Mkdir(filepath.Join(f.cfgDir, "dir.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(f.cfgDir, "big.md")
	bf, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	bf.Truncate(65 << 20)
	bf.Close()
	f.writeMap(t, `[keys]
privacy-guide = "guide.md"
missing = "nope.md"
txt = "notes.txt"
dir = "dir.md"
big = "big.md"
[catalogs]
default = "catalog.md"
`)
	h := f.start(t)
	if got := text(t, h.call(t, ToolLoadContext, map[string]any{"key": "privacy-guide"})); got != guideText {
		t.Fatalf("load_context = %q", got)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		code string
	}{
		{"unknown", map[string]any{"key": "nope"}, "unknown_key"},
		{"catalog key", map[string]any{"key": "default"}, "unknown_key"},
		{"file missing", map[string]any{"key": "missing"}, "file_missing"},
		{"not markdown", map[string]any{"key": "txt"}, "not_markdown"},
		{"not regular", map[string]any{"key": "dir"}, "not_regular_file"},
		{"too large", map[string]any{"key": "big"}, "too_large"},
		{"no key", map[string]any{}, CodeInvalidArgument},
		{"no arguments", nil, CodeInvalidArgument},
		{"empty key", map[string]any{"key": ""}, CodeInvalidArgument},
		{"key not string", map[string]any{"key": 7}, CodeInvalidArgument},
		{"key too long", map[string]any{"key": strings.Repeat("k", maxKeyLen+1)}, CodeInputTooLarge},
		{"unknown argument", map[string]any{"key": "privacy-guide", "catalog_key": "x"}, CodeInvalidArgument},
		{"bad agent", map[string]any{"key": "privacy-guide", "agent_id": "two words"}, CodeInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := wantError(t, h.call(t, ToolLoadContext, tc.args), tc.code)
			if strings.Contains(msg, "validat") || strings.Contains(msg, "schema") {
				t.Errorf("message reads like a validator's: %s", msg)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	t.Run("config_missing", func(t *testing.T) {
		f := newFixture(t)
		os.Remove(filepath.Join(f.cfgDir, "context-map.toml"))
		h := f.start(t)
		wantError(t, h.call(t, ToolLoadContext, map[string]any{"key": "privacy-guide"}), "config_missing")
		wantError(t, h.call(t, ToolScanText, map[string]any{"text": "x"}), "config_missing")
	})
	t.Run("config_invalid", func(t *testing.T) {
		f := newFixture(t)
		f.writeMap(t, "[keys]\nbroken = \""+canaryName+"\n")
		h := f.start(t)
		msg := wantError(t, h.call(t, ToolScanText, map[string]any{"text": "x"}), "config_invalid")
		if strings.Contains(msg, canaryName) {
			t.Fatalf("message quotes the map: %s", msg)
		}
	})
	t.Run("catalog_invalid", func(t *testing.T) {
		f := newFixture(t)
		f.write(t, filepath.Join(f.cfgDir, "catalog.md"), "## BAD\n- category: person\n- match: regex\n\n```values\n("+canaryName+"\n```\n")
		h := f.start(t)
		for _, tool := range []string{ToolScanText, ToolRedactText} {
			msg := wantError(t, h.call(t, tool, map[string]any{"text": "x"}), "catalog_invalid")
			if strings.Contains(msg, canaryName) {
				t.Fatalf("message quotes the catalog: %s", msg)
			}
		}
	})
	t.Run("unknown catalog key", func(t *testing.T) {
		h := newFixture(t).start(t)
		wantError(t, h.call(t, ToolScanText, map[string]any{"text": "x", "catalog_key": "nope"}), "unknown_key")
		// A context key is not a catalog key.
		wantError(t, h.call(t, ToolScanText, map[string]any{"text": "x", "catalog_key": "privacy-guide"}), "unknown_key")
		wantError(t, h.call(t, ToolScanText, map[string]any{"text": "x", "catalog_key": "other"}), "file_missing")
	})
	t.Run("environment catalog", func(t *testing.T) {
		f := newFixture(t)
		os.Remove(filepath.Join(f.cfgDir, "context-map.toml"))
		f.setenv("PRIVSCAN_CATALOG", testCatalog)
		h := f.start(t)
		r := scanResult(t, h.call(t, ToolScanText, map[string]any{"text": "hello " + canaryName}))
		if r.Summary.Findings != 1 {
			t.Fatalf("findings = %d", r.Summary.Findings)
		}
	})
}

func TestScanText(t *testing.T) {
	h := newFixture(t).start(t)
	txt := "Fix login\n\nReported by " + canaryName + " (" + canaryEmail + "), ticket " + canaryID + "\nhost: " + canaryHost + "\n"
	r := scanResult(t, h.call(t, ToolScanText, map[string]any{"text": txt, "agent_id": "privacy-scanner"}))
	want := map[string]int{"catalog/PER-001": 1, "catalog/EMP-ID": 1, "catalog/HOST": 1, "pii/email": 1}
	got := ruleCounts(r)
	for id, n := range want {
		if got[id] != n {
			t.Errorf("%s: %d findings, want %d (all: %v)", id, got[id], n, got)
		}
	}
	for _, f := range r.Findings {
		if f.Kind != "text" || f.Path != "" || f.Fingerprint == "" {
			t.Errorf("finding %+v", f)
		}
		if f.RuleID == "catalog/PER-001" && (f.Line != 3 || f.Column != 13 || f.EndColumn != 13+len([]rune(canaryName))) {
			t.Errorf("PER-001 at %d:%d-%d", f.Line, f.Column, f.EndColumn)
		}
	}
	if r.Rules["catalog/PER-001"].Description != "Customer names" || r.Rules["catalog/PER-001"].Category != "person" {
		t.Errorf("rules: %+v", r.Rules["catalog/PER-001"])
	}
	if r.Summary.Returned != len(r.Findings) || r.Truncated || r.Summary.BySeverity["error"] < 2 {
		t.Errorf("summary %+v", r.Summary)
	}

	clean := scanResult(t, h.call(t, ToolScanText, map[string]any{"text": ""}))
	if clean.Summary.Findings != 0 || len(clean.Findings) != 0 {
		t.Fatalf("empty text: %+v", clean.Summary)
	}
	wantError(t, h.call(t, ToolScanText, map[string]any{}), CodeInvalidArgument)
	wantError(t, h.call(t, ToolScanText, map[string]any{"text": 12}), CodeInvalidArgument)
	wantError(t, h.call(t, ToolScanText, map[string]any{"text": []any{"a"}}), CodeInvalidArgument)
	msg := wantError(t, h.call(t, ToolScanText, map[string]any{"text": strings.Repeat("a", MaxScanText+1)}), CodeInputTooLarge)
	if !strings.Contains(msg, "1 MiB") {
		t.Errorf("message %q does not state the limit", msg)
	}
	// Exactly at the cap is accepted.
	scanResult(t, h.call(t, ToolScanText, map[string]any{"text": strings.Repeat("a", MaxScanText)}))
}

func TestFindingsCap(t *testing.T) {
	h := newFixture(t).start(t)
	var b strings.Builder
	const n = 250
	for i := range n {
		fmt.Fprintf(&b, "line %d: %s\n", i, canaryName)
	}
	res := h.call(t, ToolScanText, map[string]any{"text": b.String()})
	r := scanResult(t, res)
	if r.Summary.Findings != n || r.Rules["catalog/PER-001"].Count != n {
		t.Fatalf("total %d / rule count %d, want %d", r.Summary.Findings, r.Rules["catalog/PER-001"].Count, n)
	}
	if !r.Truncated || len(r.Findings) != MaxFindings || r.Summary.Returned != MaxFindings {
		t.Fatalf("truncated=%v listed=%d returned=%d", r.Truncated, len(r.Findings), r.Summary.Returned)
	}
	for i, f := range r.Findings {
		if f.Line != i+1 {
			t.Fatalf("finding %d is on line %d: not the first ones in order", i, f.Line)
		}
	}
	// The reply (text plus structured copy) stays well under 25k tokens
	// (about 100 KB of JSON even at 4 bytes per token).
	wire, _ := json.Marshal(res)
	if len(wire) > 64<<10 {
		t.Fatalf("reply is %d bytes", len(wire))
	}
}

func TestFindingsByteBudget(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "repo")
	gitRepo(t, dir)
	writeFile(t, filepath.Join(dir, "README"), "x\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "init")
	long := strings.Repeat("d", 200)
	for i := range 60 {
		writeFile(t, filepath.Join(dir, long, fmt.Sprintf("%s-%03d.txt", long, i)), canaryName+"\n")
	}
	h := f.start(t)
	res := h.call(t, ToolScanDiff, map[string]any{"repo": "repo"})
	r := scanResult(t, res)
	if r.Summary.Findings != 60 || !r.Truncated || len(r.Findings) >= 60 || len(r.Findings) == 0 {
		t.Fatalf("findings %d listed %d truncated %v", r.Summary.Findings, len(r.Findings), r.Truncated)
	}
	wire, _ := json.Marshal(res)
	if len(wire) > 64<<10 {
		t.Fatalf("reply is %d bytes", len(wire))
	}
}

func TestRedactText(t *testing.T) {
	h := newFixture(t).start(t)
	in := "a " + canaryName + " b " + canaryName + " c " + canaryID + "\r\nd " + canaryEmail + "\n"
	res := h.call(t, ToolRedactText, map[string]any{"text": in})
	if res.IsError {
		t.Fatal(text(t, res))
	}
	var r RedactResult
	if err := json.Unmarshal([]byte(text(t, res)), &r); err != nil {
		t.Fatal(err)
	}
	want := "a [person:1] b [person:1] c [employee-id:1]\r\nd [email:1]\n"
	if r.Text != want {
		t.Fatalf("redacted = %q, want %q", r.Text, want)
	}
	if r.Replacements != 4 || r.Lines != 2 || r.ByCategory["person"] != 2 {
		t.Fatalf("stats %+v", r)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	var rs RedactResult
	json.Unmarshal(sc, &rs)
	if rs.Text != want {
		t.Fatalf("structured text %q", rs.Text)
	}
	wantError(t, h.call(t, ToolRedactText, map[string]any{"text": strings.Repeat("a", MaxRedactText+1)}), CodeInputTooLarge)
	// Short matches expanding into long placeholders: the output cap.
	f := newFixture(t)
	f.write(t, filepath.Join(f.cfgDir, "catalog.md"), "## S\n- category: some-very-long-category-name\n- boundary: none\n\n```values\nabc\n```\n")
	h2 := f.start(t)
	wantError(t, h2.call(t, ToolRedactText, map[string]any{"text": strings.Repeat("abc ", MaxRedactText/4)}), CodeInputTooLarge)
}

// diffRepo builds a repository with two commits and uncommitted work:
//
//	c1: base.txt (clean)
//	c2: adds a line with the canary name to base.txt; message names the host
//	staged: staged.txt with the canary ID
//	unstaged: base.txt gains the canary email
//	untracked: new.txt with the canary host
func diffRepo(t *testing.T, dir string) (c1, c2 string) {
	gitRepo(t, dir)
	writeFile(t, filepath.Join(dir, "base.txt"), "hello\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "first")
	c1 = git(t, dir, "rev-parse", "HEAD")
	writeFile(t, filepath.Join(dir, "base.txt"), "hello\nname "+canaryName+"\n")
	git(t, dir, "commit", "-qam", "second: deploy to "+canaryHost)
	c2 = git(t, dir, "rev-parse", "HEAD")
	writeFile(t, filepath.Join(dir, "staged.txt"), "id "+canaryID+"\n")
	git(t, dir, "add", "staged.txt")
	writeFile(t, filepath.Join(dir, "base.txt"), "hello\nname "+canaryName+"\nmail "+canaryEmail+"\n")
	writeFile(t, filepath.Join(dir, "sub", "new.txt"), "host "+canaryHost+"\n")
	return c1, c2
}

func TestScanDiff(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "repo")
	c1, c2 := diffRepo(t, dir)
	h := f.start(t)
	type want map[string]int
	tests := []struct {
		name     string
		args     map[string]any
		want     want
		messages int
	}{
		{"default: everything uncommitted", map[string]any{"repo": "repo"}, want{"catalog/EMP-ID": 1, "pii/email": 1, "catalog/HOST": 1}, 0},
		{"staged", map[string]any{"repo": "repo", "staged": true}, want{"catalog/EMP-ID": 1}, 0},
		{"base only", map[string]any{"repo": "repo", "base": "HEAD~1"}, want{"catalog/PER-001": 1, "catalog/EMP-ID": 1, "pii/email": 1, "catalog/HOST": 1}, 0},
		{"base staged", map[string]any{"repo": "repo", "base": "HEAD~1", "staged": true}, want{"catalog/PER-001": 1, "catalog/EMP-ID": 1}, 0},
		{"base and head", map[string]any{"repo": "repo", "base": c1, "head": c2}, want{"catalog/PER-001": 1, "catalog/HOST": 1}, 1},
		{"range", map[string]any{"repo": "repo", "base": c1 + ".." + c2}, want{"catalog/PER-001": 1, "catalog/HOST": 1}, 1},
		{"symmetric range", map[string]any{"repo": "repo", "base": "HEAD~1...HEAD"}, want{"catalog/PER-001": 1, "catalog/HOST": 1}, 1},
		{"paths", map[string]any{"repo": "repo", "paths": []any{"sub"}}, want{"catalog/HOST": 1}, 0},
		{"glob path", map[string]any{"repo": "repo", "paths": []any{"*.txt"}}, want{"catalog/EMP-ID": 1, "pii/email": 1, "catalog/HOST": 1}, 0},
		{"repo subdirectory", map[string]any{"repo": "repo/sub"}, want{"catalog/EMP-ID": 1, "pii/email": 1, "catalog/HOST": 1}, 0},
		{"absolute repo", map[string]any{"repo": dir, "staged": true, "agent_id": "privacy-scanner"}, want{"catalog/EMP-ID": 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := scanResult(t, h.call(t, ToolScanDiff, tc.args))
			got := ruleCounts(r)
			if len(got) != len(tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
			for id, n := range tc.want {
				if got[id] != n {
					t.Errorf("%s: %d, want %d (all %v)", id, got[id], n, got)
				}
			}
			msgs := 0
			for _, f := range r.Findings {
				if f.Kind == "commit-message" {
					msgs++
					if f.Commit != c2 || f.Path != "" {
						t.Errorf("message finding %+v", f)
					}
				} else if f.Kind != "diff" || f.Path == "" {
					t.Errorf("finding %+v", f)
				}
			}
			if msgs != tc.messages {
				t.Errorf("%d commit-message findings, want %d", msgs, tc.messages)
			}
			if r.Comparison == "" || r.Summary.FilesScanned == 0 {
				t.Errorf("comparison %q summary %+v", r.Comparison, r.Summary)
			}
		})
	}
}

func TestScanDiffDefaultRepoAndUnborn(t *testing.T) {
	f := newFixture(t)
	gitRepo(t, f.work) // the working directory itself, no commit yet
	writeFile(t, filepath.Join(f.work, "staged.txt"), canaryID+"\n")
	git(t, f.work, "add", "staged.txt")
	writeFile(t, filepath.Join(f.work, "untracked.txt"), canaryName+"\n")
	h := f.start(t)
	r := scanResult(t, h.call(t, ToolScanDiff, nil))
	got := ruleCounts(r)
	if got["catalog/EMP-ID"] != 1 || got["catalog/PER-001"] != 1 || len(got) != 2 {
		t.Fatalf("unborn HEAD: %v (%s)", got, r.Comparison)
	}
	r = scanResult(t, h.call(t, ToolScanDiff, map[string]any{"staged": true}))
	if got := ruleCounts(r); got["catalog/EMP-ID"] != 1 || len(got) != 1 {
		t.Fatalf("unborn HEAD staged: %v", got)
	}
}

func TestScanDiffErrors(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "repo")
	diffRepo(t, dir)
	if err := os.MkdirAll(filepath.Join(f.work, "plain"), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(f.root, "outside")
	diffRepo(t, outside)
	if err := os.Symlink(outside, filepath.Join(f.work, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link-out")); err != nil {
		t.Fatal(err)
	}
	h := f.start(t)
	many := make([]any, MaxPaths+1)
	for i := range many {
		many[i] = "f"
	}
	tests := []struct {
		name string
		args map[string]any
		code string
	}{
		{"not a repo", map[string]any{"repo": "plain"}, CodeRepoNotFound},
		{"missing repo", map[string]any{"repo": "nope"}, CodeRepoNotFound},
		{"repo is a file", map[string]any{"repo": "repo/base.txt"}, CodeRepoNotFound},
		{"repo outside", map[string]any{"repo": outside}, CodePathOutsideRoot},
		{"repo dotdot", map[string]any{"repo": "../outside"}, CodePathOutsideRoot},
		{"repo missing outside", map[string]any{"repo": "/nonexistent/x"}, CodePathOutsideRoot},
		{"repo via symlink", map[string]any{"repo": "escape"}, CodePathOutsideRoot},
		{"path dotdot", map[string]any{"repo": "repo", "paths": []any{"../../outside"}}, CodePathOutsideRoot},
		{"path absolute outside", map[string]any{"repo": "repo", "paths": []any{filepath.Join(outside, "base.txt")}}, CodePathOutsideRoot},
		{"path through symlink", map[string]any{"repo": "repo", "paths": []any{"link-out/base.txt"}}, CodePathOutsideRoot},
		{"path glob outside", map[string]any{"repo": "repo", "paths": []any{"../../*"}}, CodePathOutsideRoot},
		{"unknown rev", map[string]any{"repo": "repo", "base": "no-such-branch"}, CodeRevNotFound},
		{"unknown head", map[string]any{"repo": "repo", "base": "HEAD", "head": "nope"}, CodeRevNotFound},
		{"head without base", map[string]any{"repo": "repo", "head": "HEAD"}, CodeInvalidArgument},
		{"staged with head", map[string]any{"repo": "repo", "base": "HEAD~1", "head": "HEAD", "staged": true}, CodeInvalidArgument},
		{"range with head", map[string]any{"repo": "repo", "base": "HEAD~1..HEAD", "head": "HEAD"}, CodeInvalidArgument},
		{"staged range", map[string]any{"repo": "repo", "base": "HEAD~1..HEAD", "staged": true}, CodeInvalidArgument},
		{"option as rev", map[string]any{"repo": "repo", "base": "--output=/tmp/x"}, CodeInvalidArgument},
		{"control in rev", map[string]any{"repo": "repo", "base": "HEAD\n"}, CodeInvalidArgument},
		{"staged not bool", map[string]any{"repo": "repo", "staged": "yes"}, CodeInvalidArgument},
		{"paths not list", map[string]any{"repo": "repo", "paths": "sub"}, CodeInvalidArgument},
		{"path not string", map[string]any{"repo": "repo", "paths": []any{1}}, CodeInvalidArgument},
		{"empty path", map[string]any{"repo": "repo", "paths": []any{""}}, CodeInvalidArgument},
		{"too many paths", map[string]any{"repo": "repo", "paths": many}, CodeInputTooLarge},
		{"path too long", map[string]any{"repo": "repo", "paths": []any{strings.Repeat("p", maxPathLen+1)}}, CodeInputTooLarge},
		{"unknown argument", map[string]any{"repo": "repo", "branch": "main"}, CodeInvalidArgument},
		{"arguments not object", map[string]any{"repo": []any{}}, CodeInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, h.call(t, ToolScanDiff, tc.args), tc.code)
		})
	}
	// A --root widens what may be scanned.
	h2 := f.start(t, outside)
	scanResult(t, h2.call(t, ToolScanDiff, map[string]any{"repo": outside}))
	scanResult(t, h2.call(t, ToolScanDiff, map[string]any{"repo": "escape"}))
}

func TestRepoAboveRootIsConfined(t *testing.T) {
	// The working directory is a subdirectory of a repository: only the
	// files inside it are scanned.
	f := newFixture(t)
	gitRepo(t, f.root)
	writeFile(t, filepath.Join(f.root, "top.txt"), canaryName+"\n")
	writeFile(t, filepath.Join(f.work, "inside.txt"), canaryID+"\n")
	h := f.start(t)
	r := scanResult(t, h.call(t, ToolScanDiff, nil))
	got := ruleCounts(r)
	if got["catalog/PER-001"] != 0 || got["catalog/EMP-ID"] != 1 {
		t.Fatalf("findings %v: want only the file inside the root", got)
	}
	for _, fd := range r.Findings {
		if !strings.HasPrefix(fd.Path, "work/") {
			t.Fatalf("finding outside the root: %s", fd.Path)
		}
	}
}

func TestRepoSettingsApply(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "repo")
	gitRepo(t, dir)
	writeFile(t, filepath.Join(dir, ".privscan.toml"), "[severity]\n\"catalog/EMP-ID\" = \"off\"\n")
	writeFile(t, filepath.Join(dir, "a.txt"), canaryID+"\n"+canaryName+" privscan:allow\n")
	h := f.start(t)
	r := scanResult(t, h.call(t, ToolScanDiff, map[string]any{"repo": "repo"}))
	if r.Summary.Findings != 0 || r.Summary.Suppressed != 1 || r.Summary.SuppressedBy["inline"] != 1 {
		t.Fatalf("summary %+v", r.Summary)
	}
	writeFile(t, filepath.Join(dir, ".privscan.toml"), "exclude = [\n")
	wantError(t, h.call(t, ToolScanDiff, map[string]any{"repo": "repo"}), "config_invalid")
}

func TestWarmCache(t *testing.T) {
	f := newFixture(t)
	h := f.start(t)
	first, _, err := h.srv.eng.Catalog("")
	if err != nil {
		t.Fatalf("first get: %v", err)
	}
	for range 3 {
		if m, _, err := h.srv.eng.Catalog(""); err != nil || m != first {
			t.Fatalf("unchanged catalog recompiled (%v)", err)
		}
	}
	// A change of the file is picked up by the next call.
	f.write(t, filepath.Join(f.cfgDir, "catalog.md"), "## NEW\n- category: codename\n\n```values\nProject Nightjar\n```\n")
	r := scanResult(t, h.call(t, ToolScanText, map[string]any{"text": "Project Nightjar and " + canaryName}))
	if got := ruleCounts(r); got["catalog/NEW"] != 1 || got["catalog/PER-001"] != 0 {
		t.Fatalf("after edit: %v", got)
	}
	second, _, _ := h.srv.eng.Catalog("")
	if second == first {
		t.Fatal("the edited catalog was not recompiled")
	}
	if m, _, _ := h.srv.eng.Catalog(""); m != second {
		t.Fatal("recompiled twice after one edit")
	}
	// A broken catalog is an error, and a fixed one works again.
	f.write(t, filepath.Join(f.cfgDir, "catalog.md"), "## X\n")
	wantError(t, h.call(t, ToolScanText, map[string]any{"text": "x"}), "catalog_invalid")
	f.write(t, filepath.Join(f.cfgDir, "catalog.md"), testCatalog)
	scanResult(t, h.call(t, ToolScanText, map[string]any{"text": "x"}))
}

func TestAudit(t *testing.T) {
	f := newFixture(t)
	f.setenv("PRIVSCAN_AGENT", "env-agent")
	h := f.start(t)
	h.call(t, ToolLoadContext, map[string]any{"key": "privacy-guide", "agent_id": "privacy-scanner"})
	h.call(t, ToolLoadContext, map[string]any{"key": "privacy-guide"})
	h.call(t, ToolScanText, map[string]any{"text": canaryName, "catalog_key": "default"})
	h.call(t, ToolScanText, map[string]any{"text": "x", "catalog_key": "nope", "agent_id": "a1"})
	f.setenv("PRIVSCAN_AGENT", "")
	h.call(t, ToolRedactText, map[string]any{"text": canaryName})
	h.call(t, ToolScanText, map[string]any{"text": 5})
	recs := readAudit(t, f)
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6", len(recs))
	}
	wantAgents := []string{"privacy-scanner", "env-agent", "env-agent", "a1", "unknown", "unknown"}
	for i, r := range recs {
		if r.AgentID != wantAgents[i] {
			t.Errorf("record %d agent %q, want %q", i, r.AgentID, wantAgents[i])
		}
		if r.Time == "" || r.Tool == "" || r.DurationMS < 0 {
			t.Errorf("record %d: %+v", i, r)
		}
	}
	if recs[0].KeyDigest == "" || recs[0].KeyDigest != recs[1].KeyDigest || !strings.HasPrefix(recs[0].KeyDigest, "context:") {
		t.Errorf("context key digests %q %q", recs[0].KeyDigest, recs[1].KeyDigest)
	}
	// The default catalog (no key given) and catalog_key "default" are the
	// same key; a context key with the same name would digest differently.
	if recs[2].KeyDigest == "" || recs[2].KeyDigest != recs[4].KeyDigest || recs[2].KeyDigest == recs[3].KeyDigest {
		t.Errorf("catalog key digests %q %q %q", recs[2].KeyDigest, recs[4].KeyDigest, recs[3].KeyDigest)
	}
	if recs[2].Outcome != "ok" || recs[2].Findings == nil || *recs[2].Findings != 1 || recs[2].Catalog != "map" || recs[2].Bytes == nil {
		t.Errorf("scan record %+v", recs[2])
	}
	if recs[3].Outcome != "error" || recs[3].Code != "unknown_key" {
		t.Errorf("error record %+v", recs[3])
	}
	if recs[4].Replacements == nil || *recs[4].Replacements != 1 {
		t.Errorf("redact record %+v", recs[4])
	}
	if recs[5].Code != CodeInvalidArgument {
		t.Errorf("invalid record %+v", recs[5])
	}
	for _, p := range []string{f.auditPath(), filepath.Join(filepath.Dir(f.auditPath()), "audit.key")} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v mode %v", p, err, fi)
		}
	}
	// The digest is keyed: a new installation secret gives a new digest.
	os.Remove(filepath.Join(filepath.Dir(f.auditPath()), "audit.key"))
	h2 := f.start(t)
	h2.call(t, ToolLoadContext, map[string]any{"key": "privacy-guide"})
	recs = readAudit(t, f)
	if last := recs[len(recs)-1]; last.KeyDigest == recs[0].KeyDigest || last.KeyDigest == "" {
		t.Errorf("digest did not change with the secret: %q", last.KeyDigest)
	}
}

func TestAuditFailureNeverFailsACall(t *testing.T) {
	f := newFixture(t)
	// The state directory is a file: the log cannot be written.
	os.RemoveAll(f.state)
	f.write(t, f.state, "not a directory")
	h := f.start(t)
	for range 2 {
		if got := text(t, h.call(t, ToolLoadContext, map[string]any{"key": "privacy-guide"})); got != guideText {
			t.Fatalf("call failed: %q", got)
		}
	}
	if !strings.Contains(h.stderr.String(), "audit log") {
		t.Fatalf("no stderr note: %q", h.stderr.String())
	}
	// No location at all.
	g := newFixture(t)
	g.setenv("XDG_STATE_HOME", "")
	g.setenv("HOME", "")
	h = g.start(t)
	scanResult(t, h.call(t, ToolScanText, map[string]any{"text": "x"}))
	if !strings.Contains(h.stderr.String(), "not logged") {
		t.Fatalf("stderr %q", h.stderr.String())
	}
}

// TestAuditPath: the server logs where internal/audit says (its tests
// cover the locations).
func TestAuditPath(t *testing.T) {
	env := map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}
	if got := AuditPath(func(k string) string { return env[k] }); got != "/s/privscan/audit.jsonl" {
		t.Errorf("AuditPath = %q", got)
	}
}

func readAudit(t *testing.T, f *fixture) []AuditRecord {
	t.Helper()
	file, err := os.Open(f.auditPath())
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var recs []AuditRecord
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		var r AuditRecord
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "repo")
	diffRepo(t, dir)
	h := f.start(t)
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var req mcp.CallToolRequest
			switch i % 4 {
			case 0:
				req.Params.Name, req.Params.Arguments = ToolScanDiff, map[string]any{"repo": "repo", "agent_id": fmt.Sprintf("agent-%d", i)}
			case 1:
				req.Params.Name, req.Params.Arguments = ToolScanText, map[string]any{"text": "x " + canaryName}
			case 2:
				req.Params.Name, req.Params.Arguments = ToolRedactText, map[string]any{"text": "x " + canaryName}
			case 3:
				req.Params.Name, req.Params.Arguments = ToolLoadContext, map[string]any{"key": "privacy-guide"}
			}
			res, err := h.c.CallTool(context.Background(), req)
			if err != nil {
				errs <- err.Error()
				return
			}
			if res.IsError {
				errs <- fmt.Sprintf("%s: %v", req.Params.Name, res.Content)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if recs := readAudit(t, f); len(recs) != n {
		t.Fatalf("%d audit records, want %d", len(recs), n)
	}
}
