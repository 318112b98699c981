package suggest

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"diff", "diff", 0},
		{"difff", "diff", 1},
		{"dfif", "diff", 1}, // transposition
		{"Diff", "diff", 0}, // case-insensitive
		{"hsitory", "history", 1},
		{"histroy", "history", 1},
		{"scna", "scan", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"ünïcode", "unicode", 2}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestNearest(t *testing.T) {
	cmds := []string{"diff", "history", "scan", "text", "redact", "catalog", "init", "demo", "mcp", "hook", "action", "version", "help"}
	tests := []struct {
		typed string
		cands []string
		want  string
	}{
		{"difff", cmds, "diff"},
		{"hsitory", cmds, "history"},
		{"scna", cmds, "scan"},
		{"verison", cmds, "version"},
		{"frobnicate", cmds, ""},
		{"xyz", cmds, ""},
		{"dif", cmds, "diff"},
		{"ab", cmds, ""},                                   // two runes: one edit allowed, none that close
		{"", cmds, ""},                                     // nothing typed
		{"fail", []string{"format", "fail-on"}, "fail-on"}, // prefix
		{"stagde", []string{"format", "staged", "cached"}, "staged"},
		{"catalogs", []string{"keys", "catalogs"}, "catalogs"},
		{"catalog", []string{"keys", "catalogs"}, "catalogs"},
		{"key", []string{"keys", "catalogs"}, "keys"},
		{"texts", []string{"text", "json"}, "text"},
	}
	for _, tt := range tests {
		if got := Nearest(tt.typed, tt.cands); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}
