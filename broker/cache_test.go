package broker

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/privscan/privscan/catalog"
)

// cacheEntries lists the cache's entries (not its key).
func cacheEntries(t *testing.T, f *fixture) []string {
	t.Helper()
	got, _ := filepath.Glob(filepath.Join(f.home, ".cache", "privscan", "compiled", "*"+cacheSuffix))
	return got
}

// TestCompiledCache: a Markdown catalog compiled once is mapped from the
// cache by the next process (same matches, same fingerprint key), a
// changed catalog is a new entry, a damaged entry is replaced, and no
// file of the cache holds a value.
func TestCompiledCache(t *testing.T) {
	const value = "Quibblewort Fennimore"
	f := newFixture(t)
	path := filepath.Join(f.dir, "catalog.md")
	md := "## PER-001\n- category: person\n- match: identifier\n\n```values\n" + value + "\nvault-9.cachezone.internal\n```\n"
	write(t, path, md)
	f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\n")
	open := func(env map[string]string) *catalog.Matcher {
		t.Helper()
		b, _ := Open(Options{Getenv: func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return f.env[k]
		}})
		m, _, err := b.OpenCatalog("")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	texts := []string{"x " + value + " y", "QuibblewortFennimore", "quibblewort_fennimore", "ssh vault-9.cachezone.internal", "nothing here"}
	finds := func(m *catalog.Matcher) [][]catalog.Match {
		var out [][]catalog.Match
		for _, s := range texts {
			out = append(out, m.Find([]byte(s), nil))
		}
		return out
	}
	plain := open(map[string]string{"PRIVSCAN_CATALOG_CACHE": "off"})
	if n := len(cacheEntries(t, f)); n != 0 {
		t.Fatalf("cache off: %d entries", n)
	}
	first := open(nil) // compiles, stores
	entries := cacheEntries(t, f)
	if len(entries) != 1 {
		t.Fatalf("%d entries after the first open, want 1", len(entries))
	}
	second := open(nil) // maps
	for _, m := range []*catalog.Matcher{first, second} {
		if !slices.EqualFunc(finds(plain), finds(m), func(a, b []catalog.Match) bool { return slices.Equal(a, b) }) || m.FingerprintKey() != plain.FingerprintKey() {
			t.Fatalf("cached matcher differs from the compiled one: %v vs %v", finds(m), finds(plain))
		}
	}
	dir := filepath.Dir(entries[0])
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("cache folder mode %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(dir, cacheKeyFile)); fi == nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cache key missing or not 0600")
	}

	// An entry is bound to its source: a decoy sealed under the cache key
	// and renamed over the entry (one that would find less) does not
	// load; the catalog is compiled again, and finds what it should.
	key, _ := os.ReadFile(filepath.Join(dir, cacheKeyFile))
	other, err := catalog.Parse([]byte(catalogFor("Otherly Person")))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := catalog.Seal(&buf, other, key, nil); err != nil {
		t.Fatal(err)
	}
	write(t, entries[0], buf.String())
	if m := open(nil); len(m.Find([]byte("Otherly Person"), nil)) != 0 || len(m.Find([]byte(value), nil)) != 1 {
		t.Fatal("a decoy renamed over the entry was used")
	}
	// Another catalog's own entry renamed over it is refused too.
	c2 := cacheFor(t, f)
	name2, key2 := c2.entry([]byte(catalogFor("Otherly Person")))
	buf.Reset()
	if err := catalog.Seal(&buf, other, key2, nil); err != nil {
		t.Fatal(err)
	}
	_ = name2
	write(t, entries[0], buf.String())
	if m := open(nil); len(m.Find([]byte("Otherly Person"), nil)) != 0 || len(m.Find([]byte(value), nil)) != 1 {
		t.Fatal("another catalog's entry renamed over this one was used")
	}

	// A damaged entry is removed and the catalog compiled (and stored)
	// again.
	write(t, entries[0], "not a sealed catalog")
	if m := open(nil); !slices.EqualFunc(finds(plain), finds(m), func(a, b []catalog.Match) bool { return slices.Equal(a, b) }) {
		t.Fatal("a damaged entry changed the matches")
	}
	if got := cacheEntries(t, f); len(got) != 1 || got[0] != entries[0] {
		t.Fatalf("entries after a damaged one: %v", got)
	}

	// A changed catalog is a new entry.
	write(t, path, md+"\n## HOST\n- category: internal-host\n\n```values\nother.cachezone.internal\n```\n")
	if m := open(nil); len(m.Find([]byte("other.cachezone.internal"), nil)) != 1 {
		t.Fatal("the changed catalog's new rule does not match")
	}
	if n := len(cacheEntries(t, f)); n != 2 {
		t.Fatalf("%d entries after a change, want 2", n)
	}

	// No file of the cache holds a value, in any case.
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		for _, v := range []string{value, "Quibblewort", "Fennimore", "cachezone", "vault-9"} {
			for _, s := range []string{v, strings.ToLower(v), strings.ToUpper(v)} {
				if bytes.Contains(data, []byte(s)) {
					t.Fatalf("%s holds a catalog value", filepath.Base(p))
				}
			}
		}
	}
}

// cacheFor opens f's cache as a catalog file's cache.
func cacheFor(t *testing.T, f *fixture) *compiledCache {
	t.Helper()
	b, _ := Open(Options{Getenv: f.getenv})
	c := b.compiledCache(true)
	if c == nil {
		t.Fatal("no cache")
	}
	t.Cleanup(c.close)
	return c
}

// TestCompiledCacheWhen: only a catalog with a file of its own is cached,
// and not where CI is set, unless PRIVSCAN_CATALOG_CACHE=on; =off turns it
// off; a folder others can write above the cache turns it off too.
func TestCompiledCacheWhen(t *testing.T) {
	md := catalogFor("Quillon Marchetti")
	for _, tc := range []struct {
		name    string
		env     map[string]string
		fromEnv bool
		want    int
	}{
		{"catalog file", nil, false, 1},
		{"environment", nil, true, 0},
		{"environment, asked", map[string]string{"PRIVSCAN_CATALOG_CACHE": "on"}, true, 1},
		{"CI", map[string]string{"CI": "true"}, false, 0},
		{"CI, asked", map[string]string{"CI": "true", "PRIVSCAN_CATALOG_CACHE": "on"}, false, 1},
		{"off", map[string]string{"PRIVSCAN_CATALOG_CACHE": "off"}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for k, v := range tc.env {
				f.env[k] = v
			}
			if tc.fromEnv {
				f.env["PRIVSCAN_CATALOG"] = md
			} else {
				write(t, filepath.Join(f.dir, "catalog.md"), md)
				f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\n")
			}
			b, _ := Open(Options{Getenv: f.getenv})
			m, _, err := b.OpenCatalog("")
			if err != nil || len(m.Find([]byte("Quillon Marchetti"), nil)) != 1 {
				t.Fatalf("%v", err)
			}
			if got := len(cacheEntries(t, f)); got != tc.want {
				t.Fatalf("%d entries, want %d", got, tc.want)
			}
		})
	}
	// A cache below a folder anyone can write (no sticky bit) is not used.
	f := newFixture(t)
	open := filepath.Join(f.dir, "open")
	if err := os.MkdirAll(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	f.env["XDG_CACHE_HOME"] = filepath.Join(open, "cache")
	write(t, filepath.Join(f.dir, "catalog.md"), md)
	f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\n")
	b, _ := Open(Options{Getenv: f.getenv})
	if _, _, err := b.OpenCatalog(""); err != nil {
		t.Fatal(err)
	}
	if got, _ := filepath.Glob(filepath.Join(open, "cache", "privscan", "compiled", "*"+cacheSuffix)); len(got) != 0 {
		t.Fatalf("a cache below a world-writable folder was used: %v", got)
	}
}

// TestCompiledCachePrunesByUse: an entry used within cacheMaxAge stays,
// however old it is; one unused that long is removed.
func TestCompiledCachePrunesByUse(t *testing.T) {
	f := newFixture(t)
	open := func(md string) {
		t.Helper()
		write(t, filepath.Join(f.dir, "catalog.md"), md)
		f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\n")
		b, _ := Open(Options{Getenv: f.getenv})
		if _, _, err := b.OpenCatalog(""); err != nil {
			t.Fatal(err)
		}
	}
	open(catalogFor("Used Daily"))
	open(catalogFor("Never Again"))
	entries := cacheEntries(t, f)
	if len(entries) != 2 {
		t.Fatalf("%d entries", len(entries))
	}
	past := time.Now().Add(-2 * cacheMaxAge)
	for _, e := range entries {
		if err := os.Chtimes(e, past, past); err != nil {
			t.Fatal(err)
		}
	}
	open(catalogFor("Used Daily"))    // a use: marks it
	open(catalogFor("A New Catalog")) // a store: prunes
	got := cacheEntries(t, f)
	if len(got) != 2 {
		t.Fatalf("%d entries after pruning, want the used one and the new one", len(got))
	}
	c := cacheFor(t, f)
	used, _ := c.entry([]byte(catalogFor("Used Daily")))
	if _, err := os.Stat(filepath.Join(c.dir, used)); err != nil {
		t.Fatal("the entry in daily use was pruned")
	}
}

// TestCompiledCacheRegex: a catalog with regex rules is cached too, with
// its patterns encrypted: the next process finds the same matches from the
// entry, and no cache file holds a pattern or a value.
func TestCompiledCacheRegex(t *testing.T) {
	const pattern, literal = "ACCT-[0-9]{6}", "Zorbulon Pettigrew"
	f := newFixture(t)
	write(t, filepath.Join(f.dir, "catalog.md"), "## PER\n- category: person\n\n```values\n"+literal+
		"\n```\n\n## ACCT\n- category: account\n- match: regex\n\n```values\n"+pattern+"\n```\n\n## TKT\n- category: ticket\n- match: regex\n- case: sensitive\n\n```values\nTKT-[0-9]{4}\n```\n")
	f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\n")
	texts := []string{"id ACCT-123456 for " + literal, "acct-654321 TKT-1234 tkt-1234", "ACCT-1234567", "nothing"}
	var want [][]catalog.Match
	for run := range 3 {
		env := f.getenv
		if run == 0 {
			env = func(k string) string {
				if k == "PRIVSCAN_CATALOG_CACHE" {
					return "off"
				}
				return f.getenv(k)
			}
		}
		b, _ := Open(Options{Getenv: env})
		m, _, err := b.OpenCatalog("")
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		var got [][]catalog.Match
		for _, s := range texts {
			got = append(got, m.Find([]byte(s), nil))
		}
		if run == 0 {
			want = got
			if n := len(got[0]) + len(got[1]); n != 4 {
				t.Fatalf("compiled: %d matches, want 4: %v", n, got)
			}
			continue
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("run %d (cache): %v, want %v", run, got, want)
		}
	}
	entries := cacheEntries(t, f)
	if len(entries) != 1 {
		t.Fatalf("%d entries for a regex catalog, want 1", len(entries))
	}
	data, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{pattern, "ACCT-", "TKT-[0-9]", "[0-9]{", literal, "Zorbulon"} {
		if bytes.Contains(data, []byte(s)) {
			t.Fatalf("cache entry holds %q", s)
		}
	}
}

// BenchmarkOpenCatalog10k: what a new process pays to get a 10k-value
// catalog, compiled from Markdown or mapped from the compiled-catalog
// cache.
func BenchmarkOpenCatalog10k(b *testing.B) {
	var md strings.Builder
	md.WriteString("## PER-001\n- category: person\n\n```values\n")
	x := uint64(1)
	word := func() string {
		var w []byte
		for range 4 + x%6 {
			x = x*6364136223846793005 + 1442695040888963407
			w = append(w, byte('a'+(x>>33)%26))
		}
		return string(w)
	}
	for range 10000 {
		md.WriteString(word() + " " + word() + "\n")
	}
	md.WriteString("```\n")
	for _, mode := range []string{"off", "on"} {
		b.Run("cache="+mode, func(b *testing.B) {
			home := b.TempDir()
			path := filepath.Join(home, "catalog.md")
			if err := os.WriteFile(path, []byte(md.String()), 0o600); err != nil {
				b.Fatal(err)
			}
			env := map[string]string{"HOME": home, "PRIVSCAN_CATALOG_FILE": path, "PRIVSCAN_CATALOG_CACHE": mode}
			br, _ := Open(Options{Getenv: func(k string) string { return env[k] }})
			if _, _, err := br.OpenCatalog(""); err != nil { // fills the cache
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := br.OpenCatalog(""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCompiledCacheDamagedPage: a cache entry with a damaged byte on any
// page, the tables' pages included (which a load alone does not read), is
// rebuilt by the next open, which finds what the catalog finds and reports
// no damage.
func TestCompiledCacheDamagedPage(t *testing.T) {
	f := newFixture(t)
	var md strings.Builder
	md.WriteString("## PER\n- category: person\n\n```values\n")
	var texts []string
	for i := range 3000 {
		v := fmt.Sprintf("Someone Number%d", i)
		md.WriteString(v + "\n")
		if i%7 == 0 {
			texts = append(texts, "owner: "+v)
		}
	}
	md.WriteString("```\n")
	write(t, filepath.Join(f.dir, "catalog.md"), md.String())
	f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\n")
	open := func() *catalog.Matcher {
		t.Helper()
		b, _ := Open(Options{Getenv: f.getenv})
		m, _, err := b.OpenCatalog("")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	finds := func(m *catalog.Matcher) (n int) {
		for _, s := range texts {
			n += len(m.Find([]byte(s), nil))
		}
		return n
	}
	if n := finds(open()); n != len(texts) {
		t.Fatalf("%d matches, want %d", n, len(texts))
	}
	entries := cacheEntries(t, f)
	if len(entries) != 1 {
		t.Fatalf("%d entries", len(entries))
	}
	good, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	for off := 2048; off < len(good); off += 4096 {
		bad := slices.Clone(good)
		bad[off] ^= 0x10
		write(t, entries[0], string(bad))
		m := open()
		if n := finds(m); n != len(texts) || m.IntegrityErr() != nil {
			t.Fatalf("byte %d of %d damaged: %d matches, want %d; %v", off, len(good), n, len(texts), m.IntegrityErr())
		}
	}
}
