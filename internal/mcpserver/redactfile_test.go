package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/engine"
)

// redactFileResult decodes a successful redact_file reply.
func redactFileResult(t *testing.T, res *mcp.CallToolResult) *RedactFileResult {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error: %s", text(t, res))
	}
	var r RedactFileResult
	if err := json.Unmarshal([]byte(text(t, res)), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// guardFindings scans content with the full detector set of the fixture's
// default catalog, as the Read guard does, and returns the rule IDs found.
func guardFindings(t *testing.T, f *fixture, content []byte) []string {
	t.Helper()
	ds, err := engine.New(engine.Config{Getenv: f.getenv}).CatalogDetectorSet("")
	if err != nil {
		t.Fatal(err)
	}
	var got ruleList
	if _, err := ds.RunText(context.Background(), string(content), "f", finding.KindFile, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

type ruleList []string

func (r *ruleList) Finding(f *finding.Finding) error { *r = append(*r, f.RuleID); return nil }
func (r *ruleList) Summary(*finding.Summary) error   { return nil }

func TestRedactFile(t *testing.T) {
	// Synthetic PII and secret look-alikes of real shapes (not anyone's).
	const (
		email = "zq.canary@mailbox.org"
		card  = "4111 1111 1111 1111"
		iban  = "DE89370400440532013000"
		ssn   = "219-09-9998"
		ip    = "77.88.55.66"
		key   = "AKIAZQ7CANARY2XYZ4AB"
	)
	tests := []struct {
		name, content, style string
		want                 string // "" to check only that nothing is found
		reps                 int
		rules                map[string]int
	}{
		{
			name:    "placeholders, LF, every byte outside the matches kept",
			content: "package x\n\n// Owner: " + canaryName + "\t \nvar h = \"" + canaryHost + "\" // and " + canaryName + "\n",
			want:    "package x\n\n// Owner: [person:1]\t \nvar h = \"[internal-host:1]\" // and [person:1]\n",
			reps:    3, rules: map[string]int{"catalog/PER-001": 2, "catalog/HOST": 1},
		},
		{
			name:    "CRLF and a last line without a newline",
			content: "a\r\nb " + canaryID + "\r\n\r\nc " + canaryName,
			want:    "a\r\nb [employee-id:1]\r\n\r\nc [person:1]",
			reps:    2, rules: map[string]int{"catalog/EMP-ID": 1, "catalog/PER-001": 1},
		},
		{
			name:    "a lone carriage return stays",
			content: "x\ry " + canaryName + "\r\n",
			want:    "x\ry [person:1]\r\n",
			reps:    1, rules: map[string]int{"catalog/PER-001": 1},
		},
		{
			name:    "nothing to replace: the file is left alone",
			content: "nothing here\n",
			want:    "nothing here\n",
		},
		{
			name:    "synthetic stand-ins",
			content: "owner: " + canaryName + "\ncc: " + email + "\nhost " + canaryHost + "\nagain " + canaryName + "\n",
			style:   StyleSynthetic,
			want:    "owner: Jane Doe\ncc: user1@example.com\nhost host1.example.internal\nagain Jane Doe\n",
			reps:    4, rules: map[string]int{"catalog/PER-001": 2, "pii/email": 1, "catalog/HOST": 1},
		},
		{
			name:    "synthetic PII and secrets find nothing afterwards",
			content: "card=" + card + "\niban: " + iban + "\nssn " + ssn + "\nip " + ip + "\naws_access_key_id = " + key + "\nid " + canaryID + "\n",
			style:   StyleSynthetic,
			reps:    6,
		},
		{
			name:    "placeholder PII and secrets find nothing afterwards",
			content: "card=" + card + "\niban: " + iban + "\nssn " + ssn + "\nip " + ip + "\naws_access_key_id = " + key + "\n",
			reps:    5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			p := filepath.Join(f.work, "dir", "file.txt")
			writeFile(t, p, tt.content)
			if err := os.Chmod(p, 0o640); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Stat(p)
			h := f.start(t)
			args := map[string]any{"path": "dir/file.txt", "agent_id": "fixer"}
			if tt.style != "" {
				args["style"] = tt.style
			}
			r := redactFileResult(t, h.call(t, ToolRedactFile, args))
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && string(got) != tt.want {
				t.Fatalf("file:\n%q\nwant:\n%q", got, tt.want)
			}
			if r.Replacements != tt.reps || r.Written != (tt.reps > 0) || r.Path != "dir/file.txt" || len(r.Locations) != tt.reps {
				t.Fatalf("reply %+v", r)
			}
			if tt.rules != nil {
				for id, n := range tt.rules {
					if r.ByRule[id] != n {
						t.Fatalf("byRule %v, want %v", r.ByRule, tt.rules)
					}
				}
			}
			if found := guardFindings(t, f, got); len(found) > 0 {
				t.Fatalf("the redacted file still holds %v:\n%q", found, got)
			}
			after, _ := os.Stat(p)
			if after.Mode() != before.Mode() {
				t.Fatalf("mode %v, was %v", after.Mode(), before.Mode())
			}
			if r.Written == os.SameFile(before, after) {
				t.Fatalf("written %v, but same inode %v (an atomic rename makes a new one)", r.Written, os.SameFile(before, after))
			}
			// No temporary file is left behind.
			if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
				t.Fatalf("%d entries in the directory", len(ents))
			}
			// A second call finds nothing: idempotent.
			r2 := redactFileResult(t, h.call(t, ToolRedactFile, args))
			if again, _ := os.ReadFile(p); r2.Replacements != 0 || r2.Written || !bytes.Equal(again, got) {
				t.Fatalf("second call: %+v", r2)
			}
			// The reply and the audit log name rules and lines, no value.
			audit, _ := os.ReadFile(f.auditPath())
			for _, out := range append(h.replies, string(audit)) {
				for _, c := range []string{canaryName, canaryHost, canaryID, email, card, iban, ssn, key} {
					if strings.Contains(out, c) {
						t.Fatalf("output holds a value: %.300s", out)
					}
				}
			}
		})
	}
}

func TestRedactFileLocations(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.work, "f.txt"), "é "+canaryName+"\nx\n"+canaryID+" "+canaryID+"\n")
	h := f.start(t)
	r := redactFileResult(t, h.call(t, ToolRedactFile, map[string]any{"path": "f.txt"}))
	want := []Replacement{
		{Line: 1, Column: 3, RuleID: "catalog/PER-001", Category: "person"},
		{Line: 3, Column: 1, RuleID: "catalog/EMP-ID", Category: "employee-id"},
		{Line: 3, Column: 12, RuleID: "catalog/EMP-ID", Category: "employee-id"},
	}
	if len(r.Locations) != len(want) {
		t.Fatalf("locations %+v", r.Locations)
	}
	for i := range want {
		if r.Locations[i] != want[i] {
			t.Fatalf("location %d: %+v, want %+v", i, r.Locations[i], want[i])
		}
	}
	if r.Lines != 3 || r.ByCategory["employee-id"] != 2 {
		t.Fatalf("reply %+v", r)
	}
}

func TestRedactFileErrors(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(f.root, "outside")
	secret := filepath.Join(outside, "secret.txt")
	writeFile(t, secret, "owner "+canaryName+"\n")
	writeFile(t, filepath.Join(f.work, "ok.txt"), "owner "+canaryName+"\n")
	writeFile(t, filepath.Join(f.work, "bin.dat"), "owner "+canaryName+"\x00\n")
	writeFile(t, filepath.Join(f.work, "big.txt"), strings.Repeat("a", MaxRedactFile)+"\n")
	writeFile(t, filepath.Join(f.work, "linked.txt"), "owner "+canaryName+"\n")
	if err := os.Link(filepath.Join(f.work, "linked.txt"), filepath.Join(f.work, "second-name.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(f.work, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(f.work, "fifo"))
	os.Mkdir(filepath.Join(f.work, "dir"), 0o700)
	h := f.start(t)
	tests := []struct {
		name string
		args map[string]any
		code string
	}{
		{"outside the roots", map[string]any{"path": secret}, CodePathOutsideRoot},
		{"outside the roots, relative", map[string]any{"path": "../outside/secret.txt"}, CodePathOutsideRoot},
		{"a symlink escaping the roots", map[string]any{"path": "escape.txt"}, CodePathOutsideRoot},
		{"a directory", map[string]any{"path": "dir"}, "not_regular_file"},
		{"a FIFO", map[string]any{"path": "fifo"}, "not_regular_file"},
		{"a file with two names", map[string]any{"path": "linked.txt"}, "not_regular_file"},
		{"binary", map[string]any{"path": "bin.dat"}, CodeBinaryFile},
		{"over the cap", map[string]any{"path": "big.txt"}, "too_large"},
		{"missing", map[string]any{"path": "nothing.txt"}, "file_missing"},
		{"an unknown style", map[string]any{"path": "ok.txt", "style": "fake"}, CodeInvalidArgument},
		{"style not a string", map[string]any{"path": "ok.txt", "style": true}, CodeInvalidArgument},
		{"no path", map[string]any{}, CodeInvalidArgument},
		{"unknown catalog", map[string]any{"path": "ok.txt", "catalog_key": "nosuch"}, "unknown_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := wantError(t, h.call(t, ToolRedactFile, tt.args), tt.code)
			if strings.Contains(msg, canaryName) {
				t.Fatalf("message %q", msg)
			}
		})
	}
	if b, _ := os.ReadFile(secret); string(b) != "owner "+canaryName+"\n" {
		t.Fatal("the file outside the roots was changed")
	}
	if b, _ := os.ReadFile(filepath.Join(f.work, "linked.txt")); string(b) != "owner "+canaryName+"\n" {
		t.Fatal("the hard-linked file was changed")
	}
}

// TestRedactFileIncomplete: when a replacement would form a new match
// with the text around it, nothing is written.
func TestRedactFileIncomplete(t *testing.T) {
	f := newFixture(t)
	// A catalog whose regex matches a placeholder next to a word.
	f.write(t, filepath.Join(f.cfgDir, "odd.md"), "## P\n- category: person\n\n```values\n"+canaryName+"\n```\n\n## ODD\n- category: odd\n- match: regex\n\n```values\n\\[person:1\\] x\n```\n")
	f.writeMap(t, "[catalogs]\ndefault = \"odd.md\"\n")
	content := "a " + canaryName + " x\n"
	p := filepath.Join(f.work, "f.txt")
	writeFile(t, p, content)
	h := f.start(t)
	wantError(t, h.call(t, ToolRedactFile, map[string]any{"path": "f.txt"}), CodeRedactIncomplete)
	if b, _ := os.ReadFile(p); string(b) != content {
		t.Fatal("the file was changed")
	}
}

// TestRedactFileSyntheticCollision: a stand-in that the catalog itself
// holds is not written; the placeholder is.
func TestRedactFileSyntheticCollision(t *testing.T) {
	f := newFixture(t)
	f.write(t, filepath.Join(f.cfgDir, "jd.md"), "## P\n- category: person\n\n```values\n"+canaryName+"\nJane Doe\n```\n")
	f.writeMap(t, "[catalogs]\ndefault = \"jd.md\"\n")
	p := filepath.Join(f.work, "f.txt")
	writeFile(t, p, "owner "+canaryName+"\n")
	h := f.start(t)
	redactFileResult(t, h.call(t, ToolRedactFile, map[string]any{"path": "f.txt", "style": StyleSynthetic}))
	if b, _ := os.ReadFile(p); string(b) != "owner [person:1]\n" {
		t.Fatalf("file %q", b)
	}
}
