package broker

import (
	"errors"
	"os"
	"path/filepath"
	"time"
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
	p, ok := lookup(km.keys, key)
	if !ok {
		return nil, &Error{Code: CodeUnknownKey, Key: key, Path: b.mapPath,
			msg: "unknown key " + quoteKey(key) + " in key map " + b.mapPath}
	}
	full, e := b.entryPath(km, p, key)
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
// any catalog the broker could read: a [catalogs] entry or
// PRIVSCAN_CATALOG_FILE. Entries that cannot be resolved are ignored.
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
	for _, c := range km.catalogs {
		if full, err := expandPath(c.path, km.dir, home); err == nil && same(full) {
			return true
		}
	}
	if f := b.getenv("PRIVSCAN_CATALOG_FILE"); f != "" && same(f) {
		return true
	}
	return false
}

// Source says where a catalog came from.
type Source uint8

const (
	// SourceMap is a [catalogs] entry of the key map.
	SourceMap Source = iota + 1
	// SourceEnv is the PRIVSCAN_CATALOG environment variable.
	SourceEnv
	// SourceEnvFile is the file named by PRIVSCAN_CATALOG_FILE.
	SourceEnvFile
)

func (s Source) String() string {
	switch s {
	case SourceMap:
		return "map"
	case SourceEnv:
		return "env"
	case SourceEnvFile:
		return "env-file"
	}
	return "unknown"
}

// CatalogInfo is the value-free identity of a catalog source, for caching
// (recompile when it changes) and diagnostics.
type CatalogInfo struct {
	Source Source
	// Key is the [catalogs] key used ("default" when none was given);
	// "" for the environment sources.
	Key string
	// Path is the resolved path of the catalog file; "" for SourceEnv.
	// It is for cache invalidation and the local user's diagnostics only.
	Path string
	// ModTime and Size come from fstat of the file read (or stat, for
	// StatCatalog). For SourceEnv, Size is the content's length and ModTime
	// is zero.
	ModTime time.Time
	Size    int64
}

// Same reports whether i and o describe the same unchanged source.
func (i CatalogInfo) Same(o CatalogInfo) bool {
	return i.Source == o.Source && i.Key == o.Key && i.Path == o.Path &&
		i.Size == o.Size && i.ModTime.Equal(o.ModTime)
}

// defaultCatalogKey is the catalog key used when none is named (docs/keymap.md).
const defaultCatalogKey = "default"

// catalogTarget is a resolved catalog source before it is read.
type catalogTarget struct {
	info    CatalogInfo
	content []byte // SourceEnv only
	file    string // the path to read (as written, expanded); not SourceEnv
	key     string // the caller's key, for messages
	what    string // message subject prefix: "catalog key " or ""
}

// catalogTarget applies the precedence of docs/keymap.md: an explicit key, then
// PRIVSCAN_CATALOG, then PRIVSCAN_CATALOG_FILE, then [catalogs] default.
func (b *Broker) catalogTarget(key string) (*catalogTarget, *Error) {
	if key == "" {
		if c := b.getenv("PRIVSCAN_CATALOG"); c != "" {
			if len(c) > MaxFileSize {
				return nil, &Error{Code: CodeTooLarge, msg: "PRIVSCAN_CATALOG: catalog is larger than 64 MiB"}
			}
			return &catalogTarget{info: CatalogInfo{Source: SourceEnv, Size: int64(len(c))}, content: []byte(c)}, nil
		}
		if f := b.getenv("PRIVSCAN_CATALOG_FILE"); f != "" {
			return &catalogTarget{info: CatalogInfo{Source: SourceEnvFile}, file: f}, nil
		}
	}
	km, e := b.loadMap()
	if e != nil {
		e.Key = key
		if key == "" && e.Code == CodeConfigMissing {
			e.msg += " and neither PRIVSCAN_CATALOG nor PRIVSCAN_CATALOG_FILE is set"
		}
		return nil, e
	}
	name := key
	if name == "" {
		name = defaultCatalogKey
	}
	p, ok := lookup(km.catalogs, name)
	if !ok {
		if key == "" {
			return nil, &Error{Code: CodeUnknownKey, Path: b.mapPath,
				msg:  "no catalog named: key map " + b.mapPath + " has no [catalogs] default entry",
				hint: "pass --catalog-key, set PRIVSCAN_CATALOG, or add a default entry under [catalogs]"}
		}
		return nil, &Error{Code: CodeUnknownKey, Key: key, Path: b.mapPath,
			msg: "unknown catalog key " + quoteKey(key) + " in key map " + b.mapPath}
	}
	full, e := b.entryPath(km, p, key)
	if e != nil {
		return nil, e
	}
	return &catalogTarget{info: CatalogInfo{Source: SourceMap, Key: name}, file: full, key: name, what: "catalog key "}, nil
}

// fileError puts a file-rule failure of a catalog source in context.
func (b *Broker) fileError(t *catalogTarget, ferr *fileErr) *Error {
	if t.info.Source == SourceEnvFile {
		return &Error{Code: ferr.code, File: t.file, err: ferr.err, msg: "PRIVSCAN_CATALOG_FILE: " + ferr.msg}
	}
	return b.entryErr(ferr, t.key, t.file, t.what)
}

// catalogSource returns the bytes of the catalog selected by key ("" for the
// default precedence) and its identity.
func (b *Broker) catalogSource(key string) ([]byte, CatalogInfo, error) {
	t, e := b.catalogTarget(key)
	if e != nil {
		return nil, CatalogInfo{}, e
	}
	if t.info.Source == SourceEnv {
		return t.content, t.info, nil
	}
	data, meta, ferr := readFile(t.file, MaxFileSize, true)
	if ferr != nil {
		return nil, CatalogInfo{}, b.fileError(t, ferr)
	}
	info := t.info
	info.Path, info.ModTime, info.Size = meta.path, meta.modTime, meta.size
	return data, info, nil
}

// StatCatalog resolves the catalog that ReadCatalog(key) would read and
// returns its identity without reading it, so a long-running server can
// recompile only when Same reports a change. The file rules that need no
// open (symlinks, .md, type, size) are applied.
func (b *Broker) StatCatalog(key string) (CatalogInfo, error) {
	t, e := b.catalogTarget(key)
	if e != nil {
		return CatalogInfo{}, e
	}
	if t.info.Source == SourceEnv {
		return t.info, nil
	}
	real, fi, ferr := resolve(t.file, MaxFileSize, true)
	if ferr != nil {
		return CatalogInfo{}, b.fileError(t, ferr)
	}
	info := t.info
	info.Path, info.ModTime, info.Size = real, fi.ModTime(), fi.Size()
	return info, nil
}
