package scanner

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// RedactStats counts what Redact replaced.
type RedactStats struct {
	Lines        int            `json:"lines"`
	Replacements int            `json:"replacements"`
	ByCategory   map[string]int `json:"byCategory,omitempty"`
}

// Redactor replaces every match of its detectors with "[<category>:<n>]",
// where n numbers the distinct values of a category in the order they are
// first seen: the same value gets the same n throughout one Redactor.
// Values are remembered only as keyed hashes under a random per-Redactor key.
type Redactor struct {
	detectors []Detector
	disabled  map[string]bool
	key       [32]byte
	seen      map[[32]byte]int
	next      map[string]int
	stats     RedactStats
	onMark    func(origStart, outStart int) // Mask: where a placeholder goes
}

// NewRedactor returns a Redactor using opts' detectors and severity
// overrides (a rule disabled there is not redacted).
func NewRedactor(opts Options) *Redactor {
	r := &Redactor{detectors: opts.Detectors, disabled: map[string]bool{}, seen: map[[32]byte]int{}, next: map[string]int{}}
	for id, s := range opts.Severity {
		if s == 0 {
			r.disabled[id] = true
		}
	}
	rand.Read(r.key[:]) // never fails (Go 1.24+: it crashes the program instead)
	r.stats.ByCategory = map[string]int{}
	return r
}

// Stats returns the counts so far.
func (r *Redactor) Stats() RedactStats { return r.stats }

type span struct {
	start, end int
	category   string
}

// Copy copies in to out, redacting. Line endings and every byte outside a
// match are copied unchanged. Input is processed in bounded batches, so
// memory does not grow with the input's size.
func (r *Redactor) Copy(ctx context.Context, out io.Writer, in io.Reader) (err error) {
	br := bufio.NewReaderSize(in, 64<<10)
	bw := bufio.NewWriterSize(out, 64<<10)
	var (
		frag Fragment
		eols [][]byte
		size int
	)
	frag.Kind = KindText
	flush := func() error {
		if len(frag.Lines) == 0 {
			return nil
		}
		if err := r.redactBatch(bw, &frag, eols); err != nil {
			return err
		}
		frag.Lines, eols, size = frag.Lines[:0], eols[:0], 0
		return nil
	}
	var (
		long    []byte
		tooLong *LineTooLongError // the first line withheld
	)
	// withhold writes a placeholder (and the line's end) instead of a line
	// too long to scan whole, after what came before it.
	withhold := func(eol []byte) error {
		if err := flush(); err != nil {
			return err
		}
		r.stats.Lines++
		if tooLong == nil {
			tooLong = &LineTooLongError{Line: r.stats.Lines, Limit: MaxLineBytes}
		}
		fmt.Fprintf(bw, "[privscan: line %d withheld: longer than %d MiB]", r.stats.Lines, MaxLineBytes>>20)
		_, err := bw.Write(eol)
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk, rerr := br.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			if len(long) <= MaxLineBytes+1 { // +1: a "\r" before the "\n"
				continue
			}
			// A line too long to scan whole is withheld, never copied:
			// skip to its end, and fail once the rest is copied.
			long = nil
			var eol []byte
			for {
				chunk, rerr = br.ReadSlice('\n')
				if !errors.Is(rerr, bufio.ErrBufferFull) {
					_, eol = splitEOL(chunk)
					break
				}
			}
			if err := withhold(eol); err != nil {
				return err
			}
			if rerr != nil {
				if !errors.Is(rerr, io.EOF) {
					return fmt.Errorf("reading input: %w", rerr)
				}
				if err := bw.Flush(); err != nil {
					return err
				}
				return tooLong
			}
			continue
		} else if long != nil {
			chunk = append(long, chunk...)
			long = nil
		} else {
			chunk = bytes.Clone(chunk)
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("reading input: %w", rerr)
		}
		if text, eol := splitEOL(chunk); len(text) > MaxLineBytes {
			// The whole line arrived but is over the cap: withheld too.
			if err := withhold(eol); err != nil {
				return err
			}
		} else if len(chunk) > 0 {
			r.stats.Lines++
			frag.Lines = append(frag.Lines, Line{Number: r.stats.Lines, Text: text})
			eols = append(eols, eol)
			size += len(chunk)
			if size >= fragmentBytes {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if rerr != nil {
			if err := flush(); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			if tooLong != nil {
				return tooLong
			}
			return nil
		}
	}
}

func splitEOL(b []byte) (text, eol []byte) {
	n := len(b)
	switch {
	case n >= 2 && b[n-2] == '\r' && b[n-1] == '\n':
		return b[:n-2], b[n-2:]
	case n >= 1 && b[n-1] == '\n':
		return b[:n-1], b[n-1:]
	}
	return b, nil
}

func (r *Redactor) redactBatch(w *bufio.Writer, f *Fragment, eols [][]byte) error {
	perLine, err := r.spans(f)
	if err != nil {
		return err
	}
	for i, l := range f.Lines {
		spans := perLine[i]
		if len(spans) == 0 {
			w.Write(l.Text)
		} else {
			r.writeRedacted(w, l.Text, spans)
		}
		w.Write(eols[i])
	}
	return nil
}

// spans runs the detectors on f and returns the match spans per line
// index. A detector panic is returned as ErrDetectorPanic.
func (r *Redactor) spans(f *Fragment) (perLine map[int][]span, err error) {
	perLine = make(map[int][]span)
	defer func() {
		if recover() != nil {
			err = ErrDetectorPanic
		}
	}()
	for _, d := range r.detectors {
		d.Detect(f, func(m Match) {
			if m.Line < 0 || m.Line >= len(f.Lines) || m.Start < 0 || m.End > len(f.Lines[m.Line].Text) || m.Start >= m.End || r.disabled[m.RuleID] {
				return
			}
			perLine[m.Line] = append(perLine[m.Line], span{m.Start, m.End, m.Category})
		})
	}
	return perLine, nil
}

// writeRedacted writes text with spans replaced. Overlapping spans merge
// into one placeholder named after the span that starts first (the longer
// one on a tie).
func (r *Redactor) writeRedacted(w *bufio.Writer, text []byte, spans []span) {
	sort.Slice(spans, func(a, b int) bool {
		if spans[a].start != spans[b].start {
			return spans[a].start < spans[b].start
		}
		return spans[a].end > spans[b].end
	})
	pos, out := 0, 0
	for i := 0; i < len(spans); {
		s := spans[i]
		j := i + 1
		for j < len(spans) && spans[j].start < s.end {
			if spans[j].end > s.end {
				s.end = spans[j].end
			}
			j++
		}
		i = j
		w.Write(text[pos:s.start])
		out += s.start - pos
		if r.onMark != nil {
			r.onMark(s.start, out)
		}
		ph := "[" + s.category + ":" + strconv.Itoa(r.number(s.category, text[s.start:s.end])) + "]"
		w.WriteString(ph)
		out += len(ph)
		r.stats.Replacements++
		r.stats.ByCategory[s.category]++
		pos = s.end
	}
	w.Write(text[pos:])
}

func (r *Redactor) number(category string, value []byte) int {
	m := hmac.New(sha256.New, r.key[:])
	m.Write([]byte(category))
	m.Write([]byte{0})
	m.Write(bytes.ToLower(value))
	var h [32]byte
	m.Sum(h[:0])
	if n, ok := r.seen[h]; ok {
		return n
	}
	r.next[category]++
	n := r.next[category]
	r.seen[h] = n
	return n
}
