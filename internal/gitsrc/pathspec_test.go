package gitsrc

import (
	"strings"
	"testing"
)

func TestPathspec(t *testing.T) {
	tests := []struct {
		prefix  string
		paths   []string
		match   map[string]bool
		descend map[string]bool
	}{
		{"", nil, map[string]bool{"a": true, "x/y": true}, map[string]bool{"x": true}},
		{"", []string{"dir"}, map[string]bool{"dir": true, "dir/a": true, "dir2/a": false, "di": false},
			map[string]bool{"dir": true, "dir/sub": true, "dir2": false, "other": false}},
		{"", []string{"dir/sub/f.txt"}, map[string]bool{"dir/sub/f.txt": true, "dir/sub/g.txt": false},
			map[string]bool{"dir": true, "dir/sub": true, "dir/other": false}},
		{"sub", []string{"."}, map[string]bool{"sub/a": true, "a": false}, map[string]bool{"sub": true, "x": false}},
		{"sub", []string{"../top.txt"}, map[string]bool{"top.txt": true, "sub/top.txt": false}, nil},
		{"", []string{"*.go"}, map[string]bool{"a.go": true, "x/y/b.go": true, "a.goo": false}, map[string]bool{"x": true}},
		{"", []string{"src/fo*"}, map[string]bool{"src/foo.c": true, "src/fo/x": true, "src/bar": false},
			map[string]bool{"src": true, "src/foo": true, "lib": false}},
		{"", []string{"d?r/[ab].txt"}, map[string]bool{"dir/a.txt": true, "dor/b.txt": true, "dir/c.txt": false}, nil},
	}
	for _, tt := range tests {
		ps, err := newPathspec("/repo", tt.prefix, tt.paths)
		if err != nil {
			t.Fatalf("newPathspec(%q, %q): %v", tt.prefix, tt.paths, err)
		}
		for p, want := range tt.match {
			if got := ps.match(p); got != want {
				t.Errorf("%q in %q: match(%q) = %v, want %v", tt.paths, tt.prefix, p, got, want)
			}
		}
		for d, want := range tt.descend {
			if got := ps.descend(d); got != want {
				t.Errorf("%q in %q: descend(%q) = %v, want %v", tt.paths, tt.prefix, d, got, want)
			}
		}
	}
	for _, bad := range [][]string{{"../x"}, {"/elsewhere/x"}} {
		if _, err := newPathspec("/repo", "", bad); err == nil {
			t.Errorf("newPathspec(%q) accepted a path outside the repository", bad)
		}
	}
	if ps, err := newPathspec("/repo", "", []string{"/repo/a/b"}); err != nil || !ps.match("a/b/c") {
		t.Errorf("absolute path inside the repository: %v", err)
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"*", "", true},
		{"*", "a/b", true},
		{"a*b", "a/x/b", true},
		{"a*b", "a/x/c", false},
		{"?", "ab", false},
		{"[a-c]x", "bx", true},
		{"[!a-c]x", "bx", false},
		{"[^a-c]x", "dx", true},
		{"[]]", "]", true},
		{"[abc", "[abc", true},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{"*.txt", "dir/f.txt", true},
		{"**/x", "a/b/x", true},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pat, tt.name); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pat, tt.name, got, tt.want)
		}
	}
}

func FuzzGlobMatch(f *testing.F) {
	for _, s := range [][2]string{{"*", "x"}, {"a[b-d]*", "ac/e"}, {`[!\]]?`, "ab"}, {"[", "["}, {`\`, `\`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		got := globMatch(pat, name)
		// A pattern without metacharacters matches only itself.
		if !strings.ContainsAny(pat, `*?[\`) && got != (pat == name) {
			t.Fatalf("literal %q vs %q: %v", pat, name, got)
		}
		// A leading '*' can absorb any prefix.
		if got && !globMatch("*"+pat, "pre/"+name) {
			t.Fatalf("*%q does not match pre/%q", pat, name)
		}
		// Everything matches a lone star.
		if !globMatch("*", name) {
			t.Fatal("* failed")
		}
		// Escaping every byte of a name makes it a literal pattern.
		var esc strings.Builder
		for i := 0; i < len(name); i++ {
			esc.WriteByte('\\')
			esc.WriteByte(name[i])
		}
		if !globMatch(esc.String(), name) {
			t.Fatalf("escaped %q does not match itself", name)
		}
	})
}
