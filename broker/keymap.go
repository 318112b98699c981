package broker

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/privscan/privscan/internal/suggest"
)

// keyMap is a parsed key map. It holds digests of the keys, never the keys
// themselves, so nothing downstream can list or print them.
type keyMap struct {
	dir      string // folder of the map, for relative paths
	keys     []entry
	catalogs []entry
	// sealKey is the [catalogs] table's seal-key path (for every entry
	// without its own), or "".
	sealKey string
	// guard is the [guard] table (DefaultGuard when there is none).
	guard Guard
}

// entry is one map entry: the SHA-256 of its key and its path(s) as
// written.
type entry struct {
	digest [32]byte
	// paths holds the file of a [keys] entry, or the one or more files of
	// a [catalogs] entry, in order.
	paths []string
	// sealKey is a [catalogs] entry's own seal-key path, or "".
	sealKey string
}

// sealKeyName is the reserved name, in [catalogs] and in a catalog
// entry's table, of the seal key file's path.
const sealKeyName = "seal-key"

// maxCatalogFiles bounds the files one [catalogs] entry may combine.
const maxCatalogFiles = 64

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
	if err := toml.Unmarshal(data, &raw); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			if line, col := de.Position(); line > 0 {
				if col > 0 {
					return nil, &mapIssue{msg: fmt.Sprintf("line %d, column %d: invalid TOML", line, col)}
				}
				return nil, &mapIssue{msg: fmt.Sprintf("line %d: invalid TOML", line)}
			}
		}
		if line := duplicateLine(data); line > 0 {
			return nil, &mapIssue{msg: fmt.Sprintf("line %d: invalid TOML (a key or table defined twice)", line)}
		}
		return nil, &mapIssue{msg: "invalid TOML"}
	}
	km := &keyMap{guard: DefaultGuard()}
	for name, v := range raw {
		catalogs := false
		switch name {
		case "guard":
			g, err := parseGuard(v)
			if err != nil {
				return nil, err
			}
			km.guard = g
			continue
		case "keys":
		case "catalogs":
			catalogs = true
		default:
			return nil, unexpectedTop(name, v)
		}
		tbl, ok := v.(map[string]any)
		if !ok {
			return nil, &mapIssue{msg: fmt.Sprintf("[%s] must be a table", name)}
		}
		for k, pv := range tbl {
			if k == "" {
				return nil, &mapIssue{msg: fmt.Sprintf("[%s] has an empty key", name)}
			}
			if !catalogs {
				p, err := pathValue(pv, name)
				if err != nil {
					return nil, err
				}
				km.keys = append(km.keys, entry{digest: sha256.Sum256([]byte(k)), paths: []string{p}})
				continue
			}
			if k == sealKeyName {
				p, err := sealKeyValue(pv)
				if err != nil {
					return nil, err
				}
				km.sealKey = p
				continue
			}
			e, err := catalogEntry(pv)
			if err != nil {
				return nil, err
			}
			e.digest = sha256.Sum256([]byte(k))
			km.catalogs = append(km.catalogs, e)
		}
	}
	return km, nil
}

// pathValue checks one path of a table named table.
func pathValue(v any, table string) (string, *mapIssue) {
	p, ok := v.(string)
	switch {
	case !ok:
		return "", &mapIssue{msg: fmt.Sprintf("an entry in [%s] is not a string (a path)", table)}
	case p == "":
		return "", &mapIssue{msg: fmt.Sprintf("an entry in [%s] has an empty path", table)}
	case strings.IndexByte(p, 0) >= 0:
		return "", &mapIssue{msg: fmt.Sprintf("an entry in [%s] has a path with a NUL byte", table)}
	}
	return p, nil
}

func sealKeyValue(v any) (string, *mapIssue) {
	p, err := pathValue(v, "catalogs")
	if err != nil {
		return "", &mapIssue{msg: "the seal-key entry in [catalogs] must be the path of a key file", hint: sealKeyHint}
	}
	return p, nil
}

const sealKeyHint = `write seal-key = "<path of the key file>" (the file that ` + "`privscan catalog seal --key-file`" + ` wrote)`

// catalogEntry decodes a [catalogs] entry: a path, a list of paths, or a
// table {files = <path or list>, seal-key = <path>}.
func catalogEntry(v any) (entry, *mapIssue) {
	var e entry
	if t, ok := v.(map[string]any); ok {
		files, ok := t["files"]
		if !ok {
			return e, &mapIssue{msg: "a catalog entry written as a table needs files = [...]",
				hint: `write name = { files = ["catalog.md", "customers.sealed"], seal-key = "seal.key" }`}
		}
		for k, sv := range t {
			switch k {
			case "files":
			case sealKeyName:
				p, err := sealKeyValue(sv)
				if err != nil {
					return e, err
				}
				e.sealKey = p
			default:
				return e, &mapIssue{msg: "a catalog entry written as a table may hold only files and seal-key"}
			}
		}
		v = files
	}
	if list, ok := v.([]any); ok {
		if len(list) == 0 {
			return e, &mapIssue{msg: "an entry in [catalogs] is an empty list"}
		}
		if len(list) > maxCatalogFiles {
			return e, &mapIssue{msg: fmt.Sprintf("an entry in [catalogs] lists more than %d files", maxCatalogFiles)}
		}
		for _, pv := range list {
			p, err := pathValue(pv, "catalogs")
			if err != nil {
				return e, &mapIssue{msg: "an entry in [catalogs] lists something other than a non-empty path string"}
			}
			e.paths = append(e.paths, p)
		}
		return e, nil
	}
	p, err := pathValue(v, "catalogs")
	if err != nil {
		err.msg += ", a list of paths or a table {files, seal-key}"
		return e, err
	}
	e.paths = []string{p}
	return e, nil
}

// unexpectedTop describes a top-level entry other than [keys],
// [catalogs] and [guard]. Its name is not repeated, even when it looks like a plain
// identifier: a catalogued name spelled as an identifier (acme_corp) looks
// like one too. A section within a typo of [keys] or [catalogs] gets that
// name as a suggestion (which says only that the name is close to it).
func unexpectedTop(name string, v any) *mapIssue {
	if _, isTable := v.(map[string]any); isTable {
		mi := &mapIssue{msg: "unknown section (only [keys], [catalogs] and [guard] are allowed)"}
		if n := suggest.Nearest(name, []string{"keys", "catalogs", "guard"}); n != "" {
			mi.hint = "did you mean [" + n + "]? The key map may hold only [keys], [catalogs] and [guard] tables"
		}
		return mi
	}
	return &mapIssue{msg: "unexpected top-level key (entries belong under [keys], [catalogs] or [guard])"}
}

// lookup finds key among entries in time that depends only on the number of
// entries: the key's SHA-256 is compared with every entry's digest in
// constant time, and the index is selected without branching on a match.
func lookup(entries []entry, key string) (entry, bool) {
	d := sha256.Sum256([]byte(key))
	found, idx := 0, 0
	for i := range entries {
		eq := subtle.ConstantTimeCompare(d[:], entries[i].digest[:])
		idx = subtle.ConstantTimeSelect(eq, i, idx)
		found |= eq
	}
	if found == 0 {
		return entry{}, false
	}
	return entries[idx], true
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

// duplicateLine returns the line that defines a key or table a second
// time (the decoder's error names the key but not where it is): the
// shortest prefix of whole lines that the decoder rejects with that error
// rather than a syntax error. The decoder reads in order, so every prefix
// that reaches the second definition fails that way and none shorter
// does: a binary search over the line ends. 0 when there is none.
func duplicateLine(data []byte) int {
	ends := []int{}
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	duplicate := func(n int) bool {
		var raw map[string]any
		err := toml.Unmarshal(data[:ends[n]], &raw)
		var de *toml.DecodeError
		return err != nil && !errors.As(err, &de)
	}
	n := sort.Search(len(ends), duplicate)
	if n == len(ends) {
		return 0
	}
	return n + 1
}
