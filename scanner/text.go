package scanner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes is the longest line kept whole. A longer line (a minified
// bundle, a hostile diff) is cut into pieces of this size, each scanned as
// the same line number; a match that straddles a cut is not found.
const MaxLineBytes = 16 << 20

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
		batch   []Line
		size    int
		num     int
		long    []byte // a line longer than the reader's buffer, so far
		started bool   // num already counts the line being read (it was cut)
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		b := batch
		batch, size = nil, 0
		return fn(b)
	}
	add := func(text []byte) error {
		if !started {
			num++
		}
		batch = append(batch, Line{Number: num, Text: text})
		size += len(text) + 1
		if size >= batchBytes {
			return flush()
		}
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			for len(long) >= MaxLineBytes {
				if e := add(bytes.Clone(long[:MaxLineBytes])); e != nil {
					return e
				}
				started = true
				long = append(long[:0], long[MaxLineBytes:]...)
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
		if len(text) > 0 || started {
			if e := add(trimEOL(text)); e != nil {
				return e
			}
		}
		started = false
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
