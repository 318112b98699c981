//go:build !unix

package catalog

import (
	"fmt"
	"io"
	"os"
)

// mapSealed reads size bytes of f into memory (no mapping on this
// platform); release does nothing.
func mapSealed(f *os.File, size int64) (data []byte, release func(), err error) {
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, fmt.Errorf("sealed catalog: the file cannot be read: %w", err)
	}
	return data, func() {}, nil
}

// allocPlain returns n zero bytes, 8-byte aligned, on the heap, and a
// release that does nothing.
func allocPlain(n uint64) (b []byte, release func()) {
	return heapPlain(n), func() {}
}
