package engine

import (
	"sync"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
)

// maxCachedCatalogs bounds the compiled catalogs kept warm. Keys come from
// callers, but only keys that resolve to a catalog are cached.
const maxCachedCatalogs = 16

// catalogCache keeps each catalog compiled between calls and recompiles it
// when the broker reports that its source changed (path, size or
// modification time).
type catalogCache struct {
	b *broker.Broker

	mu    sync.Mutex
	slots map[string]*catalogSlot
}

type catalogSlot struct {
	mu      sync.Mutex // held while checking and compiling
	info    broker.CatalogInfo
	matcher *catalog.Matcher
}

func newCatalogCache(b *broker.Broker) *catalogCache {
	return &catalogCache{b: b, slots: map[string]*catalogSlot{}}
}

// get returns the compiled catalog for key ("" = the default precedence)
// and its identity, and whether it was compiled by this call.
func (c *catalogCache) get(key string) (*catalog.Matcher, broker.CatalogInfo, bool, error) {
	info, err := c.b.StatCatalog(key)
	if err != nil {
		c.drop(key)
		return nil, broker.CatalogInfo{}, false, err
	}
	slot := c.slot(key)
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.matcher != nil && slot.info.Same(info) {
		return slot.matcher, slot.info, false, nil
	}
	m, info, err := c.b.OpenCatalog(key)
	if err != nil {
		slot.matcher = nil
		c.drop(key)
		return nil, broker.CatalogInfo{}, false, err
	}
	slot.matcher, slot.info = m, info
	return m, info, true, nil
}

func (c *catalogCache) slot(key string) *catalogSlot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slots[key]
	if s == nil {
		if len(c.slots) >= maxCachedCatalogs {
			for k := range c.slots { // evict one, any
				delete(c.slots, k)
				break
			}
		}
		s = &catalogSlot{}
		c.slots[key] = s
	}
	return s
}

func (c *catalogCache) drop(key string) {
	c.mu.Lock()
	delete(c.slots, key)
	c.mu.Unlock()
}
