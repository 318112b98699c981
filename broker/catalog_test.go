package broker

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
)

const validCatalog = "# Team catalog\n\n## PER-001\n- category: person\n- severity: error\n\n```values\nJane Doe\n```\n"

func catalogFor(value string) string {
	return "## PER-001\n- category: person\n\n```values\n" + value + "\n```\n"
}

func TestOpenCatalog(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.dir, "catalog.md"), validCatalog)
	write(t, filepath.Join(f.dir, "payments.md"), catalogFor("Acme Payments"))
	envFile := filepath.Join(f.home, "ci.md")
	write(t, envFile, catalogFor("Envfile Person"))
	f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\npayments = \"payments.md\"\n")
	tests := []struct {
		name   string
		env    map[string]string
		key    string
		source Source
		hit    string // a text the catalog must match
	}{
		{name: "default", source: SourceMap, hit: "hello Jane Doe"},
		{name: "explicit", key: "payments", source: SourceMap, hit: "Acme Payments"},
		{name: "env", env: map[string]string{"PRIVSCAN_CATALOG": catalogFor("Env Person")}, source: SourceEnv, hit: "Env Person"},
		{name: "env file", env: map[string]string{"PRIVSCAN_CATALOG_FILE": envFile}, source: SourceEnvFile, hit: "Envfile Person"},
		{name: "explicit beats env", env: map[string]string{"PRIVSCAN_CATALOG": catalogFor("Env Person")}, key: "payments", source: SourceMap, hit: "Acme Payments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": f.xdg}
			for k, v := range tc.env {
				env[k] = v
			}
			b, _ := Open(Options{Getenv: func(k string) string { return env[k] }})
			c, info, err := b.ReadCatalog(tc.key)
			if err != nil || len(c.Rules) != 1 || info.Source != tc.source {
				t.Fatalf("ReadCatalog: %v %+v", err, info)
			}
			if c2, info3, err := b.CheckCatalog(tc.key); err != nil || len(c2.Rules) != 1 || !info.Same(info3) {
				t.Fatalf("CheckCatalog: %v %+v", err, info3)
			}
			m, info2, err := b.OpenCatalog(tc.key)
			if err != nil || !info.Same(info2) {
				t.Fatalf("OpenCatalog: %v %+v", err, info2)
			}
			if got := m.Find([]byte(tc.hit), nil); len(got) != 1 {
				t.Fatalf("matches in %q: %v", tc.hit, got)
			}
		})
	}
}

func TestCatalogInvalid(t *testing.T) {
	const canary = "Zelda Quarterback"
	tests := []struct {
		name, src, line string
	}{
		// Line 7 holds a literal shorter than 3 characters: a compile error.
		{"compile", "## PER-001\n- category: person\n\n```values\n" + canary + "\n\nab\n```\n", "catalog line 7: "},
		// A bad category setting on line 2: a parse error.
		{"parse", "## PER-001\n- category: " + canary + "\n\n```values\n" + canary + "\n```\n", "catalog line 2: "},
		// A regex matching the empty string.
		{"regex", "## RX\n- category: x\n- match: regex\n\n```values\n(" + canary + ")?\n```\n", "catalog line 6: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			write(t, filepath.Join(f.dir, "catalog.md"), tc.src)
			f.writeMap(t, "[catalogs]\ndefault = \"catalog.md\"\n")
			for _, env := range []map[string]string{nil, {"PRIVSCAN_CATALOG": tc.src}} {
				for k, v := range env {
					f.env[k] = v
				}
				_, _, err := f.broker(t).OpenCatalog("")
				if codeOf(err) != CodeCatalogInvalid || !errors.Is(err, ErrCatalogInvalid) {
					t.Fatalf("got %v", err)
				}
				// CheckCatalog fails the same way, compile errors included.
				if _, _, cerr := f.broker(t).CheckCatalog(""); cerr == nil || cerr.Error() != err.Error() {
					t.Fatalf("CheckCatalog: %v, OpenCatalog: %v", cerr, err)
				}
				msg := err.Error()
				if strings.Contains(msg, "Zelda") || strings.Contains(msg, "Quarterback") {
					t.Fatalf("message quotes the catalog: %q", msg)
				}
				if !strings.Contains(msg, tc.line) {
					t.Fatalf("message has no line number: %q", msg)
				}
				var pe *catalog.ParseError
				if tc.name == "parse" && (!errors.As(err, &pe) || pe.Line != 2) {
					t.Fatalf("parse error not wrapped with line 2: %v", err)
				}
			}
		})
	}
}
