package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/cli"
)

// fakeMCPBinary puts an executable shell script named privscan-mcp alone
// on PATH, for "privscan mcp" to find and run.
func fakeMCPBinary(t *testing.T, script string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for privscan-mcp is a shell script")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "privscan-mcp"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
}

// Without privscan-mcp, "privscan mcp" says what is missing and how to
// install it.
func TestMCPBinaryMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: []string{"mcp"}, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: t.TempDir()}
	code := cli.Report(&stderr, cli.Run(context.Background(), e))
	if code != cli.ExitError || stdout.Len() > 0 {
		t.Fatalf("exit %d, stdout %q", code, stdout.String())
	}
	for _, want := range []string{"privscan: error: mcp: the MCP server, privscan-mcp, is not installed", "privscan: hint: ", "go install github.com/privscan/privscan/cmd/privscan-mcp@"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// "privscan mcp" runs privscan-mcp with its arguments, on its streams and
// in its directory, and ends with its exit code without adding an error
// of its own (privscan-mcp has reported it); arguments are checked first.
func TestMCPBinaryRuns(t *testing.T) {
	fakeMCPBinary(t, `printf 'args %s\n' "$*"; pwd; IFS= read -r line; printf 'in %s\n' "$line"; echo 'privscan: error: from the server' >&2; exit 3`+"\n")
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: []string{"mcp", "--root", "x", "--http", ":0"}, Stdin: strings.NewReader("hello\n"), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: dir}
	code := cli.Report(&stderr, cli.Run(context.Background(), e))
	real, _ := filepath.EvalSymlinks(dir)
	if want := "args --root x --http :0\n" + real + "\nin hello\n"; code != 3 || stdout.String() != want || stderr.String() != "privscan: error: from the server\n" {
		t.Fatalf("exit %d\nstdout %q, want %q\nstderr %q", code, stdout.String(), want, stderr.String())
	}

	// Bad arguments never start it.
	stdout.Reset()
	stderr.Reset()
	e = &cli.Env{Args: []string{"mcp", "--http", "0.0.0.0:1"}, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: dir}
	if code := cli.Report(&stderr, cli.Run(context.Background(), e)); code != cli.ExitError || stdout.Len() > 0 || !strings.Contains(stderr.String(), "loopback") {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout.String(), stderr.String())
	}
}

// An interrupt of privscan (its context done) reaches privscan-mcp as an
// interrupt, and a server that then stops cleanly ends privscan cleanly.
func TestMCPBinaryInterrupt(t *testing.T) {
	fakeMCPBinary(t, `trap 'kill $pid 2>/dev/null; echo interrupted; exit 0' INT
echo ready
while :; do sleep 60 & pid=$!; wait $pid; done
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		e := &cli.Env{Args: []string{"mcp"}, Stdin: strings.NewReader(""), Stdout: outW, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: t.TempDir()}
		err := cli.Run(ctx, e)
		outW.Close()
		done <- err
	}()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("privscan-mcp did not start: %q %v", lines.Text(), lines.Err())
	}
	cancel()
	if !lines.Scan() || lines.Text() != "interrupted" {
		t.Fatalf("privscan-mcp was not interrupted: %q %v", lines.Text(), lines.Err())
	}
	for lines.Scan() {
	}
	if err := <-done; err != nil {
		t.Fatalf("privscan mcp after an interrupt: %v (stderr %q)", err, stderr.String())
	}
}
