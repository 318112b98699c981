package broker

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Code is a structured error code (docs/keymap.md).
type Code string

// The error codes. Their string values are part of the CLI and MCP contract.
const (
	CodeConfigMissing  Code = "config_missing"
	CodeConfigInvalid  Code = "config_invalid"
	CodeUnknownKey     Code = "unknown_key"
	CodeFileMissing    Code = "file_missing"
	CodeNotMarkdown    Code = "not_markdown"
	CodeNotRegularFile Code = "not_regular_file"
	CodeTooLarge       Code = "too_large"
	CodeCatalogInvalid Code = "catalog_invalid"
	CodeSealKeyMissing Code = "seal_key_missing"
	CodeSealKeyWrong   Code = "seal_key_wrong"
)

// Sentinels, one per code: errors.Is(err, ErrUnknownKey) reports whether err
// is an *Error with code unknown_key.
var (
	ErrConfigMissing  = errors.New(string(CodeConfigMissing))
	ErrConfigInvalid  = errors.New(string(CodeConfigInvalid))
	ErrUnknownKey     = errors.New(string(CodeUnknownKey))
	ErrFileMissing    = errors.New(string(CodeFileMissing))
	ErrNotMarkdown    = errors.New(string(CodeNotMarkdown))
	ErrNotRegularFile = errors.New(string(CodeNotRegularFile))
	ErrTooLarge       = errors.New(string(CodeTooLarge))
	ErrCatalogInvalid = errors.New(string(CodeCatalogInvalid))
	ErrSealKeyMissing = errors.New(string(CodeSealKeyMissing))
	ErrSealKeyWrong   = errors.New(string(CodeSealKeyWrong))
)

func sentinel(c Code) error {
	switch c {
	case CodeConfigMissing:
		return ErrConfigMissing
	case CodeConfigInvalid:
		return ErrConfigInvalid
	case CodeUnknownKey:
		return ErrUnknownKey
	case CodeFileMissing:
		return ErrFileMissing
	case CodeNotMarkdown:
		return ErrNotMarkdown
	case CodeNotRegularFile:
		return ErrNotRegularFile
	case CodeTooLarge:
		return ErrTooLarge
	case CodeCatalogInvalid:
		return ErrCatalogInvalid
	case CodeSealKeyMissing:
		return ErrSealKeyMissing
	case CodeSealKeyWrong:
		return ErrSealKeyWrong
	}
	return nil
}

// IntegrityError is catalog_invalid for a sealed catalog a scan found
// damaged: a page of its tables failed its integrity check when a lookup
// read it (catalog.Matcher.IntegrityErr). err is value-free.
func IntegrityError(err error) *Error {
	return &Error{Code: CodeCatalogInvalid, err: err, msg: "sealed catalog: " + err.Error(),
		hint: "seal the catalog again with `privscan catalog seal`; a sealed file must be replaced whole, never edited"}
}

// Error is the only error type the broker returns.
//
// Error() and Message() name at most the key the caller gave and the key
// map's path. File holds the path of the file concerned (as written in the
// map after "~/" and relative resolution, or PRIVSCAN_CATALOG_FILE); it is
// never part of the message. A front end serving the machine's own user (the
// CLI) may show it; one serving other callers (MCP) must not.
type Error struct {
	Code Code
	Key  string // the key the caller gave; "" when none was given
	Path string // the key map's path, when the map is involved
	File string // the file concerned; not part of the message

	msg  string // value-free text; does not include Code
	hint string // overrides the code's default hint when set
	err  error  // wrapped cause: a syscall errno or a catalog error, never a decoder error quoting input
}

// Error returns "<code>: <message>".
func (e *Error) Error() string { return string(e.Code) + ": " + e.msg }

// Message returns the message without the code prefix, for front ends that
// report the code separately (the MCP error body).
func (e *Error) Message() string { return e.msg }

// Unwrap returns the cause: an errno for file errors, the catalog package's
// error for catalog_invalid, or nil.
func (e *Error) Unwrap() error { return e.err }

// Is matches the sentinel of e's code.
func (e *Error) Is(target error) bool {
	s := sentinel(e.Code)
	return s != nil && target == s
}

// Hint returns one actionable sentence for the user, never naming a file or
// a key of the map.
func (e *Error) Hint() string {
	if e.hint != "" {
		return e.hint
	}
	switch e.Code {
	case CodeConfigMissing:
		return "run `privscan init` to create it, or set PRIVSCAN_CATALOG or PRIVSCAN_CATALOG_FILE"
	case CodeConfigInvalid:
		return "the key map may hold only [keys] and [catalogs] tables whose entries are non-empty path strings, and a [guard] table of settings"
	case CodeUnknownKey:
		return "keys are defined in the key map: check the spelling"
	case CodeFileMissing:
		return "create the file or fix its path in the key map"
	case CodeNotMarkdown:
		return "only files whose name, after following symlinks, ends in .md are read (and, for catalogs, .sealed)"
	case CodeNotRegularFile:
		return "point the entry at a regular .md file, not a directory, FIFO, device or socket"
	case CodeTooLarge:
		return "Markdown files over 64 MiB and sealed catalogs over 2 GiB are refused: split the catalog"
	case CodeCatalogInvalid:
		return "fix the catalog at the reported line; `privscan catalog check` lints it"
	case CodeSealKeyMissing:
		return "set PRIVSCAN_SEAL_KEY to the seal key (64 hex digits), or add seal-key = \"<key file>\" beside the catalog entry in the key map"
	case CodeSealKeyWrong:
		return "use the key the catalog was sealed with (the file `privscan catalog seal --key-file` wrote), or seal the catalog again"
	}
	return ""
}

// maxKeyDisplay bounds how much of a caller's key a message repeats.
const maxKeyDisplay = 64

// quoteKey renders a caller-given key for a message: %q (so control
// characters are escaped), truncated to maxKeyDisplay runes.
func quoteKey(k string) string {
	if utf8.RuneCountInString(k) <= maxKeyDisplay {
		return fmt.Sprintf("%q", k)
	}
	var b strings.Builder
	n := 0
	for _, r := range k {
		if n == maxKeyDisplay {
			break
		}
		b.WriteRune(r)
		n++
	}
	return fmt.Sprintf("%q…", b.String())
}
