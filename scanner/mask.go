package scanner

import (
	"bufio"
	"bytes"
	"unicode/utf8"
)

// MaskedLine is a line with every match replaced by its redact placeholder
// ("[<category>:<n>]"), for showing where a finding is without what it
// is.
type MaskedLine struct {
	Number int    // the line's number (Line.Number)
	Text   string // the masked line
	// Marks locate the placeholders: Column is the 1-based code-point
	// column where the match started in the original line, Start the byte
	// offset of its placeholder in Text.
	Marks []Mark
}

// Mark is one placeholder of a MaskedLine.
type Mark struct {
	Column int
	Start  int
}

// Mask returns the lines of f that hold at least one match, masked as Copy
// masks them; lines without a match are left out, and nothing of f is
// kept. Placeholders number values as the Redactor's other output does.
func (r *Redactor) Mask(f *Fragment) ([]MaskedLine, error) {
	perLine, err := r.spans(f)
	if err != nil {
		return nil, err
	}
	var out []MaskedLine
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for i, l := range f.Lines {
		spans := perLine[i]
		if len(spans) == 0 {
			continue
		}
		buf.Reset()
		marks := r.writeMarked(w, l.Text, spans)
		w.Flush()
		out = append(out, MaskedLine{Number: l.Number, Text: buf.String(), Marks: marks})
	}
	return out, nil
}

// writeMarked is writeRedacted that also reports where each placeholder
// starts.
func (r *Redactor) writeMarked(w *bufio.Writer, text []byte, spans []span) []Mark {
	var marks []Mark
	r.onMark = func(origStart, outStart int) {
		marks = append(marks, Mark{Column: utf8.RuneCount(text[:origStart]) + 1, Start: outStart})
	}
	r.writeRedacted(w, text, spans)
	r.onMark = nil
	return marks
}
