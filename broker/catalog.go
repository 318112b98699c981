package broker

import (
	"errors"
	"runtime"

	"github.com/privscan/privscan/catalog"
)

// gcBeforeCompile is the catalog size from which a Markdown catalog's
// bytes are collected between parse and compile: they are garbage once
// parsed (the catalog holds its own copy of the values), and collecting
// them before Compile allocates its tables lowers the peak memory of a
// large catalog by their size, for one collection of the parsed catalog
// (about 35 ms for a million values, against a 1 s compile).
const gcBeforeCompile = 4 << 20

// ReadCatalog reads and parses the catalog selected by key: with key == "",
// PRIVSCAN_CATALOG, then PRIVSCAN_CATALOG_FILE, then the map's [catalogs]
// default; with an explicit key, that [catalogs] entry only. The selection
// must be one Markdown catalog (a combination is config_invalid: use
// OpenCatalog). A parse error is catalog_invalid and wraps the catalog
// package's error (line numbers and reasons, no catalog text).
func (b *Broker) ReadCatalog(key string) (*catalog.Catalog, CatalogInfo, error) {
	return b.readCatalog(key, 0)
}

// ReadCatalogToSeal is ReadCatalog for privscan catalog seal: a Markdown
// catalog file may be up to MaxSealSourceSize (1 GiB) instead of
// MaxFileSize, since sealing is how a catalog that large is served.
func (b *Broker) ReadCatalogToSeal(key string) (*catalog.Catalog, CatalogInfo, error) {
	return b.readCatalog(key, MaxSealSourceSize)
}

func (b *Broker) readCatalog(key string, mdLimit int64) (*catalog.Catalog, CatalogInfo, error) {
	sel, e := b.selectCatalogs(key)
	if e != nil {
		return nil, CatalogInfo{}, e
	}
	sel.mdLimit = mdLimit
	if len(sel.parts) != 1 {
		e := &Error{Code: CodeConfigInvalid, msg: b.describe(sel) + " combines several catalogs, and this command reads one Markdown catalog",
			hint: "name a single Markdown catalog (--catalog-key of an entry with one .md file, or PRIVSCAN_CATALOG_FILE with one file)"}
		if sel.key != "" {
			e.Key, e.Path = sel.key, b.mapPath
		}
		return nil, CatalogInfo{}, e
	}
	sealed := false
	if p := sel.parts[0]; p.source != SourceEnv {
		real, _, _ := resolveCatalog(p.file, sel.mdLimit)
		sealed = hasSealedSuffix(p.file) || hasSealedSuffix(real)
	}
	var l *loaded
	if !sealed {
		var e *Error
		if l, e = b.loadPart(sel, 0, nil, false, false); e != nil {
			return nil, CatalogInfo{}, e
		}
	}
	if sealed || l.cat == nil {
		e := &Error{Code: CodeConfigInvalid, File: sel.parts[0].file, msg: b.partName(sel, 0) + " is a sealed catalog, and this command reads a Markdown catalog",
			hint: "name the Markdown catalog the sealed one was made from"}
		if sel.key != "" {
			e.Key, e.Path = sel.key, b.mapPath
		}
		return nil, CatalogInfo{}, e
	}
	return l.cat, newInfo(sel.key, []CatalogPart{l.info}), nil
}

// OpenCatalog returns the compiled catalog selected by key (see
// ReadCatalog for the precedence). A selection of several catalogs (a
// [catalogs] entry that lists files; PRIVSCAN_CATALOG with
// PRIVSCAN_CATALOG_FILE; several PRIVSCAN_CATALOG_FILE files) is combined
// with catalog.Combine: a rule ID defined twice is catalog_invalid. Parsed
// Markdown catalogs are dropped once compiled, so their plaintext values
// are not retained by the broker.
func (b *Broker) OpenCatalog(key string) (*catalog.Matcher, CatalogInfo, error) {
	return b.OpenCatalogAt(key, nil)
}

// OpenCatalogAt is OpenCatalog that reads the catalog files pin accepts
// from its trusted commit (see Pinned); nil pin reads the file system only.
func (b *Broker) OpenCatalogAt(key string, pin Pinned) (*catalog.Matcher, CatalogInfo, error) {
	ls, sel, info, err := b.loadAll(key, pin, false)
	if err != nil {
		return nil, CatalogInfo{}, err
	}
	ms := make([]*catalog.Matcher, len(ls))
	for i, l := range ls {
		ms[i] = l.m
	}
	m, err := catalog.Combine(ms...)
	if err != nil {
		return nil, CatalogInfo{}, b.combineErr(sel, err)
	}
	return m, info, nil
}

// CheckedCatalog is one catalog of a selection as CheckCatalog found it.
type CheckedCatalog struct {
	Part CatalogPart
	// Catalog is the parsed Markdown catalog, for counts and lint; nil
	// for a sealed catalog.
	Catalog *catalog.Catalog
	// Sealed describes a sealed catalog (rules and value counts); nil for
	// a Markdown catalog.
	Sealed *catalog.Sealed
	// Rules are the compiled catalog's rules.
	Rules []catalog.RuleInfo
}

// CheckCatalog reads, parses and compiles every catalog of the selection
// (so that what parsing cannot check, such as regex syntax and limits,
// fails as catalog_invalid too) and checks that rule IDs are unique across
// them, as OpenCatalog does. A sealed catalog has the integrity of every
// page of its tables checked (a scan checks only the pages it reads). It
// returns each catalog for counts and lint (privscan catalog check) and
// drops the compiled matchers.
func (b *Broker) CheckCatalog(key string) ([]CheckedCatalog, CatalogInfo, error) {
	ls, sel, info, err := b.loadAll(key, nil, true)
	if err != nil {
		return nil, CatalogInfo{}, err
	}
	ms := make([]*catalog.Matcher, len(ls))
	out := make([]CheckedCatalog, len(ls))
	for i, l := range ls {
		if l.sealed != nil {
			if err := l.m.CheckIntegrity(); err != nil {
				return nil, CatalogInfo{}, b.sealedErr(sel, i, err)
			}
		}
		ms[i] = l.m
		out[i] = CheckedCatalog{Part: l.info, Catalog: l.cat, Sealed: l.sealed, Rules: l.m.Rules()}
	}
	if _, err := catalog.Combine(ms...); err != nil {
		return nil, CatalogInfo{}, b.combineErr(sel, err)
	}
	return out, info, nil
}

// StatCatalog resolves the catalogs that OpenCatalog(key) would read and
// returns their identity without reading them, so a long-running server
// can recompile only when Same reports a change. The file rules that need
// no open (symlinks, name, type, size) are applied.
func (b *Broker) StatCatalog(key string) (CatalogInfo, error) {
	return b.StatCatalogAt(key, nil)
}

// StatCatalogAt is StatCatalog for OpenCatalogAt(key, pin).
func (b *Broker) StatCatalogAt(key string, pin Pinned) (CatalogInfo, error) {
	sel, e := b.selectCatalogs(key)
	if e != nil {
		return CatalogInfo{}, e
	}
	parts := make([]CatalogPart, len(sel.parts))
	for i, p := range sel.parts {
		if p.source == SourceEnv {
			parts[i] = CatalogPart{Source: SourceEnv, Size: int64(len(p.content))}
			continue
		}
		if pin != nil {
			id, ok, err := pin.Pin(p.file)
			if err != nil {
				return CatalogInfo{}, b.pinErr(sel, i, err)
			}
			if ok {
				parts[i] = CatalogPart{Source: p.source, Path: p.file, Sealed: hasSealedSuffix(p.file), Pinned: id}
				continue
			}
		}
		real, fi, ferr := resolveCatalog(p.file, sel.mdLimit)
		if ferr != nil {
			return CatalogInfo{}, b.partErr(sel, i, ferr)
		}
		parts[i] = CatalogPart{Source: p.source, Path: real, Sealed: hasSealedSuffix(real), ModTime: fi.ModTime(), Size: fi.Size()}
	}
	return newInfo(sel.key, parts), nil
}

// loaded is one catalog of a selection, read and compiled.
type loaded struct {
	info   CatalogPart
	cat    *catalog.Catalog // Markdown, when kept
	sealed *catalog.Sealed  // a sealed catalog's description
	m      *catalog.Matcher
}

// loadAll reads and compiles every catalog selected by key.
func (b *Broker) loadAll(key string, pin Pinned, keep bool) ([]loaded, *selection, CatalogInfo, error) {
	sel, e := b.selectCatalogs(key)
	if e != nil {
		return nil, nil, CatalogInfo{}, e
	}
	ls := make([]loaded, len(sel.parts))
	parts := make([]CatalogPart, len(sel.parts))
	for i := range sel.parts {
		l, e := b.loadPart(sel, i, pin, true, !keep)
		if e != nil {
			return nil, nil, CatalogInfo{}, e
		}
		if !keep {
			l.cat = nil
		}
		ls[i], parts[i] = *l, l.info
	}
	return ls, sel, newInfo(sel.key, parts), nil
}

// loadPart reads part i of sel (from pin's commit when pin accepts it)
// and parses it; with compile, it compiles it too. A sealed catalog is
// loaded (checked, never parsed or compiled) whatever compile says, with
// the selection's seal key. With cached, a Markdown catalog is taken from
// the compiled-catalog cache (see cache.go) when it is there, unparsed
// (the result has no Catalog), and put there when it is not.
func (b *Broker) loadPart(sel *selection, i int, pin Pinned, compile, cached bool) (*loaded, *Error) {
	p := sel.parts[i]
	l := &loaded{}
	var data []byte
	// ownFile: the catalog has a file of its own on this machine (not the
	// environment, not a commit): only then is it cached by default.
	ownFile := p.source != SourceEnv
	switch {
	case p.source == SourceEnv:
		data = p.content
		l.info = CatalogPart{Source: SourceEnv, Size: int64(len(data))}
	default:
		if pin != nil {
			id, ok, err := pin.Pin(p.file)
			if err != nil {
				return nil, b.pinErr(sel, i, err)
			}
			if ok {
				sealed := hasSealedSuffix(p.file)
				if !hasMDSuffix(p.file) && !sealed {
					return nil, b.partErr(sel, i, &fileErr{CodeNotMarkdown, "file name does not end in .md or .sealed", nil})
				}
				limit := catalogLimit(p.file, sel.mdLimit)
				d, err := pin.ReadPinned(p.file, limit)
				if err != nil {
					return nil, b.pinErr(sel, i, err)
				}
				if int64(len(d)) > limit {
					return nil, b.partErr(sel, i, tooLarge(limit))
				}
				l.info = CatalogPart{Source: p.source, Path: p.file, Sealed: sealed, Size: int64(len(d)), Pinned: id}
				if sealed {
					key, e := b.sealKey(sel, i)
					if e != nil {
						return nil, e
					}
					m, s, err := catalog.LoadSealed(d, key)
					if err != nil {
						return nil, b.sealedErr(sel, i, err)
					}
					l.m, l.sealed = m, s
					return l, nil
				}
				data, ownFile = d, false
				break
			}
		}
		real, _, ferr := resolveCatalog(p.file, sel.mdLimit)
		if ferr != nil {
			return nil, b.partErr(sel, i, ferr)
		}
		if hasSealedSuffix(real) {
			key, e := b.sealKey(sel, i)
			if e != nil {
				return nil, e
			}
			m, s, meta, ferr, err := openSealed(real, key)
			if ferr != nil {
				return nil, b.partErr(sel, i, ferr)
			}
			if err != nil {
				return nil, b.sealedErr(sel, i, err)
			}
			l.m, l.sealed = m, s
			l.info = CatalogPart{Source: p.source, Path: meta.path, Sealed: true, ModTime: meta.modTime, Size: meta.size}
			return l, nil
		}
		d, meta, ferr := readResolved(real, catalogLimit(real, sel.mdLimit))
		if ferr != nil {
			return nil, b.partErr(sel, i, ferr)
		}
		data = d
		l.info = CatalogPart{Source: p.source, Path: meta.path, ModTime: meta.modTime, Size: meta.size}
	}
	var cache *compiledCache
	if compile && cached {
		if cache = b.compiledCache(ownFile); cache != nil {
			defer cache.close()
			if m := cache.load(data); m != nil {
				l.m = m
				return l, nil
			}
		}
	}
	c, err := catalog.Parse(data)
	if err != nil {
		return nil, b.catalogErr(sel, i, err)
	}
	l.cat = c
	if !compile {
		return l, nil
	}
	if cache != nil {
		if m, err := cache.store(data, c); err == nil {
			l.m = m
			return l, nil
		}
		// Not cached (a compile error among them): compiled below, which
		// reports it as ever.
	}
	if len(data) >= gcBeforeCompile {
		data = nil
		runtime.GC()
	}
	m, err := catalog.Compile(c, nil)
	if err != nil {
		return nil, b.catalogErr(sel, i, err)
	}
	l.m = m
	return l, nil
}

// sealKey returns the seal key for the sealed part i of sel: the map
// entry's seal-key file when the map names one, else PRIVSCAN_SEAL_KEY.
func (b *Broker) sealKey(sel *selection, i int) ([]byte, *Error) {
	withKey := func(e *Error) *Error {
		e.File = sel.parts[i].file
		if sel.key != "" {
			e.Key, e.Path = sel.key, b.mapPath
		}
		return e
	}
	if sel.sealKeyFile != "" {
		data, _, ferr := readFile(sel.sealKeyFile, maxSealKeyFile, false)
		if ferr != nil {
			code := ferr.code
			if code == CodeFileMissing {
				code = CodeSealKeyMissing
			}
			e := withKey(&Error{Code: code, err: ferr.err, msg: b.partName(sel, i) + " is sealed, and its seal-key file cannot be read: " + ferr.msg})
			e.File = sel.sealKeyFile
			return nil, e
		}
		key, err := catalog.ParseSealKey(data)
		if err != nil {
			e := withKey(&Error{Code: CodeConfigInvalid, msg: b.partName(sel, i) + " is sealed, and its seal-key file is not a seal key: " + err.Error(),
				hint: "the seal-key file holds the 64 hex digits `privscan catalog seal --key-file` wrote"})
			e.File = sel.sealKeyFile
			return nil, e
		}
		return key, nil
	}
	v := b.getenv(EnvSealKey)
	if v == "" {
		return nil, withKey(&Error{Code: CodeSealKeyMissing, msg: b.partName(sel, i) + " is a sealed catalog, and no seal key is set (" + EnvSealKey + " or a seal-key entry in the key map)"})
	}
	key, err := catalog.ParseSealKey([]byte(v))
	if err != nil {
		return nil, withKey(&Error{Code: CodeConfigInvalid, msg: EnvSealKey + " is not a seal key: " + err.Error(),
			hint: EnvSealKey + " holds the 64 hex digits `privscan catalog seal --key-file` wrote"})
	}
	return key, nil
}

// sealedErr reports a sealed catalog that cannot be loaded: with the
// wrong key (seal_key_wrong), or invalid or damaged (catalog_invalid).
// The catalog package's errors are value-free.
func (b *Broker) sealedErr(sel *selection, i int, err error) *Error {
	e := &Error{Code: CodeCatalogInvalid, File: sel.parts[i].file, err: err, msg: b.partName(sel, i) + ": " + err.Error(),
		hint: "seal the catalog again with `privscan catalog seal`; a sealed file must be replaced whole, never edited"}
	if errors.Is(err, catalog.ErrSealKeyWrong) {
		e.Code, e.hint = CodeSealKeyWrong, ""
		e.msg = b.partName(sel, i) + ": the seal key does not open this sealed catalog"
	}
	if sel.key != "" {
		e.Key, e.Path = sel.key, b.mapPath
	}
	return e
}

// catalogErr wraps a (value-free) catalog parse or compile error of part i.
func (b *Broker) catalogErr(sel *selection, i int, err error) *Error {
	e := &Error{Code: CodeCatalogInvalid, File: sel.parts[i].file, err: err, msg: b.partName(sel, i) + ": " + err.Error()}
	if sel.key != "" {
		e.Key, e.Path = sel.key, b.mapPath
	}
	return e
}

// combineErr reports a rule ID defined by two catalogs of sel.
func (b *Broker) combineErr(sel *selection, err error) *Error {
	e := &Error{Code: CodeCatalogInvalid, err: err, msg: b.describe(sel) + ": " + err.Error(),
		hint: "rename one of the rules: rule IDs must be unique across the catalogs combined into one scan"}
	var d *catalog.DuplicateRuleError
	if errors.As(err, &d) && d.Second < len(sel.parts) {
		e.msg = "rule ID " + d.ID + " is defined twice: in " + b.partName(sel, d.First) + " and in " + b.partName(sel, d.Second)
		e.File = sel.parts[d.Second].file
	}
	if sel.key != "" {
		e.Key, e.Path = sel.key, b.mapPath
	}
	return e
}

// pinErr reports a failure to read part i from the trusted commit.
func (b *Broker) pinErr(sel *selection, i int, err error) *Error {
	e := &Error{Code: CodeFileMissing, File: sel.parts[i].file, err: err,
		msg:  b.partName(sel, i) + ": cannot be read from the trusted commit: " + err.Error(),
		hint: "the catalog file is tracked by the repository, so it is read from the commit the change is compared with"}
	if sel.key != "" {
		e.Key, e.Path = sel.key, b.mapPath
	}
	return e
}
