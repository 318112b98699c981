package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/privscan/privscan/internal/engine"
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

// usageError is a command-line mistake.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitStatus ends privscan with the exit code of the program it ran
// (privscan-mcp), which has reported its own errors: it is not printed.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// ExitCode maps an error returned by Run to the process exit code.
func ExitCode(err error) int {
	var es exitStatus
	switch {
	case err == nil:
		return ExitClean
	case errors.Is(err, ErrFindings):
		return ExitFindings
	case errors.As(err, &es):
		return int(es)
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
	var es exitStatus
	if code != ExitError || errors.As(err, &es) {
		return code
	}
	render.Error(stderr, err.Error(), hintFor(err))
	return code
}

func hintFor(err error) string {
	var ne *nameError
	if errors.As(err, &ne) {
		return ne.hintText()
	}
	if h := engine.Hint(err); h != "" {
		return h
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return "run `privscan help` for usage"
	}
	return ""
}

// checkFailOn checks a --fail-on level ("" is the default), naming the
// levels when it is unknown.
func checkFailOn(s string) error {
	if s == "" {
		return nil
	}
	if _, err := engine.FailLevel(s); err != nil {
		return &nameError{what: "unknown --fail-on level", raw: s, candidates: []string{"error", "warning", "note", "never"},
			tail: "(want error, warning, note or never)", withheld: "(value withheld)"}
	}
	return nil
}

// withHint adds a hint line to an error.
func withHint(err error, hint string) error { return engine.WithHint(err, hint) }
