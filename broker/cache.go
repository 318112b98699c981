package broker

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/privscan/privscan/catalog"
)

// The compiled-catalog cache keeps every Markdown catalog file a process
// compiles as a sealed catalog (catalog.Seal), so that the next process
// maps it instead of parsing and compiling it again: what a hook, which is
// a new process for every tool call, would otherwise pay each time (a 10k
// catalog: 33-50 ms; 1M: about a second).
//
// It lives in $XDG_CACHE_HOME/privscan/compiled (~/.cache when unset), a
// folder of mode 0700 that the user owns, in parents that no one else
// owns or can write, opened once and used only through that handle
// (os.Root): every entry is opened relative to the checked folder, never
// again by a path a symlink could redirect. A machine-local seal key is
// made on first use (file "key", 0600). An entry is named by an HMAC
// under that key of privscan's format version and the catalog's bytes,
// and sealed under a key derived from the cache key, that version and the
// catalog's SHA-256: an entry is bound to the source it was made from, so
// one renamed over another (a decoy sealed under the cache key) does not
// load, and is rebuilt. Like any sealed catalog, an entry's tables are
// encrypted and the patterns of regex rules too (SealOptions.Regex).
// Loading an entry marks its use (its modification time), and entries
// unused for cacheMaxAge are removed when a new one is written.
//
// Only a catalog with a file of its own is cached: a catalog from the
// environment (PRIVSCAN_CATALOG, a CI secret) or pinned from a git commit
// has no plaintext on the machine, and a cache entry with its key beside
// it would be one. And where CI is set the cache is off (a persistent
// runner or an actions/cache of ~/.cache would keep it).
// PRIVSCAN_CATALOG_CACHE=on asks for both; =off turns the cache off.

const (
	cacheKeyFile = "key"
	cacheSuffix  = ".sealed"
	cacheMaxAge  = 30 * 24 * time.Hour
	cacheNameTag = "privscan compiled catalog v2\x00"
)

type compiledCache struct {
	root *os.Root
	dir  string
	key  []byte
}

// cacheMode is PRIVSCAN_CATALOG_CACHE as the broker reads it: "on",
// "off", or "" (the default: on for catalog files, off where CI is set).
func (b *Broker) cacheMode() string {
	switch b.getenv("PRIVSCAN_CATALOG_CACHE") {
	case "on", "1", "true":
		return "on"
	case "off", "0", "false":
		return "off"
	}
	return ""
}

// compiledCache returns the cache for a catalog (ownFile: it has a file
// of its own on this machine), or nil when it is off for it or cannot be
// set up (no HOME, a folder that is not private): the caller compiles
// then, as without a cache.
func (b *Broker) compiledCache(ownFile bool) *compiledCache {
	switch mode := b.cacheMode(); {
	case mode == "off":
		return nil
	case mode == "" && (!ownFile || b.getenv("CI") != ""):
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
	if !privateFolder(dir, base) {
		return nil // not a private folder: keep nothing there
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil
	}
	key, err := cacheKey(root)
	if err != nil {
		root.Close()
		return nil
	}
	return &compiledCache{root: root, dir: dir, key: key}
}

// privateFolder reports whether dir is a directory (not a symlink) of
// mode 0700 owned by this user, and every folder from it up to base's
// parent is a directory owned by this user or root that no one else can
// write (a world-writable one only with the sticky bit, as /tmp).
func privateFolder(dir, base string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByUs(fi, false) {
		return false
	}
	stop := filepath.Dir(base)
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() || !ownedByUs(fi, true) {
			return false
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
			return false
		}
		if d == stop || d == filepath.Dir(d) {
			return true
		}
	}
}

// cacheKey reads the cache's seal key, making it on first use (O_EXCL:
// two processes racing agree on the one that was written first).
func cacheKey(root *os.Root) ([]byte, error) {
	for attempt := 0; attempt < 2; attempt++ {
		f, err := root.Open(cacheKeyFile)
		if err == nil {
			data, rerr := io.ReadAll(io.LimitReader(f, catalog.SealKeySize+1))
			fi, serr := f.Stat()
			f.Close()
			switch {
			case rerr != nil || serr != nil:
				return nil, errors.New("cannot read the cache key")
			case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 || !ownedByUs(fi, false):
				return nil, errors.New("the cache key is not a private file of this user")
			case len(data) != catalog.SealKeySize:
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
		w, err := root.OpenFile(cacheKeyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // another process made it first: read theirs
		}
		if err != nil {
			return nil, err
		}
		_, werr := w.Write(key)
		if cerr := w.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			root.Remove(cacheKeyFile)
			return nil, errors.New("cannot write the cache key")
		}
		return key, nil
	}
	return nil, errors.New("cannot read the cache key")
}

// cacheVersion names what an entry's content depends on besides its
// source: the sealed format and what a catalog compiles to. An entry made
// by another version is another entry.
var cacheVersion = fmt.Sprintf("sealed-v%d/matcher-v%d", catalog.SealVersion, catalog.MatcherVersion)

// entry returns the name of data's entry and the seal key it is sealed
// under: both bound to cacheVersion and data.
func (c *compiledCache) entry(data []byte) (name string, key []byte) {
	digest := sha256.Sum256(data)
	mac := hmac.New(sha256.New, c.key)
	mac.Write([]byte(cacheNameTag))
	mac.Write([]byte(cacheVersion + "\x00"))
	mac.Write(digest[:])
	name = hex.EncodeToString(mac.Sum(nil)[:20]) + cacheSuffix
	k := hmac.New(sha256.New, c.key)
	k.Write([]byte("privscan compiled catalog entry key\x00" + cacheVersion + "\x00"))
	k.Write(digest[:])
	return name, k.Sum(nil)
}

// load returns the compiled catalog of data, or nil when the cache does
// not have it: an entry that does not load under its derived key (another
// catalog's entry, a decoy, another version), or has a damaged page, is
// removed.
func (c *compiledCache) load(data []byte) *catalog.Matcher {
	name, key := c.entry(data)
	f, err := c.root.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxSealedSize || !ownedByUs(fi, false) {
		c.root.Remove(name)
		return nil
	}
	m, _, err := catalog.OpenSealed(f, fi.Size(), key)
	if err == nil {
		// Every page now, not when a lookup first reads it: a damaged
		// entry is rebuilt here rather than failing scans until it
		// expires (an entry is the size of a compiled catalog; checking it
		// costs about what hashing the Markdown for its name did).
		err = m.CheckIntegrity()
	}
	if err != nil {
		c.root.Remove(name)
		return nil
	}
	// Its use: pruning goes by it.
	now := time.Now()
	_ = c.root.Chtimes(name, now, now)
	return m
}

// store seals cat (parsed from data) into its entry and returns the entry
// loaded; an error when it cannot be cached (the caller compiles).
func (c *compiledCache) store(data []byte, cat *catalog.Catalog) (*catalog.Matcher, error) {
	name, key := c.entry(data)
	var buf bytes.Buffer
	// Regex rules too: their patterns are encrypted under the entry key.
	if err := catalog.Seal(&buf, cat, key, &catalog.SealOptions{Regex: true}); err != nil {
		return nil, err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := ".entry-" + hex.EncodeToString(rnd[:])
	w, err := c.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	_, werr := w.Write(buf.Bytes())
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = c.root.Rename(tmp, name)
	}
	if werr != nil {
		c.root.Remove(tmp)
		return nil, werr
	}
	c.prune(name)
	m, _, err := catalog.LoadSealed(buf.Bytes(), key)
	return m, err
}

// prune removes entries other than keep not used for cacheMaxAge, and
// temporary files a killed process left.
func (c *compiledCache) prune(keep string) {
	d, err := c.root.Open(".")
	if err != nil {
		return
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return
	}
	old := time.Now().Add(-cacheMaxAge)
	for _, e := range entries {
		if e.Name() == keep || e.Name() == cacheKeyFile {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(old) {
			c.root.Remove(e.Name())
		}
	}
}

// close releases the folder handle.
func (c *compiledCache) close() {
	if c != nil {
		c.root.Close()
	}
}
