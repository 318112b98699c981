package broker

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/privscan/privscan/catalog"
)

// The compiled-catalog cache keeps every Markdown catalog a process
// compiles as a sealed catalog (catalog.Seal), so that the next process
// maps it instead of parsing and compiling it again: what a hook, which is
// a new process for every tool call, would otherwise pay each time (a 10k
// catalog: 33-50 ms; 1M: about a second).
//
// It lives in $XDG_CACHE_HOME/privscan/compiled (~/.cache when unset), a
// folder only the user can read, with a machine-local seal key made on
// first use (file "key", 0600). An entry is named by an HMAC of the
// catalog's bytes under that key, so a changed catalog is a new entry and
// a name reveals nothing without the key. Like any sealed catalog, an
// entry holds keyed hashes and no value, and the patterns of regex rules
// encrypted (catalog.SealOptions.Regex); the key and an entry together
// allow what the Markdown catalog beside them allows already. Entries
// unused for cacheMaxAge are removed when a new one is written.
// PRIVSCAN_CATALOG_CACHE=off turns the cache off.

const (
	cacheKeyFile = "key"
	cacheSuffix  = ".sealed"
	cacheMaxAge  = 30 * 24 * time.Hour
	cacheNameTag = "privscan compiled catalog v1\x00"
)

type compiledCache struct {
	dir string
	key []byte
}

// compiledCache returns the cache, or nil when it is off or cannot be
// set up (no HOME, a folder that cannot be made private): the caller
// compiles then, as without a cache.
func (b *Broker) compiledCache() *compiledCache {
	if b.getenv("PRIVSCAN_CATALOG_CACHE") == "off" {
		return nil
	}
	base := ""
	if x := b.getenv("XDG_CACHE_HOME"); x != "" && filepath.IsAbs(x) {
		base = x
	} else if h := b.getenv("HOME"); h != "" && filepath.IsAbs(h) {
		base = filepath.Join(h, ".cache")
	}
	if base == "" {
		return nil
	}
	dir := filepath.Join(base, "privscan", "compiled")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return nil // not a private folder: keep nothing there
	}
	key, err := cacheKey(filepath.Join(dir, cacheKeyFile))
	if err != nil {
		return nil
	}
	return &compiledCache{dir: dir, key: key}
}

// cacheKey reads the cache's seal key, making it on first use (O_EXCL:
// two processes racing agree on the one that was written first).
func cacheKey(path string) ([]byte, error) {
	for attempt := 0; attempt < 2; attempt++ {
		data, err := os.ReadFile(path)
		if err == nil {
			if len(data) != catalog.SealKeySize {
				return nil, errors.New("cache key has the wrong size")
			}
			return data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		key := make([]byte, catalog.SealKeySize)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), ".key-*")
		if err != nil {
			return nil, err
		}
		_, werr := tmp.Write(key)
		cerr := tmp.Close()
		if werr == nil && cerr == nil {
			// Link, not rename: an existing key is never replaced.
			if err := os.Link(tmp.Name(), path); err == nil || errors.Is(err, fs.ErrExist) {
				os.Remove(tmp.Name())
				continue
			}
		}
		os.Remove(tmp.Name())
		return nil, errors.New("cannot write the cache key")
	}
	return nil, errors.New("cannot read the cache key")
}

// entry is the path of data's entry.
func (c *compiledCache) entry(data []byte) string {
	mac := hmac.New(sha256.New, c.key)
	mac.Write([]byte(cacheNameTag))
	mac.Write(data)
	return filepath.Join(c.dir, hex.EncodeToString(mac.Sum(nil)[:20])+cacheSuffix)
}

// load returns the compiled catalog of data, or nil when the cache does
// not have it (an entry that does not load, or has a damaged page, is
// removed).
func (c *compiledCache) load(data []byte) *catalog.Matcher {
	path := c.entry(data)
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxSealedSize {
		return nil
	}
	m, _, err := catalog.OpenSealed(f, fi.Size(), c.key)
	if err == nil {
		// Every page now, not when a lookup first reads it: a damaged
		// entry is rebuilt here rather than failing scans until it
		// expires (an entry is the size of a compiled catalog; checking it
		// costs about what hashing the Markdown for its name did).
		err = m.CheckIntegrity()
	}
	if err != nil {
		os.Remove(path)
		return nil
	}
	return m
}

// store seals cat (parsed from data) into its entry and returns the entry
// loaded; an error when it cannot be cached (the caller compiles).
func (c *compiledCache) store(data []byte, cat *catalog.Catalog) (*catalog.Matcher, error) {
	path := c.entry(data)
	var buf bytes.Buffer
	// Regex rules too: their patterns are encrypted under the cache key.
	if err := catalog.Seal(&buf, cat, c.key, &catalog.SealOptions{Regex: true}); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(c.dir, ".entry-*")
	if err != nil {
		return nil, err
	}
	_, werr := tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return nil, werr
	}
	c.prune(path)
	m, _, err := catalog.LoadSealed(buf.Bytes(), c.key)
	return m, err
}

// prune removes entries other than keep whose last change is older than
// cacheMaxAge, and temporary files a killed process left.
func (c *compiledCache) prune(keep string) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	old := time.Now().Add(-cacheMaxAge)
	for _, e := range entries {
		p := filepath.Join(c.dir, e.Name())
		if p == keep || e.Name() == cacheKeyFile {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(old) {
			os.Remove(p)
		}
	}
}
