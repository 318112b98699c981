package mcpserver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/internal/synth"
	"github.com/privscan/privscan/scanner"
)

// MaxRedactFile is the largest file redact_file rewrites, in bytes.
const MaxRedactFile = 8 << 20

// redact_file's styles.
const (
	StylePlaceholder = "placeholder"
	StyleSynthetic   = "synthetic"
)

// RedactFileResult is the structured reply of redact_file. It locates
// replacements by rule and line, never by text.
type RedactFileResult struct {
	Path  string `json:"path"`
	Style string `json:"style"`
	// Written is false when nothing matched: the file was left alone.
	Written      bool           `json:"written"`
	Replacements int            `json:"replacements"`
	Lines        int            `json:"lines"`
	ByRule       map[string]int `json:"byRule"`
	ByCategory   map[string]int `json:"byCategory"`
	// Locations lists the replacements in file order, at most MaxFindings
	// (Truncated says whether some were left out; the counts are complete).
	Locations []Replacement `json:"locations"`
	Truncated bool          `json:"truncated"`
}

// Replacement is one replaced match: where, and which rule found it.
type Replacement struct {
	Line     int    `json:"line"`
	Column   int    `json:"column"` // 1-based, in code points, in the original line
	RuleID   string `json:"ruleId"`
	Category string `json:"category"`
}

// redactFile serves redact_file.
func (s *Server) redactFile(ctx context.Context, c *call) (any, string, *toolError) {
	a := c.args
	pathArg, te := a.str("path", true, maxPathLen)
	if te != nil {
		return nil, "", te
	}
	style, te := a.str("style", false, 32)
	if te != nil {
		return nil, "", te
	}
	switch style {
	case "":
		style = StylePlaceholder
	case StylePlaceholder, StyleSynthetic:
	default:
		return nil, "", errorf(CodeInvalidArgument, "style must be %q or %q", StylePlaceholder, StyleSynthetic)
	}
	real, te := s.roots.filePath(pathArg)
	if te != nil {
		return nil, "", te
	}
	ds, te := s.detectorSet(c)
	if te != nil {
		return nil, "", te
	}
	f, fi, te := openFile(real, pathArg)
	if te != nil {
		return nil, "", te
	}
	defer f.Close()
	if fi.Size() > MaxRedactFile {
		return nil, "", errorf(string(broker.CodeTooLarge), "%s is %s; redact_file rewrites files up to %s", quoteArg(pathArg), size64(fi.Size()), size(MaxRedactFile))
	}
	if hardLinks(fi) > 1 {
		return nil, "", errorf(string(broker.CodeNotRegularFile), "%s has other hard links, which would keep the old content; redact_file rewrites only files with one name", quoteArg(pathArg))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxRedactFile+1))
	// Closed before the rename (Windows cannot rename over an open file).
	f.Close()
	if err != nil {
		return nil, "", fileError(pathArg, "cannot be read", err)
	}
	if len(data) > MaxRedactFile {
		return nil, "", errorf(string(broker.CodeTooLarge), "%s grew past %s while it was read", quoteArg(pathArg), size(MaxRedactFile))
	}
	if bytes.IndexByte(data[:min(len(data), binaryProbe)], 0) >= 0 {
		return nil, "", binaryError(pathArg)
	}
	c.rec.Bytes = intp(len(data))
	// redact_file tells which rules a file's text matches, like scan_text
	// on that text: it spends the guess budget on the file's content (a
	// file written with a guess in it is a probe).
	h := s.probes.hasher(c.key)
	h.Write(data)
	if te := s.spendProbe(c, s.probes.id(h)); te != nil {
		return nil, "", te
	}

	fr := newFileRedactor(ds.Options().Detectors, style == StyleSynthetic)
	out, reps, lines, err := fr.redact(ctx, data)
	if err == nil {
		// What is written must hold nothing the guard would find.
		var left int
		left, err = fr.count(ctx, out)
		if err == nil && left > 0 {
			err = errIncomplete
		}
	}
	// Fail closed on a damaged sealed catalog page before anything is
	// written: a value on it went unseen.
	if ierr := ds.Err(); ierr != nil {
		return nil, "", classify(ierr)
	}
	if errors.Is(err, errIncomplete) {
		return nil, "", errorf(CodeRedactIncomplete, "the redacted %s would still hold matches (a replacement next to other text forms a new one); the file was not changed: edit it by hand, checking with read_redacted", quoteArg(pathArg))
	}
	if err != nil {
		return nil, "", classify(err)
	}

	res := &RedactFileResult{Path: s.roots.display(real), Style: style, Lines: lines, Replacements: len(reps),
		ByRule: map[string]int{}, ByCategory: map[string]int{}, Locations: []Replacement{}}
	for _, r := range reps {
		res.ByRule[r.RuleID]++
		res.ByCategory[r.Category]++
		if len(res.Locations) < MaxFindings {
			res.Locations = append(res.Locations, r)
		} else {
			res.Truncated = true
		}
	}
	if len(reps) > 0 {
		if te := writeAtomic(real, pathArg, out, fi); te != nil {
			return nil, "", te
		}
		res.Written = true
	}
	c.rec.Lines = intp(lines)
	c.rec.Replacements = intp(len(reps))
	c.rec.Findings = intp(len(reps))
	body, te := jsonText(res)
	if te != nil {
		return nil, "", te
	}
	return res, body, nil
}

var errIncomplete = errors.New("redaction incomplete")

func size64(n int64) string {
	if n > 1<<40 {
		return "over 1 TiB"
	}
	return size(int(n))
}

// writeAtomic replaces the file at real with data: a temporary file in the
// same directory, with the original's permission bits, written, synced and
// renamed over it, so that a crash leaves the old file or the new one. It
// refuses when the file changed since it was read (fi).
func writeAtomic(real, arg string, data []byte, fi fs.FileInfo) *toolError {
	dir := filepath.Dir(real)
	tmp, err := os.CreateTemp(dir, ".privscan-redact-*")
	if err != nil {
		return fileError(arg, "cannot be rewritten (its directory does not take a new file)", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		return fileError(arg, "cannot be rewritten with its permissions", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fileError(arg, "cannot be rewritten", err)
	}
	if err := tmp.Sync(); err != nil {
		return fileError(arg, "cannot be rewritten", err)
	}
	if err := tmp.Close(); err != nil {
		return fileError(arg, "cannot be rewritten", err)
	}
	cur, err := os.Lstat(real)
	if err != nil || !os.SameFile(cur, fi) || cur.Size() != fi.Size() || !cur.ModTime().Equal(fi.ModTime()) {
		return errorf(CodeScanFailed, "%s changed while it was being redacted; the file was not changed: call again", quoteArg(arg))
	}
	if err := os.Rename(tmp.Name(), real); err != nil {
		return fileError(arg, "cannot be replaced", err)
	}
	done = true
	// The rename is durable once the directory is synced (best effort:
	// not every platform syncs a directory).
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// fileRedactor replaces every match of its detectors in a file's bytes,
// keeping line endings and every byte outside a match. Values are
// numbered per category in order of first appearance (the same value, in
// any case, gets the same number), remembered only as keyed hashes.
type fileRedactor struct {
	dets      []scanner.Detector
	synthetic bool
	key       [32]byte
	seen      map[[32]byte]int
	next      map[string]int
	// clean caches whether a synthetic stand-in is found by no detector.
	clean map[string]bool
}

func newFileRedactor(dets []scanner.Detector, synthetic bool) *fileRedactor {
	r := &fileRedactor{dets: dets, synthetic: synthetic, seen: map[[32]byte]int{}, next: map[string]int{}, clean: map[string]bool{}}
	rand.Read(r.key[:])
	return r
}

// fileSpan is one match in a line.
type fileSpan struct {
	start, end       int
	ruleID, category string
}

// eachBatch splits data into lines and calls fn with batches of them (as
// fragments) and their line endings.
func eachBatch(ctx context.Context, data []byte, fn func(f *scanner.Fragment, eols [][]byte) error) (lines int, err error) {
	frag := &scanner.Fragment{Kind: scanner.KindFile}
	var eols [][]byte
	size := 0
	flush := func() error {
		if len(frag.Lines) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		e := fn(frag, eols)
		frag.Lines, eols, size = frag.Lines[:0], eols[:0], 0
		return e
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line, eol []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, eol, data = data[:i], data[i:i+1], data[i+1:]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line, eol = line[:n-1], []byte("\r\n")
			}
		}
		lines++
		frag.Lines = append(frag.Lines, scanner.Line{Number: lines, Text: line})
		eols = append(eols, eol)
		size += len(line) + 1
		if size >= redactBatchBytes {
			if err := flush(); err != nil {
				return lines, err
			}
		}
	}
	return lines, flush()
}

// spans runs the detectors on f: the matches per line index, sorted and
// merged as the Redactor merges them (overlapping matches become one,
// named after the one that starts first, the longer on a tie).
func (r *fileRedactor) spans(f *scanner.Fragment) (perLine map[int][]fileSpan, err error) {
	perLine = map[int][]fileSpan{}
	defer func() {
		if recover() != nil {
			err = scanner.ErrDetectorPanic
		}
	}()
	for _, d := range r.dets {
		d.Detect(f, func(m scanner.Match) {
			if m.Line < 0 || m.Line >= len(f.Lines) || m.Start < 0 || m.End > len(f.Lines[m.Line].Text) || m.Start >= m.End {
				return
			}
			perLine[m.Line] = append(perLine[m.Line], fileSpan{m.Start, m.End, m.RuleID, m.Category})
		})
	}
	for i, ss := range perLine {
		sort.Slice(ss, func(a, b int) bool {
			if ss[a].start != ss[b].start {
				return ss[a].start < ss[b].start
			}
			return ss[a].end > ss[b].end
		})
		merged := ss[:0]
		for _, s := range ss {
			if n := len(merged); n > 0 && s.start < merged[n-1].end {
				if s.end > merged[n-1].end {
					merged[n-1].end = s.end
				}
				continue
			}
			merged = append(merged, s)
		}
		perLine[i] = merged
	}
	return perLine, nil
}

// count returns the matches in data.
func (r *fileRedactor) count(ctx context.Context, data []byte) (int, error) {
	n := 0
	_, err := eachBatch(ctx, data, func(f *scanner.Fragment, _ [][]byte) error {
		per, err := r.spans(f)
		for _, ss := range per {
			n += len(ss)
		}
		return err
	})
	return n, err
}

// redact returns data with every match replaced, the replacements in
// file order, and the number of lines.
func (r *fileRedactor) redact(ctx context.Context, data []byte) ([]byte, []Replacement, int, error) {
	var (
		out  bytes.Buffer
		reps []Replacement
	)
	out.Grow(len(data))
	lines, err := eachBatch(ctx, data, func(f *scanner.Fragment, eols [][]byte) error {
		per, err := r.spans(f)
		if err != nil {
			return err
		}
		for i, l := range f.Lines {
			pos, col := 0, 1
			for _, s := range per[i] {
				out.Write(l.Text[pos:s.start])
				col += utf8.RuneCount(l.Text[pos:s.start])
				reps = append(reps, Replacement{Line: l.Number, Column: col, RuleID: s.ruleID, Category: s.category})
				out.WriteString(r.replacement(s.category, l.Text[s.start:s.end]))
				col += utf8.RuneCount(l.Text[s.start:s.end])
				pos = s.end
			}
			out.Write(l.Text[pos:])
			out.Write(eols[i])
		}
		return nil
	})
	return out.Bytes(), reps, lines, err
}

// replacement returns what replaces value, a match of category: its
// placeholder, or its synthetic stand-in when that style was asked for
// and no detector finds the stand-in.
func (r *fileRedactor) replacement(category string, value []byte) string {
	m := hmac.New(sha256.New, r.key[:])
	m.Write([]byte(category))
	m.Write([]byte{0})
	m.Write(bytes.ToLower(value))
	var h [32]byte
	m.Sum(h[:0])
	n, ok := r.seen[h]
	if !ok {
		r.next[category]++
		n = r.next[category]
		r.seen[h] = n
	}
	placeholder := "[" + category + ":" + strconv.Itoa(n) + "]"
	if !r.synthetic {
		return placeholder
	}
	s := synth.LookAlike(category, n)
	clean, ok := r.clean[s]
	if !ok {
		found, err := r.count(context.Background(), []byte(s))
		clean = err == nil && found == 0
		r.clean[s] = clean
	}
	if !clean {
		return placeholder
	}
	return s
}
