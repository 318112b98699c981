package gitsrc

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Rename detection, git diff -M's pairing with git's own similarity scores.
//
// go-git's object.DetectRenames (v5.19.3) was not enough: it rebuilds its
// lists of deletions and additions by iterating maps keyed by blob hash,
// then breaks ties in its similarity matrix by list index, so that equal
// scores paired a deletion with one addition on one run and another on the
// next; its exact pairing prefers the most similar path by its own
// measure, not git's rule; and its scores (JGit's similarity index, 1 % of
// them path similarity) are not git's. Pairing is therefore done here, as
// diffcore-rename.c and diffcore-delta.c of git 2.39 do for plain -M (no
// copies, no break detection):
//
//   - exact renames as git's find_exact_renames: destinations in path
//     order, each taking among the unused deletions of its blob (in path
//     order, the first 100 looked at) the first with the same basename,
//     else the first; two regular files pair whatever their executable
//     bits, other modes only when equal;
//   - content similarity as estimate_similarity: regular files only
//     (executable or not); 0 when the larger size exceeds the smaller by
//     more than the minimum score allows; else the bytes of the source
//     found in the destination over the larger size, in 60000ths. The
//     bytes are counted by spans as diffcore_count_changes does: a span
//     ends at a newline or after 64 bytes, a CR before an LF is skipped in
//     text, bytes after the last full span are not counted, and spans are
//     compared by git's hash (modulo 107927, so that distinct spans may
//     share a count, as in git);
//   - find_basename_matches: a deletion and an addition whose basename is
//     unique among the deletions and among the additions left pair first
//     if at least 75 % similar (in path order of the deletions); this runs
//     whatever git's limit;
//   - then, unless git's limit (tooManyRenames, on what is left) rules it
//     out, the matrix: for each destination the four best sources (slots
//     filled and replaced as record_if_better does), all slots sorted
//     stably by score_compare (higher score first, a same basename first,
//     else destination then slot order), taken greedily down to 50 %.
//
// Scores and order are git's, so the pairing is git's, and the same on
// every run (no map is iterated).

// renameScore is git's default -M threshold, in percent.
const renameScore = 50

// renameLimit is git's default diff.renameLimit: content (inexact) rename
// detection runs only when git's own rule allows it (tooManyRenames, on
// the deletions and additions exact renames left, as git counts them);
// otherwise only exact renames are paired and the other new files are
// scanned whole, as git diff shows them.
const renameLimit = 1000

// tooManyRenames is git's rule (diffcore-rename.c,
// too_many_rename_candidates): inexact detection is skipped unless one
// side has at most renameLimit files and adds × deletes is at most
// renameLimit².
func tooManyRenames(adds, dels int) bool {
	if adds <= renameLimit || dels <= renameLimit {
		if uint64(adds)*uint64(dels) <= uint64(renameLimit)*uint64(renameLimit) {
			return false
		}
	}
	return true
}

// detectRenames pairs deletions with additions, exactly or by content
// similarity, and returns the changes that have a new side, sorted by
// path.
func (p *processor) detectRenames(changes []change) ([]change, error) {
	var srcs, dsts []int // indexes in changes of deletions and additions
	for i, c := range changes {
		switch {
		case c.hasTo && !c.hasFrom:
			dsts = append(dsts, i)
		case c.hasFrom && !c.hasTo:
			srcs = append(srcs, i)
		}
	}
	if len(srcs) > 0 && len(dsts) > 0 {
		sort.SliceStable(srcs, func(i, j int) bool { return changes[srcs[i]].from.path < changes[srcs[j]].from.path })
		sort.SliceStable(dsts, func(i, j int) bool { return changes[dsts[i]].to.path < changes[dsts[j]].to.path })
		srcs, dsts = exactRenames(changes, srcs, dsts)
		if len(srcs) > 0 && len(dsts) > 0 {
			if err := p.contentRenames(changes, srcs, dsts); err != nil {
				return nil, err
			}
		}
	}
	out := changes[:0]
	for _, c := range changes {
		if c.hasTo {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].to.path < out[j].to.path })
	return out, nil
}

// pair makes the addition changes[d] a rename of the deletion changes[s],
// which stays in the list as a deletion with no new side.
func pair(changes []change, s, d int) {
	changes[d].from, changes[d].hasFrom = changes[s].from, true
	changes[s].hasFrom = false // consumed: neither side left
}

// exactRenames pairs additions with deletions of the same blob by git's
// rule and returns the deletions and additions left, in path order.
func exactRenames(changes []change, srcs, dsts []int) (restSrcs, restDsts []int) {
	byBlob := make(map[plumbing.Hash][]int, len(srcs)) // positions in srcs, ascending
	for i, s := range srcs {
		h := changes[s].from.hash
		byBlob[h] = append(byBlob[h], i)
	}
	used := make([]bool, len(srcs))
	for _, d := range dsts {
		to := changes[d].to
		best, bestScore, budget := -1, -1, 100
		for _, i := range byBlob[to.hash] {
			from := changes[srcs[i]].from
			if (!isFileMode(from.mode) || !isFileMode(to.mode)) && from.mode != to.mode {
				continue
			}
			if used[i] {
				continue
			}
			score := 1
			if basename(from.path) == basename(to.path) {
				score++
			}
			if score > bestScore {
				best, bestScore = i, score
				if score == 2 {
					break
				}
			}
			if budget--; budget == 0 {
				break
			}
		}
		if best < 0 {
			restDsts = append(restDsts, d)
			continue
		}
		used[best] = true
		pair(changes, srcs[best], d)
	}
	for i, s := range srcs {
		if !used[i] {
			restSrcs = append(restSrcs, s)
		}
	}
	return restSrcs, restDsts
}

func basename(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// Git's similarity scores (diffcore.h): a score is a fraction of maxScore.
const (
	maxScore         = 60000
	minRenameScore   = maxScore * renameScore / 100 // -M's default, 30000
	basenameScore    = minRenameScore + (maxScore-minRenameScore)/2
	candidatesPerDst = 4 // git's NUM_CANDIDATE_PER_DST
)

// spanCacheBytes bounds the span counts kept while the matrix of scores is
// filled (beyond it a file's counts are rebuilt each time they are needed).
const spanCacheBytes = 32 << 20

// uniqueBasenames maps each basename of fs to the index of its file, or
// to -1 when more than one file has it.
func uniqueBasenames(fs []renameFile) map[string]int {
	m := make(map[string]int, len(fs))
	for i := range fs {
		b := basename(fs[i].e.path)
		if _, dup := m[b]; dup {
			m[b] = -1
		} else {
			m[b] = i
		}
	}
	return m
}

// renameFile is one deletion or addition taking part in content renames.
type renameFile struct {
	e     entry
	size  int // content size, -1 until read
	spans spanCounts
	done  bool // spans are kept
}

// contentRenames pairs the deletions srcs with the additions dsts (both in
// path order, exact renames already paired) by git's content similarity:
// files of a basename unique on both sides at 75 % first
// (find_basename_matches), then, unless git's limit rules it out, the rest
// by git's matrix of four best candidates per destination.
func (p *processor) contentRenames(changes []change, srcs, dsts []int) error {
	sf := make([]renameFile, len(srcs))
	for i, s := range srcs {
		sf[i] = renameFile{e: changes[s].from, size: -1}
	}
	df := make([]renameFile, len(dsts))
	for i, d := range dsts {
		df[i] = renameFile{e: changes[d].to, size: -1}
	}
	srcUsed := make([]bool, len(srcs))
	dstUsed := make([]bool, len(dsts))
	cached := 0
	estimate := func(s, d *renameFile) (int, error) {
		return p.estimateSimilarity(s, d, &cached)
	}

	// Basenames unique among the deletions and among the additions left.
	srcBase, dstBase := uniqueBasenames(sf), uniqueBasenames(df)
	for si := range sf {
		b := basename(sf[si].e.path)
		di, ok := dstBase[b]
		if !ok || di < 0 || srcBase[b] < 0 || dstUsed[di] {
			continue
		}
		score, err := estimate(&sf[si], &df[di])
		if err != nil {
			return err
		}
		if score >= basenameScore {
			srcUsed[si], dstUsed[di] = true, true
			pair(changes, srcs[si], dsts[di])
		}
	}

	var restSrc, restDst []int // positions in sf and df
	for i := range sf {
		if !srcUsed[i] {
			restSrc = append(restSrc, i)
		}
	}
	for i := range df {
		if !dstUsed[i] {
			restDst = append(restDst, i)
		}
	}
	if len(restSrc) == 0 || len(restDst) == 0 || tooManyRenames(len(restDst), len(restSrc)) {
		return nil
	}

	// git's matrix: for each destination the four best sources, in the
	// slots git's record_if_better leaves them in, then one stable sort.
	mx := make([]renameCandidate, 0, len(restDst)*candidatesPerDst)
	for _, di := range restDst {
		var m [candidatesPerDst]renameCandidate
		for j := range m {
			m[j].dst = -1
		}
		for _, si := range restSrc {
			score, err := estimate(&sf[si], &df[di])
			if err != nil {
				return err
			}
			o := renameCandidate{src: si, dst: di, score: score}
			if basename(sf[si].e.path) == basename(df[di].e.path) {
				o.nameScore = 1
			}
			worst := 0
			for j := 1; j < candidatesPerDst; j++ {
				if scoreCompare(m[j], m[worst]) > 0 {
					worst = j
				}
			}
			if scoreCompare(m[worst], o) > 0 {
				m[worst] = o
			}
		}
		mx = append(mx, m[:]...)
	}
	slices.SortStableFunc(mx, scoreCompare)
	for _, c := range mx {
		if c.dst < 0 || c.score < minRenameScore {
			break
		}
		if dstUsed[c.dst] || srcUsed[c.src] {
			continue
		}
		srcUsed[c.src], dstUsed[c.dst] = true, true
		pair(changes, srcs[c.src], dsts[c.dst])
	}
	return nil
}

// renameCandidate is one slot of git's matrix of scores (diff_score).
type renameCandidate struct {
	src, dst  int // positions among the deletions and additions; dst -1: empty slot
	score     int // 0 to maxScore
	nameScore int // 1 for the same basename
}

// scoreCompare is git's score_compare: empty slots last, then the higher
// score first, then the same basename first.
func scoreCompare(a, b renameCandidate) int {
	switch {
	case a.dst < 0:
		if b.dst >= 0 {
			return 1
		}
		return 0
	case b.dst < 0:
		return -1
	case a.score == b.score:
		return b.nameScore - a.nameScore
	}
	return b.score - a.score
}

// estimateSimilarity is git's estimate_similarity: 0 unless both are
// regular files (executable or not) of sizes close enough for the minimum
// score, else the bytes of the source found in the destination, by span
// counts, over the larger size, as a fraction of maxScore.
func (p *processor) estimateSimilarity(s, d *renameFile, cached *int) (int, error) {
	if !isFileMode(s.e.mode) || !isFileMode(d.e.mode) {
		return 0, nil
	}
	var sb, db []byte
	var err error
	if s.size < 0 {
		if sb, err = p.renameBlob(s.e); err != nil {
			return 0, err
		}
		s.size = len(sb)
	}
	if d.size < 0 {
		if db, err = p.renameBlob(d.e); err != nil {
			return 0, err
		}
		d.size = len(db)
	}
	hi, lo := max(s.size, d.size), min(s.size, d.size)
	if uint64(hi)*(maxScore-minRenameScore) < uint64(hi-lo)*maxScore {
		return 0, nil
	}
	ss, err := p.renameSpans(s, sb, cached)
	if err != nil {
		return 0, err
	}
	ds, err := p.renameSpans(d, db, cached)
	if err != nil {
		return 0, err
	}
	if d.size == 0 {
		return 0, nil
	}
	return int(float64(ss.copied(ds)) * maxScore / float64(hi)), nil
}

func (p *processor) renameBlob(e entry) ([]byte, error) {
	b, err := p.blob(e.hash)
	if err != nil {
		return nil, fmt.Errorf("rename detection: object %s (%s) cannot be read: %w", e.hash, e.path, err)
	}
	return b, nil
}

// renameSpans returns f's span counts, from b if not nil, kept in f while
// the cache allows.
func (p *processor) renameSpans(f *renameFile, b []byte, cached *int) (spanCounts, error) {
	if f.done {
		return f.spans, nil
	}
	if b == nil {
		var err error
		if b, err = p.renameBlob(f.e); err != nil {
			return nil, err
		}
	}
	sp := newSpanCounts(b)
	if n := 8 * cap(sp); *cached+n <= spanCacheBytes {
		f.spans, f.done = sp, true
		*cached += n
	}
	return sp, nil
}

// spanCounts is git's count of a file's spans (diffcore-delta.c): the
// bytes of each span, by the span's hash, sorted by hash, hashes unique.
type spanCounts []spanCount

type spanCount struct {
	hash, cnt uint32
}

// spanHashBase is git's HASHBASE, the prime the span hashes are taken
// modulo.
const spanHashBase = 107927

// newSpanCounts cuts b into spans as git's hash_chars does: each ends at a
// newline or after 64 bytes counted (a CR just before an LF is skipped in
// text), and bytes after the last full span are not counted.
func newSpanCounts(b []byte) spanCounts {
	text := !isBinary(b)
	var out spanCounts
	var acc1, acc2 uint32
	n := uint32(0)
	for i, c := range b {
		if text && c == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			continue
		}
		old1 := acc1
		acc1 = acc1<<7 ^ acc2>>25
		acc2 = acc2<<7 ^ old1>>25
		acc1 += uint32(c)
		n++
		if n < 64 && c != '\n' {
			continue
		}
		out = append(out, spanCount{hash: (acc1 + acc2*0x61) % spanHashBase, cnt: n})
		n, acc1, acc2 = 0, 0, 0
	}
	slices.SortFunc(out, func(a, b spanCount) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return 0
	})
	w := 0
	for _, s := range out {
		if w > 0 && out[w-1].hash == s.hash {
			out[w-1].cnt += s.cnt
			continue
		}
		out[w] = s
		w++
	}
	return slices.Clip(out[:w])
}

// copied is git's src_copied: for each hash, the bytes of the source also
// in the destination (the smaller of the two counts).
func (src spanCounts) copied(dst spanCounts) uint64 {
	var sc uint64
	i, j := 0, 0
	for i < len(src) && j < len(dst) {
		a, b := src[i], dst[j]
		switch {
		case a.hash == b.hash:
			sc += uint64(min(a.cnt, b.cnt))
			i++
			j++
		case a.hash < b.hash:
			i++
		default:
			j++
		}
	}
	return sc
}
