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
