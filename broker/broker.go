package broker

import (
	"errors"
	"os"
	"path/filepath"
)

// Options configure a Broker.
type Options struct {
	// MapPath overrides the key map's location. "" means
	// $XDG_CONFIG_HOME/privscan/context-map.toml, falling back to
	// ~/.config/privscan/context-map.toml. A relative path is made absolute
	// against the working directory when the Broker is opened.
	MapPath string
	// Getenv reads the environment (XDG_CONFIG_HOME, HOME, PRIVSCAN_CATALOG,
	// PRIVSCAN_CATALOG_FILE). nil means os.Getenv.
	Getenv func(string) string
}

// Broker reads context files and catalogs through the key map. It re-reads
// the map on every call and holds no mutable state: it is safe for concurrent
// use.
type Broker struct {
	getenv  func(string) string
	mapPath string // absolute; "" when it cannot be located (see noMap)
	noMap   string // why the map cannot be located, when mapPath == ""
}

// Open returns a Broker for opts. It reads no file: the map is read by each
// call that needs it, so a missing map is reported by those calls (as
// config_missing) and does not prevent a catalog from the environment.
// Open fails only when opts.MapPath is relative and the working directory
// cannot be determined.
func Open(opts Options) (*Broker, error) {
	b := &Broker{getenv: opts.Getenv}
	if b.getenv == nil {
		b.getenv = os.Getenv
	}
	switch {
	case opts.MapPath != "":
		p, err := filepath.Abs(opts.MapPath)
		if err != nil {
			return nil, &Error{Code: CodeConfigMissing, msg: "cannot locate the key map: the working directory is unknown", err: errnoOf(err)}
		}
		b.mapPath = p
	default:
		if x := b.getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
			b.mapPath = filepath.Join(x, "privscan", "context-map.toml")
		} else if h := b.getenv("HOME"); h != "" {
			b.mapPath = filepath.Join(h, ".config", "privscan", "context-map.toml")
		} else {
			b.noMap = "cannot locate the key map: neither XDG_CONFIG_HOME nor HOME is set"
		}
	}
	return b, nil
}

// MapPath returns the key map's path (where `privscan init` writes it), or ""
// when neither XDG_CONFIG_HOME nor HOME is set and no override was given.
func (b *Broker) MapPath() string { return b.mapPath }

// loadMap reads and parses the key map.
func (b *Broker) loadMap() (*keyMap, *Error) {
	if b.mapPath == "" {
		return nil, &Error{Code: CodeConfigMissing, msg: b.noMap}
	}
	data, _, ferr := readFile(b.mapPath, MaxMapSize, false)
	if ferr != nil {
		e := &Error{Path: b.mapPath, err: ferr.err}
		if ferr.code == CodeFileMissing && errors.Is(ferr.err, os.ErrNotExist) {
			e.Code = CodeConfigMissing
			e.msg = "key map " + b.mapPath + " does not exist"
			return nil, e
		}
		e.Code = CodeConfigInvalid
		e.msg = "key map " + b.mapPath + ": " + ferr.msg
		return nil, e
	}
	km, err := parseKeyMap(data)
	if err != nil {
		e := &Error{Code: CodeConfigInvalid, Path: b.mapPath, msg: "key map " + b.mapPath + ": " + err.Error()}
		var mi *mapIssue
		if errors.As(err, &mi) {
			e.hint = mi.hint
		}
		return nil, e
	}
	km.dir = filepath.Dir(b.mapPath)
	return km, nil
}

// entryPath expands a map entry's path, reporting a config_invalid error
// on behalf of key.
func (b *Broker) entryPath(km *keyMap, p, key string) (string, *Error) {
	full, err := expandPath(p, km.dir, b.getenv("HOME"))
	if err != nil {
		return "", &Error{Code: CodeConfigInvalid, Key: key, Path: b.mapPath, msg: "key map " + b.mapPath + ": " + err.Error()}
	}
	return full, nil
}

// LoadContext returns the raw Markdown of the [keys] entry key. A key that
// only exists under [catalogs] is unknown, with the same error as a key
// that does not exist. A [keys] entry that names the same file as a
// [catalogs] entry or PRIVSCAN_CATALOG_FILE is refused (config_invalid):
// catalogs are never returned to a caller.
func (b *Broker) LoadContext(key string) ([]byte, error) {
	km, e := b.loadMap()
	if e != nil {
		e.Key = key
		return nil, e
	}
	ent, ok := lookup(km.keys, key)
	if !ok {
		return nil, &Error{Code: CodeUnknownKey, Key: key, Path: b.mapPath,
			msg: "unknown key " + quoteKey(key) + " in key map " + b.mapPath}
	}
	full, e := b.entryPath(km, ent.paths[0], key)
	if e != nil {
		return nil, e
	}
	data, meta, ferr := readFile(full, MaxFileSize, true)
	if ferr != nil {
		return nil, b.entryErr(ferr, key, full, "key ")
	}
	if b.isCatalogFile(km, meta.path) {
		return nil, &Error{Code: CodeConfigInvalid, Key: key, Path: b.mapPath, File: full,
			msg:  "key " + quoteKey(key) + " in key map " + b.mapPath + " names a catalog file, and catalogs are never returned",
			hint: "point the [keys] entry at a context file, not at a catalog"}
	}
	return data, nil
}

// entryErr puts a file-rule failure of a map entry in context.
func (b *Broker) entryErr(ferr *fileErr, key, file, what string) *Error {
	return &Error{Code: ferr.code, Key: key, Path: b.mapPath, File: file, err: ferr.err,
		msg: what + quoteKey(key) + " in key map " + b.mapPath + ": " + ferr.msg}
}

// isCatalogFile reports whether the resolved path real is the same file as
// any catalog or seal key the broker could read: a file of a [catalogs]
// entry, a seal-key file, or a file of PRIVSCAN_CATALOG_FILE. Entries that
// cannot be resolved are ignored.
func (b *Broker) isCatalogFile(km *keyMap, real string) bool {
	fi, err := os.Stat(real)
	if err != nil {
		return false
	}
	same := func(p string) bool {
		ci, err := os.Stat(p)
		return err == nil && os.SameFile(fi, ci)
	}
	home := b.getenv("HOME")
	names := []string{km.sealKey}
	for _, c := range km.catalogs {
		names = append(names, c.sealKey)
		names = append(names, c.paths...)
	}
	for _, p := range names {
		if p == "" {
			continue
		}
		if full, err := expandPath(p, km.dir, home); err == nil && same(full) {
			return true
		}
	}
	for _, f := range envFiles(b.getenv(EnvCatalogFile)) {
		if same(f) {
			return true
		}
	}
	return false
}
