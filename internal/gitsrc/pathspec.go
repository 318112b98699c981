package gitsrc

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
)

// errPathOutside is returned for a path limit outside the working tree.
var errPathOutside = errors.New("path is outside the repository")

// pathspec limits a comparison to some paths, like `git diff -- <path>…`:
// each item is a file, a directory prefix, or a glob in which '*' also
// matches '/' (git's default pathspec globbing). A nil or empty pathspec
// matches everything.
type pathspec struct {
	items []psItem
}

type psItem struct {
	pat     string // slash-separated, relative to the root; "" is the root
	glob    bool
	literal string // for a glob, the part before the first wildcard
}

// newPathspec resolves paths relative to the opened directory (prefix,
// relative to the root) like git does; absolute paths must lie in root.
func newPathspec(root, prefix string, paths []string) (*pathspec, error) {
	ps := &pathspec{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		var rel string
		if filepath.IsAbs(p) {
			if root == "" {
				return nil, errPathOutside
			}
			r, err := filepath.Rel(root, p)
			if err != nil {
				return nil, errPathOutside
			}
			rel = filepath.ToSlash(r)
		} else {
			rel = path.Join(prefix, filepath.ToSlash(p))
		}
		rel = path.Clean(rel)
		if rel == "." {
			rel = ""
		}
		if rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
			return nil, errPathOutside
		}
		it := psItem{pat: rel}
		if i := strings.IndexAny(rel, "*?["); i >= 0 {
			it.glob = true
			it.literal = rel[:i]
		}
		ps.items = append(ps.items, it)
	}
	return ps, nil
}

// all reports whether the pathspec matches everything.
func (ps *pathspec) all() bool {
	if ps == nil || len(ps.items) == 0 {
		return true
	}
	for _, it := range ps.items {
		if it.pat == "" {
			return true
		}
	}
	return false
}

// match reports whether a file path is selected.
func (ps *pathspec) match(p string) bool {
	if ps.all() {
		return true
	}
	for _, it := range ps.items {
		if p == it.pat || strings.HasPrefix(p, it.pat) && len(p) > len(it.pat) && p[len(it.pat)] == '/' {
			return true
		}
		if it.glob {
			if globMatch(it.pat, p) {
				return true
			}
			// A glob also selects everything under a directory it matches.
			for i := 0; i < len(p); i++ {
				if p[i] == '/' && globMatch(it.pat, p[:i]) {
					return true
				}
			}
		}
	}
	return false
}

// descend reports whether anything under directory dir may be selected.
func (ps *pathspec) descend(dir string) bool {
	if ps.all() {
		return true
	}
	for _, it := range ps.items {
		pat := it.pat
		if it.glob {
			pat = it.literal
			// The literal part may end inside a name: "src/fo*".
			if strings.HasPrefix(dir+"/", pat) || strings.HasPrefix(pat, dir+"/") {
				return true
			}
			continue
		}
		if dir == pat || strings.HasPrefix(dir, pat+"/") || strings.HasPrefix(pat, dir+"/") {
			return true
		}
	}
	return false
}

// globMatch matches name against a git pathspec glob: '*' matches any run
// of bytes including '/', '?' one byte, "[…]" a byte class ("[!…]" or
// "[^…]" negated, ranges with '-'), and '\' escapes the next byte.
func globMatch(pat, name string) bool {
	// Iterative matcher with single-star backtracking.
	px, nx := 0, 0
	starP, starN := -1, -1
	for nx < len(name) {
		if px < len(pat) {
			switch c := pat[px]; c {
			case '*':
				starP, starN = px, nx
				px++
				continue
			case '?':
				px++
				nx++
				continue
			case '[':
				if ok, width, valid := matchClass(pat[px:], name[nx]); valid {
					if ok {
						px += width
						nx++
						continue
					}
				} else if name[nx] == '[' {
					px++
					nx++
					continue
				}
			case '\\':
				if px+1 < len(pat) && pat[px+1] == name[nx] {
					px += 2
					nx++
					continue
				}
			default:
				if c == name[nx] {
					px++
					nx++
					continue
				}
			}
		}
		if starP >= 0 {
			starN++
			px, nx = starP+1, starN
			continue
		}
		return false
	}
	for px < len(pat) && pat[px] == '*' {
		px++
	}
	return px == len(pat)
}

// matchClass matches byte b against the class at the start of pat ("[…]").
// width is the class's length in pat; valid is false when the class is not
// closed, in which case '[' is literal.
func matchClass(pat string, b byte) (ok bool, width int, valid bool) {
	i := 1
	neg := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		neg = true
		i++
	}
	first := true
	for i < len(pat) {
		c := pat[i]
		if c == ']' && !first {
			return ok != neg, i + 1, true
		}
		first = false
		if c == '\\' && i+1 < len(pat) {
			i++
			c = pat[i]
		}
		if i+2 < len(pat) && pat[i+1] == '-' && pat[i+2] != ']' {
			hi := pat[i+2]
			if hi == '\\' && i+3 < len(pat) {
				hi = pat[i+3]
				i++
			}
			if c <= b && b <= hi {
				ok = true
			}
			i += 3
			continue
		}
		if c == b {
			ok = true
		}
		i++
	}
	return false, 0, false
}
