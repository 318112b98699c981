//go:build !purego

package catalog

import (
	"unicode/utf8"

	"golang.org/x/sys/cpu"
)

// On amd64 with AVX2, BMI1 and BMI2, scanQuiet runs an assembly loop
// (scanASM in scan_amd64.s) that classifies a line 64 bytes at a time
// with vector nibble lookups and walks from one byte it must look at to
// the next, and over whole words, with bit operations: no branch per byte.
// It probes the prefilter itself, also for the sub-words of identifiers,
// which it finds with the masks (hkeys.subword's split rule as bit
// operations), and returns every word with a prefilter hit to the Go code
// (scanTokens), which looks at it as before; TestScanASMAgrees and
// FuzzScanASM check that both loops agree.

// haveScanASM tells whether the CPU can run scanASM; fixed at start-up.
var haveScanASM = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// asmTabs is what scanASM needs of a Matcher.
type asmTabs struct {
	ok bool // scanQuiet may use scanASM
	// lut[k][c&15] has bit c>>4 set when the ASCII byte c is in class k:
	// stop (Matcher.stopTab), word, upper-case, digit, '_', anchor.
	lut [6][16]uint8
	// anch is the anchor bits of each ASCII byte.
	anch [256]uint8
}

// init fills t for m, whose tables and prefilter are complete.
func (t *asmTabs) init(m *Matcher) {
	*t = asmTabs{}
	p := &m.pre
	// The assembly does not bound-check the prefilter: every index the
	// multiply-shift gives must lie in p.w.
	if !haveScanASM || p.shift < 5 || p.shift >= 64 || len(p.w) != 1<<(64-p.shift)>>5 {
		return
	}
	for c := range 128 {
		sub := identTab[c]
		t.anch[c] = (m.wordClass[c] | m.sepTab[c]) & anchorBits
		in := [6]bool{m.stopTab[c], sub != 0, sub == bitUpper, sub == bitDigit, sub == bitUnder, t.anch[c] != 0}
		for k, yes := range in {
			if yes {
				t.lut[k][c&15] |= 1 << (c >> 4)
			}
		}
	}
	t.ok = true
}

// scanState is scanASM's state in one line; the assembly knows its field
// offsets (TestScanStateLayout checks them). Its pointers are set once by
// scanQuiet; scanASM writes the other fields only.
type scanState struct {
	p       *byte         // the line
	n       int           // its length
	i       int           // in: where to go on; out: the token's start
	e       int           // out: the word's end
	pre     uint64        // out: the word's prefilter cell
	anchors uint64        // the anchor bits of the blocks classified
	lut     *[6][16]uint8 // asmTabs.lut
	anch    *[256]uint8   // asmTabs.anch
	prew    *uint64       // Matcher.pre.w
	preMul  uint64        // Matcher.k.preMul
	shift   uint64        // Matcher.pre.shift
	split   uint64        // 1 when identifier rules split words
	base    int           // the classified block: line[base:next]
	next    int           //
	masks   [6]blockMask  // its classes, as lut
}

// blockMask has bit k set when byte k of a block is in a class.
type blockMask = uint64

// What scanASM found.
const (
	asmEnd  = iota // the end of the line
	asmStop        // a stop byte at i that is no word byte
	asmWord        // the word line[i:e], to return with its cell pre
	asmLong        // the word at i reaches its block's end: Go looks at it
)

// scanASM runs scanQuiet's loop on q from q.i.
//
//go:noescape
func scanASM(q *scanState) int

// scanQuiet is scanQuietGo, run by scanASM when m allows it. qs is the
// line's state, zero at the line's first call.
func (m *Matcher) scanQuiet(b []byte, i int, split, anchors uint8, qs *scanState) (s, e int, first, rest uint8, pre uint64, anch uint8) {
	n := len(b)
	if !m.asm.ok || i >= n {
		return m.scanQuietGo(b, i, split, anchors)
	}
	if qs.p == nil {
		qs.p, qs.n = &b[0], n
		qs.lut, qs.anch = &m.asm.lut, &m.asm.anch
		qs.prew, qs.preMul, qs.shift = &m.pre.w[0], m.k.preMul, uint64(m.pre.shift)
		if split != 0 {
			qs.split = 1
		}
	}
	for {
		qs.i = i
		kind := scanASM(qs)
		anchors |= uint8(qs.anchors)
		switch kind {
		case asmEnd:
			return n, n, 0, 0, 0, anchors
		case asmStop:
			return qs.i, qs.i, 0, 0, 0, anchors
		case asmWord:
			first, rest = m.wordClasses(b, qs.i, qs.e)
			return qs.i, qs.e, first, rest, qs.pre, anchors
		default:
			// The word b[s:j] may go on in the next block: scanQuietGo
			// looks at it alone (as the last word of b[:j]: it may
			// return it where it would not in b, which is harmless).
			s := qs.i
			j := s + 1
			for j < n && identTab[b[j]] != 0 {
				j++
			}
			if j < n && b[j] >= utf8.RuneSelf {
				first, rest = m.wordClasses(b, s, j)
				return s, j, first, rest, 0, anchors
			}
			var ws, we int
			if ws, we, first, rest, pre, anchors = m.scanQuietGo(b[:j], s, split, anchors); ws < j {
				return ws, we, first, rest, pre, anchors
			}
			i = j
		}
	}
}

// wordClasses returns the classes (wordClass) of the first byte of the
// ASCII word b[s:e] and of its other bytes.
func (m *Matcher) wordClasses(b []byte, s, e int) (first, rest uint8) {
	for _, c := range b[s+1 : e] {
		rest |= m.wordClass[c]
	}
	return m.wordClass[b[s]], rest
}
