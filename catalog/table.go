// Catalogs from a table export (docs/catalog.md, "Catalogs from a table"):
// CSV, TSV or JSON Lines read row by row into the same Catalog that Parse
// builds from Markdown, so that Seal and Compile treat both alike. Bad
// rows are skipped, counted and reported by line number and reason, never
// by content.

package catalog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTableLineBytes is the longest line of a TSV or JSON Lines table (and
// the longest CSV record): a longer one is a bad row.
const MaxTableLineBytes = 16 << 20

// MaxReportedBadRows is how many bad rows a TableReport lists by line.
const MaxReportedBadRows = 10

// TableOptions tunes ReadTable. A nil *TableOptions means the defaults.
type TableOptions struct {
	// Format overrides the schema's format.
	Format TableFormat
	// Progress, if set, is called every few thousand rows and at the end
	// with the rows and bytes read so far.
	Progress func(rows int, bytes int64)
}

// BadRow is a skipped row: its first line in the table and why (never its
// content).
type BadRow struct {
	Line   int
	Reason string
}

func (b BadRow) String() string { return "line " + strconv.Itoa(b.Line) + ": " + b.Reason }

// TableReport counts what ReadTable read.
type TableReport struct {
	Rows    int      // data rows (the header and blank JSON lines excluded)
	Values  int      // values kept (blank cells are not values)
	BadRows int      // rows skipped
	Bad     []BadRow // the first MaxReportedBadRows of them
}

// TableError is a table that cannot be sealed: unreadable, without the
// schema's columns, or with more bad rows than the schema allows. It never
// quotes the table.
type TableError struct {
	Line   int // 0: not about one line
	Reason string
}

func (e *TableError) Error() string {
	if e.Line > 0 {
		return "table line " + strconv.Itoa(e.Line) + ": " + e.Reason
	}
	return "table: " + e.Reason
}

// tableRule accumulates the values of one rule: one string holds them all
// (as Parse's values blocks do), with their spans and lines.
type tableRule struct {
	rule  Rule
	data  strings.Builder
	spans []uint64 // start<<32 | length
	lines []int32
}

type tableReader struct {
	s       *Schema
	rules   []*tableRule
	colRule []int // schema column -> index in rules
	colIdx  []int // schema column -> cell index (CSV, TSV)
	rep     TableReport
	pending []pendingValue // the values of the row being read
	cells   []string       // the row's cell of each schema column ("": absent)
	fields  int            // the header's field count (TSV)
	split   []string       // the fields of a TSV line
	digest  hash.Hash
	count   *countingReader
	opts    TableOptions

	// Sealing in parts (SealTable): before a row past partRows rows or
	// partValueBytes value bytes since the last part, flush is called
	// with the values read so far.
	flush                 func() error
	partRows, partStart   int
	partValues, partBytes int
	partValueBytes        int
	partValueCap          int
}

type countingReader struct {
	r io.Reader
	n int64
	h hash.Hash
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.h != nil {
		c.h.Write(p[:n])
	}
	return n, err
}

// ReadTable reads a table export with schema s into a catalog: one rule
// per distinct rule ID of the schema, in schema order, whose values are
// the column's non-blank cells (trimmed, as a Markdown value line is), in
// row order. A row with a cell that is not a valid value (invalid UTF-8,
// a control character such as an embedded newline, shorter than
// MinLiteralRunes, longer than MaxValueBytes) or of the wrong shape is
// skipped whole, counted and listed by line in the report; more than
// s.MaxBadRows of them is a *TableError. Errors never quote the table.
func ReadTable(r io.Reader, s *Schema, opts *TableOptions) (*Catalog, *TableReport, error) {
	t := &tableReader{s: s}
	if err := t.read(r, opts); err != nil {
		return nil, &t.rep, err
	}
	c := t.catalog(false)
	if t.digest != nil {
		t.digest.Sum(c.Digest[:0])
	}
	return c, &t.rep, nil
}

// read reads the table r; the values of the rows not yet flushed are left
// in t.rules. A nil error means at least one value.
func (t *tableReader) read(r io.Reader, opts *TableOptions) error {
	s := t.s
	if opts != nil {
		t.opts = *opts
	}
	format := t.opts.Format
	if format == TableUnknown {
		format = s.Format
	}
	if format == TableUnknown {
		return &TableError{Reason: "unknown format: set format in the schema (csv, tsv or jsonl) or name the file .csv, .tsv or .jsonl"}
	}
	t.count = &countingReader{r: r}
	if s.FingerprintKey == nil {
		t.digest = sha256.New()
		t.count.h = t.digest
	}
	byID := map[string]int{}
	for _, c := range s.Columns {
		k, ok := byID[c.Rule.ID]
		if !ok {
			k = len(t.rules)
			byID[c.Rule.ID] = k
			t.rules = append(t.rules, &tableRule{rule: c.Rule})
		}
		t.colRule = append(t.colRule, k)
	}
	br := bufio.NewReaderSize(t.count, 1<<20)
	if b, _ := br.Peek(3); bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	} else if bytes.HasPrefix(b, []byte("\xff\xfe")) || bytes.HasPrefix(b, []byte("\xfe\xff")) {
		return &TableError{Reason: "the table is UTF-16: convert it to UTF-8"}
	}
	var err error
	switch format {
	case TableCSV:
		err = t.readCSV(br)
	case TableTSV:
		err = t.readLines(br, t.tsvRow)
	case TableJSONL:
		err = t.readLines(br, t.jsonRow)
	}
	if t.opts.Progress != nil {
		t.opts.Progress(t.rep.Rows, t.count.n)
	}
	if err != nil {
		return err
	}
	if t.rep.Values == 0 {
		return &TableError{Reason: "no values: every searchable cell is blank or its row is bad"}
	}
	return nil
}

// catalog moves the values read so far into a catalog, one rule per rule
// of the schema that has values (every rule of the schema when all, as
// each part of a catalog sealed in parts has), and starts afresh.
func (t *tableReader) catalog(all bool) *Catalog {
	c := &Catalog{FingerprintKey: t.s.FingerprintKey}
	for _, tr := range t.rules {
		if len(tr.spans) == 0 && !all {
			continue
		}
		block := valueData(tr.data.String())
		r := tr.rule
		r.Values = make([]Value, len(tr.spans))
		for i, sp := range tr.spans {
			r.Values[i] = blockValue(&block, int(sp>>32), int(uint32(sp)))
		}
		r.ValueLines = tr.lines
		tr.spans, tr.lines = nil, nil
		tr.data = strings.Builder{}
		c.Rules = append(c.Rules, r)
	}
	t.partValues, t.partBytes = 0, 0
	return c
}

type pendingValue struct {
	rule *tableRule
	v    string
}

// trimSpaceString is trimSpaceIdx for a string: s without leading and
// trailing Unicode white space (the trimming of a Markdown value line).
func trimSpaceString(s string) string {
	return strings.TrimFunc(s, unicode.IsSpace)
}

// bad records a skipped row; it fails the table past the schema's limit.
func (t *tableReader) bad(line int, reason string) error {
	t.rep.BadRows++
	if len(t.rep.Bad) < MaxReportedBadRows {
		t.rep.Bad = append(t.rep.Bad, BadRow{Line: line, Reason: reason})
	}
	if t.rep.BadRows > t.s.MaxBadRows {
		return &TableError{Line: line, Reason: "more bad rows than max-bad-rows (" + strconv.Itoa(t.s.MaxBadRows) + ") allows; the last: " + reason}
	}
	return nil
}

// row takes the cells of one data row (t.cells, one per schema column;
// nil: absent) and keeps its values, or skips the row as bad.
func (t *tableReader) row(line int) error {
	t.rep.Rows++
	if t.opts.Progress != nil && t.rep.Rows&4095 == 0 {
		t.opts.Progress(t.rep.Rows, t.count.n)
	}
	t.pending = t.pending[:0]
	for k, cell := range t.cells {
		v := trimSpaceString(cell)
		if v == "" {
			continue
		}
		tr := t.rules[t.colRule[k]]
		if reason := checkValue(v, tr.rule.Match); reason != "" {
			return t.bad(line, "column "+strconv.Quote(t.s.Columns[k].Name)+": "+reason)
		}
		t.pending = append(t.pending, pendingValue{tr, v})
	}
	if line > math.MaxInt32 {
		return &TableError{Reason: "more than 2^31 lines"}
	}
	if t.flush != nil && t.partValues > 0 && (t.rep.Rows-1-t.partStart >= t.partRows || t.partBytes >= t.partValueBytes || t.partValues >= t.partValueCap) {
		if err := t.flush(); err != nil {
			return err
		}
		t.partStart = t.rep.Rows - 1
	}
	for _, p := range t.pending {
		tr := p.rule
		start := tr.data.Len()
		if start+len(p.v) > maxBlockBytes {
			return &TableError{Line: line, Reason: "rule " + tr.rule.ID + ": its values total more than 4 GiB"}
		}
		tr.data.WriteString(p.v)
		tr.spans = append(tr.spans, uint64(start)<<32|uint64(len(p.v)))
		tr.lines = append(tr.lines, int32(line))
		t.rep.Values++
		t.partValues++
		t.partBytes += len(p.v)
	}
	return nil
}

// header maps the schema's columns to the header's cells.
func (t *tableReader) header(cells []string) error {
	at := map[string]int{}
	for i, h := range cells {
		if _, dup := at[h]; !dup {
			at[h] = i
		} else {
			at[h] = -1
		}
	}
	t.colIdx = make([]int, len(t.s.Columns))
	for k, c := range t.s.Columns {
		i, ok := at[c.Name]
		switch {
		case !ok:
			return &TableError{Line: 1, Reason: "the header has no column " + strconv.Quote(c.Name) + " (named by the schema)"}
		case i < 0:
			return &TableError{Line: 1, Reason: "the header names column " + strconv.Quote(c.Name) + " more than once"}
		}
		t.colIdx[k] = i
	}
	t.cells = make([]string, len(t.s.Columns))
	return nil
}

// errRecordTooLong stops encoding/csv in a record over MaxTableLineBytes.
var errRecordTooLong = errors.New("record too long")

// recordLimiter fails a read once more than limit bytes have been read
// since the last reset: encoding/csv keeps a whole record in memory, and a
// quote left open would make the rest of the file one record.
type recordLimiter struct {
	r        io.Reader
	n, limit int
}

func (l *recordLimiter) Read(p []byte) (int, error) {
	if l.n > l.limit {
		return 0, errRecordTooLong
	}
	n, err := l.r.Read(p)
	l.n += n
	return n, err
}

func (t *tableReader) readCSV(r io.Reader) error {
	// The limit is checked before each read of the reader's 4 KiB buffer,
	// which may also hold the start of the next record.
	lim := &recordLimiter{r: r, limit: MaxTableLineBytes + 4096}
	cr := csv.NewReader(lim)
	cr.ReuseRecord = true
	rec, err := cr.Read()
	if err == io.EOF {
		return &TableError{Reason: "empty: no header row"}
	}
	if err != nil {
		return csvError(err, "the header row")
	}
	hdr := make([]string, len(rec))
	for i, h := range rec {
		hdr[i] = strings.TrimSpace(h)
	}
	if err := t.header(hdr); err != nil {
		return err
	}
	for {
		lim.n = 0
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, errRecordTooLong) {
			line, _ := cr.FieldPos(0)
			return &TableError{Line: line + 1, Reason: "a CSV record is longer than 16 MiB (a quote left open?); the rest of the file cannot be read"}
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			t.rep.Rows++
			reason := "a quoted field is not closed, or a quote is misplaced"
			if errors.Is(pe.Err, csv.ErrFieldCount) {
				reason = "wrong number of fields (" + strconv.Itoa(len(rec)) + "; the header has " + strconv.Itoa(len(hdr)) + ")"
			}
			if err := t.bad(pe.StartLine, reason); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the table: %w", err)
		}
		line, _ := cr.FieldPos(0)
		for k, i := range t.colIdx {
			t.cells[k] = rec[i]
		}
		if err := t.row(line); err != nil {
			return err
		}
	}
}

// csvError rewrites an error of encoding/csv without its text.
func csvError(err error, what string) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &TableError{Line: pe.StartLine, Reason: what + " is not valid CSV"}
	}
	return fmt.Errorf("reading the table: %w", err)
}

// readLines calls row for each line of a TSV or JSON Lines table (without
// its line ending); a line over MaxTableLineBytes is a bad row.
func (t *tableReader) readLines(br *bufio.Reader, row func(n int, line []byte) error) error {
	var long []byte
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		tooLong := false
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if !tooLong {
					long = append(long, line...)
					if len(long) > MaxTableLineBytes+2 {
						tooLong, long = true, long[:0]
					}
				}
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading the table: %w", err)
		}
		if len(line) == 0 && err == io.EOF && !tooLong {
			if n == 1 {
				return &TableError{Reason: "empty: no header row"}
			}
			return nil
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if tooLong || len(line) > MaxTableLineBytes {
			t.rep.Rows++
			if e := t.bad(n, "line is longer than 16 MiB"); e != nil {
				return e
			}
		} else if e := row(n, line); e != nil {
			return e
		}
		if err == io.EOF {
			return nil
		}
	}
}

func (t *tableReader) tsvRow(n int, line []byte) error {
	if t.colIdx == nil {
		if !utf8.Valid(line) {
			return &TableError{Line: 1, Reason: "the header row is not valid UTF-8"}
		}
		hdr := strings.Split(string(line), "\t")
		t.fields = len(hdr)
		for i := range hdr {
			hdr[i] = strings.TrimSpace(hdr[i])
		}
		return t.header(hdr)
	}
	if len(line) == 0 {
		return nil // a blank line, as at the end of many exports
	}
	f := bytes.Count(line, []byte{'\t'}) + 1
	if f != t.fields {
		t.rep.Rows++
		return t.bad(n, "wrong number of fields ("+strconv.Itoa(f)+"; the header has "+strconv.Itoa(t.fields)+")")
	}
	t.split = t.split[:0]
	rest := string(line) // one copy per line; the cells are its substrings
	for {
		cell, after, found := strings.Cut(rest, "\t")
		t.split = append(t.split, cell)
		if !found {
			break
		}
		rest = after
	}
	for k, ci := range t.colIdx {
		t.cells[k] = t.split[ci]
	}
	return t.row(n)
}

func (t *tableReader) jsonRow(n int, line []byte) error {
	if t.colIdx == nil {
		// JSON Lines has no header: the schema's names are keys.
		t.colIdx = make([]int, len(t.s.Columns))
		t.cells = make([]string, len(t.s.Columns))
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	if !utf8.Valid(line) {
		t.rep.Rows++
		return t.bad(n, "invalid UTF-8")
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
		t.rep.Rows++
		return t.bad(n, "not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		t.rep.Rows++
		return t.bad(n, "not a JSON object")
	}
	for k, c := range t.s.Columns {
		t.cells[k] = ""
		switch v := obj[c.Name].(type) {
		case nil:
		case string:
			t.cells[k] = v
		case json.Number:
			t.cells[k] = string(v)
		case bool:
			t.cells[k] = strconv.FormatBool(v)
		default:
			t.rep.Rows++
			return t.bad(n, "column "+strconv.Quote(c.Name)+": an array or object, not a string or number")
		}
	}
	return t.row(n)
}
