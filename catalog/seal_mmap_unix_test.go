//go:build unix

package catalog

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestAllocPlainOffHeap: the decrypted tables of a large sealed catalog are
// zeroed memory outside the Go heap (so no allocation ever clears them
// whole), 8-byte aligned and writable; small ones come from the heap.
func TestAllocPlainOffHeap(t *testing.T) {
	const n = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, release := allocPlain(n)
	runtime.ReadMemStats(&after)
	if len(b) != n || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 != 0 {
		t.Fatalf("len %d, address %p", len(b), unsafe.SliceData(b))
	}
	if after.HeapSys >= before.HeapSys+n/2 {
		t.Fatalf("%d MiB of tables grew the heap from %d to %d MiB", n>>20, before.HeapSys>>20, after.HeapSys>>20)
	}
	for _, at := range []int{0, n / 2, n - 1} {
		if b[at] != 0 {
			t.Fatalf("byte %d is not zero", at)
		}
		b[at] = 1
	}
	release()

	small, release := allocPlain(minMappedPlain - 8)
	defer release()
	if len(small) != minMappedPlain-8 || uintptr(unsafe.Pointer(unsafe.SliceData(small)))%8 != 0 {
		t.Fatal("a small table buffer is wrong")
	}
}
