//go:build !purego

package catalog

import (
	"testing"
	"unsafe"
)

// SetScanASM turns the assembly scan loop of m on or off and reports
// whether it runs (the tests compare the two loops).
func SetScanASM(m *Matcher, on bool) bool {
	if on {
		m.asm.init(m)
	} else {
		m.asm.ok = false
	}
	return m.asm.ok
}

// TestScanStateLayout checks the field offsets scan_amd64.s uses.
func TestScanStateLayout(t *testing.T) {
	var q scanState
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"p", unsafe.Offsetof(q.p), 0},
		{"n", unsafe.Offsetof(q.n), 8},
		{"i", unsafe.Offsetof(q.i), 16},
		{"e", unsafe.Offsetof(q.e), 24},
		{"pre", unsafe.Offsetof(q.pre), 32},
		{"anchors", unsafe.Offsetof(q.anchors), 40},
		{"lut", unsafe.Offsetof(q.lut), 48},
		{"anch", unsafe.Offsetof(q.anch), 56},
		{"prew", unsafe.Offsetof(q.prew), 64},
		{"preMul", unsafe.Offsetof(q.preMul), 72},
		{"shift", unsafe.Offsetof(q.shift), 80},
		{"split", unsafe.Offsetof(q.split), 88},
		{"base", unsafe.Offsetof(q.base), 96},
		{"next", unsafe.Offsetof(q.next), 104},
		{"masks", unsafe.Offsetof(q.masks), 112},
		{"size", unsafe.Sizeof(q), 160},
	} {
		if f.got != f.want {
			t.Errorf("scanState.%s at %d, scan_amd64.s has %d", f.name, f.got, f.want)
		}
	}
	if n := len(asmTabs{}.lut); n != 6 {
		t.Errorf("%d classes, scan_amd64.s has 6", n)
	}
}
