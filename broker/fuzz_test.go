package broker

import (
	"regexp"
	"testing"

	"github.com/BurntSushi/toml"
)

// mapErrorShape lists every message parseKeyMap may return. Only numbers
// (line, column) come from the input.
var mapErrorShape = regexp.MustCompile(`^(` +
	`line \d+(, column \d+)?: invalid TOML|invalid TOML` +
	`|\[(keys|catalogs)\] must be a table` +
	`|\[(keys|catalogs)\] has an empty key` +
	`|an entry in \[(keys|catalogs)\] (is not a string \(a path\)|has an empty path|has a path with a NUL byte)` +
	`|unknown section \(only \[keys\] and \[catalogs\] are allowed\)` +
	`|unexpected top-level key \(entries belong under \[keys\] or \[catalogs\]\)` +
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
		// Every string entry the TOML decoder sees is found by lookup.
		var raw map[string]map[string]string
		if _, err := toml.Decode(string(data), &raw); err != nil {
			t.Fatalf("parseKeyMap accepted what a typed decode rejects: %v", err)
		}
		if len(km.keys) != len(raw["keys"]) || len(km.catalogs) != len(raw["catalogs"]) {
			t.Fatalf("entry counts %d/%d, decoder %d/%d", len(km.keys), len(km.catalogs), len(raw["keys"]), len(raw["catalogs"]))
		}
		for sec, es := range map[string][]entry{"keys": km.keys, "catalogs": km.catalogs} {
			for k, p := range raw[sec] {
				if got, ok := lookup(es, k); !ok || got != p {
					t.Fatalf("[%s] lookup failed", sec)
				}
			}
		}
	})
}
