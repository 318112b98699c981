package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/readwin"
	"github.com/privscan/privscan/scanner"
)

// read_redacted's caps.
const (
	// maxReadBytes bounds the bytes read up to the end of the window.
	maxReadBytes = 32 << 20
	// maxReadOutput bounds the numbered lines returned; past it the reply
	// stops at a whole line and says where to go on (nextOffset).
	maxReadOutput = 48 << 10
	// readTimeout bounds reading and checking the window.
	readTimeout = 20 * time.Second
	// maxLineNumber bounds offset and limit.
	maxLineNumber = 1 << 30
	// redactBatchBytes is the size of the batches detected at once.
	redactBatchBytes = 256 << 10
)

// ReadResult is the structured reply of read_redacted.
type ReadResult struct {
	// Text is the window's lines as Claude Code's Read shows them: each
	// line's number (readwin.Prefix), then the line with every match
	// replaced by [<category>:<n>]; lines joined by "\n".
	Text string `json:"text"`
	// StartLine is the number of the first line returned (0: none).
	StartLine int `json:"startLine"`
	// Lines is how many lines Text holds.
	Lines        int            `json:"lines"`
	Replacements int            `json:"replacements"`
	ByCategory   map[string]int `json:"byCategory"`
	// CutLines counts the lines cut, after redaction, to keep the reply
	// under its size limit (a single line longer than it).
	CutLines int `json:"cutLines"`
	// EndOfFile is set when the file ended inside the window.
	EndOfFile bool `json:"endOfFile"`
	// Truncated is set when the reply stopped before the window's end to
	// stay small; NextOffset is the offset to pass to go on.
	Truncated  bool `json:"truncated"`
	NextOffset int  `json:"nextOffset,omitempty"`
}

// detectorSet reads catalog_key and returns the full detector set of its
// catalog (catalog, every PII detector, secrets; no repository policy),
// as the Read guard uses it.
func (s *Server) detectorSet(c *call) (*engine.DetectorSet, *toolError) {
	m, te := s.matcher(c)
	if te != nil {
		return nil, te
	}
	ds, err := s.eng.DetectorSet(m)
	if err != nil {
		return nil, classify(err)
	}
	return ds, nil
}

// readRedacted serves read_redacted.
func (s *Server) readRedacted(ctx context.Context, c *call) (any, string, *toolError) {
	a := c.args
	pathArg, te := a.str("path", true, maxPathLen)
	if te != nil {
		return nil, "", te
	}
	offset, te := a.whole("offset", maxLineNumber)
	if te != nil {
		return nil, "", te
	}
	limit, te := a.whole("limit", maxLineNumber)
	if te != nil {
		return nil, "", te
	}
	real, te := s.roots.filePath(pathArg)
	if te != nil {
		return nil, "", te
	}
	// The catalog before the file: nothing is read without it.
	ds, te := s.detectorSet(c)
	if te != nil {
		return nil, "", te
	}
	f, _, te := openFile(real, pathArg)
	if te != nil {
		return nil, "", te
	}
	defer f.Close()
	head, te := readHead(f, pathArg)
	if te != nil {
		return nil, "", te
	}

	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	w := readwin.Window{Offset: offset, Limit: limit}
	var (
		lines  []scanner.Line
		nbytes int
	)
	// The probe is the window's lines joined by "\n": the same text given
	// to scan_text is the same probe.
	h := s.probes.hasher(c.key)
	err := readwin.Lines(rctx, io.MultiReader(bytes.NewReader(head), f), w, maxReadBytes, redactBatchBytes, func(b []scanner.Line) error {
		for _, l := range b {
			if len(lines) > 0 {
				h.Write([]byte{'\n'})
			}
			h.Write(l.Text)
			nbytes += len(l.Text) + 1
			lines = append(lines, l)
		}
		return nil
	})
	if err != nil {
		return nil, "", readError(ctx, rctx, pathArg, err)
	}
	c.rec.Bytes = intp(nbytes)
	if te := s.spendProbe(c, s.probes.id(h)); te != nil {
		return nil, "", te
	}

	res := &ReadResult{ByCategory: map[string]int{}, EndOfFile: len(lines) < w.Count()}
	r := ds.Redactor()
	var out strings.Builder
	for start := 0; start < len(lines) && !res.Truncated; {
		end, n := start, 0
		for end < len(lines) && (end == start || n < redactBatchBytes) {
			n += len(lines[end].Text) + 1
			end++
		}
		batch := lines[start:end]
		masked, err := r.Mask(&scanner.Fragment{Kind: scanner.KindFile, Lines: batch})
		if err != nil {
			return nil, "", classify(err)
		}
		byNum := make(map[int]*scanner.MaskedLine, len(masked))
		for i := range masked {
			byNum[masked[i].Number] = &masked[i]
		}
		for _, l := range batch {
			text := l.Text
			ml := byNum[l.Number]
			if ml != nil {
				text = []byte(ml.Text)
			}
			prefix := readwin.Prefix(l.Number)
			vis, cut := cutTo(text, maxReadOutput-len(prefix))
			piece := prefix + string(vis)
			if res.Lines > 0 && out.Len()+1+len(piece) > maxReadOutput {
				res.Truncated, res.NextOffset, res.EndOfFile = true, l.Number, false
				break
			}
			if res.Lines > 0 {
				out.WriteByte('\n')
			} else {
				res.StartLine = l.Number
			}
			out.WriteString(piece)
			res.Lines++
			if cut {
				res.CutLines++
			}
			if ml != nil {
				for _, m := range ml.Marks {
					res.Replacements++
					res.ByCategory[placeholderCategory(ml.Text[m.Start:])]++
				}
			}
		}
		start = end
	}
	// Fail closed: a damaged sealed catalog page found nothing, so the
	// text may hold a value that was not replaced.
	if err := ds.Err(); err != nil {
		return nil, "", classify(err)
	}
	res.Text = out.String()
	c.rec.Lines = intp(res.Lines)
	c.rec.Replacements = intp(res.Replacements)
	c.rec.Truncated = res.Truncated
	body, te := jsonText(res)
	if te != nil {
		return nil, "", te
	}
	return res, body, nil
}

// placeholderCategory returns the category of the placeholder
// "[<category>:<n>]" at the start of s.
func placeholderCategory(s string) string {
	end := strings.IndexByte(s, ']')
	if !strings.HasPrefix(s, "[") || end < 0 {
		return "unknown"
	}
	ph := s[1:end]
	if i := strings.LastIndexByte(ph, ':'); i >= 0 {
		return ph[:i]
	}
	return "unknown"
}

// readError maps an error of reading the window.
func readError(parent, rctx context.Context, arg string, err error) *toolError {
	switch {
	case errors.Is(err, readwin.ErrTooLarge):
		return errorf(string(broker.CodeTooLarge), "the window of %s ends more than %s into the file; read_redacted reads at most that far", quoteArg(arg), size(maxReadBytes))
	case parent.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded):
		return errorf(string(broker.CodeTooLarge), "%s could not be read and checked within %s; pass a smaller limit", quoteArg(arg), readTimeout)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return errorf(CodeCancelled, "the call was cancelled")
	}
	return fileError(arg, "cannot be read", err)
}

// cutTo returns at most n bytes of text, cut at a character boundary, and
// whether it was cut. Read itself cuts no line; only a line longer than
// the reply's limit is cut (after redaction, so no value shows a prefix
// of itself).
func cutTo(text []byte, n int) ([]byte, bool) {
	if len(text) <= n {
		return text, false
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n], true
}
