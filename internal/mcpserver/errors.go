package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
	"github.com/privscan/privscan/scanner"
)

// Error codes of tool results, in addition to the broker's (docs/keymap.md):
// config_missing, config_invalid, unknown_key, file_missing, not_markdown,
// not_regular_file, too_large, catalog_invalid, seal_key_missing and
// seal_key_wrong.
const (
	CodeRepoNotFound     = "repo_not_found"    // repo is not (inside) a git repository
	CodeRevNotFound      = "rev_not_found"     // base or head does not name a commit
	CodePathOutsideRoot  = "path_outside_root" // repo or a path escapes the allowed roots
	CodeInputTooLarge    = "input_too_large"   // text or a list argument over its cap
	CodeInvalidArgument  = "invalid_argument"  // a missing, mistyped or malformed argument
	CodeScanFailed       = "scan_failed"       // the repository could not be read
	CodeCancelled        = "cancelled"         // the client cancelled the call
	CodeRateLimited      = "rate_limited"      // the agent's guess budget is spent (probe.go)
	CodeBinaryFile       = "binary_file"       // read_redacted or redact_file on a file with NUL bytes
	CodeRedactIncomplete = "redact_incomplete" // redact_file's result would still hold a match
	CodeInternal         = "internal_error"    // a bug; details withheld
)

// toolError is a failed call: its code and message form the JSON body of
// the error result. The message is value-free by construction: it is built
// from constant text, argument names, the caller's paths, and broker
// messages (which name at most the caller's key and the key map's path).
// Revisions and other free text the caller gave are never repeated: a
// branch name can hold a catalogued name.
type toolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *toolError) Error() string { return e.Code + ": " + e.Message }

func errorf(code, format string, args ...any) *toolError {
	return &toolError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// classify turns any error met while serving a call into a toolError.
// Errors of unknown shape are reported without their text: it could come
// from a library that quotes what it read.
func classify(err error) *toolError {
	var te *toolError
	if errors.As(err, &te) {
		return te
	}
	var be *broker.Error
	if errors.As(err, &be) {
		return &toolError{Code: string(be.Code), Message: be.Message() + " (" + be.Hint() + ")"}
	}
	var ce *engine.ConfigError
	if errors.As(err, &ce) {
		return &toolError{Code: string(broker.CodeConfigInvalid), Message: ce.Error()}
	}
	if errors.Is(err, scanner.ErrDetectorPanic) {
		return errorf(CodeInternal, "a detector crashed; details are withheld because they could include scanned text")
	}
	var re *gitsrc.RevError
	if errors.As(err, &re) {
		msg := "unknown revision: base or head does not name a commit of the repository"
		if re.Shallow {
			msg += "; the repository is a shallow clone, so the commit may not have been fetched"
		}
		return &toolError{Code: CodeRevNotFound, Message: msg}
	}
	switch {
	case errors.Is(err, gitsrc.ErrNotRepo):
		return errorf(CodeRepoNotFound, "no git repository contains the directory")
	case errors.Is(err, gitsrc.ErrBare):
		return errorf(CodeRepoNotFound, "the repository is bare: it has no working tree or index; pass base and head to compare two commits")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, engine.ErrInterrupted):
		return errorf(CodeCancelled, "the call was cancelled")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		var errno syscall.Errno
		reason := "cannot be read"
		if errors.As(pe.Err, &errno) {
			reason = errno.Error()
		}
		return errorf(CodeScanFailed, "reading %s: %s", pe.Path, reason)
	}
	return errorf(CodeScanFailed, "the scan failed while reading the repository; run `privscan diff` in it for details")
}

// quoteArg quotes a caller-supplied string for a message, escaping control
// characters and cutting it to 64 runes.
func quoteArg(s string) string {
	r := []rune(s)
	if len(r) > 64 {
		return fmt.Sprintf("%q…", string(r[:64]))
	}
	return fmt.Sprintf("%q", s)
}
