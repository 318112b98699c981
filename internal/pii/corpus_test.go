package pii

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

var corpusFlag = flag.String("corpus", "", "directory tree to measure the detectors' precision on (TestCorpusPrecision)")

// TestCorpusPrecision measures how often each detector fires on a large
// tree of real text, such as the Go module cache. It is skipped unless
// -corpus or PRIVSCAN_PII_CORPUS names the tree. Hits are listed as
// path:line:column and rule (at most PRIVSCAN_PII_SAMPLES per rule, two
// per file); PRIVSCAN_PII_SHOW=1 also prints the matched
// text, for inspecting public code on one's own terminal.
func TestCorpusPrecision(t *testing.T) {
	root := *corpusFlag
	if root == "" {
		root = os.Getenv("PRIVSCAN_PII_CORPUS")
	}
	if root == "" {
		t.Skip("set -corpus=DIR or PRIVSCAN_PII_CORPUS=DIR to measure precision on a corpus")
	}
	show := os.Getenv("PRIVSCAN_PII_SHOW") == "1"
	perRule, perFile := 80, 2
	if n, err := strconv.Atoi(os.Getenv("PRIVSCAN_PII_SAMPLES")); err == nil {
		perRule = n
	}
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	var files, skipped, lines int
	var bytesRead int64
	counts := map[string]int{}
	bySev := map[finding.Severity]int{}
	hits := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are not the detectors' concern
		}
		rel, _ := filepath.Rel(root, path)
		if e.IsDir() {
			if e.Name() == ".git" || rel == filepath.Join("cache", "download") {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		info, err := e.Info()
		if err != nil || info.Size() > 2<<20 {
			skipped++
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			skipped++
			return nil
		}
		files++
		bytesRead += int64(len(data))
		f := &scanner.Fragment{Kind: finding.KindFile, Path: rel}
		for i, l := range bytes.Split(data, []byte("\n")) {
			f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: bytes.TrimSuffix(l, []byte("\r"))})
		}
		lines += len(f.Lines)
		inFile := map[string]int{}
		d.Detect(f, func(m scanner.Match) {
			counts[m.RuleID]++
			bySev[m.Severity]++
			inFile[m.RuleID]++
			if len(hits[m.RuleID]) >= perRule || inFile[m.RuleID] > perFile {
				return
			}
			h := fmt.Sprintf("%s:%d:%d", rel, f.Lines[m.Line].Number, m.Start+1)
			if show {
				text := f.Lines[m.Line].Text
				lo, hi := max(0, m.Start-30), min(len(text), m.End+30)
				h += fmt.Sprintf("  [%s]  …%s…", text[m.Start:m.End], text[lo:hi])
			}
			hits[m.RuleID] = append(hits[m.RuleID], h)
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mb := float64(bytesRead) / (1 << 20)
	t.Logf("corpus %s: %d text files, %.1f MB, %d lines (%d files skipped: binary or > 2 MB)", root, files, mb, lines, skipped)
	for _, sev := range []finding.Severity{finding.SeverityError, finding.SeverityWarning, finding.SeverityNote} {
		t.Logf("severity %-7s: %6d findings, %8.3f per MB", sev, bySev[sev], float64(bySev[sev])/mb)
	}
	ids := make([]string, 0, len(counts))
	for _, name := range Names() {
		ids = append(ids, "pii/"+name)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.Logf("%-16s %6d findings, %8.3f per MB", id, counts[id], float64(counts[id])/mb)
	}
	for _, id := range ids {
		for _, h := range hits[id] {
			t.Logf("%s %s", id, h)
		}
	}
}
