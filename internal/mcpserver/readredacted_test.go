package mcpserver

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/privscan/privscan/internal/readwin"
	"github.com/privscan/privscan/internal/sealtest"
)

// readResult decodes a successful read_redacted reply, checking that the
// text and structured content agree.
func readResult(t *testing.T, res *mcp.CallToolResult) *ReadResult {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error: %s", text(t, res))
	}
	var fromText, fromStruct ReadResult
	if err := json.Unmarshal([]byte(text(t, res)), &fromText); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &fromStruct); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromText)
	c, _ := json.Marshal(fromStruct)
	if !bytes.Equal(a, c) {
		t.Fatalf("text and structured content differ:\n%.500s\n%.500s", a, c)
	}
	return &fromText
}

// numbered renders lines first.. as read_redacted returns them.
func numbered(first int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(readwin.Prefix(first+i) + l)
	}
	return b.String()
}

func TestReadRedacted(t *testing.T) {
	f := newFixture(t)
	// Ten lines, a catalogued name on every one: a value at every window
	// boundary.
	var every strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&every, "line %d owner %s\n", i, canaryName)
	}
	// Read cuts no line; a line longer than the reply's limit is cut after
	// redaction.
	long := strings.Repeat("x", maxReadOutput-len(readwin.Prefix(2))-6) + " " + canaryName + " tail"
	files := map[string]string{
		"plain.go":     "package x\n\n// Owner: " + canaryName + "\nvar host = \"" + canaryHost + "\"\nvar id = \"" + canaryID + "\" // " + canaryName + "\n",
		"crlf.txt":     "first\r\nowner " + canaryName + "\r\nlast\r\n",
		"noeol.txt":    "a\nb " + canaryHost,
		"every.txt":    every.String(),
		"long.txt":     "short\n" + long + "\n" + strings.Repeat("é", maxReadOutput/2+3) + "\n",
		"empty.txt":    "",
		"wide.txt":     strings.Repeat("w", 5000) + " " + canaryName + "\n",
		"sub/deep.txt": "deep " + canaryName + "\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(f.work, name), content)
	}
	h := f.start(t)
	nameLine := func(i int) string { return fmt.Sprintf("line %d owner [person:1]", i) }
	cut := strings.Repeat("x", maxReadOutput-len(readwin.Prefix(2))-6) + " [pers"

	tests := []struct {
		name string
		args map[string]any
		want string
		// start, lines, replacements; eof says the file ended in the window.
		start, lines, reps int
		eof                bool
		cut                int
	}{
		{"whole file", map[string]any{"path": "plain.go"}, numbered(1, "package x", "", "// Owner: [person:1]", `var host = "[internal-host:1]"`, `var id = "[employee-id:1]" // [person:1]`), 1, 5, 4, true, 0},
		{"offset and limit", map[string]any{"path": "plain.go", "offset": 3, "limit": 2}, numbered(3, "// Owner: [person:1]", `var host = "[internal-host:1]"`), 3, 2, 2, false, 0},
		{"offset 0 is the first line", map[string]any{"path": "plain.go", "offset": 0, "limit": 1}, numbered(1, "package x"), 1, 1, 0, false, 0},
		{"limit past the end", map[string]any{"path": "plain.go", "offset": 5, "limit": 100}, numbered(5, `var id = "[employee-id:1]" // [person:1]`), 5, 1, 2, true, 0},
		{"offset past the end", map[string]any{"path": "plain.go", "offset": 50}, "", 0, 0, 0, true, 0},
		{"CRLF: the carriage return is not part of the line", map[string]any{"path": "crlf.txt"}, numbered(1, "first", "owner [person:1]", "last"), 1, 3, 1, true, 0},
		{"no newline at the end", map[string]any{"path": "noeol.txt"}, numbered(1, "a", "b [internal-host:1]"), 1, 2, 1, true, 0},
		{"empty file", map[string]any{"path": "empty.txt"}, "", 0, 0, 0, true, 0},
		{"a value straddling the cut shows no prefix of itself", map[string]any{"path": "long.txt", "offset": 2, "limit": 1}, numbered(2, cut), 2, 1, 1, false, 1},
		{"a line cut at a character boundary", map[string]any{"path": "long.txt", "offset": 3}, numbered(3, strings.Repeat("é", (maxReadOutput-len(readwin.Prefix(3)))/2)), 3, 1, 0, true, 1},
		{"a long line within the limit is whole", map[string]any{"path": "wide.txt"}, numbered(1, strings.Repeat("w", 5000)+" [person:1]"), 1, 1, 1, true, 0},
		{"absolute path inside the root", map[string]any{"path": filepath.Join(f.work, "sub", "deep.txt")}, numbered(1, "deep [person:1]"), 1, 1, 1, true, 0},
		{"a path with ..", map[string]any{"path": "sub/../sub/deep.txt", "agent_id": "reader"}, numbered(1, "deep [person:1]"), 1, 1, 1, true, 0},
	}
	for k := 1; k <= 10; k++ {
		// Every window of two lines, and of one, has its value replaced.
		want := []string{nameLine(k)}
		if k < 10 {
			want = append(want, nameLine(k+1))
		}
		tests = append(tests, struct {
			name               string
			args               map[string]any
			want               string
			start, lines, reps int
			eof                bool
			cut                int
		}{fmt.Sprintf("boundary window at %d", k), map[string]any{"path": "every.txt", "offset": k, "limit": 2}, numbered(k, want...), k, len(want), len(want), k >= 10, 0})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := readResult(t, h.call(t, ToolReadRedacted, tt.args))
			if r.Text != tt.want {
				t.Fatalf("text:\n%q\nwant:\n%q", r.Text, tt.want)
			}
			if r.StartLine != tt.start || r.Lines != tt.lines || r.Replacements != tt.reps || r.EndOfFile != tt.eof || r.CutLines != tt.cut || r.Truncated {
				t.Fatalf("got start %d lines %d reps %d eof %v cut %d truncated %v; want %d %d %d %v %d false",
					r.StartLine, r.Lines, r.Replacements, r.EndOfFile, r.CutLines, r.Truncated, tt.start, tt.lines, tt.reps, tt.eof, tt.cut)
			}
			sum := 0
			for _, n := range r.ByCategory {
				sum += n
			}
			if sum != r.Replacements {
				t.Fatalf("byCategory %v does not add up to %d", r.ByCategory, r.Replacements)
			}
			for _, c := range []string{canaryName, "Zorblax", "Quintavius", "Zorb", canaryHost, canaryID} {
				if strings.Contains(r.Text, c) {
					t.Fatalf("the text holds %q", c)
				}
			}
		})
	}
}

func TestReadRedactedTruncatesBigWindows(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "%04d %s %s\n", i, strings.Repeat("y", 60), canaryName)
	}
	writeFile(t, filepath.Join(f.work, "big.txt"), b.String())
	h := f.start(t)
	seen, offset := 0, 0
	for calls := 0; ; calls++ {
		if calls > 20 {
			t.Fatal("no end after 20 calls")
		}
		args := map[string]any{"path": "big.txt"}
		if offset > 0 {
			args["offset"], args["limit"] = offset, 2000-offset+1
		}
		r := readResult(t, h.call(t, ToolReadRedacted, args))
		if len(r.Text) > maxReadOutput {
			t.Fatalf("text of %d bytes", len(r.Text))
		}
		if r.StartLine != seen+1 || r.Replacements != r.Lines {
			t.Fatalf("call %d: start %d lines %d reps %d after %d lines", calls, r.StartLine, r.Lines, r.Replacements, seen)
		}
		seen += r.Lines
		if !r.Truncated {
			break
		}
		if r.NextOffset != seen+1 {
			t.Fatalf("nextOffset %d after line %d", r.NextOffset, seen)
		}
		offset = r.NextOffset
	}
	if seen != 2000 {
		t.Fatalf("read %d lines in all, want 2000", seen)
	}
}

func TestReadRedactedErrors(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(f.root, "outside")
	writeFile(t, filepath.Join(outside, "secret.txt"), "owner "+canaryName+"\n")
	writeFile(t, filepath.Join(f.work, "ok.txt"), "owner "+canaryName+"\n")
	writeFile(t, filepath.Join(f.work, "bin.dat"), "owner "+canaryName+"\x00\x01\x02\n")
	writeFile(t, filepath.Join(f.work, "late-nul.txt"), strings.Repeat("a", binaryProbe)+"\x00 "+canaryName+"\n")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(f.work, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.work, "escape-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.txt", filepath.Join(f.work, "inside-link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop-b", filepath.Join(f.work, "loop-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop-a", filepath.Join(f.work, "loop-b")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(f.work, "fifo"))
	os.Mkdir(filepath.Join(f.work, "dir"), 0o700)
	h := f.start(t)

	tests := []struct {
		name string
		args map[string]any
		code string // "" for success
	}{
		{"a symlink inside the roots", map[string]any{"path": "inside-link.txt"}, ""},
		{"a NUL past the first 8 KiB is text", map[string]any{"path": "late-nul.txt"}, ""},
		{"outside the roots, relative", map[string]any{"path": "../outside/secret.txt"}, CodePathOutsideRoot},
		{"outside the roots, absolute", map[string]any{"path": filepath.Join(outside, "secret.txt")}, CodePathOutsideRoot},
		{"outside the roots, missing", map[string]any{"path": filepath.Join(outside, "nothing.txt")}, CodePathOutsideRoot},
		{"a symlink escaping the roots", map[string]any{"path": "escape.txt"}, CodePathOutsideRoot},
		{"a directory symlink escaping the roots", map[string]any{"path": "escape-dir/secret.txt"}, CodePathOutsideRoot},
		{"a symlink loop", map[string]any{"path": "loop-a"}, "file_missing"},
		{"missing", map[string]any{"path": "nothing.txt"}, "file_missing"},
		{"a directory", map[string]any{"path": "dir"}, "not_regular_file"},
		{"a FIFO, without blocking", map[string]any{"path": "fifo"}, "not_regular_file"},
		{"binary", map[string]any{"path": "bin.dat"}, CodeBinaryFile},
		{"no path", map[string]any{}, CodeInvalidArgument},
		{"empty path", map[string]any{"path": ""}, CodeInvalidArgument},
		{"negative offset", map[string]any{"path": "ok.txt", "offset": -1}, CodeInvalidArgument},
		{"fractional limit", map[string]any{"path": "ok.txt", "limit": 1.5}, CodeInvalidArgument},
		{"offset as a string", map[string]any{"path": "ok.txt", "offset": "3"}, CodeInvalidArgument},
		{"unknown argument", map[string]any{"path": "ok.txt", "text": "x"}, CodeInvalidArgument},
		{"unknown catalog", map[string]any{"path": "ok.txt", "catalog_key": "nosuch"}, "unknown_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := h.call(t, ToolReadRedacted, tt.args)
			if tt.code == "" {
				readResult(t, res)
				return
			}
			msg := wantError(t, res, tt.code)
			if strings.Contains(msg, canaryName) {
				t.Fatalf("message %q", msg)
			}
		})
	}
}

// damagedSealed writes a sealed catalog of 20001 person names (Jane Doe
// among them) whose table pages are damaged, and points the fixture's
// environment at it.
func damagedSealed(t *testing.T, f *fixture) {
	t.Helper()
	data, key := sealtest.People(t)
	sealtest.DamageLiteralTable(data)
	p := filepath.Join(f.cfgDir, "damaged.sealed")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f.setenv("PRIVSCAN_CATALOG_FILE", p)
	f.setenv("PRIVSCAN_SEAL_KEY", hex.EncodeToString(key))
	f.setenv("PRIVSCAN_CATALOG_CACHE", "off")
}

// TestFileToolsFailClosedOnDamagedCatalog: a damaged sealed page makes
// read_redacted and redact_file fail with catalog_invalid, never return
// or write text with a value left in it.
func TestFileToolsFailClosedOnDamagedCatalog(t *testing.T) {
	f := newFixture(t)
	damagedSealed(t, f)
	content := "owner Jane Doe\n"
	p := filepath.Join(f.work, "people.txt")
	writeFile(t, p, content)
	h := f.start(t)
	wantError(t, h.call(t, ToolReadRedacted, map[string]any{"path": "people.txt"}), "catalog_invalid")
	wantError(t, h.call(t, ToolRedactFile, map[string]any{"path": "people.txt"}), "catalog_invalid")
	if b, _ := os.ReadFile(p); string(b) != content {
		t.Fatal("redact_file changed the file")
	}
}

// TestReadRedactedTooLarge: a window that ends more than maxReadBytes into
// the file is refused, not read.
func TestReadRedactedTooLarge(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(f.work, "huge.txt")
	writeFile(t, p, strings.Repeat("a\n", binaryProbe/2))
	// The rest is one line of maxReadBytes zero bytes (sparse), past the
	// first 8 KiB that the binary check reads.
	if err := os.Truncate(p, binaryProbe+maxReadBytes+1); err != nil {
		t.Fatal(err)
	}
	h := f.start(t)
	readResult(t, h.call(t, ToolReadRedacted, map[string]any{"path": "huge.txt", "limit": 10}))
	wantError(t, h.call(t, ToolReadRedacted, map[string]any{"path": "huge.txt", "offset": binaryProbe}), "too_large")
}
