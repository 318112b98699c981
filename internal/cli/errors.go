package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/internal/render"
)

// Exit codes (docs/cli.md).
const (
	ExitClean    = 0 // no finding at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on
	ExitError    = 2 // usage, configuration, catalog or git error
)

// ErrFindings is returned when a scan found something at or above --fail-on.
// It is not printed: the findings were the output.
var ErrFindings = errors.New("findings at or above the --fail-on level")

// hintError adds a hint line to an error.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

func withHint(err error, hint string) error { return &hintError{err: err, hint: hint} }

// usageError is a command-line mistake.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// ExitCode maps an error returned by Run to the process exit code.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitClean
	case errors.Is(err, ErrFindings):
		return ExitFindings
	}
	return ExitError
}

// Report prints err (if it is printable) as
//
//	privscan: error: …
//	privscan: hint: …
//
// and returns the exit code.
func Report(stderr io.Writer, err error) int {
	code := ExitCode(err)
	if code != ExitError {
		return code
	}
	msg := err.Error()
	fmt.Fprintf(stderr, "privscan: error: %s\n", render.OneLine(msg))
	if h := hintFor(err); h != "" {
		fmt.Fprintf(stderr, "privscan: hint: %s\n", render.OneLine(h))
	}
	return code
}

func hintFor(err error) string {
	var he *hintError
	if errors.As(err, &he) {
		return he.hint
	}
	var ne *nameError
	if errors.As(err, &ne) {
		return ne.hintText()
	}
	var be *broker.Error
	if errors.As(err, &be) {
		return be.Hint()
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return "run `privscan help` for usage"
	}
	return ""
}
