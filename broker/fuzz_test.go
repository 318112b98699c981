package broker

import (
	"regexp"
	"slices"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// mapErrorShape lists every message parseKeyMap may return. Only numbers
// (line, column) come from the input.
var mapErrorShape = regexp.MustCompile(`^(` +
	`line \d+(, column \d+)?: invalid TOML( \(a key or table defined twice\))?|invalid TOML` +
	`|\[(keys|catalogs)\] must be a table` +
	`|\[(keys|catalogs)\] has an empty key` +
	`|an entry in \[(keys|catalogs)\] (is not a string \(a path\)|has an empty path|has a path with a NUL byte)(, a list of paths or a table \{files, seal-key\})?` +
	`|an entry in \[catalogs\] (is an empty list|lists more than \d+ files|lists something other than a non-empty path string)` +
	`|a catalog entry written as a table (needs files = \[\.\.\.\]|may hold only files and seal-key)` +
	`|the seal-key entry in \[catalogs\] must be the path of a key file` +
	`|unknown section \(only \[keys\], \[catalogs\] and \[guard\] are allowed\)` +
	`|\[guard\] (must be a table|has an unknown setting|(read|prompt|outbound) must be \"block\", \"warn\" or \"off\"|level must be \"error\", \"warning\" or \"note\"|probe-budget must be a whole number from 1 to \d+)` +
	`|unexpected top-level key \(entries belong under \[keys\], \[catalogs\] or \[guard\]\)` +
	`)$`)

func FuzzLoadMap(f *testing.F) {
	for _, s := range []string{
		"[keys]\nguide = \"~/notes/guide.md\"\n[catalogs]\ndefault = \"catalog.md\"\n",
		"[keys]\n\"spaced key\" = 'a.md'\n",
		"[keys]\nbroken = \"secret-value\n",
		"[keys]\na.b = \"x.md\"\n",
		"[[catalogs]]\nx = 1\n",
		"[extra]\n",
		"top = 1\n",
		"[\"weird name!\"]\n",
		"[keys]\nx = \"\"\n",
		"[keys]\nx = \"a\\u0000b.md\"\n",
		"[catalogs]\ndefault = [\"a.md\", \"b.sealed\"]\nseal-key = \"k\"\n",
		"[catalogs]\nx = { files = \"a.md\", seal-key = \"k\" }\n[catalogs.y]\nfiles = [\"b.md\"]\n",
		"[catalogs]\nx = []\ny = [1]\n",
		"\ufeff[keys]\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		km, err := parseKeyMap(data)
		if err != nil {
			if !mapErrorShape.MatchString(err.Error()) {
				t.Fatalf("error %q has an unexpected shape (it may quote input)", err)
			}
			return
		}
		// Every entry the TOML decoder sees is found by lookup, with its
		// paths in order.
		var raw map[string]map[string]any
		if err := toml.Unmarshal(data, &raw); err != nil {
			t.Fatalf("parseKeyMap accepted what a generic decode rejects: %v", err)
		}
		nCat := len(raw["catalogs"])
		if _, ok := raw["catalogs"][sealKeyName]; ok {
			nCat--
		}
		if len(km.keys) != len(raw["keys"]) || len(km.catalogs) != nCat {
			t.Fatalf("entry counts %d/%d, decoder %d/%d", len(km.keys), len(km.catalogs), len(raw["keys"]), nCat)
		}
		for sec, es := range map[string][]entry{"keys": km.keys, "catalogs": km.catalogs} {
			for k, v := range raw[sec] {
				if sec == "catalogs" && k == sealKeyName {
					if km.sealKey != v {
						t.Fatalf("seal-key not kept")
					}
					continue
				}
				got, ok := lookup(es, k)
				if !ok || !slices.Equal(got.paths, pathsOf(v)) {
					t.Fatalf("[%s] lookup failed", sec)
				}
			}
		}
	})
}

// pathsOf returns the paths a decoded entry names.
func pathsOf(v any) []string {
	if t, ok := v.(map[string]any); ok {
		v = t["files"]
	}
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, p := range v {
			s, _ := p.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}
