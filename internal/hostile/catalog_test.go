package hostile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/privscan/privscan/catalog"
)

// hugeCatalog returns a catalog of n literal values spread over 10 rules.
func hugeCatalog(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 12)
	b.WriteString("# huge\n\n- fingerprint-key: " + fpKey + "\n")
	per := (n + 9) / 10
	for r := 0; r < 10; r++ {
		fmt.Fprintf(&b, "\n## BULK-%d\n- category: customer\n\n```values\n", r)
		for i := r * per; i < min(n, (r+1)*per); i++ {
			fmt.Fprintf(&b, "zq%07d\n", i)
		}
		b.WriteString("```\n")
	}
	return b.Bytes()
}

// TestHugeCatalog: a catalog of a million values (50k by default) parses,
// compiles and matches; the figures are logged.
func TestHugeCatalog(t *testing.T) {
	n := scaled(50_000, 1_000_000)
	src := hugeCatalog(n)

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	c, err := catalog.Parse(src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	parsed := time.Since(start)
	m, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	compiled := time.Since(start) - parsed
	runtime.ReadMemStats(&after)
	t.Logf("%d values (%d KiB of Markdown): parse %s, compile %s, %d MiB allocated",
		n, len(src)>>10, parsed.Round(time.Millisecond), compiled.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20)

	for _, tc := range []struct {
		line string
		want int
	}{
		{fmt.Sprintf("id zq%07d here", n/2), 1},
		{fmt.Sprintf("zq%07d and zq%07d", 0, n-1), 2},
		{fmt.Sprintf("zq%07d", n), 0},    // not in the catalog
		{fmt.Sprintf("xzq%07d", n/3), 0}, // no word boundary
		{fmt.Sprintf("ZQ%07d.", n/3), 1}, // case-insensitive
		{strings.Repeat("zq0000001 ", 1000), 1000},
	} {
		if got := len(m.Find([]byte(tc.line), nil)); got != tc.want {
			t.Errorf("Find(%.40q) = %d matches, want %d", tc.line, got, tc.want)
		}
	}

	if !big() {
		return
	}
	// The whole product: catalog check and a scan through the binary
	// (this test binary re-executed), with its peak RSS.
	dir := t.TempDir()
	path := filepath.Join(dir, "huge.md")
	writeFile(t, path, src)
	env := newEnv(t)
	delete(env, "PRIVSCAN_CATALOG")
	env["PRIVSCAN_CATALOG_FILE"] = path
	res := runChild(t, dir, env, nil, nil, 10*time.Minute, "catalog", "check")
	if res.code != 0 {
		t.Fatalf("catalog check: exit %d: %s", res.code, res.stderr)
	}
	t.Logf("catalog check of %d values: %s, peak RSS %d MiB", n, res.wall.Round(time.Millisecond), res.maxRSS>>20)
	var out bytes.Buffer
	res = runChild(t, dir, env, strings.NewReader(fmt.Sprintf("x zq%07d y\n", n-7)), &out, 10*time.Minute, "text", "-", "--format", "json")
	if res.code != 1 || !strings.Contains(out.String(), `"catalog/BULK-9"`) {
		t.Fatalf("text: exit %d: %s %s", res.code, out.String(), res.stderr)
	}
	t.Logf("text scan with %d values: %s, peak RSS %d MiB", n, res.wall.Round(time.Millisecond), res.maxRSS>>20)
}

// regexCatalog returns a catalog of n distinct regex values, each holding
// the canary's prefix.
func regexCatalog(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# regexes\n\n## MANY\n- category: ticket\n- match: regex\n\n```values\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "QZX%05d-\\d{4}\n", i)
	}
	b.WriteString("```\n")
	return b.Bytes()
}

// TestRegexLimit: catalog.MaxRegexValues regex values compile; one more is a
// clear, value-free error, from the library and from the CLI.
func TestRegexLimit(t *testing.T) {
	at := regexCatalog(catalog.MaxRegexValues)
	c, err := catalog.Parse(at)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	start := time.Now()
	m, err := catalog.Compile(c, nil)
	if err != nil {
		t.Fatalf("compile at the limit: %v", err)
	}
	t.Logf("%d regex values compile in %s", catalog.MaxRegexValues, time.Since(start).Round(time.Millisecond))
	if got := m.Find([]byte("see QZX09999-1234 and QZX00000-0000, not QZX10000-1234"), nil); len(got) != 2 {
		t.Fatalf("%d matches, want 2", len(got))
	}

	past := regexCatalog(catalog.MaxRegexValues + 1)
	c, err = catalog.Parse(past)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	start = time.Now()
	_, err = catalog.Compile(c, nil)
	if err == nil {
		t.Fatalf("%d regex values compiled", catalog.MaxRegexValues+1)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusing took %s: the limit must be checked before compiling", d)
	}
	want := fmt.Sprintf("%d regex values, more than the limit of %d", catalog.MaxRegexValues+1, catalog.MaxRegexValues)
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "QZX") {
		t.Fatalf("error %q: want %q and no value", err, want)
	}

	// The same through the CLI, from a catalog file.
	dir := t.TempDir()
	path := filepath.Join(dir, "regex.md")
	writeFile(t, path, past)
	env := newEnv(t)
	delete(env, "PRIVSCAN_CATALOG")
	env["PRIVSCAN_CATALOG_FILE"] = path
	for _, args := range [][]string{{"catalog", "check"}, {"text", "-"}} {
		r := run(t, dir, env, strings.NewReader("x"), 2*time.Minute, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "catalog_invalid") || !strings.Contains(r.stderr, "more than the limit of") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, "QZX") {
			t.Errorf("%v: output quotes a value: %s%s", args, r.stdout, r.stderr)
		}
	}
}

// TestPathologicalRegex: patterns that take exponential time in a
// backtracking engine (and quadratic ones in a scan that restarts at every
// offset) finish on a 1 MiB line. The bound is the work, not a clock
// ratio: a linear scan of 1 MiB takes milliseconds even on a loaded
// machine, where 2^n steps, or n^2 = 10^12 for n = 1 MiB, would not end
// within the generous deadline below. (An earlier version compared the
// times of n and 4n bytes, and a loaded machine made the ratio flaky.)
func TestPathologicalRegex(t *testing.T) {
	// Each pattern's required literal (b, c, y, z) is in the line, but never
	// where a match needs it, so the pattern runs over the whole line.
	line := func(n int) []byte {
		b := bytes.Repeat([]byte("a"), n)
		copy(b[n/2:], "x!xx!b c y z ")
		return append(b, '!')
	}
	pats := scaled([]string{`(a+)+$`, `(a|aa)+b`}, []string{`(a+)+$`, `(a|aa)+b`, `(a*)*c`, `(x+x+)+y`, `(\w+\s?)+z`})
	if raceEnabled && !big() {
		pats = []string{`(a|aa)+b`}
	}
	const deadline = 2 * time.Minute
	for _, pat := range pats {
		src := "# slow\n\n## NESTED\n- category: slow\n- match: regex\n\n```values\n" + pat + "\n```\n"
		c, err := catalog.Parse([]byte(src))
		if err != nil {
			t.Fatalf("parse %s: %v", pat, err)
		}
		m, err := catalog.Compile(c, nil)
		if err != nil {
			t.Fatalf("compile %s: %v", pat, err)
		}
		b := line(1 << 20)
		done := make(chan time.Duration, 1)
		go func() {
			start := time.Now()
			m.Find(b, nil)
			done <- time.Since(start)
		}()
		select {
		case d := <-done:
			t.Logf("%-12s 1 MiB: %s", pat, d.Round(time.Microsecond))
		case <-time.After(deadline):
			// The goroutine is left running: the test binary ends with the
			// failure.
			t.Fatalf("%s: a 1 MiB line did not finish in %s: not linear", pat, deadline)
		}
	}
}

// TestHostileCatalogFiles: a key map or catalog that is a FIFO, a device,
// a directory, a symlink loop or too large is refused promptly with the
// documented code and a value-free message.
func TestHostileCatalogFiles(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "config", "privscan")
	writeFile(t, filepath.Join(cfg, "real.md"), []byte(testCatalog))
	for _, l := range [][2]string{
		{"loop-b.md", filepath.Join(cfg, "loop-a.md")},
		{"loop-a.md", filepath.Join(cfg, "loop-b.md")},
		{"/dev/zero", filepath.Join(cfg, "zero.md")},
		{"/dev/urandom", filepath.Join(cfg, "random.md")},
		{"dir.md.d", filepath.Join(cfg, "dirlink.md")},
		{"notes.txt", filepath.Join(cfg, "notes.md")},
		{"real.md", filepath.Join(cfg, "alias.txt")},
	} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"dir.md.d", "dir.md"} {
		if err := os.MkdirAll(filepath.Join(cfg, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(cfg, "notes.txt"), []byte(testCatalog))
	if err := syscall.Mkfifo(filepath.Join(cfg, "fifo.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	huge := append([]byte(testCatalog), bytes.Repeat([]byte("\n"), 64<<20)...)
	writeFile(t, filepath.Join(cfg, "huge.md"), huge)

	env := newEnv(t)
	delete(env, "PRIVSCAN_CATALOG")
	env["XDG_CONFIG_HOME"] = filepath.Join(root, "config")
	// The name checked is the resolved one: a .md link to a device or to a
	// .txt file is not Markdown, a .txt link to a .md file is.
	for _, tc := range []struct{ entry, code string }{
		{"loop-a.md", "file_missing"},
		{"zero.md", "not_markdown"},
		{"random.md", "not_markdown"},
		{"dirlink.md", "not_markdown"},
		{"notes.md", "not_markdown"},
		{"dir.md", "not_regular_file"},
		{"fifo.md", "not_regular_file"},
		{"huge.md", "too_large"},
		{"missing.md", "file_missing"},
		{"alias.txt", ""},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			writeFile(t, filepath.Join(cfg, "context-map.toml"),
				[]byte("[keys]\nguide = \""+tc.entry+"\"\n[catalogs]\ndefault = \""+tc.entry+"\"\n"))
			for _, args := range [][]string{{"catalog", "check"}, {"text", "-"}, {"redact", "-"}} {
				r := run(t, root, env, strings.NewReader(canaryName), 10*time.Second, args...)
				if tc.code == "" {
					if r.code == 2 {
						t.Errorf("%v: %s", args, r.stderr)
					}
					if args[0] != "redact" {
						noLeak(t, "output", r.stdout+r.stderr)
					}
					continue
				}
				if r.code != 2 || !strings.Contains(r.stderr, tc.code) {
					t.Errorf("%v: exit %d, stderr %q; want code %s", args, r.code, r.stderr, tc.code)
				}
				noLeak(t, "output", r.stdout+r.stderr)
			}
			// The same file named by PRIVSCAN_CATALOG_FILE.
			e := map[string]string{}
			for k, v := range env {
				e[k] = v
			}
			e["PRIVSCAN_CATALOG_FILE"] = filepath.Join(cfg, tc.entry)
			r := run(t, root, e, nil, 10*time.Second, "catalog", "check")
			if (tc.code == "") != (r.code == 0) || !strings.Contains(r.stderr, tc.code) {
				t.Errorf("PRIVSCAN_CATALOG_FILE: exit %d, stderr %q; want code %s", r.code, r.stderr, tc.code)
			}
		})
	}

	t.Run("map is a FIFO", func(t *testing.T) {
		mp := filepath.Join(cfg, "context-map.toml")
		os.Remove(mp)
		if err := syscall.Mkfifo(mp, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(mp)
		r := run(t, root, env, strings.NewReader("x"), 10*time.Second, "text", "-")
		if r.code != 2 || !strings.Contains(r.stderr, "config_invalid") || !strings.Contains(r.stderr, "FIFO") {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("map is a symlink loop", func(t *testing.T) {
		mp := filepath.Join(cfg, "context-map.toml")
		os.Remove(mp)
		if err := os.Symlink("context-map.toml", mp); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(mp)
		r := run(t, root, env, strings.NewReader("x"), 10*time.Second, "text", "-")
		if r.code != 2 || !regexp.MustCompile(`config_(invalid|missing)`).MatchString(r.stderr) {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
}
