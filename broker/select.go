package broker

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// The environment variables the broker reads for catalogs (docs/keymap.md).
const (
	// EnvCatalog holds a catalog's Markdown itself.
	EnvCatalog = "PRIVSCAN_CATALOG"
	// EnvCatalogFile names one or more catalog files (.md or .sealed),
	// separated like PATH (":"; ";" on Windows).
	EnvCatalogFile = "PRIVSCAN_CATALOG_FILE"
	// EnvSealKey holds the seal key of sealed catalogs: 64 hexadecimal
	// digits.
	EnvSealKey = "PRIVSCAN_SEAL_KEY"
)

// Source says where a catalog came from.
type Source uint8

const (
	// SourceMap is a [catalogs] entry of the key map.
	SourceMap Source = iota + 1
	// SourceEnv is the PRIVSCAN_CATALOG environment variable.
	SourceEnv
	// SourceEnvFile is a file named by PRIVSCAN_CATALOG_FILE.
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

// CatalogPart is the value-free identity of one catalog of a selection.
type CatalogPart struct {
	Source Source
	// Path is the resolved path of the catalog file; "" for SourceEnv.
	// It is for cache invalidation and the local user's diagnostics only.
	Path string
	// Sealed reports a sealed catalog (a .sealed file).
	Sealed bool
	// ModTime and Size come from fstat of the file read (or stat, for
	// StatCatalog). For SourceEnv, Size is the content's length and
	// ModTime is zero. For a file read from a trusted commit (Pinned),
	// ModTime is zero and Size is its length.
	ModTime time.Time
	Size    int64
	// Pinned is the identity that Pinned.Pin gave, when the file was read
	// from a repository's trusted commit instead of the file system; "".
	Pinned string
}

// CatalogInfo is the value-free identity of the catalog a scan uses, for
// caching (recompile when it changes) and diagnostics. A selection may
// combine several catalogs (a [catalogs] entry that lists files, or
// PRIVSCAN_CATALOG with PRIVSCAN_CATALOG_FILE): Parts lists them in order,
// and Source, Path, ModTime and Size repeat those of Parts[0].
type CatalogInfo struct {
	Source Source
	// Key is the [catalogs] key used ("default" when none was given);
	// "" for the environment sources.
	Key     string
	Path    string
	ModTime time.Time
	Size    int64
	Parts   []CatalogPart
}

// Same reports whether i and o describe the same unchanged catalogs.
func (i CatalogInfo) Same(o CatalogInfo) bool {
	if i.Key != o.Key || len(i.Parts) != len(o.Parts) || len(i.Parts) == 0 {
		return false
	}
	for k, p := range i.Parts {
		q := o.Parts[k]
		if p.Source != q.Source || p.Path != q.Path || p.Sealed != q.Sealed ||
			p.Size != q.Size || !p.ModTime.Equal(q.ModTime) || p.Pinned != q.Pinned {
			return false
		}
	}
	return true
}

func newInfo(key string, parts []CatalogPart) CatalogInfo {
	p := parts[0]
	return CatalogInfo{Source: p.Source, Key: key, Path: p.Path, ModTime: p.ModTime, Size: p.Size, Parts: parts}
}

// Pinned reads the catalog files that a repository tracks as they are in a
// trusted commit (the base of a comparison) instead of from the file
// system, so that a change under review cannot swap, edit or delete the
// catalog it is judged by. The engine implements it over git objects.
type Pinned interface {
	// Pin returns an identity of the file at path (absolute, as the
	// broker would open it) in the trusted commit, such as its blob ID;
	// ok is false when the file is not inside the repository or the
	// commit does not track it as a regular file: then the file system is
	// read. Errors must not quote file content.
	Pin(path string) (id string, ok bool, err error)
	// ReadPinned returns the content of a file that Pin accepted, at most
	// limit+1 bytes.
	ReadPinned(path string, limit int64) ([]byte, error)
}

// defaultCatalogKey is the catalog key used when none is named (docs/keymap.md).
const defaultCatalogKey = "default"

// part is one catalog of a selection before it is read.
type part struct {
	source  Source
	content []byte // SourceEnv
	file    string // the path to read (as written, expanded); not SourceEnv
}

// selection is the resolved list of catalogs for a key.
type selection struct {
	key   string // the [catalogs] key used; "" for the environment
	parts []part
	// sealKeyFile is the seal-key path of the map entry (or of the
	// [catalogs] table), expanded; "" when the map names none.
	sealKeyFile string
	// mdLimit is the size limit of its Markdown files; 0: MaxFileSize.
	mdLimit int64
}

// envFiles splits PRIVSCAN_CATALOG_FILE like PATH, dropping empty
// elements.
func envFiles(v string) []string {
	var out []string
	for _, f := range filepath.SplitList(v) {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// maxEnvFiles bounds the files PRIVSCAN_CATALOG_FILE may combine.
const maxEnvFiles = maxCatalogFiles

// selectCatalogs applies the precedence of docs/keymap.md: an explicit key
// (its [catalogs] entry only), then the environment (PRIVSCAN_CATALOG and
// PRIVSCAN_CATALOG_FILE, combined when both are set), then the map's
// [catalogs] default.
func (b *Broker) selectCatalogs(key string) (*selection, *Error) {
	if key == "" {
		content := b.getenv(EnvCatalog)
		files := envFiles(b.getenv(EnvCatalogFile))
		if content != "" || len(files) > 0 {
			if len(files) > maxEnvFiles {
				return nil, &Error{Code: CodeConfigInvalid, msg: fmt.Sprintf("%s: names more than %d files", EnvCatalogFile, maxEnvFiles),
					hint: "combine fewer catalog files"}
			}
			sel := &selection{}
			// PRIVSCAN_CATALOG first: its fingerprint key keys the
			// built-in detectors' findings, as it did when it was the
			// only catalog read (see docs/keymap.md).
			if content != "" {
				if len(content) > MaxFileSize {
					return nil, &Error{Code: CodeTooLarge, msg: EnvCatalog + ": catalog is larger than 64 MiB"}
				}
				sel.parts = append(sel.parts, part{source: SourceEnv, content: []byte(content)})
			}
			for _, f := range files {
				sel.parts = append(sel.parts, part{source: SourceEnvFile, file: f})
			}
			return sel, nil
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
	ent, ok := lookup(km.catalogs, name)
	if !ok {
		if key == "" {
			return nil, &Error{Code: CodeUnknownKey, Path: b.mapPath,
				msg:  "no catalog named: key map " + b.mapPath + " has no [catalogs] default entry",
				hint: "pass --catalog-key, set PRIVSCAN_CATALOG, or add a default entry under [catalogs]"}
		}
		return nil, &Error{Code: CodeUnknownKey, Key: key, Path: b.mapPath,
			msg: "unknown catalog key " + quoteKey(key) + " in key map " + b.mapPath}
	}
	sel := &selection{key: name}
	for _, p := range ent.paths {
		full, e := b.entryPath(km, p, name)
		if e != nil {
			return nil, e
		}
		sel.parts = append(sel.parts, part{source: SourceMap, file: full})
	}
	if sk := firstOf(ent.sealKey, km.sealKey); sk != "" {
		full, e := b.entryPath(km, sk, name)
		if e != nil {
			return nil, e
		}
		sel.sealKeyFile = full
	}
	return sel, nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// partName names part i of sel for a message: which variable or map entry,
// and which of its files. It never names the file's path (Error.File does).
func (b *Broker) partName(sel *selection, i int) string {
	p := sel.parts[i]
	var s string
	n, k := 0, 0 // files of the same source, and i's rank among them
	for j, q := range sel.parts {
		if q.source == p.source {
			n++
			if j <= i {
				k++
			}
		}
	}
	switch p.source {
	case SourceEnv:
		return EnvCatalog
	case SourceEnvFile:
		s = EnvCatalogFile
	default:
		s = "catalog key " + quoteKey(sel.key) + " in key map " + b.mapPath
	}
	if n > 1 {
		s += fmt.Sprintf(" (file %d of %d)", k, n)
	}
	return s
}

// describe names the whole selection for a message.
func (b *Broker) describe(sel *selection) string {
	if sel.key != "" {
		return "catalog key " + quoteKey(sel.key) + " in key map " + b.mapPath
	}
	var names []string
	for i, p := range sel.parts {
		if i > 0 && p.source == sel.parts[i-1].source {
			continue
		}
		if p.source == SourceEnv {
			names = append(names, EnvCatalog)
		} else {
			names = append(names, EnvCatalogFile)
		}
	}
	return strings.Join(names, " and ")
}

// partErr puts a file-rule failure of part i in context.
func (b *Broker) partErr(sel *selection, i int, ferr *fileErr) *Error {
	e := &Error{Code: ferr.code, File: sel.parts[i].file, err: ferr.err, msg: b.partName(sel, i) + ": " + ferr.msg}
	if sel.key != "" {
		e.Key, e.Path = sel.key, b.mapPath
	}
	return e
}
