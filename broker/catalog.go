package broker

import (
	"runtime"

	"github.com/privscan/privscan/catalog"
)

// gcBeforeCompile is the catalog size from which compileCatalog collects
// garbage between parse and compile: the file's bytes are garbage once
// parsed (the catalog holds its own copy of the values), and collecting
// them before Compile allocates its tables lowers the peak memory of a
// large catalog by their size, for one collection of the parsed catalog
// (about 35 ms for a million values, against a 1 s compile).
const gcBeforeCompile = 4 << 20

// ReadCatalog reads and parses the catalog selected by key: with key == "",
// PRIVSCAN_CATALOG, then PRIVSCAN_CATALOG_FILE, then the map's [catalogs]
// default; with an explicit key, that [catalogs] entry only. A parse error is
// catalog_invalid and wraps the catalog package's error (line numbers and
// reasons, no catalog text).
func (b *Broker) ReadCatalog(key string) (*catalog.Catalog, CatalogInfo, error) {
	data, info, err := b.catalogSource(key)
	if err != nil {
		return nil, CatalogInfo{}, err
	}
	c, err := catalog.Parse(data)
	if err != nil {
		return nil, CatalogInfo{}, b.catalogErr(key, info, err)
	}
	return c, info, nil
}

// OpenCatalog is ReadCatalog followed by catalog.Compile. The parsed catalog
// is dropped once compiled, so its plaintext values are not retained by the
// broker.
func (b *Broker) OpenCatalog(key string) (*catalog.Matcher, CatalogInfo, error) {
	_, m, info, err := b.compileCatalog(key)
	return m, info, err
}

// CheckCatalog is ReadCatalog that also compiles the catalog, so that what
// parsing cannot check (regex syntax and limits) fails as catalog_invalid
// too; it returns the parsed catalog for counts and lint (privscan catalog
// check) and drops the compiled matcher.
func (b *Broker) CheckCatalog(key string) (*catalog.Catalog, CatalogInfo, error) {
	c, _, info, err := b.compileCatalog(key)
	return c, info, err
}

// compileCatalog is ReadCatalog followed by catalog.Compile, for
// OpenCatalog and CheckCatalog.
func (b *Broker) compileCatalog(key string) (*catalog.Catalog, *catalog.Matcher, CatalogInfo, error) {
	c, info, err := b.ReadCatalog(key)
	if err != nil {
		return nil, nil, CatalogInfo{}, err
	}
	if info.Size >= gcBeforeCompile {
		runtime.GC()
	}
	m, err := catalog.Compile(c, nil)
	if err != nil {
		return nil, nil, CatalogInfo{}, b.catalogErr(key, info, err)
	}
	return c, m, info, nil
}

// catalogErr wraps a (value-free) catalog parse or compile error.
func (b *Broker) catalogErr(key string, info CatalogInfo, err error) *Error {
	e := &Error{Code: CodeCatalogInvalid, Key: key, err: err}
	switch info.Source {
	case SourceEnv:
		e.msg = "PRIVSCAN_CATALOG: " + err.Error()
	case SourceEnvFile:
		e.File = info.Path
		e.msg = "PRIVSCAN_CATALOG_FILE: " + err.Error()
	default:
		e.Path = b.mapPath
		e.File = info.Path
		e.msg = "catalog key " + quoteKey(info.Key) + " in key map " + b.mapPath + ": " + err.Error()
	}
	return e
}
