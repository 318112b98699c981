package leaktest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/sarif"
	"github.com/privscan/privscan/scanner"
)

// compileCatalog parses and compiles markdown.
func compileCatalog(t *testing.T, markdown string) *catalog.Matcher {
	t.Helper()
	c, err := catalog.Parse([]byte(markdown))
	if err != nil {
		t.Fatalf("parsing the test catalog: %v", err)
	}
	m, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatalf("compiling the test catalog: %v", err)
	}
	return m
}

// newRenderer returns the handler the CLI uses for format.
func newRenderer(format string, w io.Writer) finding.Handler {
	tool := render.ToolInfo{Name: "privscan", Version: "test"}
	switch format {
	case "json":
		return render.NewJSON(w, tool)
	case "sarif":
		return sarif.NewHandler(w, sarif.Options{ToolVersion: "test"})
	case "github":
		return render.NewGitHub(w)
	case "markdown":
		return render.NewMarkdown(w)
	}
	return render.NewText(w)
}

// panicky is a detector that crashes with the text it was given (and a
// canary) in its panic value, after the catalog detector has matched.
type panicky struct{ extra string }

func (panicky) Name() string { return "panicky" }

func (p panicky) Detect(f *scanner.Fragment, emit func(scanner.Match)) {
	for _, l := range f.Lines {
		if len(l.Text) > 0 {
			panic(fmt.Errorf("detector crashed on %q near %s", l.Text, p.extra))
		}
	}
}

// panicMatrix: the CLI offers no seam for injecting a detector, so the
// engine (scanner.Run and the Redactor) runs with the real detectors plus
// a panicking one, feeding every renderer; the error goes through the
// CLI's error report. Nothing the panic carried may come out.
func (w *world) panicMatrix(t *testing.T) {
	c := w.c
	prText, err := os.ReadFile(filepath.Join(w.inputs, "pr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m := compileCatalog(t, catalogMarkdown(c, c.fpKey))
	opts, err := engine.New(engine.Config{}).Options(m)
	if err != nil {
		t.Fatal(err)
	}
	opts.Detectors = append(opts.Detectors, panicky{extra: c.persons[0] + " " + c.email})
	for _, format := range formats {
		var out, stderr bytes.Buffer
		_, err := scanner.Run(context.Background(), &scanner.TextSource{R: bytes.NewReader(prText)}, opts, newRenderer(format, &out))
		label := "engine+renderer " + format + " [err:detector-panic]"
		w.count("panic", "engine", format, "err:detector-panic")
		if !errors.Is(err, scanner.ErrDetectorPanic) {
			t.Errorf("%s: error %v, want scanner.ErrDetectorPanic", label, err)
		}
		if code := cli.Report(&stderr, err); code != cli.ExitError {
			t.Errorf("%s: exit code %d, want %d", label, code, cli.ExitError)
		}
		w.check(t, label, map[string][]byte{"report": out.Bytes(), "stderr": stderr.Bytes(), "error": []byte(fmt.Sprintf("%v %+v %#v", err, err, err))})
	}
	var out, stderr bytes.Buffer
	err = scanner.NewRedactor(opts).Copy(context.Background(), &out, bytes.NewReader(prText))
	w.count("panic", "redactor", "", "err:detector-panic")
	if !errors.Is(err, scanner.ErrDetectorPanic) {
		t.Errorf("redactor: error %v, want scanner.ErrDetectorPanic", err)
	}
	cli.Report(&stderr, err)
	w.check(t, "redactor [err:detector-panic]", map[string][]byte{"stdout": out.Bytes(), "stderr": stderr.Bytes(), "error": []byte(fmt.Sprintf("%v %+v %#v", err, err, err))})
}

// leakyDetector is the deliberately leaking component of the self-test:
// it reports every catalog match with the matched text, spelled by spell,
// as the rule's description, which every renderer prints.
type leakyDetector struct {
	inner *engine.CatalogDetector
	spell func(matched []byte) string
}

func (leakyDetector) Name() string { return "leaky" }

func (d leakyDetector) Detect(f *scanner.Fragment, emit func(scanner.Match)) {
	d.inner.Detect(f, func(m scanner.Match) {
		leaked := d.spell(f.Lines[m.Line].Text[m.Start:m.End])
		m.Description, m.Category = leaked, leaked
		emit(m)
	})
}

// TestHarnessCatchesLeaks proves the matrix can fail: a renderer fed by a
// leaking detector writes the matched text in each encoding the harness
// knows, through the same assertion code, and each must be caught.
func TestHarnessCatchesLeaks(t *testing.T) {
	c := newCanaries(seed(t))
	det := newDetector(c.secrets())
	m := compileCatalog(t, catalogMarkdown(c, c.fpKey))
	text := c.persons[0] + " and " + c.persons[1] + "\n"

	spellings := leakSpellings()
	caught := map[string]int{}
	for _, sp := range spellings {
		for _, format := range formats {
			var out bytes.Buffer
			opts := scanner.Options{Detectors: []scanner.Detector{leakyDetector{inner: engine.NewCatalogDetector(m), spell: sp.fn}}}
			if _, err := scanner.Run(context.Background(), &scanner.TextSource{R: strings.NewReader(text)}, opts, newRenderer(format, &out)); err != nil {
				t.Fatal(err)
			}
			hit := false
			for _, l := range det.find(format, out.Bytes()) {
				if sp.want[baseForm(l.Form)] {
					hit = true
				}
			}
			if hit {
				caught[sp.name]++
			} else if format == "text" {
				// The text renderer prints the description as it is
				// (control characters aside): every spelling must be
				// caught there.
				t.Errorf("the harness missed a %s leak in the text renderer's output:\n%s", sp.name, out.Bytes())
			}
		}
		if caught[sp.name] == 0 {
			t.Errorf("the %s leak was caught in no renderer", sp.name)
		}
	}
	// And through the matrix's own check, which must fail the test it is
	// given: run it on a throw-away testing.T.
	w := &world{det: det, cases: map[string]int{}}
	var out bytes.Buffer
	opts := scanner.Options{Detectors: []scanner.Detector{leakyDetector{inner: engine.NewCatalogDetector(m), spell: func(b []byte) string { return string(b) }}}}
	if _, err := scanner.Run(context.Background(), &scanner.TextSource{R: strings.NewReader(text)}, opts, newRenderer("text", &out)); err != nil {
		t.Fatal(err)
	}
	ft := &fakeT{}
	w.checkWith(ft, "self-test", map[string][]byte{"stdout": out.Bytes()})
	if ft.errors == 0 {
		t.Error("world.check passed a leaking output")
	}
	// No false alarm on the clean renderer.
	out.Reset()
	opts.Detectors = []scanner.Detector{engine.NewCatalogDetector(m)}
	if _, err := scanner.Run(context.Background(), &scanner.TextSource{R: strings.NewReader(text)}, opts, newRenderer("json", &out)); err != nil {
		t.Fatal(err)
	}
	if l := det.find("clean", out.Bytes()); len(l) > 0 {
		t.Errorf("false alarm on a clean report: %v", l)
	}
	var b strings.Builder
	for _, sp := range spellings {
		fmt.Fprintf(&b, " %s:%d/%d", sp.name, caught[sp.name], len(formats))
	}
	t.Logf("self-test: leaks caught per spelling (renderers):%s; %d needles for %d canaries", b.String(), len(det.needles), len(det.canaries))
}

// fakeT counts the errors check reports.
type fakeT struct{ errors int }

func (*fakeT) Helper()                 {}
func (f *fakeT) Errorf(string, ...any) { f.errors++ }

// leakSpelling is one way a leaking component could write matched text,
// and the needle forms that catch it.
type leakSpelling struct {
	name string
	fn   func([]byte) string
	want map[string]bool
}

func leakSpellings() []leakSpelling {
	set := func(forms ...string) map[string]bool {
		m := map[string]bool{}
		for _, f := range forms {
			m[f] = true
		}
		return m
	}
	plain := set("plain")
	sp := []leakSpelling{
		{"plain", func(b []byte) string { return string(b) }, plain},
		{"lower", func(b []byte) string { return strings.ToLower(string(b)) }, plain},
		{"upper", func(b []byte) string { return strings.ToUpper(string(b)) }, plain},
		{"mixed-case", func(b []byte) string { return mixCase(string(b)) }, plain},
		{"nfd", func(b []byte) string { return norm.NFD.String(string(b)) }, plain},
		{"blank-runs", func(b []byte) string { return strings.ReplaceAll(string(b), " ", " \t  ") }, plain},
		{"query-escape", func(b []byte) string { return url.QueryEscape(string(b)) }, set("query-escape", "path-escape", "plain")},
		{"path-escape", func(b []byte) string { return url.PathEscape(string(b)) }, set("path-escape", "query-escape", "plain")},
		{"json-escape", func(b []byte) string { return jsonEscape(string(b)) }, set("json", "plain")},
		{"json-ascii", func(b []byte) string { return jsonASCII(string(b)) }, set("json-ascii")},
		{"json-ascii-upper", func(b []byte) string { return strings.ToUpper(jsonASCII(string(b))) }, set("json-ascii")},
		{"hex", func(b []byte) string { return hex.EncodeToString(b) }, set("hex")},
		{"hex-upper", func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }, set("hex")},
		{"hex-nfd", func(b []byte) string { return hex.EncodeToString([]byte(norm.NFD.String(string(b)))) }, set("hex")},
	}
	for align := 0; align < 3; align++ {
		prefix := strings.Repeat("#", align)
		for _, enc := range []struct {
			name string
			e    *base64.Encoding
		}{{"std", base64.StdEncoding}, {"url", base64.URLEncoding}, {"raw-std", base64.RawStdEncoding}} {
			a := fmt.Sprint(align)
			sp = append(sp, leakSpelling{
				name: "base64-" + enc.name + "@" + a,
				fn:   func(b []byte) string { return enc.e.EncodeToString(append([]byte(prefix), b...)) },
				want: set("base64-std@"+a, "base64-url@"+a),
			})
		}
		a := fmt.Sprint(align)
		sp = append(sp, leakSpelling{
			name: "base64-lower@" + a,
			fn: func(b []byte) string {
				return base64.StdEncoding.EncodeToString(append([]byte(prefix), bytes.ToLower(b)...))
			},
			want: set("base64-std@"+a, "base64-url@"+a),
		})
	}
	return sp
}

// mixCase alternates the case of letters.
func mixCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i%2 == 0 {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
