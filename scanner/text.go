package scanner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes is the longest line the text reader scans. A line is always
// scanned whole, never cut (a value straddling a cut would be missed); a
// longer line (a minified bundle, a data dump, a line padded on purpose)
// ends a text scan with a *LineTooLongError, and redaction withholds it.
const MaxLineBytes = 64 << 20

// LineTooLongError reports a line longer than MaxLineBytes: it was not
// scanned.
type LineTooLongError struct {
	Line  int // 1-based
	Limit int // bytes
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d MiB and was not scanned (lines are scanned whole)", e.Line, e.Limit>>20)
}

// fragmentBytes bounds the text held in one fragment of a stream, so that
// memory stays bounded however large the input is.
const fragmentBytes = 256 << 10

// TextSource yields the lines of r as fragments of kind KindText (or kind),
// a bounded chunk at a time, so arbitrarily large input is scanned in
// bounded memory. Lines end at "\n"; a "\r" before it is dropped; a lone
// "\r" stays part of the line.
type TextSource struct {
	R    io.Reader
	Kind Kind   // default KindText
	Path string // reported path ("" for stdin)
}

// Fragments implements Source.
func (s *TextSource) Fragments(ctx context.Context, yield func(*Fragment) error) error {
	kind := s.Kind
	if kind == "" {
		kind = KindText
	}
	return SplitLines(ctx, s.R, fragmentBytes, func(lines []Line) error {
		return yield(&Fragment{Kind: kind, Path: s.Path, Lines: lines})
	})
}

// SplitLines reads r and calls fn with batches of at most about batchBytes
// of lines. Batches own their memory.
func SplitLines(ctx context.Context, r io.Reader, batchBytes int, fn func([]Line) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		batch []Line
		size  int
		num   int
		long  []byte // a line longer than the reader's buffer, so far
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		b := batch
		batch, size = nil, 0
		return fn(b)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			if len(long) > MaxLineBytes+1 { // +1: a "\r" before the "\n"
				// Scan what came before, then stop: never a cut line.
				if e := flush(); e != nil {
					return e
				}
				return &LineTooLongError{Line: num + 1, Limit: MaxLineBytes}
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading input: %w", err)
		}
		text := append(long, chunk...)
		if long == nil {
			text = bytes.Clone(chunk)
		}
		long = nil
		if len(trimEOL(text)) > MaxLineBytes {
			if e := flush(); e != nil {
				return e
			}
			return &LineTooLongError{Line: num + 1, Limit: MaxLineBytes}
		}
		if len(text) > 0 {
			num++
			batch = append(batch, Line{Number: num, Text: trimEOL(text)})
			size += len(text) + 1
			if size >= batchBytes {
				if e := flush(); e != nil {
					return e
				}
			}
		}
		if err != nil {
			return flush()
		}
	}
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
