package broker

import (
	"errors"
	"strings"
	"testing"
)

// A section that is a typo of [keys] or [catalogs] gets the right name as
// a hint; the typed name itself is never repeated.
func TestUnknownSectionHint(t *testing.T) {
	tests := []struct {
		in, hint string
	}{
		{"[catalog]\ndefault = \"c.md\"\n", "did you mean [catalogs]?"},
		{"[Catalogs]\ndefault = \"c.md\"\n", "did you mean [catalogs]?"},
		{"[key]\nguide = \"g.md\"\n", "did you mean [keys]?"},
		{"[zephyr_quartz]\ndefault = \"c.md\"\n", ""},
	}
	for _, tt := range tests {
		_, err := parseKeyMap([]byte(tt.in))
		var mi *mapIssue
		if !errors.As(err, &mi) {
			t.Fatalf("%q: got %v, want a map issue", tt.in, err)
		}
		if mi.hint != tt.hint && !(tt.hint != "" && strings.HasPrefix(mi.hint, tt.hint)) {
			t.Errorf("%q: hint %q, want prefix %q", tt.in, mi.hint, tt.hint)
		}
		for _, name := range []string{"catalog]", "Catalogs", "key]", "zephyr"} {
			if strings.Contains(mi.msg, name) {
				t.Errorf("%q: message %q repeats the section name", tt.in, mi.msg)
			}
		}
	}
}
