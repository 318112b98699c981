// Package readwin says which part of a file Claude Code's Read tool
// returns to the model, and how it numbers the lines, so that the guard
// (internal/claudehook) scans exactly what a Read would show and MCP
// read_redacted (internal/mcpserver) returns the same window, numbered the
// same way.
//
// Measured against the real CLI (internal/e2e TestReadWindowAsClaudeCode,
// Claude Code 2.1.329): Read takes a file_path and optional offset and
// limit. It returns the lines from offset (1-based; absent or 0: the first
// line) up to limit lines (absent: to the end of the file), each whole (no
// line is cut) and prefixed by its line number and a tab (Prefix). Lines
// are split at "\n"; a "\r" before it is not part of the line. Without
// offset and limit, a file larger than SizeLimit is refused with an error
// that holds none of its content, unless the call sets allow_large, which
// reads it whole as far as the model's context allows.
package readwin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/privscan/privscan/scanner"
)

// SizeLimit is the size above which a Read without offset and limit (and
// without allow_large) refuses a file and shows none of it. Claude Code
// reports it as 256KB.
const SizeLimit = 256 << 10

// Window is a Read's offset and limit, as the tool input gives them
// (0: absent).
type Window struct {
	Offset int
	Limit  int
}

// First returns the first line number of the window (1-based).
func (w Window) First() int {
	if w.Offset < 1 {
		return 1
	}
	return w.Offset
}

// Count returns the most lines the window holds (no limit: every line).
func (w Window) Count() int {
	if w.Limit < 1 {
		return int(^uint(0)>>1) - w.First()
	}
	return w.Limit
}

// Last returns the last line number the window can hold.
func (w Window) Last() int {
	f, n := w.First(), w.Count()
	if f > int(^uint(0)>>1)-n {
		return int(^uint(0) >> 1)
	}
	return f + n - 1
}

// ErrTooLarge is returned (wrapped) by Lines when the window's lines, or
// the bytes before them, pass the caller's byte budget.
var ErrTooLarge = errors.New("too large to check")

// Lines reads r and calls fn with the lines of the window, in batches of
// about batchBytes, each Line numbered as in the file and holding the
// whole line (split as scanner.SplitLines splits text). At most maxBytes
// of r are read: a window that ends further in fails with ErrTooLarge.
// Lines past the window are not read.
func Lines(ctx context.Context, r io.Reader, w Window, maxBytes int64, batchBytes int, fn func([]scanner.Line) error) error {
	first, last := w.First(), w.Last()
	cr := &countingReader{r: io.LimitReader(r, maxBytes+1)}
	err := scanner.SplitLines(ctx, cr, batchBytes, func(lines []scanner.Line) error {
		var in []scanner.Line
		for i, l := range lines {
			if l.Number >= first && l.Number <= last {
				if in == nil {
					in = lines[i:i]
				}
				in = append(in, l)
			}
		}
		if len(in) > 0 {
			if err := fn(in); err != nil {
				return err
			}
		}
		if lines[len(lines)-1].Number >= last {
			return errWindowDone
		}
		return nil
	})
	switch {
	case errors.Is(err, errWindowDone):
		return nil
	case err != nil:
		return err
	case cr.n > maxBytes:
		return fmt.Errorf("%w: more than %d bytes up to the end of the window", ErrTooLarge, maxBytes)
	}
	return nil
}

// errWindowDone stops SplitLines once the window's last line was read.
var errWindowDone = errors.New("window done")

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Prefix returns the line-number prefix a Read puts before line n: the
// number, then a tab.
func Prefix(n int) string {
	return strconv.Itoa(n) + "\t"
}
