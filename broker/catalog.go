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
	sel, e := b.selectCatalogs(key)
	if e != nil {
		return nil, CatalogInfo{}, e
	}
	if len(sel.parts) != 1 {
		e := &Error{Code: CodeConfigInvalid, msg: b.describe(sel) + " combines several catalogs, and this command reads one Markdown catalog",
			hint: "name a single Markdown catalog (--catalog-key of an entry with one .md file, or PRIVSCAN_CATALOG_FILE with one file)"}
		if sel.key != "" {
			e.Key, e.Path = sel.key, b.mapPath
		}
		return nil, CatalogInfo{}, e
	}
	l, e := b.loadPart(sel, 0, nil, false)
	if e != nil {
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
	// Catalog is the parsed Markdown catalog, for counts and lint.
	Catalog *catalog.Catalog
	// Rules are the compiled catalog's rules.
	Rules []catalog.RuleInfo
}

// CheckCatalog reads, parses and compiles every catalog of the selection
// (so that what parsing cannot check, such as regex syntax and limits,
// fails as catalog_invalid too) and checks that rule IDs are unique across
// them, as OpenCatalog does. It returns each catalog for counts and lint
// (privscan catalog check) and drops the compiled matchers.
func (b *Broker) CheckCatalog(key string) ([]CheckedCatalog, CatalogInfo, error) {
	ls, sel, info, err := b.loadAll(key, nil, true)
	if err != nil {
		return nil, CatalogInfo{}, err
	}
	ms := make([]*catalog.Matcher, len(ls))
	out := make([]CheckedCatalog, len(ls))
	for i, l := range ls {
		ms[i] = l.m
		out[i] = CheckedCatalog{Part: l.info, Catalog: l.cat, Rules: l.m.Rules()}
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
				parts[i] = CatalogPart{Source: p.source, Path: p.file, Pinned: id}
				continue
			}
		}
		real, fi, ferr := resolve(p.file, MaxFileSize, true)
		if ferr != nil {
			return CatalogInfo{}, b.partErr(sel, i, ferr)
		}
		parts[i] = CatalogPart{Source: p.source, Path: real, ModTime: fi.ModTime(), Size: fi.Size()}
	}
	return newInfo(sel.key, parts), nil
}

// loaded is one catalog of a selection, read and compiled.
type loaded struct {
	info CatalogPart
	cat  *catalog.Catalog // Markdown, when kept
	m    *catalog.Matcher
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
		l, e := b.loadPart(sel, i, pin, true)
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
// and parses it; with compile, it compiles it too.
func (b *Broker) loadPart(sel *selection, i int, pin Pinned, compile bool) (*loaded, *Error) {
	p := sel.parts[i]
	l := &loaded{}
	var data []byte
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
				if !hasMDSuffix(p.file) {
					return nil, b.partErr(sel, i, &fileErr{CodeNotMarkdown, "file name does not end in .md", nil})
				}
				d, err := pin.ReadPinned(p.file, MaxFileSize)
				if err != nil {
					return nil, b.pinErr(sel, i, err)
				}
				if len(d) > MaxFileSize {
					return nil, b.partErr(sel, i, tooLarge(MaxFileSize))
				}
				data = d
				l.info = CatalogPart{Source: p.source, Path: p.file, Size: int64(len(d)), Pinned: id}
				break
			}
		}
		d, meta, ferr := readFile(p.file, MaxFileSize, true)
		if ferr != nil {
			return nil, b.partErr(sel, i, ferr)
		}
		data = d
		l.info = CatalogPart{Source: p.source, Path: meta.path, ModTime: meta.modTime, Size: meta.size}
	}
	c, err := catalog.Parse(data)
	if err != nil {
		return nil, b.catalogErr(sel, i, err)
	}
	l.cat = c
	if !compile {
		return l, nil
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
