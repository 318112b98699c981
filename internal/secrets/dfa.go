package secrets

import (
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// prefixDFA decides whether a regex matches some prefix of a text. It
// treats empty-width assertions (^, $, \b...) as always true, so it accepts
// a superset of what the regex matches: a plan uses it only as a necessary
// condition. It is a lazily built DFA over ASCII bytes on top of the
// regex's program; a non-ASCII rune steps the program's state set directly.
// It is safe for concurrent use: states and transitions, once published,
// never change.
type prefixDFA struct {
	prog  *syntax.Prog
	start int32 // state code of the start

	mu    sync.Mutex
	index map[string]int32 // state key -> state, guarded by mu
	n     int              // states, guarded by mu
	// rows holds state s's row at rows[s/dfaChunk][s%dfaChunk]: chunks
	// are allocated as states are created (most DFAs have a few dozen;
	// a flat array of maxDFAStates cost 32 KB of fresh memory per DFA).
	rows [maxDFAStates / dfaChunk]atomic.Pointer[[dfaChunk]atomic.Pointer[dfaRow]]
}

// dfaRow is one state: its program counters and its transitions on ASCII
// bytes, filled as they are first taken.
type dfaRow struct {
	pcs  []uint32          // rune-consuming instructions, sorted
	next [128]atomic.Int32 // state code; dfaUnknown until computed
}

// State codes: a state s >= 0 is coded s+dfaFirst.
const (
	dfaUnknown = 0
	dfaDead    = 1 // no thread left
	dfaAccept  = 2 // a match ended
	dfaFirst   = 3

	maxDFAStates = 4096
	dfaChunk     = 64   // rows allocated at a time
	maxDFAProg   = 4096 // instructions; more make each state costly
)

// newPrefixDFA compiles re (unanchored syntax; it is matched at the start
// of texts) or reports false if its program does not compile or is too
// large.
func newPrefixDFA(re *syntax.Regexp) (*prefixDFA, bool) {
	prog, err := syntax.Compile(re.Simplify())
	if err != nil || len(prog.Inst) > maxDFAProg {
		return nil, false
	}
	d := &prefixDFA{prog: prog, index: map[string]int32{}}
	pcs, matched := d.closure([]uint32{uint32(prog.Start)})
	d.mu.Lock()
	d.start = d.state(pcs, matched)
	d.mu.Unlock()
	return d, d.start != dfaUnknown
}

// closure follows the empty transitions from pcs and returns the
// rune-consuming instructions reached, and whether a match is.
func (d *prefixDFA) closure(pcs []uint32) ([]uint32, bool) {
	var out []uint32
	matched := false
	seen := map[uint32]bool{}
	stack := slices.Clone(pcs)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstNop, syntax.InstCapture, syntax.InstEmptyWidth:
			stack = append(stack, in.Out)
		case syntax.InstMatch:
			matched = true
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			out = append(out, pc)
		}
	}
	slices.Sort(out)
	return out, matched
}

// step returns the closure of the instructions following those of pcs
// that consume r.
func (d *prefixDFA) step(pcs []uint32, r rune) ([]uint32, bool) {
	var next []uint32
	for _, pc := range pcs {
		in := &d.prog.Inst[pc]
		ok := false
		switch in.Op {
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		default:
			ok = in.MatchRune(r)
		}
		if ok {
			next = append(next, in.Out)
		}
	}
	if len(next) == 0 {
		return nil, false
	}
	return d.closure(next)
}

// state returns the code of the state for pcs, creating it if needed; it
// returns dfaUnknown when the state limit is reached. d.mu must be held.
func (d *prefixDFA) state(pcs []uint32, matched bool) int32 {
	switch {
	case matched:
		return dfaAccept
	case len(pcs) == 0:
		return dfaDead
	}
	key := make([]byte, 0, 4*len(pcs))
	for _, pc := range pcs {
		key = append(key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if s, ok := d.index[string(key)]; ok {
		return s
	}
	if d.n == maxDFAStates {
		return dfaUnknown
	}
	s := int32(d.n) + dfaFirst
	chunk := d.rows[d.n/dfaChunk].Load()
	if chunk == nil {
		chunk = new([dfaChunk]atomic.Pointer[dfaRow])
		d.rows[d.n/dfaChunk].Store(chunk)
	}
	chunk[d.n%dfaChunk].Store(&dfaRow{pcs: pcs})
	d.index[string(key)] = s
	d.n++
	return s
}

// match reports whether the regex (assertions taken as true) matches a
// prefix of s. ok is false if the DFA outgrew its state limit, and then
// the answer is unknown.
func (d *prefixDFA) match(s string) (matched, ok bool) {
	st := d.start
	for i := 0; ; {
		switch st {
		case dfaAccept:
			return true, true
		case dfaDead:
			return false, true
		case dfaUnknown:
			return false, false
		}
		if i == len(s) {
			return false, true
		}
		k := st - dfaFirst
		row := d.rows[k/dfaChunk].Load()[k%dfaChunk].Load()
		c := s[i]
		if c >= utf8.RuneSelf {
			return d.matchSlow(row.pcs, s[i:]), true
		}
		next := row.next[c].Load()
		if next == dfaUnknown {
			next = d.fill(row, c)
			if next == dfaUnknown {
				return false, false
			}
		}
		st = next
		i++
	}
}

// fill computes and publishes row's transition on ASCII byte c.
func (d *prefixDFA) fill(row *dfaRow, c byte) int32 {
	pcs, matched := d.step(row.pcs, rune(c))
	d.mu.Lock()
	defer d.mu.Unlock()
	next := d.state(pcs, matched)
	if next != dfaUnknown {
		row.next[c].Store(next)
	}
	return next
}

// matchSlow runs the program's state set over s without caching.
func (d *prefixDFA) matchSlow(pcs []uint32, s string) bool {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		var matched bool
		pcs, matched = d.step(pcs, r)
		if matched {
			return true
		}
		if len(pcs) == 0 {
			return false
		}
		s = s[n:]
	}
	return false
}
