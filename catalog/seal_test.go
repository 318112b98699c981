package catalog_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/synth"
)

var sealKey = bytes.Repeat([]byte{0x5e}, catalog.SealKeySize)

// sealableRules are stdRules without the regex rules.
func sealableRules() []rspec {
	var out []rspec
	for _, r := range stdRules {
		if r.match != catalog.MatchRegex {
			out = append(out, r)
		}
	}
	return out
}

func seal(t testing.TB, c *catalog.Catalog, key []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := catalog.Seal(&b, c, key, nil); err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return b.Bytes()
}

func loadSealed(t testing.TB, data, key []byte) (*catalog.Matcher, *catalog.Sealed) {
	t.Helper()
	m, s, err := catalog.LoadSealed(data, key)
	if err != nil {
		t.Fatalf("LoadSealed: %v", err)
	}
	return m, s
}

// sameFinds checks that a and b find the same matches (rule IDs and
// offsets) in every line, and have the same fingerprint keys.
func sameFinds(t *testing.T, a, b *catalog.Matcher, lines [][]byte) int {
	t.Helper()
	if a.FingerprintKey() != b.FingerprintKey() {
		t.Fatal("fingerprint keys differ")
	}
	ra, rb := a.Rules(), b.Rules()
	if !slices.Equal(ra, rb) {
		t.Fatalf("rules differ:\n%v\n%v", ra, rb)
	}
	for i := range ra {
		if a.RuleFingerprintKey(i) != b.RuleFingerprintKey(i) {
			t.Fatalf("rule %s: fingerprint keys differ", ra[i].ID)
		}
	}
	found := 0
	for _, line := range lines {
		ma, mb := a.Find(line, nil), b.Find(line, nil)
		if !slices.Equal(ma, mb) {
			t.Fatalf("line of %d bytes: Markdown found %v, sealed found %v", len(line), ma, mb)
		}
		found += len(ma)
		for _, x := range ma {
			if !bytes.Equal(a.Normalize(nil, line[x.Start:x.End], x.Rule), b.Normalize(nil, line[x.Start:x.End], x.Rule)) {
				t.Fatalf("rule %s: normalized matches differ", ra[x.Rule].ID)
			}
		}
	}
	return found
}

func fixtureLines(t *testing.T) [][]byte {
	var lines [][]byte
	for _, tc := range findContexts {
		line, _ := parseMarked(t, tc.line)
		lines = append(lines, line)
	}
	for _, d := range findDecoys {
		lines = append(lines, []byte(d))
	}
	return lines
}

func TestSealRoundTrip(t *testing.T) {
	for _, fpKey := range [][]byte{nil, bytes.Repeat([]byte{7}, 32)} {
		c := buildCatalog(sealableRules()...)
		c.FingerprintKey = fpKey
		c.Digest = [32]byte{1, 2, 3}
		md, err := catalog.Compile(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		data := seal(t, c, sealKey)
		m, s := loadSealed(t, data, sealKey)
		if n := sameFinds(t, md, m, fixtureLines(t)); n < 40 {
			t.Fatalf("only %d matches in the fixtures", n)
		}
		// A catalog without record rules (every Markdown catalog) is
		// written as version 3, as before record rules.
		if s.Version != 3 || s.Size != int64(len(data)) || len(s.Rules) != len(c.Rules) {
			t.Fatalf("sealed description: %+v", s)
		}
		for i, r := range s.Rules {
			cr := c.Rules[i]
			if r.ID != cr.ID || r.Category != cr.Category || r.Severity != cr.Severity || r.Match != cr.Match ||
				r.CaseSensitive != cr.CaseSensitive || r.NoBoundary != cr.NoBoundary || r.Values != len(cr.Values) {
				t.Errorf("rule %d: %+v", i, r)
			}
		}
		if got, want := s.Counts(), c.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("counts %+v, want %+v", got, want)
		}
	}
}

// TestSealedEquivalentSynth compares a sealed synthetic catalog with its
// Markdown form over synthetic source text with planted values.
func TestSealedEquivalentSynth(t *testing.T) {
	const n = 20000
	c := literalOnly(synth.Catalog(21, n))
	md, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := loadSealed(t, seal(t, c, sealKey), sealKey)
	vals := synth.Values(21, n)
	var plant []string
	for i := 0; i < len(vals); i += 53 {
		plant = append(plant, vals[i])
	}
	text := synth.Text(22, 1<<19, plant)
	lines := slices.Collect(bytes.Lines(text))
	if found := sameFinds(t, md, m, lines); found < 100 {
		t.Fatalf("only %d matches", found)
	}
}

func literalOnly(c *catalog.Catalog) *catalog.Catalog {
	out := *c
	out.Rules = slices.DeleteFunc(slices.Clone(c.Rules), func(r catalog.Rule) bool { return r.Match == catalog.MatchRegex })
	return &out
}

// randCatalog returns a random catalog of literal and identifier rules and
// its values.
func randCatalog(r *rand.Rand) (*catalog.Catalog, []string) {
	words := []string{"jane", "Doe", "Jürgen", "MÜLLER", "zoë", "acme", "Corp", "x", "db", "01", "İstanbul", "ǅemal",
		"straße", "ΣΊΣΥΦΟΣ", "名前", "e\u0301te", "o'brien", "c++", "a.b", "K", "ſ", "__init__", "HTTPServer", "v2"}
	seps := []string{" ", "  ", "\t", "-", ".", "_", "@", "", "/"}
	c := &catalog.Catalog{}
	var all []string
	nRules := 1 + r.IntN(5)
	for i := range nRules {
		rule := catalog.Rule{ID: fmt.Sprintf("R%d", i), Category: "cat", Severity: catalog.SeverityWarning,
			Match: catalog.MatchKind(r.IntN(2)), CaseSensitive: r.IntN(3) == 0, NoBoundary: r.IntN(4) == 0, Line: i + 1}
		for range 1 + r.IntN(8) {
			var b strings.Builder
			for k := range 1 + r.IntN(3) {
				if k > 0 {
					b.WriteString(seps[r.IntN(len(seps))])
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			v := b.String()
			if len([]rune(strings.TrimSpace(v))) < catalog.MinLiteralRunes {
				v += "abc"
			}
			rule.Values = append(rule.Values, catalog.NewValue(v))
			all = append(all, v)
		}
		c.Rules = append(c.Rules, rule)
	}
	if r.IntN(2) == 0 {
		c.FingerprintKey = bytes.Repeat([]byte{byte(r.IntN(256))}, 32)
	} else {
		c.Digest[0] = byte(r.IntN(256))
	}
	return c, all
}

// randText embeds values, changed in case or spelling or not, in random
// surroundings.
func randText(r *rand.Rand, vals []string) [][]byte {
	around := []string{"", " ", "x", "_", "-", "(", "é", "\xff", "New", "Client", ".", "\t", "名", "\u0301"}
	var lines [][]byte
	for range 40 {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(around[r.IntN(len(around))])
			v := vals[r.IntN(len(vals))]
			switch r.IntN(5) {
			case 0:
				v = strings.ToUpper(v)
			case 1:
				v = strings.ToLower(v)
			case 2:
				v = strings.ReplaceAll(v, " ", "")
			case 3:
				v = camel(v)
			}
			b.WriteString(v)
			b.WriteString(around[r.IntN(len(around))])
		}
		lines = append(lines, []byte(b.String()))
	}
	return lines
}

// camel spells v's space-separated words as one CamelCase word.
func camel(v string) string {
	var b strings.Builder
	for _, w := range strings.Fields(v) {
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	return b.String()
}

// TestSealedEquivalentRandom is the property test: for random catalogs
// and texts, the sealed and Markdown forms find the same matches, with
// the same fingerprint keys.
func TestSealedEquivalentRandom(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 50
	}
	found := 0
	for i := range iters {
		r := rand.New(rand.NewPCG(uint64(i), 99))
		c, vals := randCatalog(r)
		md, err := catalog.Compile(c, nil)
		if err != nil {
			continue // e.g. a value that is too short once canonical
		}
		key := make([]byte, catalog.SealKeySize)
		for k := range key {
			key[k] = byte(r.IntN(256))
		}
		m, _ := loadSealed(t, seal(t, c, key), key)
		found += sameFinds(t, md, m, randText(r, vals))
	}
	if found < iters {
		t.Fatalf("only %d matches in %d catalogs", found, iters)
	}
}

func TestSealRefusesRegex(t *testing.T) {
	var b bytes.Buffer
	err := catalog.Seal(&b, buildCatalog(stdRules...), sealKey, nil)
	var re *catalog.SealRegexError
	if !errors.As(err, &re) || re.ID != "EMP" {
		t.Fatalf("err = %v, want a SealRegexError naming EMP", err)
	}
	if b.Len() != 0 {
		t.Fatal("bytes written for a catalog that cannot be sealed")
	}
	if err := catalog.Seal(&b, buildCatalog(sealableRules()...), sealKey[:16], nil); err == nil {
		t.Fatal("a 16-byte seal key was accepted")
	}
}

func TestLoadSealedErrors(t *testing.T) {
	c := buildCatalog(sealableRules()...)
	data := seal(t, c, sealKey)
	other := bytes.Repeat([]byte{0x5f}, catalog.SealKeySize)
	if _, _, err := catalog.LoadSealed(data, other); !errors.Is(err, catalog.ErrSealKeyWrong) {
		t.Fatalf("wrong key: %v", err)
	}
	if _, _, err := catalog.LoadSealed(data, nil); err == nil || errors.Is(err, catalog.ErrSealKeyWrong) {
		t.Fatalf("no key: %v", err)
	}
	mutate := func(f func(b []byte) []byte) error {
		b := f(slices.Clone(data))
		_, _, err := catalog.LoadSealed(b, sealKey)
		return err
	}
	invalid := map[string]func(b []byte) []byte{
		"empty":     func(b []byte) []byte { return nil },
		"markdown":  func(b []byte) []byte { return []byte("# catalog\n\n## R\n- category: x\n") },
		"truncated": func(b []byte) []byte { return b[:len(b)-1] },
		"extended":  func(b []byte) []byte { return append(b, 0) },
		"header":    func(b []byte) []byte { return b[:100] },
		"version":   func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 1); return b },
		"size":      func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 3<<30); return b },
		"mac":       func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
		"page tags": func(b []byte) []byte { b[len(b)-40] ^= 0x80; return b },
	}
	for name, f := range invalid {
		if err := mutate(f); !errors.Is(err, catalog.ErrSealedInvalid) {
			t.Errorf("%s: err = %v, want ErrSealedInvalid", name, err)
		}
	}
	if err := mutate(invalid["version"]); err == nil || !strings.Contains(err.Error(), "seal the catalog again") {
		t.Errorf("an older version: %v", err)
	}
	// Any single flipped bit is refused at load, or, in the tables (whose
	// pages are checked when a lookup reads them), gives no finding that
	// the intact file does not give.
	intact, _ := loadSealed(t, data, sealKey)
	lines := fixtureLines(t)
	arrOff, tagOff := binary.LittleEndian.Uint64(data[168:]), binary.LittleEndian.Uint64(data[176:])
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		i := r.IntN(len(data))
		b := slices.Clone(data)
		b[i] ^= 1 << r.IntN(8)
		m, _, err := catalog.LoadSealed(b, sealKey)
		if err != nil {
			continue
		}
		if uint64(i) < arrOff || uint64(i) >= tagOff {
			t.Fatalf("a flipped bit at byte %d, outside the tables, was not detected", i)
		}
		for _, line := range lines {
			want := intact.Find(line, nil)
			for _, x := range m.Find(line, nil) {
				// A damaged page may hide a longer match that overlapped a
				// shorter one, found by the intact file on its own.
				alone := catalog.Match{Rule: x.Rule, End: x.End - x.Start}
				if !slices.Contains(want, x) && !slices.Contains(intact.Find(line[x.Start:x.End], nil), alone) {
					t.Fatalf("a flipped bit at byte %d gave a finding the intact file does not", i)
				}
			}
		}
	}
	// Error texts hold no file bytes.
	for name, f := range invalid {
		if err := mutate(f); err != nil && (strings.ContainsRune(err.Error(), 0) || !utf8.ValidString(err.Error())) {
			t.Errorf("%s: error text has binary bytes", name)
		}
	}
}

func TestSealIsKeyedAndSalted(t *testing.T) {
	c := buildCatalog(sealableRules()...)
	a, b := seal(t, c, sealKey), seal(t, c, sealKey)
	if bytes.Equal(a, b) {
		t.Fatal("two seals of one catalog are byte-identical: the salt is not random")
	}
	// Deterministic with a fixed random source.
	fixed := func() []byte {
		var buf bytes.Buffer
		if err := catalog.Seal(&buf, c, sealKey, &catalog.SealOptions{Rand: bytes.NewReader(make([]byte, 64))}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if !bytes.Equal(fixed(), fixed()) {
		t.Fatal("a seal with a fixed random source is not deterministic")
	}
}

func TestOpenSealedMapped(t *testing.T) {
	c := buildCatalog(sealableRules()...)
	md, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.sealed")
	if err := os.WriteFile(path, seal(t, c, sealKey), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() *catalog.Matcher {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		m, _, err := catalog.OpenSealed(f, fi.Size(), sealKey)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for range 5 {
		m := open()
		sameFinds(t, md, m, fixtureLines(t))
		// Combined with a Markdown catalog, as the broker does.
		comb, err := catalog.Combine(m, compile(t, rspec{id: "OTHER", match: catalog.MatchRegex, values: []string{`EMP-\d{6}`}}))
		if err != nil {
			t.Fatal(err)
		}
		if got := gotMatches(comb, []byte("Jane Doe EMP-123456")); len(got) != 2 {
			t.Fatalf("combined: %v", got)
		}
		runtime.GC() // unmaps the previous iterations' files
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, err := catalog.OpenSealed(f, catalog.MaxSealedSize+1, sealKey); !errors.Is(err, catalog.ErrSealedInvalid) {
		t.Fatalf("over 2 GiB: %v", err)
	}
	if _, _, err := catalog.OpenSealed(f, 10, sealKey); !errors.Is(err, catalog.ErrSealedInvalid) {
		t.Fatalf("10 bytes: %v", err)
	}
}

func FuzzLoadSealed(f *testing.F) {
	c := buildCatalog(sealableRules()...)
	var buf bytes.Buffer
	if err := catalog.Seal(&buf, c, sealKey, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PRIVSEAL"))
	// A part of a catalog sealed in parts.
	s, err := catalog.ParseSchema([]byte("format = \"csv\"\n[[columns]]\nname = \"n\"\nrule = \"N\"\ncategory = \"person\"\n"))
	if err != nil {
		f.Fatal(err)
	}
	var parts []*memPart
	if _, _, err := catalog.SealTable(strings.NewReader("n\nJane Doe\nAcme Corp\n"), s, sealKey, &catalog.SealTableOptions{PartRows: 1}, func(int) (catalog.PartFile, error) {
		parts = append(parts, &memPart{})
		return parts[len(parts)-1], nil
	}); err != nil {
		f.Fatal(err)
	}
	f.Add(parts[1].b)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, s, err := catalog.LoadSealedPart(data, sealKey)
		if err != nil {
			if !errors.Is(err, catalog.ErrSealedInvalid) && !errors.Is(err, catalog.ErrSealKeyWrong) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		if _, _, err := catalog.LoadSealed(data, sealKey); (err == nil) != (s.Parts == 0) {
			t.Fatalf("LoadSealed of a file of %d parts: %v", s.Parts, err)
		}
		m.Find([]byte("Jane Doe AcmeCorp x secretproj"), nil)
	})
}

// TestSealRegexOption: with SealOptions.Regex, regex rules are sealed with
// their patterns encrypted, and the loaded catalog finds what the Markdown
// one finds, in the same rule order, with no pattern in the file's bytes.
func TestSealRegexOption(t *testing.T) {
	extra := []rspec{
		{id: "CHG", match: catalog.MatchRegex, cs: true, values: []string{`(?:INC|CHG)[0-9]{7}`}},
		{id: "NB", match: catalog.MatchRegex, nb: true, values: []string{`zq[0-9]{3}`}},
	}
	c := buildCatalog(append(slices.Clone(stdRules), extra...)...)
	md, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := catalog.Seal(&b, c, sealKey, &catalog.SealOptions{Regex: true}); err != nil {
		t.Fatal(err)
	}
	m, s := loadSealed(t, b.Bytes(), sealKey)
	lines := append(fixtureLines(t), []byte("EMP-123456 emp-654321 xEMP-123456 TKT-1234 tkt-1234 INC1234567 chg7654321 azq123b"))
	if n := sameFinds(t, md, m, lines); n < 45 {
		t.Fatalf("only %d matches", n)
	}
	for i, r := range s.Rules {
		if r.Match != c.Rules[i].Match || r.CaseSensitive != c.Rules[i].CaseSensitive || r.NoBoundary != c.Rules[i].NoBoundary {
			t.Errorf("rule %s: %+v", r.ID, r)
		}
	}
	for _, p := range []string{`EMP-\d{6}`, `TKT-[0-9]{4}`, `INC|CHG`, `zq[0-9]`, "EMP-", "TKT-", "[0-9]{"} {
		if bytes.Contains(b.Bytes(), []byte(p)) {
			t.Fatalf("sealed file holds %q", p)
		}
	}
	if _, _, err := catalog.LoadSealed(b.Bytes(), bytes.Repeat([]byte{1}, catalog.SealKeySize)); !errors.Is(err, catalog.ErrSealKeyWrong) {
		t.Fatalf("wrong key: %v", err)
	}
}
