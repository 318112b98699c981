package broker

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"
)

// fixture is a temporary HOME with a key map under XDG_CONFIG_HOME.
type fixture struct {
	home, xdg, dir string // dir holds the key map
	env            map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{home: filepath.Join(root, "home"), xdg: filepath.Join(root, "xdg")}
	f.dir = filepath.Join(f.xdg, "privscan")
	for _, d := range []string{f.home, f.dir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.env = map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": f.xdg}
	return f
}

func (f *fixture) getenv(k string) string { return f.env[k] }

func (f *fixture) mapPath() string { return filepath.Join(f.dir, "context-map.toml") }

func (f *fixture) writeMap(t *testing.T, toml string) {
	t.Helper()
	write(t, f.mapPath(), toml)
}

func (f *fixture) broker(t *testing.T) *Broker {
	t.Helper()
	b, err := Open(Options{Getenv: f.getenv})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func codeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// withTimeout runs fn and fails the test if it does not return within d.
func withTimeout(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

func TestLoadContext(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.dir, "rel.md"), "relative content")
	write(t, filepath.Join(f.dir, "sub", "nested.md"), "nested content")
	write(t, filepath.Join(f.home, "notes", "guide.md"), "home content")
	abs := filepath.Join(f.home, "abs.md")
	write(t, abs, "absolute content")
	write(t, filepath.Join(f.dir, "upper.MD"), "upper content")
	write(t, filepath.Join(f.dir, "notes.txt"), "text")
	write(t, filepath.Join(f.dir, "doc.markdown"), "markdown")
	write(t, filepath.Join(f.dir, "catalog.md"), "## R\n")
	if err := os.Mkdir(filepath.Join(f.dir, "d.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(f.dir, "passwd.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("rel.md", filepath.Join(f.dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("rel.md", filepath.Join(f.dir, "link-no-suffix")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("gone.md", filepath.Join(f.dir, "dangling.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(f.dir, "null.md")); err != nil {
		t.Fatal(err)
	}
	f.writeMap(t, `
[keys]
rel = "rel.md"
nested = "sub/nested.md"
home = "~/notes/guide.md"
abs = "`+abs+`"
upper = "upper.MD"
missing = "nope.md"
txt = "notes.txt"
markdown = "doc.markdown"
dir = "d.md"
passwd = "passwd.md"
link = "link.md"
link-no-suffix = "link-no-suffix"
dangling = "dangling.md"
null = "null.md"
through-file = "rel.md/x.md"
"key with spaces" = "rel.md"

[catalogs]
default = "catalog.md"
`)
	b := f.broker(t)
	tests := []struct {
		key  string
		want string
		code Code
	}{
		{key: "rel", want: "relative content"},
		{key: "nested", want: "nested content"},
		{key: "home", want: "home content"},
		{key: "abs", want: "absolute content"},
		{key: "upper", want: "upper content"},
		{key: "link", want: "relative content"},
		{key: "link-no-suffix", want: "relative content"},
		{key: "key with spaces", want: "relative content"},
		{key: "missing", code: CodeFileMissing},
		{key: "dangling", code: CodeFileMissing},
		{key: "through-file", code: CodeFileMissing},
		{key: "txt", code: CodeNotMarkdown},
		{key: "markdown", code: CodeNotMarkdown},
		{key: "passwd", code: CodeNotMarkdown},
		{key: "null", code: CodeNotMarkdown},
		{key: "dir", code: CodeNotRegularFile},
		{key: "nope", code: CodeUnknownKey},
		{key: "", code: CodeUnknownKey},
		{key: "default", code: CodeUnknownKey},
		{key: "REL", code: CodeUnknownKey},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			got, err := b.LoadContext(tc.key)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if string(got) != tc.want {
					t.Fatalf("content = %q, want %q", got, tc.want)
				}
				return
			}
			if got != nil || codeOf(err) != tc.code {
				t.Fatalf("got (%q, %v), want code %s", got, err, tc.code)
			}
			if !errors.Is(err, sentinel(tc.code)) {
				t.Fatalf("errors.Is(%v, %s) is false", err, tc.code)
			}
			var e *Error
			errors.As(err, &e)
			if e.Key != tc.key || e.Path != f.mapPath() {
				t.Fatalf("Key=%q Path=%q", e.Key, e.Path)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, string(tc.code)+": ") || e.Hint() == "" {
				t.Fatalf("message %q / hint %q", msg, e.Hint())
			}
			// No file content and no target path in the message.
			for _, bad := range []string{"root:", "content", "catalog.md", "rel.md", f.home} {
				if strings.Contains(msg, bad) {
					t.Fatalf("message %q contains %q", msg, bad)
				}
			}
		})
	}
}

func TestCatalogKeyIsUnknownToLoadContext(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.dir, "catalog.md"), "## R\n")
	write(t, filepath.Join(f.dir, "payments.md"), "## R\n")
	f.writeMap(t, "[keys]\nguide = \"g.md\"\n[catalogs]\ndefault = \"catalog.md\"\npayments = \"payments.md\"\n")
	b := f.broker(t)
	_, errCat := b.LoadContext("payments")
	_, errNone := b.LoadContext("zzzzzzzz")
	if codeOf(errCat) != CodeUnknownKey || codeOf(errNone) != CodeUnknownKey {
		t.Fatalf("codes: %v / %v", errCat, errNone)
	}
	a := strings.Replace(errCat.Error(), `"payments"`, `"K"`, 1)
	z := strings.Replace(errNone.Error(), `"zzzzzzzz"`, `"K"`, 1)
	if a != z {
		t.Fatalf("distinguishable errors:\n%s\n%s", a, z)
	}
	if errCat.(*Error).Hint() != errNone.(*Error).Hint() || errors.Unwrap(errCat) != errors.Unwrap(errNone) {
		t.Fatal("distinguishable hints or causes")
	}
}

func TestContextKeyNamingCatalogIsRefused(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.dir, "catalog.md"), "## R\nsecret")
	write(t, filepath.Join(f.home, "env-catalog.md"), "## R\nsecret")
	if err := os.Symlink(filepath.Join(f.dir, "catalog.md"), filepath.Join(f.home, "alias.md")); err != nil {
		t.Fatal(err)
	}
	f.writeMap(t, "[keys]\ndirect = \"catalog.md\"\nalias = \"~/alias.md\"\nenvfile = \"~/env-catalog.md\"\n[catalogs]\ndefault = \"catalog.md\"\n")
	f.env["PRIVSCAN_CATALOG_FILE"] = filepath.Join(f.home, "env-catalog.md")
	b := f.broker(t)
	for _, k := range []string{"direct", "alias", "envfile"} {
		got, err := b.LoadContext(k)
		if got != nil || codeOf(err) != CodeConfigInvalid || strings.Contains(err.Error(), "secret") {
			t.Fatalf("%s: got (%q, %v)", k, got, err)
		}
	}
}

func TestMapLocation(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.home, ".config", "privscan", "context-map.toml"), "[keys]\nk = \"a.md\"\n")
	write(t, filepath.Join(f.home, ".config", "privscan", "a.md"), "from dot-config")
	write(t, filepath.Join(f.dir, "context-map.toml"), "[keys]\nk = \"a.md\"\n")
	write(t, filepath.Join(f.dir, "a.md"), "from xdg")
	other := filepath.Join(t.TempDir(), "m.toml")
	write(t, other, "[keys]\nk = \"a.md\"\n")
	write(t, filepath.Join(filepath.Dir(other), "a.md"), "from override")
	tests := []struct {
		name     string
		env      map[string]string
		override string
		want     string
	}{
		{"xdg", map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": f.xdg}, "", "from xdg"},
		{"xdg unset", map[string]string{"HOME": f.home}, "", "from dot-config"},
		{"xdg relative is ignored", map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": "rel/xdg"}, "", "from dot-config"},
		{"override", map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": f.xdg}, other, "from override"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Open(Options{MapPath: tc.override, Getenv: func(k string) string { return tc.env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.LoadContext("k")
			if err != nil || string(got) != tc.want {
				t.Fatalf("got (%q, %v), want %q", got, err, tc.want)
			}
		})
	}
	b, _ := Open(Options{Getenv: func(string) string { return "" }})
	if _, err := b.LoadContext("k"); codeOf(err) != CodeConfigMissing || b.MapPath() != "" {
		t.Fatalf("no HOME: %v (map path %q)", err, b.MapPath())
	}
}

func TestMapMissing(t *testing.T) {
	f := newFixture(t)
	b := f.broker(t)
	_, err := b.LoadContext("k")
	if codeOf(err) != CodeConfigMissing || !errors.Is(err, ErrConfigMissing) {
		t.Fatalf("LoadContext: %v", err)
	}
	if !strings.Contains(err.Error(), f.mapPath()) {
		t.Fatalf("message does not name the map: %v", err)
	}
	if h := err.(*Error).Hint(); !strings.Contains(h, "privscan init") {
		t.Fatalf("hint %q", h)
	}
	for _, key := range []string{"", "payments"} {
		if _, _, err := b.catalogSource(key); codeOf(err) != CodeConfigMissing {
			t.Fatalf("catalogSource(%q): %v", key, err)
		}
		if _, err := b.StatCatalog(key); codeOf(err) != CodeConfigMissing {
			t.Fatalf("StatCatalog(%q): %v", key, err)
		}
	}
}

func TestMapInvalid(t *testing.T) {
	const canary = "CANARY-Zq81"
	tests := []struct {
		name, toml string
		want       []string // substrings of the message
		absent     []string
	}{
		{"syntax", "[keys]\nok = \"a.md\"\nbroken = \"" + canary + "\n", []string{"line 3", "invalid TOML"}, []string{canary, "broken"}},
		{"bad key", "[keys]\n" + canary + " x = 1\n", []string{"line 2"}, []string{canary}},
		{"duplicate", "[keys]\n" + canary + " = \"a.md\"\n" + canary + " = \"b.md\"\n", []string{"line 3"}, []string{canary}},
		{"unknown section", "[extra]\nx = \"a.md\"\n", []string{"unknown section ("}, []string{"extra"}},
		{"identifier-like section", "[acme_corp]\nx = \"a.md\"\n", []string{"unknown section ("}, []string{"acme_corp"}},
		{"insane section", "[\"" + canary + " !\"]\nx = \"a.md\"\n", []string{"unknown section ("}, []string{canary}},
		{"top-level key", "default = \"" + canary + ".md\"\n", []string{"unexpected top-level key ("}, []string{canary, "default"}},
		{"keys not table", "keys = \"" + canary + "\"\n", []string{"[keys] must be a table"}, []string{canary}},
		{"array of tables", "[[catalogs]]\ndefault = \"a.md\"\n", []string{"[catalogs] must be a table"}, nil},
		{"non-string", "[keys]\n" + canary + " = 12\n", []string{"not a string"}, []string{canary, "12"}},
		{"nested table", "[keys." + canary + "]\nx = \"a.md\"\n", []string{"not a string"}, []string{canary}},
		{"empty path", "[catalogs]\n" + canary + " = \"\"\n", []string{"empty path"}, []string{canary}},
		{"empty key", "[keys]\n\"\" = \"a.md\"\n", []string{"empty key"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.writeMap(t, tc.toml)
			b := f.broker(t)
			_, err := b.LoadContext("ok")
			if codeOf(err) != CodeConfigInvalid || !errors.Is(err, ErrConfigInvalid) {
				t.Fatalf("got %v", err)
			}
			if errors.Unwrap(err) != nil {
				t.Fatalf("config_invalid wraps %v", errors.Unwrap(err))
			}
			// The map's path is random; look only at the rest.
			msg := strings.ReplaceAll(err.Error(), f.mapPath(), "MAP")
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(msg, a) {
					t.Errorf("message %q contains %q", msg, a)
				}
			}
		})
	}
}

func TestMapFileRules(t *testing.T) {
	t.Run("directory", func(t *testing.T) {
		f := newFixture(t)
		if err := os.Mkdir(f.mapPath(), 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := f.broker(t).LoadContext("k"); codeOf(err) != CodeConfigInvalid || !strings.Contains(err.Error(), "directory") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		f := newFixture(t)
		if err := syscall.Mkfifo(f.mapPath(), 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		withTimeout(t, 5*time.Second, func() {
			if _, err := f.broker(t).LoadContext("k"); codeOf(err) != CodeConfigInvalid {
				t.Errorf("got %v", err)
			}
		})
	})
	t.Run("too large", func(t *testing.T) {
		f := newFixture(t)
		f.writeMap(t, "[keys]\nk = \"a.md\"\n#"+strings.Repeat("x", MaxMapSize))
		if _, err := f.broker(t).LoadContext("k"); codeOf(err) != CodeConfigInvalid || !strings.Contains(err.Error(), "1 MiB") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("symlinked map, no .md needed", func(t *testing.T) {
		f := newFixture(t)
		real := filepath.Join(f.home, "dotfiles", "map.toml")
		write(t, real, "[keys]\nk = \"a.md\"\n")
		write(t, filepath.Join(f.dir, "a.md"), "next to the link")
		if err := os.Symlink(real, f.mapPath()); err != nil {
			t.Fatal(err)
		}
		got, err := f.broker(t).LoadContext("k")
		if err != nil || string(got) != "next to the link" {
			t.Fatalf("got (%q, %v)", got, err)
		}
	})
	t.Run("tilde without HOME", func(t *testing.T) {
		f := newFixture(t)
		f.writeMap(t, "[keys]\nk = \"~/a.md\"\n")
		delete(f.env, "HOME")
		if _, err := f.broker(t).LoadContext("k"); codeOf(err) != CodeConfigInvalid {
			t.Fatalf("got %v", err)
		}
	})
}

func TestFIFO(t *testing.T) {
	f := newFixture(t)
	fifo := filepath.Join(f.dir, "x.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	f.writeMap(t, "[keys]\nx = \"x.md\"\n[catalogs]\nx = \"x.md\"\n")
	b := f.broker(t)
	withTimeout(t, 5*time.Second, func() {
		if _, err := b.LoadContext("x"); codeOf(err) != CodeNotRegularFile || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("LoadContext: %v", err)
		}
		if _, _, err := b.catalogSource("x"); codeOf(err) != CodeNotRegularFile {
			t.Errorf("catalogSource: %v", err)
		}
		// The open+fstat path on its own, as when a FIFO is swapped in
		// after the lstat check: the non-blocking open must not hang.
		if _, _, ferr := readResolved(fifo, MaxFileSize); ferr == nil || ferr.code != CodeNotRegularFile {
			t.Errorf("readResolved: %+v", ferr)
		}
	})
}

func TestReadResolvedRefusesDevicesAndSymlinks(t *testing.T) {
	if _, _, ferr := readResolved("/dev/null", MaxFileSize); ferr == nil || ferr.code != CodeNotRegularFile || !strings.Contains(ferr.msg, "device") {
		t.Fatalf("/dev/null: %+v", ferr)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "x")
	link := filepath.Join(dir, "l.md")
	if err := os.Symlink("a.md", link); err != nil {
		t.Fatal(err)
	}
	if _, _, ferr := readResolved(link, MaxFileSize); ferr == nil || ferr.code != CodeNotRegularFile {
		t.Fatalf("symlink opened with O_NOFOLLOW: %+v", ferr)
	}
}

func TestSizeLimit(t *testing.T) {
	f := newFixture(t)
	mk := func(name string, size int64) {
		p := filepath.Join(f.dir, name)
		fh, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := fh.Truncate(size); err != nil {
			t.Fatal(err)
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
	}
	mk("exact.md", MaxFileSize)
	mk("over.md", MaxFileSize+1)
	f.writeMap(t, "[keys]\nexact = \"exact.md\"\nover = \"over.md\"\n")
	b := f.broker(t)
	got, err := b.LoadContext("exact")
	if err != nil || len(got) != MaxFileSize {
		t.Fatalf("exact: len %d, %v", len(got), err)
	}
	if _, err := b.LoadContext("over"); codeOf(err) != CodeTooLarge || !strings.Contains(err.Error(), "64 MiB") {
		t.Fatalf("over: %v", err)
	}
	// The file grew after fstat: the read itself must stop and refuse.
	if _, ferr := readLimited(strings.NewReader(strings.Repeat("a", 101)), 10, 100); ferr == nil || ferr.code != CodeTooLarge {
		t.Fatalf("grown: %+v", ferr)
	}
	if data, ferr := readLimited(strings.NewReader(strings.Repeat("a", 100)), 10, 100); ferr != nil || len(data) != 100 {
		t.Fatalf("at limit: %d %+v", len(data), ferr)
	}
	// Every size against every hint (the fstat size, or a stale one, or
	// none) and a reader that returns a few bytes at a time: the bytes
	// come back whole, or the size is refused.
	for _, size := range []int{0, 1, 511, 512, 513, 1000, 4096} {
		want := make([]byte, size)
		for i := range want {
			want[i] = byte('a' + i%26)
		}
		for _, hint := range []int64{-1, 0, int64(size) - 1, int64(size), int64(size) + 1, 5000} {
			for _, limit := range []int64{int64(size) - 1, int64(size), 5000} {
				if limit < 0 {
					continue
				}
				data, ferr := readLimited(iotest.HalfReader(bytes.NewReader(want)), hint, limit)
				switch {
				case int64(size) > limit:
					if ferr == nil || ferr.code != CodeTooLarge {
						t.Fatalf("size %d hint %d limit %d: %+v", size, hint, limit, ferr)
					}
				case ferr != nil || !bytes.Equal(data, want):
					t.Fatalf("size %d hint %d limit %d: %d bytes, %+v", size, hint, limit, len(data), ferr)
				}
			}
		}
	}
}

func TestSymlinkLoop(t *testing.T) {
	f := newFixture(t)
	a, c := filepath.Join(f.dir, "a.md"), filepath.Join(f.dir, "c.md")
	if err := os.Symlink(c, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, c); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("self.md", filepath.Join(f.dir, "self.md")); err != nil {
		t.Fatal(err)
	}
	f.writeMap(t, "[keys]\nloop = \"a.md\"\nself = \"self.md\"\n")
	b := f.broker(t)
	withTimeout(t, 5*time.Second, func() {
		for _, k := range []string{"loop", "self"} {
			if _, err := b.LoadContext(k); codeOf(err) != CodeFileMissing || !strings.Contains(err.Error(), "symbolic links") {
				t.Errorf("%s: %v", k, err)
			}
		}
	})
}

func TestCatalogSourcePrecedence(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.dir, "default.md"), "from map default")
	write(t, filepath.Join(f.dir, "payments.md"), "from map payments")
	envFile := filepath.Join(f.home, "ci-catalog.md")
	write(t, envFile, "from env file")
	write(t, filepath.Join(f.home, "ci.txt"), "not markdown")
	f.writeMap(t, "[keys]\nguide = \"default.md\"\n[catalogs]\ndefault = \"default.md\"\npayments = \"payments.md\"\n")
	tests := []struct {
		name    string
		env     map[string]string
		key     string
		want    string
		source  Source
		infoKey string
		code    Code
	}{
		{name: "map default", want: "from map default", source: SourceMap, infoKey: "default"},
		{name: "env content", env: map[string]string{"PRIVSCAN_CATALOG": "from env"}, want: "from env", source: SourceEnv},
		{name: "env content and file combine", env: map[string]string{"PRIVSCAN_CATALOG": "from env", "PRIVSCAN_CATALOG_FILE": envFile}, want: "from env|from env file", source: SourceEnv},
		{name: "env file", env: map[string]string{"PRIVSCAN_CATALOG_FILE": envFile}, want: "from env file", source: SourceEnvFile},
		{name: "empty env is unset", env: map[string]string{"PRIVSCAN_CATALOG": "", "PRIVSCAN_CATALOG_FILE": ""}, want: "from map default", source: SourceMap, infoKey: "default"},
		{name: "explicit key beats env", env: map[string]string{"PRIVSCAN_CATALOG": "from env", "PRIVSCAN_CATALOG_FILE": envFile}, key: "payments", want: "from map payments", source: SourceMap, infoKey: "payments"},
		{name: "explicit default key", env: map[string]string{"PRIVSCAN_CATALOG": "from env"}, key: "default", want: "from map default", source: SourceMap, infoKey: "default"},
		{name: "unknown explicit key", env: map[string]string{"PRIVSCAN_CATALOG": "from env"}, key: "nope", code: CodeUnknownKey},
		{name: "context key is not a catalog", key: "guide", code: CodeUnknownKey},
		{name: "env file missing", env: map[string]string{"PRIVSCAN_CATALOG_FILE": filepath.Join(f.home, "gone.md")}, code: CodeFileMissing},
		{name: "env file not markdown", env: map[string]string{"PRIVSCAN_CATALOG_FILE": filepath.Join(f.home, "ci.txt")}, code: CodeNotMarkdown},
		{name: "env content too large", env: map[string]string{"PRIVSCAN_CATALOG": strings.Repeat("x", MaxFileSize+1)}, code: CodeTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": f.xdg}
			for k, v := range tc.env {
				env[k] = v
			}
			b, _ := Open(Options{Getenv: func(k string) string { return env[k] }})
			datas, info, err := b.catalogSource(tc.key)
			data := strings.Join(datas, "|")
			st, serr := b.StatCatalog(tc.key)
			if tc.code != "" {
				if codeOf(err) != tc.code || codeOf(serr) != tc.code {
					t.Fatalf("got %v / %v, want %s", err, serr, tc.code)
				}
				for _, bad := range []string{f.home, "from env"} {
					if strings.Contains(err.Error(), bad) {
						t.Fatalf("message %q contains %q", err, bad)
					}
				}
				return
			}
			if err != nil || serr != nil || data != tc.want {
				t.Fatalf("got (%q, %v, %v)", data, err, serr)
			}
			if info.Source != tc.source || info.Key != tc.infoKey || info.Size != int64(len(datas[0])) {
				t.Fatalf("info %+v", info)
			}
			if (info.Path == "") != (tc.source == SourceEnv) || !info.Same(st) {
				t.Fatalf("info %+v, stat %+v", info, st)
			}
		})
	}
	t.Run("no default entry", func(t *testing.T) {
		g := newFixture(t)
		g.writeMap(t, "[catalogs]\npayments = \"p.md\"\n")
		_, _, err := g.broker(t).catalogSource("")
		if codeOf(err) != CodeUnknownKey || !strings.Contains(err.(*Error).Hint(), "--catalog-key") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestStatCatalogDetectsChange(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(f.dir, "catalog.md")
	write(t, p, "one")
	f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\n")
	b := f.broker(t)
	before, err := b.StatCatalog("")
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, "one two")
	after, err := b.StatCatalog("")
	if err != nil {
		t.Fatal(err)
	}
	if before.Same(after) {
		t.Fatalf("change not detected: %+v", after)
	}
	again, _ := b.StatCatalog("")
	if !after.Same(again) {
		t.Fatal("unchanged file reported as changed")
	}
}

func TestKeyIsQuotedAndTruncated(t *testing.T) {
	f := newFixture(t)
	f.writeMap(t, "[keys]\nk = \"a.md\"\n")
	b := f.broker(t)
	_, err := b.LoadContext("evil\n\x1b[31mkey")
	if msg := err.Error(); strings.ContainsAny(msg, "\n\x1b") || !strings.Contains(msg, `"evil\n\x1b[31mkey"`) {
		t.Fatalf("message %q", msg)
	}
	_, err = b.LoadContext(strings.Repeat("é", 500))
	if msg := err.Error(); strings.Count(msg, "é") != maxKeyDisplay || !strings.Contains(msg, "…") {
		t.Fatalf("message %q", msg)
	}
}

func TestLookup(t *testing.T) {
	var es []entry
	for i := range 50 {
		km, err := parseKeyMap([]byte("[keys]\n" + `"k` + strconv.Itoa(i) + `" = "p` + strconv.Itoa(i) + `.md"` + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, km.keys...)
	}
	for i := range 50 {
		e, ok := lookup(es, "k"+strconv.Itoa(i))
		if p := e.paths; !ok || len(p) != 1 || p[0] != "p"+strconv.Itoa(i)+".md" {
			t.Fatalf("k%d: %q %v", i, p, ok)
		}
	}
	for _, k := range []string{"", "k", "k50", "K1", "k1 "} {
		if p, ok := lookup(es, k); ok {
			t.Fatalf("%q found: %q", k, p)
		}
	}
	if _, ok := lookup(nil, "x"); ok {
		t.Fatal("found in empty map")
	}
}

func TestErrorsIsAndHints(t *testing.T) {
	codes := []Code{CodeConfigMissing, CodeConfigInvalid, CodeUnknownKey, CodeFileMissing,
		CodeNotMarkdown, CodeNotRegularFile, CodeTooLarge, CodeCatalogInvalid, CodeSealKeyMissing, CodeSealKeyWrong}
	for _, c := range codes {
		e := &Error{Code: c, msg: "m"}
		if e.Hint() == "" || e.Error() != string(c)+": m" || e.Message() != "m" {
			t.Errorf("%s: hint %q error %q", c, e.Hint(), e.Error())
		}
		for _, d := range codes {
			if got := errors.Is(e, sentinel(d)); got != (c == d) {
				t.Errorf("errors.Is(%s, %s) = %v", c, d, got)
			}
		}
		if sentinel(c).Error() != string(c) {
			t.Errorf("sentinel text %q", sentinel(c))
		}
	}
}

// catalogSource returns the content of each catalog selected by key, as
// OpenCatalog would read it, and the selection's identity.
func (b *Broker) catalogSource(key string) ([]string, CatalogInfo, error) {
	sel, e := b.selectCatalogs(key)
	if e != nil {
		return nil, CatalogInfo{}, e
	}
	var out []string
	var parts []CatalogPart
	for i, p := range sel.parts {
		if p.source == SourceEnv {
			out = append(out, string(p.content))
			parts = append(parts, CatalogPart{Source: SourceEnv, Size: int64(len(p.content))})
			continue
		}
		data, meta, ferr := readFile(p.file, MaxFileSize, true)
		if ferr != nil {
			return nil, CatalogInfo{}, b.partErr(sel, i, ferr)
		}
		out = append(out, string(data))
		parts = append(parts, CatalogPart{Source: p.source, Path: meta.path, ModTime: meta.modTime, Size: meta.size})
	}
	return out, newInfo(sel.key, parts), nil
}
