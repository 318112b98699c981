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
	"bufio"
	"bytes"
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
// whole line. At most maxBytes of r are read: a window that ends
// further in fails with ErrTooLarge. Lines past the window are not read.
func Lines(ctx context.Context, r io.Reader, w Window, maxBytes int64, batchBytes int, fn func([]scanner.Line) error) error {
	br := bufio.NewReaderSize(io.LimitReader(r, maxBytes+1), 64<<10)
	first, last := w.First(), w.Last()
	var (
		batch []scanner.Line
		size  int
		num   int
		read  int64
		long  []byte
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		b := batch
		batch, size = nil, 0
		return fn(b)
	}
	for num < last {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk, err := br.ReadSlice('\n')
		read += int64(len(chunk))
		if read > maxBytes {
			return fmt.Errorf("%w: more than %d bytes up to the end of the window", ErrTooLarge, maxBytes)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if num+1 >= first {
				long = append(long, chunk...)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the file: %w", err)
		}
		if len(chunk) == 0 && long == nil {
			break // end of file
		}
		num++
		if num >= first {
			text := append(long, chunk...)
			if long == nil {
				text = bytes.Clone(chunk)
			}
			text = trimEOL(text)
			batch = append(batch, scanner.Line{Number: num, Text: text})
			size += len(text) + 1
			if size >= batchBytes {
				if e := flush(); e != nil {
					return e
				}
			}
		}
		long = nil
		if err != nil {
			break
		}
	}
	return flush()
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// Prefix returns the line-number prefix a Read puts before line n: the
// number, then a tab.
func Prefix(n int) string {
	return strconv.Itoa(n) + "\t"
}
