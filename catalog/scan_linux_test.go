//go:build linux

package catalog_test

import (
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
)

// TestScanPageEnd places lines so that they end where the next page is
// unreadable: the scan loops may read past a line's end only within its
// page, and must find the same matches there as in the middle of memory.
func TestScanPageEnd(t *testing.T) {
	pg := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*pg, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[pg:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	m := compile(t, stdRules...)
	r := rand.New(rand.NewPCG(7, 8))
	vals := []string{"Jane Doe", "Acme Corp", "Zephyr", "X Ray", "ACCT-0042", "secretproj", "EMP-123456"}
	for n := 1; n <= 200; n++ {
		for range 20 {
			src := identSoup(r, vals)
			for len(src) < n {
				src = append(src, identSoup(r, vals)...)
			}
			src = src[len(src)-n:]
			line := mem[pg-n : pg : pg]
			copy(line, src)
			want := m.Find(src, nil)
			a, g := findBoth(m, line)
			if !slices.Equal(a, want) || !slices.Equal(g, want) {
				t.Fatalf("at a page end: assembly %v, Go %v; elsewhere %v; line %q", a, g, want, src)
			}
		}
	}
}
