package secrets

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

var update = flag.Bool("update", false, "write index_gen.go (go generate)")

// indexFile is the generated index.
const indexFile = "index_gen.go"

// TestGeneratedIndex checks that the generated index is the index of the
// linked gitleaks version's default configuration, or with -update (go
// generate) writes it.
func TestGeneratedIndex(t *testing.T) {
	ix, err := generateIndex(config.DefaultConfig, *update)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		src, err := indexSource(ix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(indexFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !genIndex.fits(config.DefaultConfig) {
		t.Fatal("gitleaks default config changed: run go generate ./internal/secrets")
	}
	// Every rule and the allowlists fit the mirror types (else they would
	// be decoded from TOML at run time, correct but slower).
	for _, r := range ix.rules {
		if r.data == nil {
			t.Errorf("rule %s does not fit viperRuleData: update the mirror types in index.go", r.id)
		}
	}
	if !ix.allowData {
		t.Error("the global allowlists do not fit viperAllowlistData: update the mirror types in index.go")
	}
	// Leave out what the generated index leaves out (cleanIndex, checked
	// by TestGeneratedIndexClean).
	for i := range ix.rules {
		if i < len(genIndex.rules) && genIndex.rules[i].data == nil {
			ix.rules[i].data = nil
		}
	}
	if !genIndex.allowData {
		ix.allowlists, ix.allowData = nil, false
	}
	if !reflect.DeepEqual(&genIndex, ix) {
		t.Fatal("generated index is stale: run go generate ./internal/secrets")
	}
}

// generateIndex indexes the configuration text src, with the spans of its
// rule and global allowlist tables, and checks that each of those tables
// decodes on its own to what the whole text decodes to. If clean, it
// leaves out the data privscan would report (cleanIndex).
func generateIndex(src string, clean bool) (*index, error) {
	var vc config.ViperConfig
	if err := toml.Unmarshal([]byte(src), &vc); err != nil {
		return nil, err
	}
	if err := foldAllowlist(&vc); err != nil {
		return nil, err
	}
	ix, err := indexConfig(&vc)
	if err != nil {
		return nil, err
	}
	ix.digest = sha256.Sum256([]byte(src))
	if digest(src) != ix.digest {
		return nil, errors.New("digest differs from sha256.Sum256")
	}
	ix.size = len(src)
	rules, allows, err := splitConfig(src)
	if err != nil {
		return nil, err
	}
	if len(rules) != len(vc.Rules) {
		return nil, fmt.Errorf("%d [[rules]] tables found, %d rules decoded", len(rules), len(vc.Rules))
	}
	for i := range ix.rules {
		r := &ix.rules[i]
		r.span = rules[r.vcIndex]
		var one config.ViperConfig
		if err := toml.Unmarshal([]byte(src[r.span[0]:r.span[1]]), &one); err != nil {
			return nil, fmt.Errorf("rule %s alone: %w", r.id, err)
		}
		if len(one.Rules) != 1 || !reflect.DeepEqual(one.Rules[0], vc.Rules[r.vcIndex]) {
			return nil, fmt.Errorf("rule %s alone decodes differently", r.id)
		}
	}
	ix.allowSpans = allows
	tb := newTable(ix, src, config.ViperConfig{})
	al, err := tb.allowlists()
	if err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(al.Allowlists, vc.Allowlists) {
		return nil, errors.New("global allowlists alone decode differently")
	}
	// The decoded rules and allowlists as static data, where their
	// mirrors hold them whole.
	for i := range ix.rules {
		r := &ix.rules[i]
		data := &viperRuleData{}
		if fillViper(reflect.ValueOf(data).Elem(), reflect.ValueOf(vc.Rules[r.vcIndex])) != nil || !writable(reflect.ValueOf(data)) {
			continue
		}
		var back config.ViperConfig
		if fillRule(&back, data) == nil && reflect.DeepEqual(back.Rules[0], vc.Rules[r.vcIndex]) {
			r.data = data
		}
	}
	var data []*viperAllowlistData
	if fillViper(reflect.ValueOf(&data).Elem(), reflect.ValueOf(vc.Allowlists)) == nil && writable(reflect.ValueOf(data)) {
		var back config.ViperConfig
		if fillViper(reflect.ValueOf(&back.Allowlists).Elem(), reflect.ValueOf(data)) == nil && reflect.DeepEqual(back.Allowlists, vc.Allowlists) {
			ix.allowlists, ix.allowData = data, true
		}
	}
	if clean {
		if err := cleanIndex(ix); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// TestGeneratedIndexClean checks that the secret rules report nothing in
// index_gen.go (scanning it builds every rule's detectors: not under the
// race detector).
func TestGeneratedIndexClean(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow")
	}
	src, err := os.ReadFile(indexFile)
	if err != nil {
		t.Fatal(err)
	}
	d := newDetector(t)
	d.Detect(&scanner.Fragment{Kind: finding.KindFile, Path: "internal/secrets/" + indexFile, Lines: lines(strings.Split(string(src), "\n")...)},
		func(m scanner.Match) { t.Errorf("%s:%d: %s", indexFile, m.Line+1, m.RuleID) })
}

// cleanIndex drops from ix the decoded data whose text in index_gen.go
// privscan would report as a secret (a rule whose regex is a literal
// token, as gitleaks.toml itself is allowlisted by path): those rules
// are decoded from their TOML tables instead.
func cleanIndex(ix *index) error {
	d, err := New()
	if err != nil {
		return err
	}
	for {
		src, err := indexSource(ix)
		if err != nil {
			return err
		}
		text := strings.Split(string(src), "\n")
		var hits []int
		d.Detect(&scanner.Fragment{Kind: finding.KindFile, Path: "internal/secrets/" + indexFile, Lines: lines(text...)},
			func(m scanner.Match) { hits = append(hits, m.Line) })
		if len(hits) == 0 {
			return nil
		}
		changed := false
		for _, hit := range hits {
			for k := hit; k >= 0; k-- {
				l := strings.TrimSpace(text[k])
				if rest, ok := strings.CutPrefix(l, "{id: "); ok {
					id, err := strconv.QuotedPrefix(rest)
					if err != nil {
						return err
					}
					id, _ = strconv.Unquote(id)
					for i := range ix.rules {
						if r := &ix.rules[i]; r.id == id && r.data != nil {
							r.data, changed = nil, true
						}
					}
					break
				}
				if strings.HasPrefix(l, "allowlists: ") {
					if ix.allowData {
						ix.allowlists, ix.allowData, changed = nil, false, true
					}
					break
				}
				if strings.HasPrefix(l, "rules: ") {
					break
				}
			}
		}
		if !changed {
			return fmt.Errorf("%s would hold text the secret rules report, on line %d", indexFile, hits[0]+1)
		}
	}
}

// writable reports whether goValue can write v as static data.
func writable(v reflect.Value) bool {
	return goValue(io.Discard, v) == nil
}

// goValue writes v, a value of a mirror type or of a field of one, as a
// Go expression of static data.
func goValue(w io.Writer, v reflect.Value) error {
	typ := strings.ReplaceAll(v.Type().String(), "secrets.", "")
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			_, err := io.WriteString(w, "nil")
			return err
		}
		if v.Elem().Kind() != reflect.Struct {
			return fmt.Errorf("%s is not static data", typ)
		}
		io.WriteString(w, "&")
		return goValue(w, v.Elem())
	case reflect.Struct:
		fmt.Fprintf(w, "%s{", typ)
		for i := range v.NumField() {
			f := v.Field(i)
			if f.IsZero() {
				continue
			}
			fmt.Fprintf(w, "%s: ", v.Type().Field(i).Name)
			if err := goValue(w, f); err != nil {
				return err
			}
			io.WriteString(w, ",\n")
		}
		_, err := io.WriteString(w, "}")
		return err
	case reflect.Slice:
		if v.IsNil() {
			_, err := io.WriteString(w, "nil")
			return err
		}
		fmt.Fprintf(w, "%s{", typ)
		for i := range v.Len() {
			if v.Len() > 4 {
				io.WriteString(w, "\n")
			}
			if err := goValue(w, v.Index(i)); err != nil {
				return err
			}
			io.WriteString(w, ",")
		}
		if v.Len() > 4 {
			io.WriteString(w, "\n")
		}
		_, err := io.WriteString(w, "}")
		return err
	case reflect.String:
		q := strconv.Quote(v.String())
		if strconv.CanBackquote(v.String()) {
			q = "`" + v.String() + "`"
		}
		_, err := io.WriteString(w, q)
		return err
	case reflect.Int:
		_, err := fmt.Fprintf(w, "%d", v.Int())
		return err
	case reflect.Bool:
		_, err := fmt.Fprintf(w, "%t", v.Bool())
		return err
	case reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("float %v is not static data", f)
		}
		_, err := io.WriteString(w, strconv.FormatFloat(f, 'g', -1, 64))
		return err
	}
	return fmt.Errorf("%s is not static data", typ)
}

// splitConfig returns the spans of src's [[rules]] tables (each with its
// subtables) and of its global allowlist tables. Tables start at a header
// line, "[" in the first column; generateIndex checks the spans.
func splitConfig(src string) (rules, allows [][2]int32, err error) {
	cur := (*[][2]int32)(nil) // the list of the table being read
	for off := 0; off < len(src); {
		end := strings.IndexByte(src[off:], '\n') + 1
		if end == 0 {
			end = len(src) - off
		}
		line := strings.TrimRight(src[off:off+end], " \t\r\n")
		if strings.HasPrefix(line, "[") {
			name := strings.TrimSpace(strings.Trim(line, "[]"))
			if !strings.HasPrefix(name, "rules.") {
				if cur != nil {
					(*cur)[len(*cur)-1][1] = int32(off)
				}
				switch name {
				case "rules":
					cur = &rules
				case "allowlist", "allowlists":
					cur = &allows
				default:
					cur = nil
				}
				if cur != nil {
					*cur = append(*cur, [2]int32{int32(off), int32(len(src))})
				}
			} else if cur != &rules {
				return nil, nil, fmt.Errorf("table %s outside a rule", name)
			}
		}
		off += end
	}
	if cur != nil {
		(*cur)[len(*cur)-1][1] = int32(len(src))
	}
	return rules, allows, nil
}

// indexSource returns the Go source of index_gen.go for ix.
func indexSource(ix *index) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by go test -run ^TestGeneratedIndex$ -update; DO NOT EDIT.\n\n")
	p("package secrets\n\n")
	p("// genIndex is the index of the linked gitleaks version's default configuration.\n")
	p("var genIndex = index{\n")
	p("digest: %#v,\n", ix.digest)
	p("size: %d,\n", ix.size)
	p("rules: []indexRule{\n")
	for _, r := range ix.rules {
		p("{id: %q, description: %q, vcIndex: %d, keywords: %#v, span: [2]int32{%d, %d},\n",
			r.id, r.description, r.vcIndex, r.keywords, r.span[0], r.span[1])
		if r.data != nil {
			p("data: ")
			if err := goValue(&b, reflect.ValueOf(r.data)); err != nil {
				return nil, err
			}
			p(",\n")
		}
		p("},\n")
	}
	p("},\n")
	p("kw: keywordMatcher{\n")
	p("class: [256]uint8{")
	ints(&b, ix.kw.class[:])
	p("},\nnclass: %d,\n", ix.kw.nclass)
	p("next: []uint16{")
	ints(&b, ix.kw.next)
	p("},\nout: [][]int32{\n")
	for s, o := range ix.kw.out {
		if o != nil {
			p("%d: {", s)
			ints(&b, o)
			p("},\n")
		}
	}
	if last := len(ix.kw.out) - 1; ix.kw.out[last] == nil {
		p("%d: nil,\n", last) // the length
	}
	p("},\n")
	p("kwLen: []int{")
	ints(&b, ix.kw.kwLen)
	p("},\n},\n")
	p("kwRules: [][]int32{\n")
	for _, rs := range ix.kwRules {
		p("{")
		ints(&b, rs)
		p("},\n")
	}
	p("},\n")
	if ix.always != nil {
		p("always: []int32{")
		ints(&b, ix.always)
		p("},\n")
	}
	p("allowSpans: %#v,\n", ix.allowSpans)
	if ix.allowData {
		p("allowlists: ")
		if err := goValue(&b, reflect.ValueOf(ix.allowlists)); err != nil {
			return nil, err
		}
		p(",\nallowData: true,\n")
	}
	p("pathPattern: %q,\n", ix.pathPattern)
	p("pathFactors: %#v,\n", ix.pathFactors)
	p("pathFactorsOK: %t,\n", ix.pathFactorsOK)
	p("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format %s: %w", indexFile, err)
	}
	return src, nil
}

// ints writes vs as a Go list, 24 a line.
func ints[T uint8 | uint16 | int32 | int](b *bytes.Buffer, vs []T) {
	for i, v := range vs {
		if i%24 == 0 && len(vs) > 24 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "%d,", v)
	}
	if len(vs) > 24 {
		b.WriteString("\n")
	}
}

// TestLazyDecode checks that every rule and the global allowlists, as
// the table gets them when they are first needed (copied from the
// generated index, or decoded from their own TOML tables), equal the whole
// configuration decoded, and that the generated keyword automaton equals
// one built afresh.
func TestLazyDecode(t *testing.T) {
	full, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	// The index without its decoded data: tables decoded from the text.
	text := genIndex
	text.rules = slices.Clone(text.rules)
	for i := range text.rules {
		text.rules[i].data = nil
	}
	text.allowlists, text.allowData = nil, false
	for _, ix := range []*index{&genIndex, &text} {
		lazy := newTable(ix, config.DefaultConfig, config.ViperConfig{})
		if len(lazy.rules) != len(full.rules) {
			t.Fatalf("%d rules, want %d", len(lazy.rules), len(full.rules))
		}
		// Concurrently, as detectors first need rules.
		var wg sync.WaitGroup
		for i, r := range lazy.rules {
			wg.Go(func() {
				vc, err := r.decoded(lazy)
				if err != nil {
					t.Error(err)
					return
				}
				want := full.vc.Rules[full.rules[i].vcIndex]
				if r.id != want.ID || r.vcIndex != full.rules[i].vcIndex || !reflect.DeepEqual(vc.Rules[0], want) {
					t.Errorf("rule %s decoded alone differs", r.id)
				}
			})
			wg.Go(func() { lazy.allowlists() })
		}
		wg.Wait()
		al, err := lazy.allowlists()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(al.Allowlists, full.vc.Allowlists) {
			t.Error("global allowlists decoded alone differ")
		}
	}
	var keywords []string
	for _, r := range full.rules {
		for _, k := range r.keywords {
			if !slices.Contains(keywords, k) {
				keywords = append(keywords, k)
			}
		}
	}
	kw, err := newKeywordMatcher(keywords)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&genIndex.kw, kw) {
		t.Error("generated keyword automaton differs from one built afresh")
	}
	if !reflect.DeepEqual(genIndex.kwRules, full.kwRules) || !reflect.DeepEqual(genIndex.always, full.always) {
		t.Error("generated keyword rules differ")
	}
}

// TestFillViperMismatch checks that data whose mirror has a field the
// gitleaks type lacks is refused (and so decoded from its TOML table).
func TestFillViperMismatch(t *testing.T) {
	type mirror struct{ ID, NoSuchField string }
	var vc config.ViperConfig
	rules := reflect.ValueOf(&vc.Rules).Elem()
	rules.Set(reflect.MakeSlice(rules.Type(), 1, 1))
	if err := fillViper(rules.Index(0), reflect.ValueOf(mirror{ID: "x", NoSuchField: "y"})); err == nil {
		t.Fatal("no error for a field gitleaks' rule lacks")
	}
	if err := fillViper(rules.Index(0), reflect.ValueOf(mirror{ID: "x"})); err != nil || vc.Rules[0].ID != "x" {
		t.Fatalf("ID not copied: %v", err)
	}
}

// TestDefaultTableIndexed checks that New uses the generated index.
func TestDefaultTableIndexed(t *testing.T) {
	tb, err := defaultTable()
	if err != nil {
		t.Fatal(err)
	}
	if tb.src == "" {
		t.Fatal("default table decoded whole: the generated index does not fit")
	}
}

// TestStaleIndex checks that an index made from another configuration
// text is not used.
func TestStaleIndex(t *testing.T) {
	changed := strings.Replace(config.DefaultConfig, "gitleaks config", "gitleaks Config", 1)
	if changed == config.DefaultConfig {
		t.Fatal("title not found")
	}
	if genIndex.fits(changed) {
		t.Fatal("index fits a changed configuration")
	}
	ix, err := generateIndex(changed, false)
	if err != nil {
		t.Fatal(err)
	}
	if ix.fits(config.DefaultConfig) || !ix.fits(changed) {
		t.Fatal("digest does not tell the configurations apart")
	}
}

// TestPathFactors checks that a path the factors rule out does not match
// the global path allowlist, over paths built from the allowlist's own
// literals and ordinary ones.
func TestPathFactors(t *testing.T) {
	tb, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	if !tb.pathFactorsOK {
		t.Fatalf("no factors for %s", tb.pathPattern)
	}
	re := regexp.MustCompile(tb.pathPattern)
	paths := []string{
		"", "main.go", "pkg/big.go", "internal/auth/client.go", "README.md", "a/b/c/d.txt",
		"go.mod", "GO.SUM", "x/go.work.sum", "vendor/modules.txt", "a/vendor/github.com/x/y.go",
		"node_modules", "web/node_modules/x/index.js", "img/Logo.PNG", "fonts/a.woff2", "gitleaks.toml",
		"Pipfile.lock", "venv/lib/python3.11/site-packages/x.py", "LIB64/PYTHON3.9/x", "foo-1.2.dist-info/RECORD",
		"static/jquery-ui.min.js", "static/JQuery.js.map", "Database.refactorlog", "x/.git", "gradlew.bat",
		"a/.mvn/wrapper/MavenWrapperDownloader.java", "yarn.lock", "x.gem", "verification-metadata.xml",
		"caf\u00e9/go.mod", "\u212a/lib/python2.7/x", "bin/app.exe", "doc.PDF", "notes.txt.bak",
	}
	for _, p := range paths {
		held := holdsFactor(p, tb.pathFactors)
		if m := re.MatchString(p); m && !held {
			t.Errorf("%q matches but holds no factor", p)
		}
		if got, want := tb.pathAllowed(p), re.MatchString(p); got != want {
			t.Errorf("pathAllowed(%q) = %v, want %v", p, got, want)
		}
	}
	if holdsFactor("pkg/big.go", tb.pathFactors) {
		t.Errorf("pkg/big.go holds a factor of %q", tb.pathFactors)
	}
}

// TestRegexFactors checks factors on small expressions against matching
// every short text over a small alphabet.
func TestRegexFactors(t *testing.T) {
	texts := []string{""}
	for n, prev := 0, []string{""}; n < 4; n++ {
		var next []string
		for _, p := range prev {
			for _, c := range []string{"a", "b", "c", "A", "K", ".", "/", "\u212a"} {
				next = append(next, p+c)
			}
		}
		texts, prev = append(texts, next...), next
	}
	for _, pat := range []string{
		`abc`, `(?i)abc`, `a|bc`, `[ab]c`, `(?:^|/)ab$`, `a+b`, `a*b`, `a{2,}b`, `a{0,3}c`, `(?i)k`, `(?i)[k]`,
		`\x{212a}`, `[^a]`, `.`, `a.c`, `(a)(b)`, `[\x{100}-\x{200}]`, `x\.y`, `(?i:a)b\.c`, `[a-z]`, `\d`,
		`(?i)a(?:b|c)?/`, `(?:a|b)(?:c|/)`, `a(?:b|c+)\.`, `^/(?:a|bc)$`, `(?i)\.(?:ab?|.c)$`, `(?:^|/)(?:a|b)[a-c]*\.a$`,
		`a\bc`, `(?:ab|)c`, `(?:ab)?c`, `[^\x00-\x{10FFFF}]a`, `(?i)ak`, `a(?i)b|c`,
		`[a-c/][a-c/][a-c/][a-c/]`, `[abcA][abc.][abc/][abcK]`, `\.(?:ab?|.c|(?:b|c)a)$`, `(?:a|/)(?:b|c)(?:a|.)`,
		`(?:ab|.c)(?:a|b.)`, `x?(?:a|b)(?:c|/)`,
	} {
		re := regexp.MustCompile(pat)
		set, ok := pathFactors(pat)
		if !ok {
			continue
		}
		for _, s := range texts {
			if re.MatchString(s) && !holdsFactor(s, set) {
				t.Errorf("%s matches %q, which holds none of %q", pat, s, set)
			}
		}
	}
}

// FuzzPathFactors checks that a path matching the global path allowlist
// holds one of its factors.
func FuzzPathFactors(f *testing.F) {
	for _, p := range []string{"pkg/big.go", "Go.Mod", "a/NODE_MODULES/b", "x.JPEG", "lib64/python3.11/x", "\u212a.git"} {
		f.Add(p)
	}
	tb, err := loadTable()
	if err != nil {
		f.Fatal(err)
	}
	re := regexp.MustCompile(tb.pathPattern)
	f.Fuzz(func(t *testing.T, path string) {
		if re.MatchString(path) && !holdsFactor(path, tb.pathFactors) {
			t.Fatalf("%q matches but holds none of the factors", path)
		}
	})
}

// BenchmarkLoadDefaultTable measures what New does once per process: the
// digest check and the table built from the generated index. In-process
// iterations are warm (the cold figure is BenchmarkColdStart's new-us).
func BenchmarkLoadDefaultTable(b *testing.B) {
	for b.Loop() {
		if _, err := loadDefaultTable(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadTable measures the fallback: the whole configuration
// decoded and indexed.
func BenchmarkLoadTable(b *testing.B) {
	for b.Loop() {
		if _, err := loadTable(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBareDetectorsSuperset checks what bare detectors rest on: on the
// corpus, whatever a rule's detectors find (with and without decoding),
// its detectors without allowlists find too.
func TestBareDetectorsSuperset(t *testing.T) {
	d := newDetector(t)
	ref := newReference(t)
	size := 256 << 10
	if testing.Short() || raceEnabled {
		size = 32 << 10
	}
	frags, _ := corpus(t, d, ref, size, 2)
	tb := newTable(&genIndex, config.DefaultConfig, config.ViperConfig{})
	fresh := &Detector{t: tb}
	type key struct {
		line, col, endLine, endCol int
		secret                     string
	}
	found, dropped := 0, 0
	for _, f := range frags {
		for lo := 0; lo < len(f.Lines); lo += 8 {
			lines := f.Lines[lo:min(lo+8, len(f.Lines))]
			// The rules with a keyword in the text or in its decoded
			// forms (gitleaks skips the others).
			var hits []hit
			encoded := false
			for i, l := range lines {
				tb.kw.lineKeywords(l.Text, func(_ int, kw int32) {
					for _, r := range tb.kwRules[kw] {
						hits = append(hits, hit{rule: r})
					}
				})
				if mayDecode(l.Text) && fresh.decodeLine(l.Text, i, &hits) {
					encoded = true
				}
			}
			var rules []int32
			for _, h := range hits {
				if !slices.Contains(rules, h.rule) {
					rules = append(rules, h.rule)
				}
			}
			//lint:ignore SA1019 the API the adapter uses
			frag := detect.Fragment{Raw: newText(lines).s, FilePath: f.Path}
			for _, ri := range append(rules, tb.always...) {
				r := tb.rules[ri]
				bare, err := r.bareDetectors(tb)
				if err != nil {
					t.Fatal(err)
				}
				full, err := r.detectors(tb)
				if err != nil {
					t.Fatal(err)
				}
				pairs := [][2]*detect.Detector{{bare.gl, full.gl}}
				if encoded {
					pairs = append(pairs, [2]*detect.Detector{bare.decoder(), full.decoder()})
				}
				for _, pair := range pairs {
					got := map[key]bool{}
					for _, fd := range pair[0].Detect(frag) {
						got[key{fd.StartLine, fd.StartColumn, fd.EndLine, fd.EndColumn, fd.Secret}] = true
					}
					want := pair[1].Detect(frag)
					for _, fd := range want {
						if !got[key{fd.StartLine, fd.StartColumn, fd.EndLine, fd.EndColumn, fd.Secret}] {
							t.Fatalf("rule %s: a finding of its detectors at line %d is not one of its bare detectors'", r.id, fd.StartLine)
						}
					}
					found += len(want)
					dropped += len(got) - len(want)
				}
			}
		}
	}
	t.Logf("%d findings; %d more without allowlists", found, dropped)
	if found == 0 || dropped == 0 {
		t.Error("the corpus holds no secret or no allowlisted candidate")
	}
}
