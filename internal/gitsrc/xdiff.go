package gitsrc

import (
	"bytes"
	"hash/maphash"
	"sort"
)

// This file holds the line diff used for every comparison. It follows the
// algorithm of git's xdiff (Myers' O(ND) divide and conquer with git's
// cost heuristics, git's pre-pass that discards lines without a match, and
// git's group compaction with the indent heuristic that `git diff` enables
// by default), so that the set of added lines, and their numbers, agree with
// what `git diff` prints.

// splitRecords splits b into records: lines including their "\n"
// terminator. A final line without a terminator is a record too. Empty input
// has no records. The records are sub-slices of b.
func splitRecords(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	recs := make([][]byte, 0, bytes.Count(b, []byte{'\n'})+1)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			recs = append(recs, b)
			break
		}
		recs = append(recs, b[:i+1])
		b = b[i+1:]
	}
	return recs
}

// records are the records of a text (as splitRecords), kept as the text
// and each record's end offset: 4 bytes a line instead of a 24-byte slice,
// and nothing for the garbage collector to scan. The line diff works on
// them; a history walk splits every blob it diffs (on go-git's history,
// [][]byte records were a quarter of all bytes allocated).
type records struct {
	b    []byte
	ends []uint32 // record i is b[ends[i-1]:ends[i]] (from 0 for i = 0)
}

// newRecords splits b (at most maxRecordsText bytes: blobs are read whole
// only up to git's big file threshold, and fragmentFor skips larger
// working tree files) into records.
func newRecords(b []byte) records {
	if len(b) == 0 {
		return records{}
	}
	if uint64(len(b)) > maxRecordsText {
		panic("gitsrc: text too large for records")
	}
	ends := make([]uint32, 0, bytes.Count(b, []byte{'\n'})+1)
	off := 0
	for off < len(b) {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			off = len(b)
		} else {
			off += i + 1
		}
		ends = append(ends, uint32(off))
	}
	return records{b: b, ends: ends}
}

// maxRecordsText bounds the text of records (offsets are 32-bit).
const maxRecordsText = 1<<32 - 1

// n returns the number of records.
func (r records) n() int { return len(r.ends) }

// at returns record i.
func (r records) at(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.b[start:r.ends[i]]
}

// lineText strips the terminator of a record: "\n", or "\r\n".
func lineText(rec []byte) []byte {
	n := len(rec)
	if n > 0 && rec[n-1] == '\n' {
		n--
		if n > 0 && rec[n-1] == '\r' {
			n--
		}
	}
	return rec[:n:n]
}

// diffAdded compares the records of an old and a new file and reports, for
// each record of the new file, whether it is added.
func diffAdded(a, b records) []bool {
	_, added := diffChanged(a, b)
	return added
}

// diffChanged compares the records of an old and a new file and reports,
// for each record of the old file, whether it is removed, and for each
// record of the new file, whether it is added.
func diffChanged(a, b records) (removed, added []bool) {
	var x xenv
	return x.diff(a, b)
}

// diff is diffChanged on the buffers of x, which the next diff on x
// reuses: the results are valid until then. A history worker diffs
// thousands of files; reusing the classifier's table, the class and count
// arrays and the diagonals saved a third of its allocations.
func (x *xenv) diff(a, b records) (removed, added []bool) {
	if a.n() == 0 {
		x.f2.changed = resize(x.f2.changed, b.n())
		added := x.f2.changed
		for i := range added {
			added[i] = true
		}
		return nil, added
	}
	x.prepare(a, b)
	x.recsCmp(0, len(x.f1.ha), 0, len(x.f2.ha), false)
	x.compact(&x.f1, &x.f2)
	x.compact(&x.f2, &x.f1)
	return x.f1.changed[1 : a.n()+1], x.f2.changed[1 : b.n()+1]
}

// resize returns s with length n, zeroed, reusing its array when large
// enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// scratchKeepElems bounds the length of a buffer an xenv keeps between
// diffs (so that one huge file does not pin its buffers).
const scratchKeepElems = 1 << 18

// release drops x's references to the diffed records and the buffers
// grown beyond scratchKeepElems; the others are kept for the next diff.
func (x *xenv) release() {
	x.f1.recs, x.f2.recs = records{}, records{}
	clear(x.cf.lines)
	x.cf.lines = x.cf.lines[:0]
	for _, b := range []*[]bool{&x.f1.changed, &x.f2.changed} {
		if cap(*b) > scratchKeepElems {
			*b = nil
		}
	}
	for _, b := range []*[]int{&x.f1.rindex, &x.f2.rindex, &x.kvdf, &x.kvdb} {
		if cap(*b) > scratchKeepElems {
			*b = nil
		}
	}
	for _, b := range []*[]int32{&x.f1.ha, &x.f2.ha, &x.cls1, &x.cls2, &x.common, &x.cnt1, &x.cnt2, &x.cf.slots, &x.at2} {
		if cap(*b) > scratchKeepElems {
			*b = nil
		}
	}
	if cap(x.cf.lines) > scratchKeepElems {
		x.cf.lines, x.cf.hash = nil, nil
	}
	if cap(x.dis) > scratchKeepElems {
		x.dis = nil
	}
}

// hunkRemoved pairs the records of a diff into hunks: for each new record
// that is added, the indexes of the old records removed in the same hunk
// (the run of changes between two unchanged records). Only new records for
// which want returns true get an entry.
func hunkRemoved(removed, added []bool, nOld int, want func(newIdx int) bool) map[int][]int {
	var out map[int][]int
	i, j := 0, 0 // old, new
	for i < nOld || j < len(added) {
		// Unchanged records are aligned one to one.
		if (i < nOld && !removed[i]) && (j < len(added) && !added[j]) {
			i++
			j++
			continue
		}
		oi := i
		for i < nOld && removed[i] {
			i++
		}
		nj := j
		for j < len(added) && added[j] {
			j++
		}
		if oi == i && nj == j {
			// Defensive: the two sides disagree on alignment; stop
			// pairing rather than loop.
			break
		}
		for k := nj; k < j; k++ {
			if want(k) {
				if out == nil {
					out = map[int][]int{}
				}
				idx := make([]int, 0, i-oi)
				for o := oi; o < i; o++ {
					idx = append(idx, o)
				}
				out[k] = idx
			}
		}
	}
	return out
}

const (
	xdlMaxCostMin  = 256
	xdlHeurMinCost = 256
	xdlSnakeCnt    = 20
	xdlKHeur       = 4
	xdlKpdisRun    = 4
	xdlMaxEqlimit  = 1024
	xdlSimscanWin  = 100
	xdlLineMax     = int(^uint(0) >> 1)
)

type xfile struct {
	recs records
	// changed has a false sentinel at both ends: changed[i+1] is record i.
	changed []bool
	rindex  []int   // records kept for the Myers pass
	ha      []int32 // their classes
}

func (f *xfile) isChanged(i int) bool { return f.changed[i+1] }
func (f *xfile) setChanged(i int, v bool) {
	f.changed[i+1] = v
}

type xenv struct {
	f1, f2     xfile
	kvdf, kvdb []int // forward and backward diagonals, offset by off
	off        int
	mxcost     int

	// Buffers of prepare, kept for the next diff (see diff).
	cf                             classifier
	cls1, cls2, common, cnt1, cnt2 []int32
	dis                            []byte
	at2                            []int32 // classifyAligned's positions

	// plain makes prepare compare and classify record by record, as
	// xdl_prepare_env does, without the shortcuts of commonRecords and
	// classifyAligned: the reference the tests compare them with.
	plain bool
}

// bogosqrt is xdiff's cheap square root approximation.
func bogosqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// classifier assigns one class number to all equal records.
type classifier struct {
	seeded bool
	seed   maphash.Seed
	slots  []int32 // class+1; 0 is empty
	mask   uint64
	lines  [][]byte
	hash   []uint64
	// keys has the bit of filterKey(rec) set for each classified
	// record: lookup answers -1 for a record whose bit is clear without
	// hashing it. A common head and tail are mostly records the few
	// changed records do not equal; the key (length and two bytes) tells
	// most of them apart even when the changed records are many.
	keys *[filterBits / 64]uint64
}

// filterBits is the size of the classifier's filter, in bits.
const filterBits = 1 << 15

// filterKey maps a record to a bit of the filter: its length and two of
// its bytes, mixed.
func filterKey(rec []byte) uint32 {
	n := len(rec)
	k := uint32(n) * 0x9e3779b1
	if n > 0 {
		k ^= uint32(rec[n/2])*0x85ebca6b ^ uint32(rec[n/3])*0xc2b2ae35
	}
	return (k ^ k>>15) % filterBits
}

func (c *classifier) noteKey(rec []byte) {
	k := filterKey(rec)
	c.keys[k/64] |= 1 << (k % 64)
}

// maybeKey reports whether a classified record may equal rec.
func (c *classifier) maybeKey(rec []byte) bool {
	k := filterKey(rec)
	return c.keys[k/64]&(1<<(k%64)) != 0
}

func newClassifier(n int) *classifier {
	c := &classifier{}
	c.reset(n)
	return c
}

// reset empties c for n records, keeping its arrays when large enough.
func (c *classifier) reset(n int) {
	if !c.seeded {
		c.seed, c.seeded = maphash.MakeSeed(), true
	}
	size := 16
	for size < 2*n {
		size <<= 1
	}
	c.slots = resize(c.slots, size)
	c.mask = uint64(size - 1)
	if cap(c.lines) < n {
		c.lines, c.hash = make([][]byte, 0, n), make([]uint64, 0, n)
	}
	c.lines, c.hash = c.lines[:0], c.hash[:0]
	if c.keys == nil {
		c.keys = new([filterBits / 64]uint64)
	} else {
		clear(c.keys[:])
	}
}

func (c *classifier) classify(rec []byte) int32 {
	h := maphash.Bytes(c.seed, rec)
	for i := h & c.mask; ; i = (i + 1) & c.mask {
		s := c.slots[i]
		if s == 0 {
			id := int32(len(c.lines))
			c.noteKey(rec)
			c.lines = append(c.lines, rec)
			c.hash = append(c.hash, h)
			c.slots[i] = id + 1
			return id
		}
		if c.hash[s-1] == h && bytes.Equal(c.lines[s-1], rec) {
			return s - 1
		}
	}
}

// lookup returns the class of rec, or -1 when no record of the table is
// equal to it.
func (c *classifier) lookup(rec []byte) int32 {
	if !c.maybeKey(rec) {
		return -1
	}
	h := maphash.Bytes(c.seed, rec)
	for i := h & c.mask; ; i = (i + 1) & c.mask {
		s := c.slots[i]
		if s == 0 {
			return -1
		}
		if c.hash[s-1] == h && bytes.Equal(c.lines[s-1], rec) {
			return s - 1
		}
	}
}

// prepare trims the common head and tail, classifies the records in
// between and discards those that cannot take part in a match, like
// xdl_prepare_env. Only the middle records are classified; the common ones
// are only looked up, to count how often each middle record occurs in the
// whole of the other file, which is what xdiff's discard rule uses.
func (x *xenv) prepare(a, b records) {
	x.f1.recs, x.f2.recs = a, b
	x.f1.rindex, x.f1.ha = x.f1.rindex[:0], x.f1.ha[:0]
	x.f2.rindex, x.f2.ha = x.f2.rindex[:0], x.f2.ha[:0]
	n1, n2 := a.n(), b.n()
	x.f1.changed = resize(x.f1.changed, n1+2)
	x.f2.changed = resize(x.f2.changed, n2+2)

	lim := min(n1, n2)
	start, tail := 0, 0
	if !x.plain {
		start, tail = commonRecords(a, b)
	}
	for start < lim && bytes.Equal(a.at(start), b.at(start)) {
		start++
	}
	tail = min(tail, lim-start)
	for tail < lim-start && bytes.Equal(a.at(n1-1-tail), b.at(n2-1-tail)) {
		tail++
	}
	end1, end2 := n1-tail, n2-tail // exclusive

	if end1 == start || end2 == start {
		// A pure insertion or deletion: whatever the discard rule
		// decides, every middle record ends up changed.
		for i := start; i < end1; i++ {
			x.f1.setChanged(i, true)
		}
		for i := start; i < end2; i++ {
			x.f2.setChanged(i, true)
		}
		x.off = 1
		x.mxcost = xdlMaxCostMin
		return
	}

	cf := &x.cf
	cf.reset(end1 - start + end2 - start)
	x.cls1 = resize(x.cls1, end1-start)
	x.cls2 = resize(x.cls2, end2-start)
	cls1, cls2 := x.cls1, x.cls2
	if x.plain {
		for i := start; i < end1; i++ {
			cls1[i-start] = cf.classify(a.at(i))
		}
		for i := start; i < end2; i++ {
			cls2[i-start] = cf.classify(b.at(i))
		}
	} else {
		x.classifyAligned(a, b, start, end1, end2)
	}
	nclass := len(cf.lines)
	// Occurrences of each class in the common head and tail (the same in
	// both files), then in each file's middle.
	x.common = resize(x.common, nclass)
	common := x.common
	if nclass > 0 {
		for i := 0; i < start; i++ {
			if c := cf.lookup(a.at(i)); c >= 0 {
				common[c]++
			}
		}
		for i := end1; i < n1; i++ {
			if c := cf.lookup(a.at(i)); c >= 0 {
				common[c]++
			}
		}
	}
	x.cnt1 = append(x.cnt1[:0], common...)
	x.cnt2 = append(x.cnt2[:0], common...)
	cnt1, cnt2 := x.cnt1, x.cnt2
	for _, c := range cls1 {
		cnt1[c]++
	}
	for _, c := range cls2 {
		cnt2[c]++
	}
	keep := func(f *xfile, cls, other []int32, n int) {
		mlim := min(bogosqrt(n), xdlMaxEqlimit)
		x.dis = resize(x.dis, len(cls))
		dis := x.dis
		for i, c := range cls {
			switch nm := int(other[c]); {
			case nm == 0:
				dis[i] = 0
			case nm >= mlim:
				dis[i] = 2
			default:
				dis[i] = 1
			}
		}
		f.rindex = f.rindex[:0]
		f.ha = f.ha[:0]
		for i, c := range cls {
			if dis[i] == 1 || (dis[i] == 2 && !cleanMmatch(dis, i, 0, len(cls)-1)) {
				f.rindex = append(f.rindex, start+i)
				f.ha = append(f.ha, c)
			} else {
				f.setChanged(start+i, true)
			}
		}
	}
	keep(&x.f1, cls1, cnt2, n1)
	keep(&x.f2, cls2, cnt1, n2)

	nd := len(x.f1.ha) + len(x.f2.ha) + 3
	x.kvdf = resize(x.kvdf, nd)
	x.kvdb = resize(x.kvdb, nd)
	x.off = len(x.f2.ha) + 1
	x.mxcost = max(bogosqrt(nd), xdlMaxCostMin)
}

// commonRecords returns how many leading and trailing records a and b
// have in common, or fewer (never more): prepare's record-by-record loops
// go on from there. It compares bytes in large chunks and maps the common
// byte prefix and suffix to records through the records' end offsets, so
// that the records of a long common head and tail are neither compared
// one by one nor walked. Only the record at the edge of each common byte
// run can differ in the other file (it may continue past the run there);
// it is dropped from the count and left to the loops.
func commonRecords(a, b records) (head, tail int) {
	n1 := a.n()
	lim := min(n1, b.n())
	// Records of a that end within the common byte prefix are in b too,
	// at the same index: their bytes, and the newlines that end the
	// records before them, are common. The last of them may lack a
	// newline (a's last record), and continue in b.
	p := commonPrefixLen(a.b, b.b)
	head = sort.Search(n1, func(i int) bool { return int(a.ends[i]) > p })
	if head > 0 && a.b[a.ends[head-1]-1] != '\n' {
		head--
	}
	head = min(head, lim)
	// Records of a that start past the first byte of the common byte
	// suffix are in b too, as many from its end: the newline before
	// each of them is common. The first is the one after the first
	// record of a that ends at or past that byte.
	s := commonSuffixLen(a.b, b.b)
	if s == 0 {
		return head, 0
	}
	first := len(a.b) - s
	i := sort.Search(n1, func(i int) bool { return int(a.ends[i]) > first })
	tail = max(0, min(n1-i-1, lim-head))
	return head, tail
}

// commonPrefixLen returns the length of the longest common prefix of a
// and b.
func commonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for _, chunk := range []int{4096, 64} {
		for i+chunk <= n && bytes.Equal(a[i:i+chunk], b[i:i+chunk]) {
			i += chunk
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffixLen returns the length of the longest common suffix of a
// and b.
func commonSuffixLen(a, b []byte) int {
	n := min(len(a), len(b))
	la, lb := len(a), len(b)
	i := 0
	for _, chunk := range []int{4096, 64} {
		for i+chunk <= n && bytes.Equal(a[la-i-chunk:la-i], b[lb-i-chunk:lb-i]) {
			i += chunk
		}
	}
	for i < n && a[la-1-i] == b[lb-1-i] {
		i++
	}
	return i
}

// classifyAligned classifies the middle records of b (start to end2),
// then those of a (start to end1), in cls2 and cls1. An old record equal
// to the new record it lines up with (the next one after the last record
// matched) takes that record's class without being hashed: between two
// edits the middle of a and b is mostly the same records in the same
// order. The alignment is only a guess of which record to compare with:
// a class is given for equal bytes only, so the classes are those of
// classifying every record, whatever the guess.
func (x *xenv) classifyAligned(a, b records, start, end1, end2 int) {
	cf := &x.cf
	cls1, cls2 := x.cls1, x.cls2
	for i := start; i < end2; i++ {
		cls2[i-start] = cf.classify(b.at(i))
	}
	// at2[c] is the index of the only record of b's middle in class c,
	// or -1 when there are several.
	nc := len(cf.lines)
	x.at2 = resize(x.at2, nc)
	at2 := x.at2
	for i := range at2 {
		at2[i] = -2
	}
	for i, c := range cls2 {
		if at2[c] == -2 {
			at2[c] = int32(start + i)
		} else {
			at2[c] = -1
		}
	}
	j := start // the record of b the next record of a is compared with
	for i := start; i < end1; i++ {
		r := a.at(i)
		if j < end2 && bytes.Equal(r, b.at(j)) {
			cls1[i-start] = cls2[j-start]
			j++
			continue
		}
		c := cf.classify(r)
		cls1[i-start] = c
		if int(c) < nc && at2[c] >= 0 {
			j = int(at2[c]) + 1
		}
	}
}

// cleanMmatch decides whether a line with many matches, sitting in a run of
// lines without a match, should be discarded too (xdl_clean_mmatch).
func cleanMmatch(dis []byte, i, s, e int) bool {
	if i-s > xdlSimscanWin {
		s = i - xdlSimscanWin
	}
	if e-i > xdlSimscanWin {
		e = i + xdlSimscanWin
	}
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == 0 {
			rdis0++
		} else if dis[i-r] == 2 {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == 0 {
			rdis1++
		} else if dis[i+r] == 2 {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*xdlKpdisRun < rpdis1+rdis1
}

type xsplit struct {
	i1, i2       int
	minLo, minHi bool
}

// split finds the middle snake of the box (off1,off2)-(lim1,lim2), or a
// good enough split point when the search gets expensive (xdl_split).
func (x *xenv) split(off1, lim1, off2, lim2 int, needMin bool, spl *xsplit) {
	h1, h2 := x.f1.ha, x.f2.ha
	kf, kb, o := x.kvdf, x.kvdb, x.off
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid

	kf[o+fmid] = off1
	kb[o+bmid] = lim1

	for ec := 1; ; ec++ {
		gotSnake := false

		if fmin > dmin {
			fmin--
			kf[o+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			kf[o+fmax+1] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if kf[o+d-1] >= kf[o+d+1] {
				i1 = kf[o+d-1] + 1
			} else {
				i1 = kf[o+d+1]
			}
			prev1 := i1
			i2 := i1 - d
			for i1 < lim1 && i2 < lim2 && h1[i1] == h2[i2] {
				i1++
				i2++
			}
			if i1-prev1 > xdlSnakeCnt {
				gotSnake = true
			}
			kf[o+d] = i1
			if odd && bmin <= d && d <= bmax && kb[o+d] <= i1 {
				spl.i1, spl.i2 = i1, i2
				spl.minLo, spl.minHi = true, true
				return
			}
		}

		if bmin > dmin {
			bmin--
			kb[o+bmin-1] = xdlLineMax
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			kb[o+bmax+1] = xdlLineMax
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if kb[o+d-1] < kb[o+d+1] {
				i1 = kb[o+d-1]
			} else {
				i1 = kb[o+d+1] - 1
			}
			prev1 := i1
			i2 := i1 - d
			for i1 > off1 && i2 > off2 && h1[i1-1] == h2[i2-1] {
				i1--
				i2--
			}
			if prev1-i1 > xdlSnakeCnt {
				gotSnake = true
			}
			kb[o+d] = i1
			if !odd && fmin <= d && d <= fmax && i1 <= kf[o+d] {
				spl.i1, spl.i2 = i1, i2
				spl.minLo, spl.minHi = true, true
				return
			}
		}

		if needMin {
			continue
		}

		if gotSnake && ec > xdlHeurMinCost {
			best := 0
			for d := fmax; d >= fmin; d -= 2 {
				dd := d - fmid
				if dd < 0 {
					dd = -dd
				}
				i1 := kf[o+d]
				i2 := i1 - d
				v := (i1 - off1) + (i2 - off2) - dd
				if v > xdlKHeur*ec && v > best &&
					off1+xdlSnakeCnt <= i1 && i1 < lim1 &&
					off2+xdlSnakeCnt <= i2 && i2 < lim2 {
					for k := 1; h1[i1-k] == h2[i2-k]; k++ {
						if k == xdlSnakeCnt {
							best = v
							spl.i1, spl.i2 = i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				spl.minLo, spl.minHi = true, false
				return
			}

			best = 0
			for d := bmax; d >= bmin; d -= 2 {
				dd := d - bmid
				if dd < 0 {
					dd = -dd
				}
				i1 := kb[o+d]
				i2 := i1 - d
				v := (lim1 - i1) + (lim2 - i2) - dd
				if v > xdlKHeur*ec && v > best &&
					off1 < i1 && i1 <= lim1-xdlSnakeCnt &&
					off2 < i2 && i2 <= lim2-xdlSnakeCnt {
					for k := 0; h1[i1+k] == h2[i2+k]; k++ {
						if k == xdlSnakeCnt-1 {
							best = v
							spl.i1, spl.i2 = i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				spl.minLo, spl.minHi = false, true
				return
			}
		}

		if ec >= x.mxcost {
			fbest, fbest1 := -1, -1
			for d := fmax; d >= fmin; d -= 2 {
				i1 := min(kf[o+d], lim1)
				i2 := i1 - d
				if lim2 < i2 {
					i1 = lim2 + d
					i2 = lim2
				}
				if fbest < i1+i2 {
					fbest = i1 + i2
					fbest1 = i1
				}
			}
			bbest, bbest1 := xdlLineMax, xdlLineMax
			for d := bmax; d >= bmin; d -= 2 {
				i1 := max(off1, kb[o+d])
				i2 := i1 - d
				if i2 < off2 {
					i1 = off2 + d
					i2 = off2
				}
				if i1+i2 < bbest {
					bbest = i1 + i2
					bbest1 = i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				spl.i1, spl.i2 = fbest1, fbest-fbest1
				spl.minLo, spl.minHi = true, false
			} else {
				spl.i1, spl.i2 = bbest1, bbest-bbest1
				spl.minLo, spl.minHi = false, true
			}
			return
		}
	}
}

// recsCmp marks the changed records of the box, dividing it recursively
// (xdl_recs_cmp).
func (x *xenv) recsCmp(off1, lim1, off2, lim2 int, needMin bool) {
	h1, h2 := x.f1.ha, x.f2.ha
	for off1 < lim1 && off2 < lim2 && h1[off1] == h2[off2] {
		off1++
		off2++
	}
	for off1 < lim1 && off2 < lim2 && h1[lim1-1] == h2[lim2-1] {
		lim1--
		lim2--
	}
	switch {
	case off1 == lim1:
		for ; off2 < lim2; off2++ {
			x.f2.setChanged(x.f2.rindex[off2], true)
		}
	case off2 == lim2:
		for ; off1 < lim1; off1++ {
			x.f1.setChanged(x.f1.rindex[off1], true)
		}
	default:
		var spl xsplit
		x.split(off1, lim1, off2, lim2, needMin, &spl)
		x.recsCmp(off1, spl.i1, off2, spl.i2, spl.minLo)
		x.recsCmp(spl.i1, lim1, spl.i2, lim2, spl.minHi)
	}
}

// group is a run of changed records [start, end) in one file.
type group struct{ start, end int }

func (f *xfile) groupInit(g *group) {
	g.start, g.end = 0, 0
	for f.isChanged(g.end) {
		g.end++
	}
}

func (f *xfile) groupNext(g *group) bool {
	if g.end == f.recs.n() {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for f.isChanged(g.end) {
		g.end++
	}
	return true
}

func (f *xfile) groupPrevious(g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for f.isChanged(g.start - 1) {
		g.start--
	}
	return true
}

func (f *xfile) groupSlideDown(g *group) bool {
	if g.end < f.recs.n() && bytes.Equal(f.recs.at(g.start), f.recs.at(g.end)) {
		f.setChanged(g.start, false)
		g.start++
		f.setChanged(g.end, true)
		g.end++
		for f.isChanged(g.end) {
			g.end++
		}
		return true
	}
	return false
}

func (f *xfile) groupSlideUp(g *group) bool {
	if g.start > 0 && bytes.Equal(f.recs.at(g.start-1), f.recs.at(g.end-1)) {
		g.start--
		f.setChanged(g.start, true)
		g.end--
		f.setChanged(g.end, false)
		for f.isChanged(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

const (
	maxIndent                       = 200
	maxBlanks                       = 20
	startOfFilePenalty              = 1
	endOfFilePenalty                = 21
	totalBlankWeight                = -30
	postBlankWeight                 = 6
	relativeIndentPenalty           = -4
	relativeIndentWithBlankPenalty  = 10
	relativeOutdentPenalty          = 24
	relativeOutdentWithBlankPenalty = 17
	relativeDedentPenalty           = 23
	relativeDedentWithBlankPenalty  = 17
	indentWeight                    = 60
	indentHeuristicMaxSliding       = 100
)

// getIndent returns the indentation of a record (tabs to multiples of 8),
// or -1 for a blank record.
func getIndent(rec []byte) int {
	ret := 0
	for _, c := range rec {
		switch c {
		case ' ':
			ret++
		case '\t':
			ret += 8 - ret%8
		case '\n', '\r':
		default:
			return ret
		}
		if ret >= maxIndent {
			return maxIndent
		}
	}
	return -1
}

type splitMeasure struct {
	endOfFile  bool
	indent     int
	preBlank   int
	preIndent  int
	postBlank  int
	postIndent int
}

type splitScore struct{ effectiveIndent, penalty int }

func (f *xfile) measureSplit(split int, m *splitMeasure) {
	if split >= f.recs.n() {
		m.endOfFile = true
		m.indent = -1
	} else {
		m.endOfFile = false
		m.indent = getIndent(f.recs.at(split))
	}
	m.preBlank, m.preIndent = 0, -1
	for i := split - 1; i >= 0; i-- {
		m.preIndent = getIndent(f.recs.at(i))
		if m.preIndent != -1 {
			break
		}
		m.preBlank++
		if m.preBlank == maxBlanks {
			m.preIndent = 0
			break
		}
	}
	m.postBlank, m.postIndent = 0, -1
	for i := split + 1; i < f.recs.n(); i++ {
		m.postIndent = getIndent(f.recs.at(i))
		if m.postIndent != -1 {
			break
		}
		m.postBlank++
		if m.postBlank == maxBlanks {
			m.postIndent = 0
			break
		}
	}
}

func scoreAddSplit(m *splitMeasure, s *splitScore) {
	if m.preIndent == -1 && m.preBlank == 0 {
		s.penalty += startOfFilePenalty
	}
	if m.endOfFile {
		s.penalty += endOfFilePenalty
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	s.penalty += totalBlankWeight * totalBlank
	s.penalty += postBlankWeight * postBlank
	indent := m.indent
	if indent == -1 {
		indent = m.postIndent
	}
	anyBlanks := totalBlank != 0
	s.effectiveIndent += indent
	switch {
	case indent == -1, m.preIndent == -1:
	case indent > m.preIndent:
		if anyBlanks {
			s.penalty += relativeIndentWithBlankPenalty
		} else {
			s.penalty += relativeIndentPenalty
		}
	case indent == m.preIndent:
	default:
		if m.postIndent != -1 && m.postIndent > indent {
			if anyBlanks {
				s.penalty += relativeOutdentWithBlankPenalty
			} else {
				s.penalty += relativeOutdentPenalty
			}
		} else {
			if anyBlanks {
				s.penalty += relativeDedentWithBlankPenalty
			} else {
				s.penalty += relativeDedentPenalty
			}
		}
	}
}

func scoreCmp(s1, s2 *splitScore) int {
	cmp := 0
	if s1.effectiveIndent > s2.effectiveIndent {
		cmp = 1
	} else if s1.effectiveIndent < s2.effectiveIndent {
		cmp = -1
	}
	return indentWeight*cmp + (s1.penalty - s2.penalty)
}

// compact slides groups of changes in f to line them up with changes in
// the other file, or else to the place the indent heuristic prefers
// (xdl_change_compact).
func (x *xenv) compact(f, fo *xfile) {
	var g, gx group
	f.groupInit(&g)
	fo.groupInit(&gx)
	for {
		if g.end != g.start {
			var groupsize, earliestEnd int
			endMatchingOther := -1
			for {
				groupsize = g.end - g.start
				endMatchingOther = -1
				for f.groupSlideUp(&g) {
					fo.groupPrevious(&gx)
				}
				earliestEnd = g.end
				if gx.end > gx.start {
					endMatchingOther = g.end
				}
				for f.groupSlideDown(&g) {
					fo.groupNext(&gx)
					if gx.end > gx.start {
						endMatchingOther = g.end
					}
				}
				if groupsize == g.end-g.start {
					break
				}
			}
			switch {
			case g.end == earliestEnd:
			case endMatchingOther != -1:
				for gx.end == gx.start {
					f.groupSlideUp(&g)
					fo.groupPrevious(&gx)
				}
			default:
				shift := earliestEnd
				if g.end-groupsize-1 > shift {
					shift = g.end - groupsize - 1
				}
				if g.end-indentHeuristicMaxSliding > shift {
					shift = g.end - indentHeuristicMaxSliding
				}
				bestShift := -1
				var best splitScore
				for ; shift <= g.end; shift++ {
					var m splitMeasure
					var score splitScore
					f.measureSplit(shift, &m)
					scoreAddSplit(&m, &score)
					f.measureSplit(shift-groupsize, &m)
					scoreAddSplit(&m, &score)
					if bestShift == -1 || scoreCmp(&score, &best) <= 0 {
						best = score
						bestShift = shift
					}
				}
				for g.end > bestShift {
					f.groupSlideUp(&g)
					fo.groupPrevious(&gx)
				}
			}
		}
		if g.end == g.start && gx.end == gx.start && !x.plain {
			// Both groups are empty: the next records of both files
			// that are unchanged pair one to one, and stepping over
			// them one at a time changes nothing. Skip to the last of
			// them, as that many steps would.
			k := min(f.unchangedAfter(g.end), fo.unchangedAfter(gx.end))
			g.start += k
			g.end += k
			gx.start += k
			gx.end += k
		}
		if !f.groupNext(&g) {
			break
		}
		fo.groupNext(&gx)
	}
}

// unchangedAfter returns how many records after record i, from i+1 on,
// are unchanged.
func (f *xfile) unchangedAfter(i int) int {
	n := f.recs.n()
	j := i + 1
	for j < n && !f.changed[j+1] {
		j++
	}
	return j - i - 1
}
