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
			if c2, info3, err := b.CheckCatalog(tc.key); err != nil || len(c2) != 1 || len(c2[0].Rules) != 1 || !info.Same(info3) {
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

func ruleFor(id, value string) string {
	return "## " + id + "\n- category: person\n\n```values\n" + value + "\n```\n"
}

// TestCombination: lists in the map, the environment's combinations, the
// precedence between them, and rule IDs unique across a combination.
func TestCombination(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.dir, "a.md"), ruleFor("A-1", "Alpha Person"))
	write(t, filepath.Join(f.dir, "b.md"), ruleFor("B-1", "Bravo Person"))
	write(t, filepath.Join(f.dir, "dup.md"), ruleFor("A-1", "Delta Person"))
	write(t, filepath.Join(f.dir, "single.md"), ruleFor("S-1", "Sierra Person"))
	write(t, filepath.Join(f.dir, "bad.md"), ruleFor("X-1", "ab"))
	envA := filepath.Join(f.home, "ea.md")
	envB := filepath.Join(f.home, "eb.md")
	write(t, envA, ruleFor("EA-1", "Echo Person"))
	write(t, envB, ruleFor("EB-1", "Foxtrot Person"))
	f.writeMap(t, `[catalogs]
default = ["a.md", "b.md"]
single = "single.md"
dup = ["a.md", "dup.md"]
bad = ["a.md", "bad.md"]
gone = ["a.md", "gone.md"]
tabled = { files = ["b.md", "a.md"] }

[catalogs.sub]
files = "single.md"
`)
	secret := ruleFor("ENV-1", "Golf Person")
	tests := []struct {
		name  string
		env   map[string]string
		key   string
		rules string // rule IDs in order
		srcs  []Source
		code  Code
		msg   []string // substrings of the error
	}{
		{name: "map list", rules: "A-1 B-1", srcs: []Source{SourceMap, SourceMap}},
		{name: "map single", key: "single", rules: "S-1", srcs: []Source{SourceMap}},
		{name: "map table, its order", key: "tabled", rules: "B-1 A-1", srcs: []Source{SourceMap, SourceMap}},
		{name: "map sub-table", key: "sub", rules: "S-1", srcs: []Source{SourceMap}},
		{name: "env files", env: map[string]string{"PRIVSCAN_CATALOG_FILE": envA + ":" + envB}, rules: "EA-1 EB-1", srcs: []Source{SourceEnvFile, SourceEnvFile}},
		{name: "env files, empty elements dropped", env: map[string]string{"PRIVSCAN_CATALOG_FILE": ":" + envB + "::" + envA + ":"}, rules: "EB-1 EA-1", srcs: []Source{SourceEnvFile, SourceEnvFile}},
		{name: "env content and files", env: map[string]string{"PRIVSCAN_CATALOG": secret, "PRIVSCAN_CATALOG_FILE": envA + ":" + envB}, rules: "ENV-1 EA-1 EB-1", srcs: []Source{SourceEnv, SourceEnvFile, SourceEnvFile}},
		{name: "explicit key beats env", env: map[string]string{"PRIVSCAN_CATALOG": secret, "PRIVSCAN_CATALOG_FILE": envA}, key: "default", rules: "A-1 B-1", srcs: []Source{SourceMap, SourceMap}},
		{name: "duplicate in map list", key: "dup", code: CodeCatalogInvalid,
			msg: []string{"rule ID A-1 is defined twice", `catalog key "dup" in key map`, "(file 1 of 2)", "(file 2 of 2)"}},
		{name: "duplicate across env", env: map[string]string{"PRIVSCAN_CATALOG": ruleFor("EA-1", "Hotel Person"), "PRIVSCAN_CATALOG_FILE": envA}, code: CodeCatalogInvalid,
			msg: []string{"rule ID EA-1 is defined twice: in PRIVSCAN_CATALOG and in PRIVSCAN_CATALOG_FILE"}},
		{name: "duplicate env file twice", env: map[string]string{"PRIVSCAN_CATALOG_FILE": envA + ":" + envA}, code: CodeCatalogInvalid,
			msg: []string{"PRIVSCAN_CATALOG_FILE (file 1 of 2) and in PRIVSCAN_CATALOG_FILE (file 2 of 2)"}},
		{name: "invalid second file", key: "bad", code: CodeCatalogInvalid, msg: []string{"(file 2 of 2): catalog line 5"}},
		{name: "missing second file", key: "gone", code: CodeFileMissing, msg: []string{"(file 2 of 2): file does not exist"}},
		{name: "missing env file", env: map[string]string{"PRIVSCAN_CATALOG_FILE": envA + ":" + filepath.Join(f.home, "nope.md")}, code: CodeFileMissing,
			msg: []string{"PRIVSCAN_CATALOG_FILE (file 2 of 2): file does not exist"}},
		{name: "env file not markdown", env: map[string]string{"PRIVSCAN_CATALOG_FILE": envA + ":" + f.mapPath()}, code: CodeNotMarkdown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"HOME": f.home, "XDG_CONFIG_HOME": f.xdg}
			for k, v := range tc.env {
				env[k] = v
			}
			b, _ := Open(Options{Getenv: func(k string) string { return env[k] }})
			m, info, err := b.OpenCatalog(tc.key)
			checked, cinfo, cerr := b.CheckCatalog(tc.key)
			if tc.code != "" {
				if codeOf(err) != tc.code || codeOf(cerr) != tc.code {
					t.Fatalf("got %v / %v, want %s", err, cerr, tc.code)
				}
				for _, s := range tc.msg {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("message %q lacks %q", err, s)
					}
				}
				for _, bad := range []string{"Person", f.home, "Golf", "Hotel"} {
					if strings.Contains(err.Error(), bad) {
						t.Errorf("message %q contains %q", err, bad)
					}
				}
				return
			}
			if err != nil || cerr != nil {
				t.Fatalf("OpenCatalog: %v; CheckCatalog: %v", err, cerr)
			}
			var ids []string
			for _, r := range m.Rules() {
				ids = append(ids, r.ID)
			}
			if got := strings.Join(ids, " "); got != tc.rules {
				t.Fatalf("rules %q, want %q", got, tc.rules)
			}
			if len(info.Parts) != len(tc.srcs) || len(checked) != len(tc.srcs) || !info.Same(cinfo) {
				t.Fatalf("info %+v, checked %d", info, len(checked))
			}
			for i, s := range tc.srcs {
				if info.Parts[i].Source != s || (info.Parts[i].Path == "") != (s == SourceEnv) {
					t.Fatalf("part %d: %+v", i, info.Parts[i])
				}
			}
			st, err := b.StatCatalog(tc.key)
			if err != nil || !st.Same(info) {
				t.Fatalf("StatCatalog: %v %+v", err, st)
			}
			// Every catalog's values are found, each under its own rule.
			values := map[string]string{"A-1": "Alpha", "B-1": "Bravo", "S-1": "Sierra", "EA-1": "Echo", "EB-1": "Foxtrot", "ENV-1": "Golf"}
			for i, r := range m.Rules() {
				got := m.Find([]byte("x "+values[r.ID]+" Person y"), nil)
				if len(got) != 1 || got[0].Rule != i {
					t.Fatalf("rule %s: matches %v", r.ID, got)
				}
			}
			if len(tc.srcs) > 1 {
				if _, _, err := b.ReadCatalog(tc.key); codeOf(err) != CodeConfigInvalid {
					t.Fatalf("ReadCatalog of a combination: %v", err)
				}
			}
		})
	}
}

func TestCombinationStatDetectsChange(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.dir, "a.md"), ruleFor("A-1", "Alpha Person"))
	b2 := filepath.Join(f.dir, "b.md")
	write(t, b2, ruleFor("B-1", "Bravo Person"))
	f.writeMap(t, "[catalogs]\ndefault = [\"a.md\", \"b.md\"]\n")
	b := f.broker(t)
	before, err := b.StatCatalog("")
	if err != nil {
		t.Fatal(err)
	}
	write(t, b2, ruleFor("B-1", "Bravo Person Two"))
	after, err := b.StatCatalog("")
	if err != nil || before.Same(after) {
		t.Fatalf("change of the second file not detected: %v", err)
	}
}
