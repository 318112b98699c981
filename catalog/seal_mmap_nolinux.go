//go:build unix && !linux

package catalog

// smallPages does nothing where there are no transparent huge pages to
// refuse.
func smallPages([]byte) {}
