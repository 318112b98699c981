package gitsrc

import (
	"container/heap"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/privscan/privscan/scanner"
)

// commitInfo is what a worker needs to process one commit.
type commitInfo struct {
	hash       plumbing.Hash
	tree       plumbing.Hash
	parentTree plumbing.Hash // zero for a root commit or a shallow boundary
	merge      bool
	msg        string
	when       time.Time // author date, carried on the commit's fragments
}

const (
	flagSeen = 1 << iota
	flagUninteresting
	flagQueued
)

type wnode struct {
	tree  plumbing.Hash
	flags uint8
}

type wentry struct {
	c   *walkCommit
	seq int
}

type commitHeap []wentry

func (h commitHeap) Len() int { return len(h) }
func (h commitHeap) Less(i, j int) bool {
	ti, tj := h[i].c.committer, h[j].c.committer
	if !ti.Equal(tj) {
		return ti.After(tj)
	}
	return h[i].seq < h[j].seq
}
func (h commitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *commitHeap) Push(x any)   { *h = append(*h, x.(wentry)) }
func (h *commitHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// walker walks commits newest first by committer date, like git log's
// default order (a date-ordered queue, ties in insertion order). Shallow
// boundary commits are walked as root commits.
type walker struct {
	s           storer.EncodedObjectStorer
	shallow     map[plumbing.Hash]bool
	nodes       map[plumbing.Hash]*wnode
	queue       commitHeap
	seq         int
	interesting int // queued commits that are not uninteresting
}

func newWalker(s storer.EncodedObjectStorer, shallow map[plumbing.Hash]bool) *walker {
	return &walker{s: s, shallow: shallow, nodes: map[plumbing.Hash]*wnode{}}
}

func (r *Repo) shallowSet() map[plumbing.Hash]bool {
	hs, err := r.store.Shallow()
	if err != nil || len(hs) == 0 {
		return nil
	}
	m := make(map[plumbing.Hash]bool, len(hs))
	for _, h := range hs {
		m[h] = true
	}
	return m
}

func (w *walker) parents(c *walkCommit) []plumbing.Hash {
	if w.shallow[c.hash] {
		return nil
	}
	return c.parents
}

// push queues a commit unless it was seen already.
func (w *walker) push(c *walkCommit, flags uint8) {
	n := w.nodes[c.hash]
	if n != nil {
		return
	}
	w.nodes[c.hash] = &wnode{tree: c.tree, flags: flags | flagSeen | flagQueued}
	w.seq++
	heap.Push(&w.queue, wentry{c, w.seq})
	if flags&flagUninteresting == 0 {
		w.interesting++
	}
}

func (w *walker) pushHash(h plumbing.Hash, flags uint8) error {
	if w.nodes[h] != nil {
		return nil
	}
	c, err := w.commit(h)
	if err != nil {
		return err
	}
	w.push(c, flags)
	return nil
}

func (w *walker) pop() (*walkCommit, *wnode) {
	e := heap.Pop(&w.queue).(wentry)
	n := w.nodes[e.c.hash]
	n.flags &^= flagQueued
	if n.flags&flagUninteresting == 0 {
		w.interesting--
	}
	return e.c, n
}

// markUninteresting marks the ancestors of c already seen as
// uninteresting, and queues its unseen parents as uninteresting.
func (w *walker) markUninteresting(c *walkCommit) error {
	stack := append([]plumbing.Hash(nil), w.parents(c)...)
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := w.nodes[h]
		if n == nil {
			if err := w.pushHash(h, flagUninteresting); err != nil {
				return err
			}
			continue
		}
		if n.flags&flagUninteresting != 0 {
			continue
		}
		n.flags |= flagUninteresting
		if n.flags&flagQueued != 0 {
			w.interesting--
			continue // its parents are marked when it is popped
		}
		// Already walked: propagate to its parents.
		pc, err := w.commit(h)
		if err != nil {
			return err
		}
		stack = append(stack, w.parents(pc)...)
	}
	return nil
}

// commit reads commit h: a packed commit with decodeCommit, any other
// through go-git.
func (w *walker) commit(h plumbing.Hash) (*walkCommit, error) {
	obj, err := w.s.EncodedObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	var c *walkCommit
	if po, ok := obj.(*packObject); ok {
		c, err = decodeCommit(h, po.b)
	} else {
		var gc *object.Commit
		if gc, err = object.DecodeCommit(w.s, obj); err == nil {
			c = fromGoGit(gc)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// info builds the commitInfo of a popped commit whose parents were queued.
func (w *walker) info(c *walkCommit) *commitInfo {
	ps := w.parents(c)
	ci := &commitInfo{hash: c.hash, tree: c.tree, merge: len(ps) > 1, msg: c.msg, when: c.author}
	if len(ps) > 0 {
		ci.parentTree = w.nodes[ps[0]].tree
	}
	return ci
}

// next returns the next commit of an unlimited walk, or nil at the end.
func (w *walker) next(ctx context.Context) (*commitInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.queue.Len() == 0 {
		return nil, nil
	}
	c, _ := w.pop()
	for _, p := range w.parents(c) {
		if err := w.pushHash(p, 0); err != nil {
			return nil, err
		}
	}
	return w.info(c), nil
}

// limited walks the commits reachable from include and not from exclude,
// like git's limited revision walk: the whole range is listed first (only
// commit IDs and messages are kept), so that clock skew cannot let an
// excluded commit through. each, unless nil, is called with every commit
// as it is listed, in the list's order, before the list is known to be
// final: a commit given to each may be missing from the result, when a
// commit listed later turns out to reach it from an excluded one.
func (w *walker) limited(ctx context.Context, include, exclude []*object.Commit, each func(*commitInfo)) ([]*commitInfo, error) {
	for _, c := range exclude {
		w.push(fromGoGit(c), flagUninteresting)
	}
	for _, c := range include {
		w.push(fromGoGit(c), 0)
	}
	const slopMax = 5
	slop := slopMax
	var list []*commitInfo
	for w.queue.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, n := w.pop()
		if n.flags&flagUninteresting != 0 {
			if err := w.markUninteresting(c); err != nil {
				return nil, err
			}
		} else {
			for _, p := range w.parents(c) {
				if err := w.pushHash(p, 0); err != nil {
					return nil, err
				}
			}
			ci := w.info(c)
			list = append(list, ci)
			if each != nil {
				each(ci)
			}
		}
		if w.interesting == 0 {
			if slop--; slop == 0 {
				break
			}
		} else {
			slop = slopMax
		}
	}
	out := list[:0]
	for _, ci := range list {
		if w.nodes[ci.hash].flags&flagUninteresting == 0 {
			out = append(out, ci)
		}
	}
	return out, nil
}

// History returns every commit's patch and message in a range: "" (all of
// HEAD's history), "<rev>" (its history), "<a>..<b>" (commits reachable
// from b and not from a) or "<a>...<b>" (reachable from either, not from
// both). Commits come newest first (git log's default order); each yields
// its message (merges included), then, unless it is a merge, the added
// lines of its patch against its first parent (a root commit against the
// empty tree), one fragment per file sorted by path. With paths, only
// those files are diffed and only commits touching them yield a message.
//
// A walk without exclusions streams: fragments are yielded while the walk
// goes on, with a bounded number of commits in flight, and only the set of
// walked commit IDs grows with the history (as in git). A range with
// exclusions ("a..b", "a...b") is listed in full before its first
// fragment is yielded, like git's limited walk, keeping the range's commit
// IDs and messages; the commits listed so far are diffed meanwhile, their
// fragments held back within a bound. Commits are diffed in
// parallel (see SetWorkers). The Repo must stay open while the source is
// used.
func (r *Repo) History(rangeSpec string, paths []string) (scanner.Source, error) {
	ps, err := newPathspec(r.root, r.prefix, paths)
	if err != nil {
		return nil, err
	}
	h := &historySource{r: r, ps: ps}
	if rangeSpec == "" {
		head, err := r.head()
		if err != nil {
			return nil, err
		}
		if head != nil {
			h.include = []*object.Commit{head}
		}
		return h, nil
	}
	if a, b, sym, ok := parseRange(rangeSpec); ok {
		ca, err := r.resolve(a)
		if err != nil {
			return nil, err
		}
		cb, err := r.resolve(b)
		if err != nil {
			return nil, err
		}
		if sym {
			bases, err := ca.MergeBase(cb)
			if err != nil {
				return nil, fmt.Errorf("merge base: %w", err)
			}
			h.include = []*object.Commit{ca, cb}
			h.exclude = bases
		} else {
			h.include = []*object.Commit{cb}
			h.exclude = []*object.Commit{ca}
		}
		return h, nil
	}
	c, err := r.resolve(rangeSpec)
	if err != nil {
		return nil, err
	}
	h.include = []*object.Commit{c}
	return h, nil
}

// PolicyBase returns the boundary of a history range (the a of a..b, the
// merge base of a...b): the trusted side, whose policy files judge the
// commits in the range. It is "" for a history without a boundary (all
// of a revision) and when a...b has several merge bases.
func (h *historySource) PolicyBase() string {
	if len(h.exclude) != 1 {
		return ""
	}
	return h.exclude[0].Hash.String()
}

// PolicyHead returns the tip of the range under review (the b of a..b and
// a...b); "" when PolicyBase is.
func (h *historySource) PolicyHead() string {
	if h.PolicyBase() == "" || len(h.include) == 0 {
		return ""
	}
	return h.include[len(h.include)-1].Hash.String()
}

type historySource struct {
	r                *Repo
	ps               *pathspec
	include, exclude []*object.Commit
	walked           atomic.Int64 // commits handed to the workers (tests)
	blobs            *blobCache   // the last walk's, for its counters (tests)
	onTotal          func(commits int)
	beforeFinal      func() // called before a listing becomes final (tests)
}

// OnTotal asks the source to call fn with the number of commits it walks
// (for a progress total), once known. A range with exclusions knows it
// before the first fragment; an unlimited walk counts the commit graph
// beside the scan, on the same repository. With path filters the number
// of commits that touch them is not known ahead, and fn is not called.
func (h *historySource) OnTotal(fn func(commits int)) { h.onTotal = fn }

type histJob struct {
	ci  *commitInfo
	out chan *scanner.Fragment
	err error

	// Until the consumer reaches the job (head), the worker holds its
	// fragments back in ahead, within the walk's aheadRoom, and closes
	// aheadDone when it stops doing so; the rest go to out. So a worker
	// goes on with later commits while the consumer waits for an earlier,
	// larger one, and memory stays bounded.
	head       atomic.Bool
	ahead      []*scanner.Fragment
	aheadBytes int64
	aheadDone  chan struct{}
}

// Fragments implements scanner.Source.
func (h *historySource) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) (err error) {
	if len(h.include) == 0 {
		return nil
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	st := h.r.objects()
	defer st.Close()
	if ps := h.r.packSet(); ps != nil {
		// A walk reads most of the packs: each entry exactly, not a
		// window sized for a short command.
		ps.sortExtents()
	}
	w := newWalker(st, h.r.shallowSet())
	var next func() (*commitInfo, error)
	var lst *listing
	var wg sync.WaitGroup
	if len(h.exclude) > 0 {
		// The range is listed beside the diffs: workers start on the
		// commits listed so far while the rest is listed, and the
		// consumer yields nothing until the list is final.
		lst = newListing()
		wg.Add(1)
		go func() {
			defer wg.Done()
			lst.run(ctx, w, h.include, h.exclude, h.beforeFinal)
		}()
		next = func() (*commitInfo, error) { return lst.next(ctx) }
	} else {
		for _, c := range h.include {
			w.push(fromGoGit(c), 0)
		}
		next = func() (*commitInfo, error) { return w.next(ctx) }
		if h.onTotal != nil && h.ps.all() {
			// The count runs to its end after a whole walk (which read
			// every commit already); a failed or stopped walk stops it.
			cctx, stop := context.WithCancel(parent)
			counted := make(chan struct{})
			defer func() {
				if err != nil {
					stop()
				}
				<-counted
				stop()
			}()
			go func() {
				defer close(counted)
				if n, err := h.countUnlimited(cctx); err == nil {
					h.onTotal(n)
				}
			}()
		}
	}

	workers := max(h.r.workers, 1)
	jobs := make(chan *histJob)
	// The jobs in order are bounded by count; the fragments they hold
	// back, by bytes (room).
	order := make(chan *histJob, 64*workers)
	room := newAheadRoom(int64(h.r.limits.ahead))
	walkErr := make(chan error, 1)
	ends := h.r.limits.ends
	if ends == 0 {
		ends = packCacheMin / endsCacheDiv
		if ps := h.r.packSet(); ps != nil {
			ends = ps.cache.max / endsCacheDiv
		}
	}
	blobs := newBlobCache(h.r.limits.blob, ends)
	h.blobs = blobs

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(jobs)
		for {
			ci, err := next()
			if err != nil {
				walkErr <- err
				return
			}
			if ci == nil {
				return
			}
			j := &histJob{ci: ci, out: make(chan *scanner.Fragment, 64), aheadDone: make(chan struct{})}
			select {
			case order <- j:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
				h.walked.Add(1)
			case <-ctx.Done():
				j.err = ctx.Err()
				close(j.aheadDone)
				close(j.out)
				return
			}
		}
	}()

	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := h.r.objects()
			defer ws.Close()
			p := newProcessor(ws, blobs, h.r.limits.tree)
			for j := range jobs {
				ahead := true
				j.err = p.commitFragments(ctx, j.ci, h.ps, func(f *scanner.Fragment) error {
					if ahead {
						if n := fragmentBytes(f); !j.head.Load() && room.hold(n) {
							j.ahead = append(j.ahead, f)
							j.aheadBytes += n
							return nil
						}
						ahead = false
						close(j.aheadDone)
					}
					select {
					case j.out <- f:
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				})
				if ahead {
					close(j.aheadDone)
				}
				close(j.out)
			}
		}()
	}

	var pending []*histJob // jobs taken from order while the list is not final
	var listed <-chan struct{}
	if lst != nil {
		listed = lst.ended
	}
consume:
	for {
		if listed != nil {
			select {
			case j, ok := <-order:
				if ok {
					pending = append(pending, j)
					continue
				}
				<-listed
			case <-listed:
			}
			listed = nil
			if lst.err != nil {
				err = lst.err
				break
			}
			if h.onTotal != nil && h.ps.all() {
				h.onTotal(lst.total)
			}
		}
		var j *histJob
		if len(pending) > 0 {
			j, pending = pending[0], pending[1:]
		} else {
			var ok bool
			if j, ok = <-order; !ok {
				break
			}
		}
		// A commit listed, then excluded when the list became final, was
		// diffed for nothing: its fragments are dropped.
		keep := lst == nil || !lst.dropped[j.ci.hash]
		j.head.Store(true)
		<-j.aheadDone
		room.release(j.aheadBytes)
		for _, f := range j.ahead {
			if keep {
				if err = yield(f); err != nil {
					break consume
				}
			}
		}
		j.ahead = nil
		for f := range j.out {
			if !keep {
				continue
			}
			if err = yield(f); err != nil {
				break consume
			}
		}
		if j.err != nil && keep {
			err = j.err
			break
		}
	}
	cancel()
	wg.Wait()
	if err == nil {
		select {
		case err = <-walkErr:
		default:
		}
	}
	if err == nil {
		// A cancelled caller's context may end the walk early without
		// a job error.
		err = parent.Err()
	}
	return err
}

// aheadBytes bounds the fragments that a walk's workers hold back for
// commits the consumer has not reached yet (see histJob).
const aheadBytes = 8 << 20

// aheadRoom is what remains of a walk's aheadBytes.
type aheadRoom struct{ n atomic.Int64 }

func newAheadRoom(n int64) *aheadRoom {
	r := &aheadRoom{}
	r.n.Store(n)
	return r
}

// hold reports whether a fragment of n bytes may be held back, and if so
// takes its room.
func (r *aheadRoom) hold(n int64) bool {
	if r.n.Add(-n) < 0 {
		r.n.Add(n)
		return false
	}
	return true
}

func (r *aheadRoom) release(n int64) { r.n.Add(n) }

// listing is a limited walk's list of commits (see walker.limited), filled
// by one goroutine while workers already diff the commits listed so far.
// Until the list is final the consumer yields nothing (the workers hold
// their fragments back, within aheadBytes, then wait). A commit that
// leaves the list when it becomes final (clock skew) is dropped.
type listing struct {
	mu   sync.Mutex
	list []*commitInfo // as listed so far
	i    int           // the next commit to hand out
	more chan struct{} // signals an append (capacity 1)

	ended   chan struct{} // closed when the list is final; then:
	err     error
	total   int                    // commits in the final list
	dropped map[plumbing.Hash]bool // listed, then excluded
}

func newListing() *listing {
	return &listing{more: make(chan struct{}, 1), ended: make(chan struct{})}
}

// run lists the range and makes the list final. beforeFinal, unless nil,
// is called between the two (tests).
func (l *listing) run(ctx context.Context, w *walker, include, exclude []*object.Commit, beforeFinal func()) {
	final, err := w.limited(ctx, include, exclude, func(ci *commitInfo) {
		l.mu.Lock()
		l.list = append(l.list, ci)
		l.mu.Unlock()
		select {
		case l.more <- struct{}{}:
		default:
		}
	})
	if beforeFinal != nil {
		beforeFinal()
	}
	l.mu.Lock()
	l.err = err
	l.total = len(final)
	if err == nil && len(final) < len(l.list) {
		// final is l.list without the excluded commits, in order.
		l.dropped = map[plumbing.Hash]bool{}
		k := 0
		for _, ci := range l.list {
			if k < len(final) && final[k] == ci {
				k++
				continue
			}
			l.dropped[ci.hash] = true
		}
	}
	l.mu.Unlock()
	close(l.ended)
}

// next returns the next commit to diff, or nil at the end of the list;
// once the list is final it skips the commits dropped from it.
func (l *listing) next(ctx context.Context) (*commitInfo, error) {
	for {
		l.mu.Lock()
		if l.i < len(l.list) {
			ci := l.list[l.i]
			l.i++
			skip := l.dropped[ci.hash]
			l.mu.Unlock()
			if skip {
				continue
			}
			return ci, nil
		}
		l.mu.Unlock()
		select {
		case <-l.more:
		case <-l.ended:
			l.mu.Lock()
			done := l.i >= len(l.list)
			l.mu.Unlock()
			if done {
				return nil, l.err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// fragmentBytes approximates the memory a fragment holds.
func fragmentBytes(f *scanner.Fragment) int64 {
	n := int64(len(f.Path) + 64)
	for _, ln := range f.Lines {
		n += int64(len(ln.Text)) + 32
	}
	for _, ln := range f.Context {
		n += int64(len(ln.Text)) + 32
	}
	return n
}

// commitFragments emits a commit's message and the fragments of its patch.
func (p *processor) commitFragments(ctx context.Context, ci *commitInfo, ps *pathspec, emit func(*scanner.Fragment) error) error {
	var changes []change
	if !ci.merge || !ps.all() {
		if err := p.trees.diffTrees(ctx, ci.parentTree, ci.tree, "", ps, &changes); err != nil {
			return err
		}
	}
	commit := ci.hash.String()
	emit = datedEmit(ci.when, emit)
	if ps.all() || len(changes) > 0 {
		if f := messageFragment(commit, ci.msg); f != nil {
			if err := emit(f); err != nil {
				return err
			}
		}
	}
	if ci.merge {
		return nil
	}
	changes, err := p.detectRenames(changes)
	if err != nil {
		return fmt.Errorf("commit %s: %w", commit, err)
	}
	for i := range changes {
		f, err := p.fragmentFor(&changes[i], commit)
		if err != nil {
			return err
		}
		if f != nil {
			if err := emit(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// datedEmit sets each fragment's Date to the commit's author date.
func datedEmit(when time.Time, emit func(*scanner.Fragment) error) func(*scanner.Fragment) error {
	return func(f *scanner.Fragment) error {
		f.Date = when
		return emit(f)
	}
}

// CountCommits returns the number of commits History(rangeSpec, nil)
// yields, walking only the commit graph. It opens its own storage, so it
// may run beside a source's walk (History's OnTotal does that for a
// progress total).
func (r *Repo) CountCommits(ctx context.Context, rangeSpec string) (int, error) {
	src, err := r.History(rangeSpec, nil)
	if err != nil {
		return 0, err
	}
	h := src.(*historySource)
	if len(h.include) == 0 {
		return 0, nil
	}
	if len(h.exclude) > 0 {
		st := r.objects()
		defer st.Close()
		list, err := newWalker(st, r.shallowSet()).limited(ctx, h.include, h.exclude, nil)
		return len(list), err
	}
	return h.countUnlimited(ctx)
}

// countUnlimited counts the commits of a walk without exclusions, on
// storage of its own.
func (h *historySource) countUnlimited(ctx context.Context) (int, error) {
	st := h.r.objects()
	defer st.Close()
	w := newWalker(st, h.r.shallowSet())
	for _, c := range h.include {
		w.push(fromGoGit(c), 0)
	}
	n := 0
	for {
		ci, err := w.next(ctx)
		if err != nil || ci == nil {
			return n, err
		}
		n++
	}
}

// Outgoing returns, like History, the commits that a `git push` to remote
// would publish: those reachable from revs (HEAD when none) and from no
// remote-tracking ref of remote (refs/remotes/<remote>/…; "origin" when
// remote is ""). For a branch the remote does not have yet, that is every
// commit not already on one of the remote's branches, as the remote's
// default branch is among them. With no remote-tracking ref at all,
// every reachable commit is outgoing.
func (r *Repo) Outgoing(remote string, revs []string) (scanner.Source, error) {
	if remote == "" {
		remote = "origin"
	}
	h := &historySource{r: r, ps: &pathspec{}}
	if len(revs) == 0 {
		revs = []string{"HEAD"}
	}
	for _, rev := range revs {
		c, err := r.resolve(rev)
		if err != nil {
			return nil, err
		}
		h.include = append(h.include, c)
	}
	refs, err := r.repo.References()
	if err != nil {
		return nil, fmt.Errorf("read refs: %w", err)
	}
	prefix := "refs/remotes/" + remote + "/"
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		name := ref.Name().String()
		if !strings.HasPrefix(name, prefix) || ref.Type() != plumbing.HashReference {
			return nil
		}
		c, err := object.GetCommit(r.store, ref.Hash())
		if err != nil {
			return nil // a ref to something other than a commit
		}
		h.exclude = append(h.exclude, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read refs: %w", err)
	}
	return h, nil
}
