package scanner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
)

// wordDetector reports every occurrence of word as rule test/word.
type wordDetector struct {
	word  string
	panic bool
}

func (d wordDetector) Name() string { return "test" }
func (d wordDetector) Detect(f *Fragment, emit func(Match)) {
	if d.panic {
		panic("boom: " + d.word)
	}
	for i, l := range f.Lines {
		off := 0
		for {
			k := bytes.Index(l.Text[off:], []byte(d.word))
			if k < 0 {
				break
			}
			emit(Match{Line: i, Start: off + k, End: off + k + len(d.word), RuleID: "test/word", Source: "catalog", Category: "person", Severity: finding.SeverityError})
			off += k + len(d.word)
		}
	}
}

type sliceSource []*Fragment

func (s sliceSource) Fragments(ctx context.Context, yield func(*Fragment) error) error {
	for _, f := range s {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := yield(f); err != nil {
			return err
		}
	}
	return nil
}

type collect struct {
	findings []*Finding
	summary  *Summary
}

func (c *collect) Finding(f *Finding) error { c.findings = append(c.findings, f); return nil }
func (c *collect) Summary(s *Summary) error { c.summary = s; return nil }

func textFragment(path, text string) *Fragment {
	var f Fragment
	f.Kind, f.Path = KindDiff, path
	for i, l := range strings.Split(text, "\n") {
		f.Lines = append(f.Lines, Line{Number: i + 1, Text: []byte(l)})
	}
	return &f
}

func run(t *testing.T, src Source, opts Options) *collect {
	t.Helper()
	var c collect
	if _, err := Run(context.Background(), src, opts, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestRunOrderAndPositions(t *testing.T) {
	var src sliceSource
	for i := 0; i < 200; i++ {
		src = append(src, textFragment(fmt.Sprintf("f%03d.go", i), "a\nx Zed y\nZed"))
	}
	src = append(src, &Fragment{Kind: KindDiff, Path: "bin.png", Skipped: SkipBinary})
	for _, workers := range []int{1, 2, 8} {
		c := run(t, src, Options{Detectors: []Detector{wordDetector{word: "Zed"}}, Workers: workers, Buffer: 4})
		if len(c.findings) != 400 {
			t.Fatalf("workers=%d: %d findings, want 400", workers, len(c.findings))
		}
		for i, f := range c.findings {
			want := fmt.Sprintf("f%03d.go", i/2)
			if f.Path != want {
				t.Fatalf("workers=%d: finding %d in %s, want %s (order not deterministic)", workers, i, f.Path, want)
			}
		}
		if f := c.findings[0]; f.Line != 2 || f.Column != 3 || f.EndColumn != 6 {
			t.Errorf("first finding at %d:%d-%d, want 2:3-6", f.Line, f.Column, f.EndColumn)
		}
		s := c.summary
		if s.Findings != 400 || s.FilesScanned != 200 || s.LinesScanned != 600 || s.Skipped[SkipBinary] != 1 {
			t.Errorf("summary = %+v", s)
		}
	}
}

func TestFingerprintStableWhenLinesMove(t *testing.T) {
	key := [32]byte{1, 2, 3}
	det := []Detector{wordDetector{word: "Zed"}}
	before := run(t, sliceSource{textFragment("a.go", "x := \"Zed\"\nfoo(Zed)")}, Options{Detectors: det, FingerprintKey: key})
	after := run(t, sliceSource{textFragment("a.go", strings.Repeat("\n", 30)+"  x := \"Zed\"\nbar()\nfoo(Zed)")}, Options{Detectors: det, FingerprintKey: key})
	if len(before.findings) != 2 || len(after.findings) != 2 {
		t.Fatalf("findings: %d, %d", len(before.findings), len(after.findings))
	}
	for i := range before.findings {
		if before.findings[i].Fingerprint != after.findings[i].Fingerprint {
			t.Errorf("finding %d: fingerprint changed when the line moved", i)
		}
	}
	if before.findings[0].Fingerprint == before.findings[1].Fingerprint {
		t.Error("different lines share a fingerprint")
	}
	other := run(t, sliceSource{textFragment("a.go", "x := \"Zed\"")}, Options{Detectors: det, FingerprintKey: [32]byte{9}})
	if other.findings[0].Fingerprint == before.findings[0].Fingerprint {
		t.Error("fingerprint does not depend on the key")
	}
	// identical lines get distinct fingerprints (occurrence count)
	dup := run(t, sliceSource{textFragment("a.go", "Zed\nZed")}, Options{Detectors: det, FingerprintKey: key})
	if dup.findings[0].Fingerprint == dup.findings[1].Fingerprint {
		t.Error("identical lines share a fingerprint")
	}
}

func TestSuppression(t *testing.T) {
	det := []Detector{wordDetector{word: "Zed"}}
	src := sliceSource{textFragment("a.go", strings.Join([]string{
		`Zed // privscan:allow`,
		`"Zed" # privscan:allow test/word`,
		`Zed <!-- privscan:allow pii/email -->`,
		`Zed /* privscan:allow pii/email, test/word */`,
		`Zed privscan:allowed`,
		`Zed # privscan:allow fixture data`,
		`Zed`,
	}, "\n"))}
	c := run(t, src, Options{Detectors: det})
	var lines []int
	for _, f := range c.findings {
		lines = append(lines, f.Line)
	}
	if fmt.Sprint(lines) != "[3 5 7]" {
		t.Errorf("reported lines %v, want [3 5 7]", lines)
	}
	if c.summary.Suppressed != 4 || c.summary.SuppressedBy[SuppressInline] != 4 {
		t.Errorf("summary %+v", c.summary)
	}
	// fingerprint-based suppression
	sup := map[string]string{c.findings[2].Fingerprint: "baseline"}
	c2 := run(t, src, Options{Detectors: det, Suppressed: sup})
	if len(c2.findings) != 2 || c2.summary.SuppressedBy["baseline"] != 1 {
		t.Errorf("baseline: %d findings, summary %+v", len(c2.findings), c2.summary)
	}
	// severity override and disable
	c3 := run(t, src, Options{Detectors: det, Severity: map[string]finding.Severity{"test/word": finding.SeverityNote}})
	if c3.findings[0].Severity != finding.SeverityNote {
		t.Error("severity override ignored")
	}
	c4 := run(t, src, Options{Detectors: det, Severity: map[string]finding.Severity{"test/word": 0}})
	if len(c4.findings) != 0 {
		t.Error("disabled rule still reported")
	}
	// excluded paths
	c5 := run(t, src, Options{Detectors: det, Exclude: func(p string) bool { return p == "a.go" }})
	if len(c5.findings) != 0 || c5.summary.Skipped[SkipExcluded] != 1 {
		t.Errorf("exclude: %d findings, summary %+v", len(c5.findings), c5.summary)
	}
}

func TestDetectorPanicIsValueFree(t *testing.T) {
	var c collect
	_, err := Run(context.Background(), sliceSource{textFragment("a.go", "secret-canary-value")}, Options{Detectors: []Detector{wordDetector{word: "secret-canary-value", panic: true}}}, &c)
	if !errors.Is(err, ErrDetectorPanic) {
		t.Fatalf("err = %v, want ErrDetectorPanic", err)
	}
	if strings.Contains(err.Error(), "canary") {
		t.Errorf("error leaks the panic value: %v", err)
	}
}

type errHandler struct{ collect }

func (e *errHandler) Finding(*Finding) error { return errors.New("disk full") }

func TestHandlerErrorAndCancel(t *testing.T) {
	var src sliceSource
	for i := 0; i < 500; i++ {
		src = append(src, textFragment("a.go", "Zed"))
	}
	_, err := Run(context.Background(), src, Options{Detectors: []Detector{wordDetector{word: "Zed"}}}, &errHandler{})
	if err == nil || err.Error() != "disk full" {
		t.Errorf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var c collect
	if _, err := Run(ctx, src, Options{Detectors: []Detector{wordDetector{word: "Zed"}}}, &c); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: err = %v", err)
	}
	if c.summary != nil {
		t.Error("summary written after cancel")
	}
}

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"1:a"}},
		{"a\n", []string{"1:a"}},
		{"a\r\nb\r\n", []string{"1:a", "2:b"}},
		{"a\rb\n", []string{"1:a\rb"}},
		{"\n\nx", []string{"1:", "2:", "3:x"}},
		{"a\r", []string{"1:a\r"}},
		{"nul\x00byte\n\xff\xfe", []string{"1:nul\x00byte", "2:\xff\xfe"}},
	}
	for _, tt := range tests {
		var got []string
		err := SplitLines(context.Background(), strings.NewReader(tt.in), 3, func(ls []Line) error {
			for _, l := range ls {
				got = append(got, fmt.Sprintf("%d:%s", l.Number, l.Text))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
			t.Errorf("SplitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSplitLinesLong: a line up to MaxLineBytes is one line, whole; a
// longer one stops the scan with a LineTooLongError after the lines before
// it, and is never cut.
func TestSplitLinesLong(t *testing.T) {
	for _, c := range []struct {
		n     int
		err   bool
		lines string
	}{
		{MaxLineBytes, false, "[1 2 3]"},
		{MaxLineBytes + 1, true, "[1]"},
	} {
		big := strings.Repeat("x", c.n)
		in := "first\n" + big + "\nlast"
		var nums []int
		err := SplitLines(context.Background(), strings.NewReader(in), 1<<20, func(ls []Line) error {
			for _, l := range ls {
				nums = append(nums, l.Number)
				if l.Number == 2 && len(l.Text) != c.n {
					t.Errorf("line 2 has %d bytes, want %d", len(l.Text), c.n)
				}
			}
			return nil
		})
		var tl *LineTooLongError
		if c.err != errors.As(err, &tl) || (c.err && tl.Line != 2) {
			t.Errorf("%d bytes: err %v", c.n, err)
		}
		if fmt.Sprint(nums) != c.lines {
			t.Errorf("%d bytes: line numbers %v, want %s", c.n, nums, c.lines)
		}
	}
}

func FuzzSplitLines(f *testing.F) {
	f.Add([]byte("a\r\nb\rc\n\nd"))
	f.Add([]byte("\x00\xff\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var rebuilt []byte
		last := 0
		err := SplitLines(context.Background(), bytes.NewReader(in), 7, func(ls []Line) error {
			for _, l := range ls {
				if l.Number != last+1 {
					t.Fatalf("line numbers jump from %d to %d", last, l.Number)
				}
				last = l.Number
				rebuilt = append(rebuilt, l.Text...)
				rebuilt = append(rebuilt, '\n')
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		norm := bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n"))
		if len(norm) > 0 && norm[len(norm)-1] != '\n' {
			norm = append(norm, '\n')
		}
		if !bytes.Equal(rebuilt, norm) {
			t.Fatalf("lines do not round-trip:\n in %q\nout %q", norm, rebuilt)
		}
	})
}
