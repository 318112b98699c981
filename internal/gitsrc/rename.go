package gitsrc

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Rename detection, git diff -M's pairing with go-git's similarity scores.
//
// go-git's object.DetectRenames (v5.19.3) was not enough: it rebuilds its
// lists of deletions and additions by iterating maps keyed by blob hash,
// then breaks ties in its similarity matrix by list index, so that equal
// scores (common: its scores are truncated to whole percents) paired a
// deletion with one addition on one run and another on the next; and its
// exact pairing prefers the most similar path by its own measure, not
// git's rule. Pairing is therefore done here:
//
//   - exact renames as git's find_exact_renames (diffcore-rename.c, git
//     2.39): destinations in path order, each taking among the unused
//     deletions of its blob (in path order, the first 100 looked at) the
//     first with the same basename, else the first; two regular files
//     pair whatever their executable bits, other modes only when equal;
//   - then, unless git's limit (tooManyRenames, on what exact renames
//     left) rules it out, content renames scored as go-git scores them
//     (JGit's similarity index, 99 % content and 1 % path similarity,
//     regular files only, pairs of at least 50 %), every candidate kept
//     and taken greedily best first as before; equal scores are ordered
//     as git's score_compare and stable sort order them: the content
//     similarity before its truncation to percents (git's scores are
//     content alone, at a finer grain), a same basename first, then the
//     destination first in path order, then the source.
//
// Where go-git's scores differ from git's, so may the pairing: git's
// scores are its own (diffcore-delta.c), it pairs unique basenames at 75 %
// first and keeps four candidates per destination.

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
		if len(srcs) > 0 && len(dsts) > 0 && !tooManyRenames(len(dsts), len(srcs)) {
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

// simIndexCacheBytes bounds the similarity indexes of additions kept while
// every deletion is compared with them (beyond it they are rebuilt for
// each deletion, as go-git does for all).
const simIndexCacheBytes = 32 << 20

// renameCandidate is a pair of a deletion and an addition at least
// renameScore % similar.
type renameCandidate struct {
	src, dst int // positions in srcs and dsts (path order)
	score    int // go-git's: (content × 99 + path similarity × 100) / 10000, in percent
	content  int // content similarity, up to 10000
	sameBase bool
}

// contentRenames pairs deletions with additions by content similarity.
func (p *processor) contentRenames(changes []change, srcs, dsts []int) error {
	content := func(e entry) ([]byte, error) {
		b, err := p.blob(e.hash)
		if err != nil {
			return nil, fmt.Errorf("rename detection: object %s (%s) cannot be read: %w", e.hash, e.path, err)
		}
		return b, nil
	}
	dstIdx := make([]*simIndex, len(dsts))
	dstSize := make([]int, len(dsts)) // content size + 1, 0 until read
	cached := 0
	var cands []renameCandidate
	for si, s := range srcs {
		from := changes[s].from
		if from.mode != filemode.Regular {
			continue
		}
		var sb []byte
		var sx *simIndex
		srcSize := 0
		for di, d := range dsts {
			to := changes[d].to
			if to.mode != filemode.Regular {
				continue
			}
			if srcSize == 0 {
				var err error
				if sb, err = content(from); err != nil {
					return err
				}
				srcSize = len(sb) + 1
			}
			var db []byte
			if dstSize[di] == 0 {
				var err error
				if db, err = content(to); err != nil {
					return err
				}
				dstSize[di] = len(db) + 1
			}
			lo, hi := min(srcSize, dstSize[di]), max(srcSize, dstSize[di])
			if lo*100/hi < renameScore {
				continue // sizes too different
			}
			if sx == nil {
				sx = newSimIndex(sb)
			}
			dx := dstIdx[di]
			if dx == nil {
				if db == nil {
					var err error
					if db, err = content(to); err != nil {
						return err
					}
				}
				dx = newSimIndex(db)
				if n := dx.bytes(); cached+n <= simIndexCacheBytes {
					dstIdx[di] = dx
					cached += n
				}
			}
			content := sx.score(dx)
			score := (content*99 + pathSimilarity(from.path, to.path)*100) / 10000
			if score < renameScore {
				continue
			}
			cands = append(cands, renameCandidate{src: si, dst: di, score: score, content: content, sameBase: basename(from.path) == basename(to.path)})
		}
	}
	slices.SortFunc(cands, func(a, b renameCandidate) int {
		switch {
		case a.score != b.score:
			return b.score - a.score
		case a.content != b.content:
			return b.content - a.content
		case a.sameBase != b.sameBase:
			if a.sameBase {
				return -1
			}
			return 1
		case a.dst != b.dst:
			return a.dst - b.dst
		}
		return a.src - b.src
	})
	srcUsed := make([]bool, len(srcs))
	dstUsed := make([]bool, len(dsts))
	for _, c := range cands {
		if srcUsed[c.src] || dstUsed[c.dst] {
			continue
		}
		srcUsed[c.src], dstUsed[c.dst] = true, true
		pair(changes, srcs[c.src], dsts[c.dst])
	}
	return nil
}

// simIndex is go-git's (JGit's) similarity index of a file: the number of
// bytes hashed per line (or 64-byte block), by hash. Its score is the
// same as go-git v5.19.3's similarityIndex, kept here as a sorted list.
type simIndex struct {
	hashed  uint64
	entries []simEntry // sorted by key, keys unique
}

type simEntry struct {
	key uint32
	cnt uint64
}

func (x *simIndex) bytes() int { return 64 + 16*cap(x.entries) }

// newSimIndex indexes b as go-git's similarityIndex.hashContent does, read
// in 4096-byte chunks: a CR before an LF is not hashed in text, unless the
// CR ends a chunk.
func newSimIndex(b []byte) *simIndex {
	const chunk = 4096
	bin := isBinary(b)
	x := &simIndex{}
	pos, remaining := 0, len(b)
	for remaining > 0 {
		hash := uint32(5381)
		var cnt uint64
		n := 0
		for pos < len(b) {
			c := b[pos]
			pos++
			n++
			if !bin && c == '\r' && pos%chunk != 0 && pos < len(b) && b[pos] == '\n' {
				continue
			}
			cnt++
			if c == '\n' {
				break
			}
			hash = hash<<5 + hash + uint32(c)
			if n >= 64 || n >= remaining {
				break
			}
		}
		x.hashed += cnt
		x.entries = append(x.entries, simEntry{key: hash * 0x9e370001 >> 1, cnt: cnt})
		remaining -= n
	}
	slices.SortFunc(x.entries, func(a, b simEntry) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	out := x.entries[:0]
	for _, e := range x.entries {
		if len(out) > 0 && out[len(out)-1].key == e.key {
			out[len(out)-1].cnt += e.cnt
			continue
		}
		out = append(out, e)
	}
	x.entries = slices.Clip(out)
	return x
}

// score returns the similarity of two indexes, 0 to 10000: the bytes
// hashed in common over the larger of the two (10000 for two empty files).
func (x *simIndex) score(y *simIndex) int {
	hi := max(x.hashed, y.hashed)
	if hi == 0 {
		return 10000
	}
	var common uint64
	i, j := 0, 0
	for i < len(x.entries) && j < len(y.entries) {
		a, b := x.entries[i], y.entries[j]
		switch {
		case a.key == b.key:
			common += min(a.cnt, b.cnt)
			i++
			j++
		case a.key < b.key:
			i++
		default:
			j++
		}
	}
	return int(common * 10000 / hi)
}

// pathSimilarity is go-git's nameSimilarityScore of two paths, 0 to 100:
// a quarter each for the common prefix and suffix of their directories,
// half for the common suffix of their names.
func pathSimilarity(a, b string) int {
	aDir := strings.LastIndexByte(a, '/') + 1
	bDir := strings.LastIndexByte(b, '/') + 1
	dirMin, dirMax := min(aDir, bDir), max(aDir, bDir)
	var ltr, rtl int
	if dirMax == 0 {
		ltr, rtl = 100, 100
	} else {
		sim := 0
		for sim < dirMin && a[sim] == b[sim] {
			sim++
		}
		ltr = sim * 100 / dirMax
		if ltr == 100 {
			rtl = 100
		} else {
			sim = 0
			for sim < dirMin && a[aDir-1-sim] == b[bDir-1-sim] {
				sim++
			}
			rtl = sim * 100 / dirMax
		}
	}
	fileMin := min(len(a)-aDir, len(b)-bDir)
	fileMax := max(len(a)-aDir, len(b)-bDir)
	sim := 0
	for sim < fileMin && a[len(a)-1-sim] == b[len(b)-1-sim] {
		sim++
	}
	file := 0
	if fileMax > 0 {
		file = sim * 100 / fileMax
	}
	return ((ltr+rtl)*25 + file*50) / 100
}
