package scanner

import (
	"bytes"
	"context"
	"strconv"
	"testing"
)

// runDetector is a fake detector: it matches every run of at least min
// copies of the byte c, reporting category cat.
type runDetector struct {
	c   byte
	min int
	cat string
}

func (d runDetector) Name() string { return "run-" + d.cat }

func (d runDetector) Detect(f *Fragment, emit func(Match)) {
	for i, l := range f.Lines {
		for _, s := range runSpans(l.Text, d.c, d.min) {
			emit(Match{Line: i, Start: s[0], End: s[1], RuleID: "fake/" + d.cat, Source: "catalog", Category: d.cat})
		}
	}
}

func runSpans(b []byte, c byte, min int) [][2]int {
	var out [][2]int
	for i := 0; i < len(b); {
		if b[i] != c {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] == c {
			j++
		}
		if j-i >= min {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// wideDetector matches "<" through the next ">" on a line, so its spans
// overlap runDetector's and exercise merging.
type wideDetector struct{}

func (wideDetector) Name() string { return "wide" }

func (wideDetector) Detect(f *Fragment, emit func(Match)) {
	for i, l := range f.Lines {
		for s := 0; s < len(l.Text); s++ {
			if l.Text[s] != '<' {
				continue
			}
			if e := bytes.IndexByte(l.Text[s:], '>'); e > 0 {
				emit(Match{Line: i, Start: s, End: s + e + 1, RuleID: "fake/wide", Source: "catalog", Category: "wide"})
				s += e
			}
		}
	}
}

// expectRedacted is an independent model of Redactor.Copy for the fake
// detectors: lines end after "\n"; spans of all detectors merge when they
// overlap; the merged span is named after the one that starts first (the
// longer on a tie); n numbers the distinct (category, lower-cased text)
// pairs per category in order of appearance.
func expectRedacted(in []byte) []byte {
	seen := map[string]int{}
	next := map[string]int{}
	var out []byte
	for len(in) > 0 {
		line := in
		if i := bytes.IndexByte(in, '\n'); i >= 0 {
			line = in[:i+1]
		}
		in = in[len(line):]
		text, eol := line, []byte(nil)
		if bytes.HasSuffix(text, []byte("\r\n")) {
			text, eol = text[:len(text)-2], text[len(text)-2:]
		} else if bytes.HasSuffix(text, []byte("\n")) {
			text, eol = text[:len(text)-1], text[len(text)-1:]
		}
		type sp struct {
			s, e int
			cat  string
		}
		var spans []sp
		for _, d := range []runDetector{{'Z', 2, "zed"}, {'Q', 3, "queue"}} {
			for _, s := range runSpans(text, d.c, d.min) {
				spans = append(spans, sp{s[0], s[1], d.cat})
			}
		}
		for s := 0; s < len(text); s++ {
			if text[s] == '<' {
				if e := bytes.IndexByte(text[s:], '>'); e > 0 {
					spans = append(spans, sp{s, s + e + 1, "wide"})
					s += e
				}
			}
		}
		// Insertion sort by (start asc, end desc); inputs are small.
		for i := 1; i < len(spans); i++ {
			for j := i; j > 0; j-- {
				a, b := spans[j-1], spans[j]
				if b.s < a.s || (b.s == a.s && b.e > a.e) {
					spans[j-1], spans[j] = b, a
				}
			}
		}
		pos := 0
		for i := 0; i < len(spans); {
			s := spans[i]
			j := i + 1
			for j < len(spans) && spans[j].s < s.e {
				s.e = max(s.e, spans[j].e)
				j++
			}
			i = j
			out = append(out, text[pos:s.s]...)
			k := s.cat + "\x00" + string(bytes.ToLower(text[s.s:s.e]))
			n, ok := seen[k]
			if !ok {
				next[s.cat]++
				n = next[s.cat]
				seen[k] = n
			}
			out = append(out, "["+s.cat+":"+strconv.Itoa(n)+"]"...)
			pos = s.e
		}
		out = append(out, text[pos:]...)
		out = append(out, eol...)
	}
	return out
}

func TestRedactModel(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "",
		"plain\r\nlines\rkept\n":  "plain\r\nlines\rkept\n",
		"a ZZ b zz ZZ\n":          "a [zed:1] b zz [zed:1]\n",
		"QQQ <ZZZ> QQ ZZZ\r\nZZZ": "[queue:1] [wide:1] QQ [zed:1]\r\n[zed:1]",
		"x<ZZ\n>":                 "x<[zed:1]\n>",
	} {
		if got := string(expectRedacted([]byte(in))); got != want {
			t.Errorf("model(%q) = %q, want %q", in, got, want)
		}
		r := NewRedactor(Options{Detectors: []Detector{runDetector{'Z', 2, "zed"}, runDetector{'Q', 3, "queue"}, wideDetector{}}})
		var out bytes.Buffer
		if err := r.Copy(context.Background(), &out, bytes.NewReader([]byte(in))); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("Copy(%q) = %q, want %q", in, out.String(), want)
		}
	}
}

// FuzzRedact: Redactor.Copy keeps every byte outside a match and every line
// ending (CRLF, LF, lone CR, a missing final newline) exactly, and replaces
// each match with its placeholder, for arbitrary bytes.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"", "no match here\n", "ZZ\r\nZZ\rZZ\n", "QQQQ<ZZ>QQQ", "a\x00ZZ\xff\xfe\n\n\r\r\n",
		"<<>>ZZ<Q>QQQ\r", "zz ZZ Zz zZ\n", "é<ZZ>é\u2028ZZ\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewRedactor(Options{Detectors: []Detector{runDetector{'Z', 2, "zed"}, runDetector{'Q', 3, "queue"}, wideDetector{}}})
		var out bytes.Buffer
		if err := r.Copy(context.Background(), &out, bytes.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		want := expectRedacted(in)
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("Copy(%q)\n got %q\nwant %q", in, out.Bytes(), want)
		}
		if bytes.Count(out.Bytes(), []byte("\n")) != bytes.Count(in, []byte("\n")) {
			t.Fatalf("line count changed")
		}
		if st := r.Stats(); st.Lines != bytes.Count(in, []byte("\n"))+boolInt(len(in) > 0 && in[len(in)-1] != '\n') {
			t.Fatalf("Stats.Lines = %d", st.Lines)
		}
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
