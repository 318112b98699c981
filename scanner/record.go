package scanner

import (
	"math"
	"slices"

	"github.com/privscan/privscan/finding"
)

// recordStage is the part of the ordered stage that decides record rules
// (docs/catalog.md, "Record rules"): a match of a record rule counts only
// when a match of a corroborating rule, of the same row (their record IDs
// intersect), is within the rule's window in the same file, commit message
// or text. The stage sees a file's fragments in order, so the window is
// carried across fragments (a file streamed in parts, a long line in a
// fragment of its own). A result of a record rule waits until it is
// corroborated or its window has passed; the results after it wait with
// it, so that the Handler still sees the source's order.
type recordStage struct {
	kind   Kind // the identity of the current file, message or text
	commit string
	path   string
	queue  []*heldMatch // results not yet handed on, in order, from the first waiting one
	recent []*heldMatch // the record-bearing matches still within a window, in order
	widest int          // widest window seen (-1: a whole file)
}

type heldMatch struct {
	r        *result
	line     int
	state    uint8 // heldWaiting, heldReady or heldDropped
	deadline int   // a waiting match's last line of corroboration
}

const (
	heldReady = iota
	heldWaiting
	heldDropped
)

// holding reports whether results wait: every result goes through add.
func (st *recordStage) holding() bool { return len(st.queue) > 0 }

// enter starts fragment f: a fragment of another file, message or text
// ends the last one's windows.
func (st *recordStage) enter(out *output, f *Fragment) error {
	if f.Kind == st.kind && f.Commit == st.commit && f.Path == st.path {
		return nil
	}
	if err := st.end(out); err != nil {
		return err
	}
	st.kind, st.commit, st.path = f.Kind, f.Commit, f.Path
	return nil
}

// end resolves every waiting result as uncorroborated and hands the queue
// on: the end of a file, message or text, or of the run.
func (st *recordStage) end(out *output) error {
	for _, h := range st.queue {
		if h.state == heldWaiting {
			uncorroborated(h)
		}
	}
	err := st.flush(out)
	st.queue, st.recent, st.widest = st.queue[:0], st.recent[:0], 0
	return err
}

// uncorroborated resolves a waiting result whose window passed: reported
// at the rule's fallback severity, or dropped.
func uncorroborated(h *heldMatch) {
	rule := h.r.rec.Rule
	if rule.Uncorroborated == 0 {
		h.state = heldDropped
		return
	}
	h.r.fd.Severity = rule.Uncorroborated
	h.r.fd.Uncorroborated = true
	h.state = heldReady
}

// add takes the next result of the current file.
func (st *recordStage) add(out *output, r *result) error {
	line := r.fd.Line
	// Results come in line order: a waiting result whose window ended
	// before this line will not be corroborated.
	for _, h := range st.queue {
		if h.state == heldWaiting && h.deadline < line {
			uncorroborated(h)
		}
	}
	h := &heldMatch{r: r, line: line, state: heldReady}
	if rec := r.rec; rec != nil {
		if rec.Window < 0 || st.widest < 0 {
			st.widest = -1
		} else {
			st.widest = max(st.widest, rec.Window)
		}
		if st.widest >= 0 {
			k := 0
			for k < len(st.recent) && st.recent[k].line < line-st.widest {
				k++
			}
			st.recent = append(st.recent[:0], st.recent[k:]...)
		}
		if rule := rec.Rule; rule != nil {
			h.state = heldWaiting
			h.deadline = math.MaxInt
			if rule.Within >= 0 {
				h.deadline = line + rule.Within
			}
			// The nearest earlier corroboration.
			for k := len(st.recent) - 1; k >= 0; k-- {
				if corroborates(st.recent[k], h) {
					corroborate(h, st.recent[k])
					break
				}
			}
		}
		// Earlier matches waiting for this one.
		for _, q := range st.queue {
			if q.state == heldWaiting && corroborates(h, q) {
				corroborate(q, h)
			}
		}
		st.recent = append(st.recent, h)
		if rec.Hidden {
			return st.flush(out)
		}
	}
	st.queue = append(st.queue, h)
	return st.flush(out)
}

// corroborates reports whether c corroborates the record rule match h: of
// one of its corroborating rules, of the same row, within its window.
func corroborates(c, h *heldMatch) bool {
	rule := h.r.rec.Rule
	if c == h || rule == nil || c.r.rec == nil || !slices.Contains(rule.By, c.r.fd.RuleID) {
		return false
	}
	if d := c.line - h.line; rule.Within >= 0 && (d > rule.Within || -d > rule.Within) {
		return false
	}
	for _, id := range c.r.rec.IDs {
		if slices.Contains(h.r.rec.IDs, id) {
			return true
		}
	}
	return false
}

// corroborate marks h corroborated by c: it names c's rule and location.
func corroborate(h, c *heldMatch) {
	fd := c.r.fd
	h.r.fd.CorroboratedBy = &finding.Related{RuleID: fd.RuleID, Path: fd.Path, Commit: fd.Commit, Line: fd.Line,
		Column: fd.Column, EndColumn: fd.EndColumn, Column16: fd.Column16, EndColumn16: fd.EndColumn16}
	h.state = heldReady
}

// flush hands on the results at the head of the queue that no longer wait.
func (st *recordStage) flush(out *output) error {
	k := 0
	for ; k < len(st.queue) && st.queue[k].state != heldWaiting; k++ {
		h := st.queue[k]
		if err := out.result(h.r, h.state == heldDropped); err != nil {
			st.queue = st.queue[k+1:]
			return err
		}
	}
	clear(st.queue[:k])
	st.queue = append(st.queue[:0], st.queue[k:]...)
	return nil
}
