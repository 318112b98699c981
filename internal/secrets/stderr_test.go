//go:build unix

package secrets

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/logging"
	"golang.org/x/sys/unix"

	"github.com/privscan/privscan/scanner"
)

// captureStderr runs fn with file descriptor 2 redirected to a pipe and
// returns what was written to it, whoever wrote it.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := unix.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(int(w.Fd()), 2); err != nil {
		t.Fatal(err)
	}
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	defer func() {
		if err := unix.Dup2(saved, 2); err != nil {
			t.Fatal(err)
		}
		unix.Close(saved)
	}()
	fn()
	if err := unix.Dup2(saved, 2); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s := <-out
	r.Close()
	return s
}

func TestNothingOnStderr(t *testing.T) {
	frag := fragment("a.go",
		`a := "`+awsEx+`"`, // allowlisted: gitleaks traces "skipping finding" with the key
		`b := "`+awsKey+`"`,
		`token := "`+ghPAT+`"`,
		"const pem = `"+pemBegin, pemBody1, pemBody2, pemEnd+"`")
	run := func(d *Detector) int {
		n := 0
		d.Detect(frag, func(m scanner.Match) { n++ })
		return n
	}

	// As shipped: New and Detect write nothing.
	var n int
	out := captureStderr(t, func() {
		d, err := New()
		if err != nil {
			t.Error(err)
			return
		}
		n = run(d)
	})
	if out != "" {
		t.Fatalf("stderr got %d bytes", len(out))
	}
	if n < 3 {
		t.Fatalf("only %d matches", n)
	}

	// The test can fail: with gitleaks' logger verbose, the same scan
	// writes the secret to stderr; silenceGitleaks stops that.
	d := newDetector(t)
	prev := zerolog.GlobalLevel()
	zerolog.SetGlobalLevel(zerolog.TraceLevel)
	defer zerolog.SetGlobalLevel(prev)
	defer silenceGitleaks()
	out = captureStderr(t, func() {
		logging.Logger = zerolog.New(os.Stderr).Level(zerolog.TraceLevel)
		run(d)
	})
	if !strings.Contains(out, awsEx) {
		t.Fatalf("control: verbose gitleaks logger did not write the allowlisted key (%d bytes)", len(out))
	}
	out = captureStderr(t, func() {
		silenceGitleaks()
		run(d)
	})
	if out != "" {
		t.Fatalf("after silenceGitleaks, stderr got %d bytes", len(out))
	}
}
