package hostile

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// longLine is one line of n bytes with the name at about a half and the ID
// at the end; it returns the byte offsets of both.
func longLine(n int) (line []byte, nameAt, idAt int) {
	var b bytes.Buffer
	b.Grow(n)
	for b.Len() < n/2 {
		b.WriteString("lorem ipsum dolor sit amet ")
	}
	nameAt = b.Len()
	b.WriteString(canaryName + " ")
	for b.Len() < n-len(canaryID)-1 {
		b.WriteString("consectetur adipiscing elit ")
	}
	b.Truncate(n - len(canaryID) - 1)
	b.WriteByte(' ')
	idAt = b.Len()
	b.WriteString(canaryID)
	return b.Bytes(), nameAt, idAt
}

// TestLongLine: a 10 MiB single line through text, redact and diff: both
// values are found at the right columns, redact copies every other byte.
func TestLongLine(t *testing.T) {
	// -race makes matching ~20x slower: 1 MiB by default, 10 MiB with
	// PRIVSCAN_HOSTILE_BIG=1.
	line, nameAt, idAt := longLine(scaled(1<<20, 10<<20))
	env := newEnv(t)
	dir := t.TempDir()
	want := []string{
		fmt.Sprintf("catalog/PER-001@:1:%d-%d", nameAt+1, nameAt+1+len(canaryName)),
		fmt.Sprintf("catalog/EMP-ID@:1:%d-%d", idAt+1, idAt+1+len(canaryID)),
	}
	t.Run("text", func(t *testing.T) {
		start := time.Now()
		r := run(t, dir, env, bytes.NewReader(line), 5*time.Minute, "text", "-", "--format", "json")
		t.Logf("text of a %d MiB line: %s", len(line)>>20, time.Since(start).Round(time.Millisecond))
		if r.code != 1 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		noLeak(t, "stdout", r.stdout)
		noLeak(t, "stderr", r.stderr)
		if got := decode(t, r).located(); !reflect.DeepEqual(got, want) {
			t.Fatalf("findings %v, want %v", got, want)
		}
	})
	t.Run("redact", func(t *testing.T) {
		r := run(t, dir, env, bytes.NewReader(line), 5*time.Minute, "redact", "-")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		wantOut := string(line[:nameAt]) + "[person:1]" + string(line[nameAt+len(canaryName):idAt]) + "[employee-id:1]"
		if r.stdout != wantOut {
			t.Fatalf("redacted output differs from the input outside the matches (len %d, want %d)", len(r.stdout), len(wantOut))
		}
		noLeak(t, "stderr", r.stderr)
	})
	t.Run("diff", func(t *testing.T) {
		repo := filepath.Join(t.TempDir(), "repo")
		gitRepo(t, repo)
		writeFile(t, filepath.Join(repo, "README"), []byte("hello\n"))
		commitAll(t, repo, "first")
		writeFile(t, filepath.Join(repo, "bundle.min.js"), append(line, '\n'))
		commitAll(t, repo, "second")
		r := run(t, repo, env, nil, 5*time.Minute, "diff", "HEAD~1..HEAD", "--format", "json")
		noLeak(t, "stdout", r.stdout)
		noLeak(t, "stderr", r.stderr)
		var got []string
		for _, l := range decode(t, r).located() {
			got = append(got, strings.Replace(l, "@bundle.min.js:", "@:", 1))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("findings %v, want %v", got, want)
		}
	})
}

// TestNULAndInvalidUTF8: NUL bytes and invalid UTF-8 around values do not
// hide them, columns count an invalid byte as one code point, and redact
// copies the broken bytes unchanged.
func TestNULAndInvalidUTF8(t *testing.T) {
	env := newEnv(t)
	dir := t.TempDir()
	in := "a\x00b " + canaryName + " \xff\xfe\xc3( " + canaryID + "\x00\n\xed\xa0\x80 " + canaryHost + " \xf4\x90\x80\x80\n"
	r := run(t, dir, env, strings.NewReader(in), time.Minute, "text", "-", "--format", "json")
	noLeak(t, "stdout", r.stdout)
	noLeak(t, "stderr", r.stderr)
	got := decode(t, r).located()
	want := []string{
		"catalog/PER-001@:1:5-23",
		"catalog/EMP-ID@:1:29-39",
		// "\xed\xa0\x80" (a surrogate) is three invalid bytes: three columns.
		"catalog/HOST@:2:5-32",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	for _, format := range []string{"text", "sarif", "github", "markdown"} {
		r := run(t, dir, env, strings.NewReader(in), time.Minute, "text", "-", "--format", format)
		if r.code != 1 {
			t.Errorf("%s: exit %d: %s", format, r.code, r.stderr)
		}
		noLeak(t, format, r.stdout+r.stderr)
		if strings.ContainsRune(r.stdout, 0) || strings.Contains(r.stdout, "\xff") {
			t.Errorf("%s output copies raw input bytes", format)
		}
	}

	rr := run(t, dir, env, strings.NewReader(in), time.Minute, "redact", "-")
	wantOut := "a\x00b [person:1] \xff\xfe\xc3( [employee-id:1]\x00\n\xed\xa0\x80 [internal-host:1] \xf4\x90\x80\x80\n"
	if rr.code != 0 || rr.stdout != wantOut {
		t.Fatalf("redact: exit %d, output %q, want %q", rr.code, rr.stdout, wantOut)
	}

	// In a repository: a NUL in git's probe makes a file binary (skipped and
	// counted); invalid UTF-8 alone does not.
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo)
	commitAll(t, repo, "empty")
	writeFile(t, filepath.Join(repo, "latin1.txt"), []byte("caf\xe9 "+canaryName+"\n"))
	writeFile(t, filepath.Join(repo, "nul.bin"), []byte("x\x00"+canaryName+"\n"))
	commitAll(t, repo, "add")
	dr := run(t, repo, env, nil, time.Minute, "diff", "HEAD~1..HEAD", "--format", "json")
	rep := decode(t, dr)
	if got := rep.located(); !reflect.DeepEqual(got, []string{"catalog/PER-001@latin1.txt:1:6-24"}) {
		t.Fatalf("diff findings %v", got)
	}
	if rep.Summary.Skipped["binary"] != 1 {
		t.Fatalf("skipped %v, want one binary file", rep.Summary.Skipped)
	}
	noLeak(t, "diff", dr.stdout+dr.stderr)
}

// TestLineEndings: CRLF ends a line (the CR is not part of it); a lone CR
// does not end a line, as in git. Redact keeps every ending.
func TestLineEndings(t *testing.T) {
	env := newEnv(t)
	dir := t.TempDir()
	in := "one\r\n" + canaryName + "\r\nx\r" + canaryID + "\r\n\r\n\r" + canaryHost + "\r"
	r := run(t, dir, env, strings.NewReader(in), time.Minute, "text", "-", "--format", "json")
	got := decode(t, r).located()
	want := []string{
		"catalog/PER-001@:2:1-19",
		"catalog/EMP-ID@:3:3-13",
		"catalog/HOST@:5:2-29",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	noLeak(t, "text", r.stdout+r.stderr)

	rr := run(t, dir, env, strings.NewReader(in), time.Minute, "redact", "-")
	wantOut := "one\r\n[person:1]\r\nx\r[employee-id:1]\r\n\r\n\r[internal-host:1]\r"
	if rr.stdout != wantOut {
		t.Fatalf("redact = %q, want %q", rr.stdout, wantOut)
	}

	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo)
	git(t, repo, "config", "core.autocrlf", "false")
	commitAll(t, repo, "empty")
	writeFile(t, filepath.Join(repo, "crlf.txt"), []byte(in))
	commitAll(t, repo, "add")
	dr := run(t, repo, env, nil, time.Minute, "diff", "HEAD~1..HEAD", "--format", "json")
	var gotDiff []string
	for _, l := range decode(t, dr).located() {
		gotDiff = append(gotDiff, strings.Replace(l, "@crlf.txt:", "@:", 1))
	}
	if !reflect.DeepEqual(gotDiff, want) {
		t.Fatalf("diff findings %v, want %v", gotDiff, want)
	}
}

// TestBinaryAfterProbe: git looks for a NUL in the first 8000 bytes only;
// a file whose NULs start later is text to git, and so to privscan: values
// before and after the NULs are found. A NUL inside the probe makes the
// file binary: skipped and counted.
func TestBinaryAfterProbe(t *testing.T) {
	env := newEnv(t)
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo)
	commitAll(t, repo, "empty")

	var late bytes.Buffer
	late.WriteString(canaryName + "\n")
	for late.Len() < 8100 {
		late.WriteString("plain text line\n")
	}
	late.Write(bytes.Repeat([]byte{0, 1, 2, 0xff}, 4096))
	late.WriteString("\n" + canaryID + "\n")
	writeFile(t, filepath.Join(repo, "late.dat"), late.Bytes())

	early := bytes.Repeat([]byte("a"), 7999)
	early = append(early, 0)
	early = append(early, "\n"+canaryName+"\n"...)
	writeFile(t, filepath.Join(repo, "early.dat"), early)
	commitAll(t, repo, "add")

	// git's own verdict, for reference: "-" marks a binary file.
	numstat := git(t, repo, "diff", "--numstat", "HEAD~1", "HEAD")
	if !strings.Contains(numstat, "-\t-\tearly.dat") || strings.Contains(numstat, "-\t-\tlate.dat") {
		t.Fatalf("git's verdict changed: %s", numstat)
	}
	lines := bytes.Count(late.Bytes(), []byte("\n"))

	for _, args := range [][]string{{"diff", "HEAD~1..HEAD"}, {"history"}, {"scan"}} {
		r := run(t, repo, env, nil, time.Minute, append(args, "--format", "json")...)
		noLeak(t, args[0], r.stdout+r.stderr)
		rep := decode(t, r)
		got := rep.located()
		want := []string{"catalog/PER-001@late.dat:1:1-19", fmt.Sprintf("catalog/EMP-ID@late.dat:%d:1-11", lines)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: findings %v, want %v", args[0], got, want)
		}
		if rep.Summary.Skipped["binary"] != 1 {
			t.Errorf("%s: skipped %v, want early.dat as binary", args[0], rep.Summary.Skipped)
		}
	}
}

// patchStream generates a unified patch of about size bytes with the name
// planted every 97th line; it reports how many it planted.
type patchStream struct {
	size, n int
	line    int // generator steps
	lines   int // lines written
	planted int
	buf     []byte
}

func (p *patchStream) Read(b []byte) (int, error) {
	for len(p.buf) < len(b) && p.n < p.size {
		var chunk []byte
		switch {
		case p.line%1000 == 0:
			f := p.line / 1000
			chunk = fmt.Appendf(nil, "diff --git a/src/f%d.go b/src/f%d.go\n--- a/src/f%d.go\n+++ b/src/f%d.go\n@@ -1,3 +1,1000 @@\n", f, f, f, f)
		case p.line%97 == 0:
			chunk = fmt.Appendf(nil, "+\t// contact %s about case %d\n", canaryName, p.line)
			p.planted++
		default:
			chunk = fmt.Appendf(nil, "+\tx := compute(%d, \"lorem ipsum dolor sit amet\") // line\n", p.line)
		}
		p.line++
		p.lines += bytes.Count(chunk, []byte("\n"))
		p.n += len(chunk)
		p.buf = append(p.buf, chunk...)
	}
	if len(p.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.buf)
	p.buf = p.buf[:copy(p.buf, p.buf[n:])]
	return n, nil
}

// countingWriter counts bytes and placeholder occurrences without keeping
// the output; it also notes whether the name ever appears.
type countingWriter struct {
	n      int64
	places int
	tail   []byte
	leaked bool
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n += int64(len(b))
	joined := append(w.tail, b...)
	// Count the placeholders that end inside b: one that ended in the tail
	// was counted by the previous call.
	ph := []byte("[person:1]")
	for i := 0; ; {
		j := bytes.Index(joined[i:], ph)
		if j < 0 {
			break
		}
		if i+j+len(ph) > len(w.tail) {
			w.places++
		}
		i += j + len(ph)
	}
	if bytes.Contains(joined, []byte(canaryName)) {
		w.leaked = true
	}
	keep := min(len(joined), len(canaryName)-1)
	w.tail = append(w.tail[:0], joined[len(joined)-keep:]...)
	return len(b), nil
}

// TestStreamMemory: text and redact stream their input; the peak Go heap
// stays under a fixed bound whatever the input's size. The text pipeline
// holds at most 64 fragments of 256 KiB in flight (about 26 MiB of lines
// and Line headers, twice that between collections): 96 MiB. Redact works
// a 256 KiB batch at a time: 16 MiB. The inputs are large enough that
// holding them would break the bounds: 128 MiB (text) and 64 MiB (redact),
// catalog only; with PRIVSCAN_HOSTILE_BIG=1, 1 GiB with every detector on.
// Under -race (20x slower) the streams shrink to 16 MiB and only their
// results are checked; the heap figure is logged.
func TestStreamMemory(t *testing.T) {
	env := newEnv(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "catalog-only.toml")
	writeFile(t, cfg, []byte(catalogOnly))
	cfgArgs := []string{"--config", cfg}
	if big() {
		cfgArgs = nil
	}
	sizes := map[string]int{"text": scaled(128<<20, 1<<30), "redact": scaled(64<<20, 1<<30)}
	check := true
	if raceEnabled && !big() {
		sizes = map[string]int{"text": 16 << 20, "redact": 16 << 20}
		check = false
	}
	limits := map[string]int64{"text": 96 << 20, "redact": 16 << 20}
	for _, verb := range []string{"text", "redact"} {
		t.Run(verb, func(t *testing.T) {
			measure := func(size int) (childResult, *patchStream, *countingWriter) {
				t.Helper()
				ps := &patchStream{size: size}
				cw := &countingWriter{}
				args := append([]string{verb, "-", "-q"}, cfgArgs...)
				if verb == "text" {
					args = append(args, "--format", "json")
				}
				var out io.Writer = cw
				var js bytes.Buffer
				if verb == "text" {
					out = &js
				}
				res := runChild(t, dir, env, ps, out, scaled(10*time.Minute, 60*time.Minute), args...)
				if verb == "text" {
					if res.code != 1 {
						t.Fatalf("exit %d: %s", res.code, res.stderr)
					}
					rep := decode(t, result{code: res.code, stdout: js.String(), stderr: res.stderr})
					if n := countRule(rep, "catalog/PER-001"); n != ps.planted || rep.Summary.LinesScanned != ps.lines {
						t.Fatalf("%d findings for %d planted, %d lines for %d", n, ps.planted, rep.Summary.LinesScanned, ps.lines)
					}
					noLeak(t, "stdout", js.String())
				} else {
					if res.code != 0 {
						t.Fatalf("exit %d: %s", res.code, res.stderr)
					}
					wantLen := int64(ps.n) - int64(ps.planted)*int64(len(canaryName)-len("[person:1]"))
					if cw.leaked || cw.places != ps.planted || cw.n != wantLen {
						t.Fatalf("redact: %d bytes (want %d), %d placeholders (want %d), name left: %v", cw.n, wantLen, cw.places, ps.planted, cw.leaked)
					}
				}
				noLeak(t, "stderr", res.stderr)
				return res, ps, cw
			}
			res, ps, _ := measure(sizes[verb])
			t.Logf("%s: %d MiB in %s: peak heap %d MiB, peak RSS %d MiB; %d values planted",
				verb, ps.n>>20, res.wall.Round(time.Millisecond), res.heap>>20, res.maxRSS>>20, ps.planted)
			if res.heap == 0 {
				t.Fatal("no heap figure from the child")
			}
			if limit := limits[verb]; check && res.heap > limit {
				t.Fatalf("peak heap %d MiB for %d MiB of input (limit %d MiB): the input is held", res.heap>>20, ps.n>>20, limit>>20)
			}
		})
	}
}

func countRule(r *report, rule string) int {
	n := 0
	for _, f := range r.Findings {
		if f.RuleID == rule {
			n++
		}
	}
	return n
}
