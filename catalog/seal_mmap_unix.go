//go:build unix

package catalog

import (
	"fmt"
	"os"
	"syscall"
)

// mapSealed maps size bytes of f read-only; release unmaps them.
func mapSealed(f *os.File, size int64) (data []byte, release func(), err error) {
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("sealed catalog: the file cannot be mapped: %w", err)
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}

// allocPlain returns n zero bytes, 8-byte aligned, for the decrypted
// tables of a sealed catalog, and the func that frees them. From
// minMappedPlain bytes up they are an anonymous mapping, outside the Go
// heap: its pages cost nothing until a lookup decrypts into them, and
// nothing ever zeroes the whole (a heap allocation of that size is
// cleared when the runtime reuses memory for it, which for a catalog of
// gigabytes costs seconds and all its memory). Lookups decrypt pages here
// and there, so the mapping asks for small pages (smallPages): a huge page
// would make each first lookup in 2 MiB zero and keep all of it. A failed
// mapping falls back to the heap.
func allocPlain(n uint64) (b []byte, release func()) {
	if n < minMappedPlain {
		return heapPlain(n), func() {}
	}
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return heapPlain(n), func() {}
	}
	smallPages(b)
	return b, func() { _ = syscall.Munmap(b) }
}
