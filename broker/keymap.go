package broker

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/privscan/privscan/internal/suggest"
)

// keyMap is a parsed key map. It holds digests of the keys, never the keys
// themselves, so nothing downstream can list or print them.
type keyMap struct {
	dir      string // folder of the map, for relative paths
	keys     []entry
	catalogs []entry
}

// entry is one map entry: the SHA-256 of its key and its path as written.
type entry struct {
	digest [32]byte
	path   string
}

// mapIssue is a value-free reason a key map is invalid.
type mapIssue struct {
	msg  string
	hint string // a suggestion, when there is one
}

func (m *mapIssue) Error() string { return m.msg }

// parseKeyMap decodes the TOML of a key map. Errors are *mapIssue with text
// that never quotes the input: TOML syntax errors keep only their position,
// and no name from the file is repeated.
func parseKeyMap(data []byte) (*keyMap, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) && pe.Position.Line > 0 {
			if pe.Position.Col > 0 {
				return nil, &mapIssue{msg: fmt.Sprintf("line %d, column %d: invalid TOML", pe.Position.Line, pe.Position.Col)}
			}
			return nil, &mapIssue{msg: fmt.Sprintf("line %d: invalid TOML", pe.Position.Line)}
		}
		return nil, &mapIssue{msg: "invalid TOML"}
	}
	km := &keyMap{}
	for name, v := range raw {
		var dst *[]entry
		switch name {
		case "keys":
			dst = &km.keys
		case "catalogs":
			dst = &km.catalogs
		default:
			return nil, unexpectedTop(name, v)
		}
		tbl, ok := v.(map[string]any)
		if !ok {
			return nil, &mapIssue{msg: fmt.Sprintf("[%s] must be a table", name)}
		}
		for k, pv := range tbl {
			p, ok := pv.(string)
			switch {
			case k == "":
				return nil, &mapIssue{msg: fmt.Sprintf("[%s] has an empty key", name)}
			case !ok:
				return nil, &mapIssue{msg: fmt.Sprintf("an entry in [%s] is not a string (a path)", name)}
			case p == "":
				return nil, &mapIssue{msg: fmt.Sprintf("an entry in [%s] has an empty path", name)}
			case strings.IndexByte(p, 0) >= 0:
				return nil, &mapIssue{msg: fmt.Sprintf("an entry in [%s] has a path with a NUL byte", name)}
			}
			*dst = append(*dst, entry{digest: sha256.Sum256([]byte(k)), path: p})
		}
	}
	return km, nil
}

// unexpectedTop describes a top-level entry other than [keys] and
// [catalogs]. Its name is not repeated, even when it looks like a plain
// identifier: a catalogued name spelled as an identifier (acme_corp) looks
// like one too. A section within a typo of [keys] or [catalogs] gets that
// name as a suggestion (which says only that the name is close to it).
func unexpectedTop(name string, v any) *mapIssue {
	if _, isTable := v.(map[string]any); isTable {
		mi := &mapIssue{msg: "unknown section (only [keys] and [catalogs] are allowed)"}
		if n := suggest.Nearest(name, []string{"keys", "catalogs"}); n != "" {
			mi.hint = "did you mean [" + n + "]? The key map may hold only [keys] and [catalogs] tables"
		}
		return mi
	}
	return &mapIssue{msg: "unexpected top-level key (entries belong under [keys] or [catalogs])"}
}

// lookup finds key among entries in time that depends only on the number of
// entries: the key's SHA-256 is compared with every entry's digest in
// constant time, and the index is selected without branching on a match.
func lookup(entries []entry, key string) (string, bool) {
	d := sha256.Sum256([]byte(key))
	found, idx := 0, 0
	for i := range entries {
		eq := subtle.ConstantTimeCompare(d[:], entries[i].digest[:])
		idx = subtle.ConstantTimeSelect(eq, i, idx)
		found |= eq
	}
	if found == 0 {
		return "", false
	}
	return entries[idx].path, true
}

// expandPath turns a path from the map into one the file system can open:
// "~/" is HOME, a relative path is relative to dir.
func expandPath(p, dir, home string) (string, error) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", &mapIssue{msg: "a path starts with ~/ but HOME is unset"}
		}
		return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
	case filepath.IsAbs(p):
		return filepath.Clean(p), nil
	}
	return filepath.Join(dir, p), nil
}
