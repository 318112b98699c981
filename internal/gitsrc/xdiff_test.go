package gitsrc

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSplitRecords(t *testing.T) {
	tests := []struct {
		in   string
		want []string // texts
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\r\nb", []string{"a", "b"}},
		{"\n\n", []string{"", ""}},
		{"a\rb\n", []string{"a\rb"}},
		{"x\r", []string{"x\r"}},
		{"\r\n", []string{""}},
	}
	for _, tt := range tests {
		recs := splitRecords([]byte(tt.in))
		var got []string
		for _, r := range recs {
			got = append(got, string(lineText(r)))
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("splitRecords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"", "a", "a\n", "a\r\n", "\r", "\r\r\n", "a\nb\r\nc", "\n\n\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		recs := splitRecords(in)
		var joined []byte
		for i, r := range recs {
			if len(r) == 0 {
				t.Fatalf("empty record %d", i)
			}
			if i < len(recs)-1 && r[len(r)-1] != '\n' {
				t.Fatalf("record %d lacks a terminator", i)
			}
			if bytes.IndexByte(r[:len(r)-1], '\n') >= 0 {
				t.Fatalf("record %d holds a newline", i)
			}
			txt := lineText(r)
			if bytes.IndexByte(txt, '\n') >= 0 {
				t.Fatalf("text %d holds a newline", i)
			}
			// The text plus its terminator is the record.
			term := r[len(txt):]
			switch string(term) {
			case "", "\n", "\r\n":
			default:
				t.Fatalf("record %d: bad terminator %q", i, term)
			}
			if string(term) == "" && i != len(recs)-1 {
				t.Fatalf("record %d: missing terminator", i)
			}
			if string(term) == "\n" && len(txt) > 0 && txt[len(txt)-1] == '\r' {
				t.Fatalf("record %d: CR left in text before LF", i)
			}
			joined = append(joined, txt...)
			joined = append(joined, term...)
		}
		if !bytes.Equal(joined, in) {
			t.Fatalf("round trip differs")
		}
		// The diff's records are the same records.
		rs := newRecords(in)
		if rs.n() != len(recs) {
			t.Fatalf("newRecords: %d records, splitRecords %d", rs.n(), len(recs))
		}
		for i, r := range recs {
			if !bytes.Equal(rs.at(i), r) {
				t.Fatalf("newRecords: record %d differs", i)
			}
		}
		// Diffing against nothing adds every line; against itself, none.
		for i, a := range diffAdded(records{}, rs) {
			if !a {
				t.Fatalf("line %d not added against empty", i)
			}
		}
		for i, a := range diffAdded(rs, rs) {
			if a {
				t.Fatalf("line %d added against itself", i)
			}
		}
	})
}

// gitEnv returns an environment that isolates git from the user's and the
// system's configuration.
func gitEnv(home string) []string {
	env := []string{}
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "GIT_") || strings.HasPrefix(e, "HOME=") || strings.HasPrefix(e, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, e)
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"LC_ALL=C",
	)
}

func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not available")
	}
}

// randomText builds text from a small vocabulary so that lines repeat,
// which is where diff algorithms disagree.
func randomText(r *rand.Rand, n int, vocab []string) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = vocab[r.Intn(len(vocab))]
	}
	return lines
}

func mutate(r *rand.Rand, lines []string, vocab []string, edits int) []string {
	out := append([]string(nil), lines...)
	for e := 0; e < edits; e++ {
		pos := 0
		if len(out) > 0 {
			pos = r.Intn(len(out) + 1)
		}
		n := 1 + r.Intn(6)
		switch r.Intn(3) {
		case 0: // insert
			ins := randomText(r, n, vocab)
			out = append(out[:pos], append(ins, out[pos:]...)...)
		case 1: // delete
			end := min(pos+n, len(out))
			out = append(out[:pos], out[end:]...)
		default: // replace
			end := min(pos+n, len(out))
			ins := randomText(r, n, vocab)
			out = append(out[:pos], append(ins, out[end:]...)...)
		}
	}
	return out
}

func joinLines(lines []string, eol string, finalNewline bool) string {
	s := strings.Join(lines, eol)
	if finalNewline && len(lines) > 0 {
		s += eol
	}
	return s
}

// TestDiffMatchesGit compares the added lines of diffAdded with
// `git diff --no-index` on many random file pairs, including large ones
// that trigger xdiff's cost heuristics.
func TestDiffMatchesGit(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(42))
	vocabs := [][]string{
		{"a", "b", "c", "", "}", "{"},
		{"func f() {", "\treturn x", "}", "", "\tif y {", "\t\tz()", "\t}", "// c"},
		{"x", "y"},
		{"  one", "    two", "", "three", "  }", "{", "\t\tfour"},
	}
	var want []addedLine
	ours := map[string][2][]byte{}
	for i := 0; i < 400; i++ {
		vocab := vocabs[r.Intn(len(vocabs))]
		n := r.Intn(40)
		edits := 1 + r.Intn(5)
		if i%50 == 0 {
			n, edits = 3000+r.Intn(2000), 400+r.Intn(400)
		}
		if i%50 == 1 {
			// Long unique texts with few edits.
			vocab = nil
			for k := 0; k < 5000; k++ {
				vocab = append(vocab, fmt.Sprintf("line %d", k))
			}
			n, edits = 2000, 30
		}
		old := randomText(r, n, vocab)
		nw := mutate(r, old, vocab, edits)
		eol := "\n"
		if r.Intn(10) == 0 {
			eol = "\r\n"
		}
		a := joinLines(old, eol, r.Intn(5) != 0)
		b := joinLines(nw, eol, r.Intn(5) != 0)
		name := fmt.Sprintf("f%03d", i)
		ours[name] = [2][]byte{[]byte(a), []byte(b)}
		for _, d := range []string{"a", "b"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "a", name), []byte(a), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "b", name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("git", "-c", "core.quotePath=false", "diff", "--no-index", "--no-color", "--no-ext-diff", "a", "b")
	cmd.Dir = dir
	cmd.Env = gitEnv(dir)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("git diff --no-index: %v", err)
		}
	}
	for _, a := range parseGitPatch(t, out, "") {
		a.Path = strings.TrimPrefix(a.Path, "b/")
		want = append(want, a)
	}
	var got []addedLine
	for name, p := range ours {
		recs := newRecords(p[1])
		for i, ad := range diffAdded(newRecords(p[0]), recs) {
			if ad {
				got = append(got, addedLine{Path: name, Line: i + 1, Text: string(lineText(recs.at(i)))})
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("git reported no added lines")
	}
	compareAdded(t, "random pairs", got, want)
}

func BenchmarkDiffAdded(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	var vocab []string
	for k := 0; k < 3000; k++ {
		vocab = append(vocab, fmt.Sprintf("\tline %d", k))
	}
	old := randomText(r, 5000, vocab)
	nw := mutate(r, old, vocab, 20)
	a, c := newRecords([]byte(joinLines(old, "\n", true))), newRecords([]byte(joinLines(nw, "\n", true)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		diffAdded(a, c)
	}
}

// BenchmarkDiffAddedSource diffs a source-like file (lines of many
// lengths) against itself with one small hunk changed: the common head and
// tail dominate, as in most commits.
func BenchmarkDiffAddedSource(b *testing.B) {
	r := rand.New(rand.NewSource(2))
	var old []string
	for k := 0; k < 4000; k++ {
		old = append(old, strings.Repeat("\t", r.Intn(4))+fmt.Sprintf("x%d := call(%s)", k, strings.Repeat("a", r.Intn(90))))
	}
	nw := append(append(append([]string{}, old[:2000]...), "\tadded := 1", "\tother := 2"), old[2003:]...)
	a, c := newRecords([]byte(joinLines(old, "\n", true))), newRecords([]byte(joinLines(nw, "\n", true)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		diffAdded(a, c)
	}
}

// TestClassifierFilter: lookup finds exactly the classified records,
// short and long, through the filter that skips hashing the others.
func TestClassifierFilter(t *testing.T) {
	cf := newClassifier(4)
	long := bytes.Repeat([]byte("L"), filterBits+5)
	edge := bytes.Repeat([]byte("E"), 1023)
	for _, r := range [][]byte{[]byte("abc\n"), long, edge, {}} {
		cf.classify(r)
	}
	for _, tc := range []struct {
		rec  []byte
		want bool
	}{
		{[]byte("abc\n"), true}, {[]byte("abd\n"), false}, {[]byte("abcd\n"), false},
		{long, true}, {append(append([]byte{}, long...), 'x'), false}, {edge, true}, {[]byte{}, true}, {[]byte("\n"), false},
	} {
		if got := cf.lookup(tc.rec) >= 0; got != tc.want {
			t.Errorf("lookup of %d bytes: found %v, want %v", len(tc.rec), got, tc.want)
		}
	}
}

// TestDiffReuse checks that diffs on one reused xenv (as a history worker
// runs them) equal diffs on fresh ones, whatever came before: pairs of
// varied sizes, pure insertions and deletions, an empty old side, with and
// without release between them.
func TestDiffReuse(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var vocab []string
	for k := 0; k < 40; k++ {
		vocab = append(vocab, fmt.Sprintf("line %d", k))
	}
	var x xenv
	for i := 0; i < 300; i++ {
		old := randomText(r, r.Intn([]int{5, 60, 700}[i%3]), vocab)
		nw := mutate(r, old, vocab, r.Intn(8))
		switch i % 7 {
		case 3:
			nw = append(append([]string{}, old...), "tail 1", "tail 2") // pure insertion
		case 5:
			old = nil
		case 6:
			nw = old[:len(old)/2] // pure deletion
		}
		a := newRecords([]byte(joinLines(old, "\n", true)))
		b := newRecords([]byte(joinLines(nw, "\n", r.Intn(2) == 0)))
		wantRm, wantAdd := diffChanged(a, b)
		gotRm, gotAdd := x.diff(a, b)
		if !slices.Equal(gotRm, wantRm) || !slices.Equal(gotAdd, wantAdd) {
			t.Fatalf("pair %d: reused xenv differs from a fresh one", i)
		}
		if i%4 == 0 {
			x.release()
		}
	}
}

// FuzzDiffReuse: diffing a pair after another pair on the same xenv
// gives what a fresh xenv gives.
func FuzzDiffReuse(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nx\nc\n"), []byte("1\n2\n"), []byte("1\n3\n2\n"))
	f.Add([]byte(""), []byte("a\n"), []byte("a\nb\nb\nb\n"), []byte("b\nb\na\n"))
	f.Add([]byte("x\ny\n"), []byte("x\ny\nz"), []byte("p\n"), []byte(""))
	f.Fuzz(func(t *testing.T, a0, b0, a1, b1 []byte) {
		var x xenv
		x.diff(newRecords(a0), newRecords(b0))
		a, b := newRecords(a1), newRecords(b1)
		wantRm, wantAdd := diffChanged(a, b)
		gotRm, gotAdd := x.diff(a, b)
		if !slices.Equal(gotRm, wantRm) || !slices.Equal(gotAdd, wantAdd) {
			t.Fatal("reused xenv differs from a fresh one")
		}
	})
}

// checkShortcuts diffs a against b with prepare's shortcuts
// (commonRecords, classifyAligned) and record by record (plain), and fails
// unless both mark the same records changed, the shortcut's common head
// and tail are never more than the records really in common, and every
// class holds one content.
func checkShortcuts(t *testing.T, a, b []byte) {
	t.Helper()
	ra, rb := newRecords(a), newRecords(b)
	var ref xenv
	ref.plain = true
	wantRm, wantAdd := ref.diff(ra, rb)
	wantRm, wantAdd = slices.Clone(wantRm), slices.Clone(wantAdd)
	var x xenv
	gotRm, gotAdd := x.diff(ra, rb)
	if !slices.Equal(gotRm, wantRm) || !slices.Equal(gotAdd, wantAdd) {
		t.Fatalf("shortcut diff differs from the record-by-record one\nold %q\nnew %q", a, b)
	}
	head, tail := commonRecords(ra, rb)
	lim := min(ra.n(), rb.n())
	for i := 0; i < head; i++ {
		if !bytes.Equal(ra.at(i), rb.at(i)) {
			t.Fatalf("commonRecords: head %d, but record %d differs\nold %q\nnew %q", head, i, a, b)
		}
	}
	if head > lim || tail > lim-head {
		t.Fatalf("commonRecords: head %d tail %d of %d and %d records", head, tail, ra.n(), rb.n())
	}
	for i := 0; i < tail; i++ {
		if !bytes.Equal(ra.at(ra.n()-1-i), rb.at(rb.n()-1-i)) {
			t.Fatalf("commonRecords: tail %d, but record %d from the end differs\nold %q\nnew %q", tail, i, a, b)
		}
	}
	seen := map[string]bool{}
	for _, l := range x.cf.lines {
		if seen[string(l)] {
			t.Fatalf("two classes hold %q", l)
		}
		seen[string(l)] = true
	}
}

// TestDiffShortcuts compares prepare's shortcuts with the record-by-record
// prepare on random pairs: edits at several places, repeated lines, CRLF,
// files without a final newline, one file a prefix or suffix of the other.
func TestDiffShortcuts(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	vocabs := [][]string{
		{"a", "b", "c", "", "}", "{"},
		{"x", "y"},
		{"  one", "    two", "", "three", "  }", "{", "\t\tfour"},
	}
	var uniq []string
	for k := 0; k < 3000; k++ {
		uniq = append(uniq, fmt.Sprintf("\t\"dep-%d\": \"1.%d.0\",", k, k%7))
	}
	vocabs = append(vocabs, uniq)
	for i := 0; i < 3000; i++ {
		vocab := vocabs[r.Intn(len(vocabs))]
		old := randomText(r, r.Intn([]int{8, 80, 2000}[i%3]), vocab)
		nw := mutate(r, old, vocab, r.Intn(6))
		switch i % 9 {
		case 4:
			nw = append(append([]string{}, old...), randomText(r, 2, vocab)...)
		case 5:
			nw = append(randomText(r, 2, vocab), old...)
		case 6:
			nw = old[:len(old)/2]
		case 7:
			nw = old[len(old)/2:]
		}
		eol := "\n"
		if r.Intn(8) == 0 {
			eol = "\r\n"
		}
		checkShortcuts(t, []byte(joinLines(old, eol, r.Intn(4) != 0)), []byte(joinLines(nw, eol, r.Intn(4) != 0)))
	}
}

// FuzzDiffShortcuts: prepare's shortcuts mark the records the
// record-by-record prepare marks, whatever the pair.
func FuzzDiffShortcuts(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nx\nc\n"))
	f.Add([]byte("a\nb\nc"), []byte("a\nb\nc\nd"))
	f.Add([]byte("a\nb\nc\n"), []byte("b\nc\n"))
	f.Add([]byte("x\ny\nz\n"), []byte("x\ny\nz"))
	f.Add([]byte("}\n}\nq\n}\n"), []byte("}\nq\n}\n}\n"))
	f.Add([]byte("1\n2\n3\n4\n5\n6\n"), []byte("1\n2\nX\n3\n4\n6\n5\n"))
	f.Add([]byte(""), []byte("a\n"))
	f.Add([]byte("ab"), []byte("b"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkShortcuts(t, a, b)
	})
}
