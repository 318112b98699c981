package cli_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/scanner"
)

// runText runs privscan with stdin and returns exit code, stdout, stderr.
func runWithInput(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog.md")
	if err := os.WriteFile(cat, []byte(policyCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir, "PRIVSCAN_CATALOG_FILE": cat}
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: args, Stdin: stdin, Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }, Dir: dir}
	code := cli.Report(&stderr, cli.Run(context.Background(), e))
	return code, stdout.String(), stderr.String()
}

const value = "Zelda Quartermaine"

// TestLongLines: a value across the 16 MiB mark of one long line is found
// at its exact column by text and redacted by redact (the text reader used
// to cut lines at 16 MiB); a line past the 64 MiB cap is never cut: text
// fails, redact withholds the line and fails.
func TestLongLines(t *testing.T) {
	pad := 16<<20 - 5
	line := strings.Repeat("a", pad) + " " + value + " tail\nnext line\n"
	code, out, errOut := runWithInput(t, strings.NewReader(line), "text", "-", "--format", "json")
	if code != 1 || !strings.Contains(out, `"line":1,"column":16777213,"endColumn":16777231`) || !strings.Contains(out, `"linesScanned":2`) {
		t.Fatalf("text: exit %d\n%.400s\n%s", code, out, errOut)
	}
	code, out, errOut = runWithInput(t, strings.NewReader(line), "redact", "-")
	if code != 0 || strings.Contains(out, "Zelda") || !strings.Contains(out, " [person:1] tail\nnext line\n") || len(out) != pad+len(" [person:1] tail\nnext line\n") {
		t.Fatalf("redact: exit %d, %d bytes, stderr %s", code, len(out), errOut)
	}

	over := value + "\n" + strings.Repeat("b", scanner.MaxLineBytes+1) + "\r\n" + value + " again\n"
	code, out, errOut = runWithInput(t, strings.NewReader(over), "redact", "-")
	if code != 2 || !strings.Contains(errOut, "line 2 is longer than 64 MiB") {
		t.Fatalf("redact over the cap: exit %d, stderr %s", code, errOut)
	}
	if want := "[person:1]\n[privscan: line 2 withheld: longer than 64 MiB]\r\n[person:1] again\n"; out != want {
		t.Fatalf("redact over the cap wrote %.200q, want %q", out, want)
	}
	code, _, errOut = runWithInput(t, strings.NewReader(over), "text", "-")
	if code != 2 || !strings.Contains(errOut, "line 2 is longer than 64 MiB") || strings.Contains(errOut, "Zelda") {
		t.Fatalf("text over the cap: exit %d, stderr %s", code, errOut)
	}
}

// endless is an input that never ends and has no newline (/dev/zero).
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// blocked is a stdin that never yields.
type blocked struct{ ch chan struct{} }

func (b blocked) Read(p []byte) (int, error) { <-b.ch; return 0, io.EOF }

// TestEndlessInput: text and redact end on an endless stream.
func TestEndlessInput(t *testing.T) {
	for _, verb := range []string{"text", "redact"} {
		// text stops at the line cap; redact withholds the line and reads
		// on for its end, up to --max-input.
		if code, _, errOut := runWithInput(t, endless{}, verb, "-"); code != 2 || !(strings.Contains(errOut, "longer than 64 MiB") || strings.Contains(errOut, "larger than --max-input")) {
			t.Errorf("%s of an endless line: exit %d, %s", verb, code, errOut)
		}
		lines := io.MultiReader(strings.NewReader(strings.Repeat("y\n", 1<<19)), endless{})
		if code, _, errOut := runWithInput(t, lines, verb, "-", "--max-input", "1MiB"); code != 2 || !strings.Contains(errOut, "larger than --max-input 1MiB") {
			t.Errorf("%s past --max-input: exit %d, %s", verb, code, errOut)
		}
		b := blocked{ch: make(chan struct{})}
		code, _, errOut := runWithInput(t, b, verb, "-", "--max-time", "50ms")
		close(b.ch)
		if code != 2 || !strings.Contains(errOut, "not read within --max-time") {
			t.Errorf("%s of an idle stdin: exit %d, %s", verb, code, errOut)
		}
	}
	if code, _, errOut := runWithInput(t, strings.NewReader("x\n"), "text", "-", "--max-input", "lots"); code != 2 || strings.Contains(errOut, "lots") {
		t.Errorf("bad --max-input: exit %d, %s", code, errOut)
	}
}
