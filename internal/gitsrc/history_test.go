package gitsrc

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// generateRepo builds a repository of n linear commits with git
// fast-import, repacked the way a server packs a clone: files of a few
// hundred lines, each commit editing one to three of them, now and then
// adding a file.
func generateRepo(t testing.TB, dir string, n int) {
	t.Helper()
	needGit(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := gitEnv(dir)
	run := func(stdin []byte, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run(nil, "init", "-q", "-b", "main")
	r := rand.New(rand.NewSource(7))
	files := map[string][]string{}
	var names []string
	word := func() string {
		words := []string{"alpha", "beta", "gamma", "delta", "user", "email", "return", "if", "err", "nil", "{", "}", "x :=", "fmt.Println"}
		return words[r.Intn(len(words))]
	}
	line := func() string {
		var b strings.Builder
		b.WriteString(strings.Repeat("\t", r.Intn(3)))
		for k := 0; k < 3+r.Intn(6); k++ {
			b.WriteString(word())
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d", r.Intn(1000))
		return b.String()
	}
	newFile := func() {
		name := fmt.Sprintf("pkg%d/file%03d.go", len(names)%7, len(names))
		ls := make([]string, 100+r.Intn(300))
		for i := range ls {
			ls[i] = line()
		}
		files[name] = ls
		names = append(names, name)
	}
	for i := 0; i < 40; i++ {
		newFile()
	}
	var stream bytes.Buffer
	for c := 0; c < n; c++ {
		changed := map[string]bool{}
		if c == 0 {
			for _, nm := range names {
				changed[nm] = true
			}
		} else {
			if r.Intn(10) == 0 {
				newFile()
				changed[names[len(names)-1]] = true
			}
			for k := 0; k < 1+r.Intn(3); k++ {
				nm := names[r.Intn(len(names))]
				ls := files[nm]
				for e := 0; e < 1+r.Intn(4); e++ {
					pos := r.Intn(len(ls) + 1)
					switch r.Intn(3) {
					case 0:
						ls = append(ls[:pos], append([]string{line(), line()}, ls[pos:]...)...)
					case 1:
						if pos < len(ls) {
							ls = append(ls[:pos], ls[pos+1:]...)
						}
					default:
						if pos < len(ls) {
							ls[pos] = line()
						}
					}
				}
				files[nm] = ls
				changed[nm] = true
			}
		}
		msg := fmt.Sprintf("commit %d\n\nchange some files\n", c)
		fmt.Fprintf(&stream, "commit refs/heads/main\nmark :%d\ncommitter Test <test@example.invalid> %d +0000\ndata %d\n%s", c+1, 1577836800+c*60, len(msg), msg)
		if c > 0 {
			fmt.Fprintf(&stream, "from :%d\n", c)
		}
		var ch []string
		for nm := range changed {
			ch = append(ch, nm)
		}
		sort.Strings(ch)
		for _, nm := range ch {
			content := strings.Join(files[nm], "\n") + "\n"
			fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", nm, len(content), content)
		}
	}
	run(stream.Bytes(), "fast-import", "--quiet")
	run(nil, "repack", "-adfq")
	run(nil, "checkout", "-q", "main")
}

// TestHistoryStreams checks on a 2,000-commit history that fragments are
// yielded while the walk is far from done (bounded buffering), and that
// every commit is seen once, in order.
func TestHistoryStreams(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big")
	generateRepo(t, dir, 2000)
	r := open(t, dir)
	src, err := r.History("", nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := src.(*historySource)
	var walkedAtFirst int64 = -1
	var msgs []string
	lines := 0
	err = src.Fragments(context.Background(), func(f *scanner.Fragment) error {
		if walkedAtFirst < 0 {
			walkedAtFirst = hs.walked.Load()
		}
		if f.Kind == finding.KindCommitMessage {
			msgs = append(msgs, f.Commit)
		}
		lines += len(f.Lines)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk hands a worker a job only once the job is in the in-order
	// queue (64 a worker), and the consumer takes the first job from that
	// queue before its first fragment: however the goroutines are
	// scheduled, at most the queue's capacity and one job a worker can
	// have been walked by then (64 was the bound before, and failed on a
	// loaded machine with 76).
	workers := int64(max(hs.r.workers, 1))
	if bound := 64*workers + workers + 1; walkedAtFirst < 0 || walkedAtFirst > bound {
		t.Errorf("first fragment after %d of 2000 commits were walked (bound %d): not streaming", walkedAtFirst, bound)
	}
	if hs.walked.Load() != 2000 || len(msgs) != 2000 {
		t.Errorf("walked %d commits, %d messages; want 2000", hs.walked.Load(), len(msgs))
	}
	cmd := exec.Command("git", "log", "--format=%H")
	cmd.Dir = dir
	cmd.Env = gitEnv(dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Fields(string(out)); strings.Join(want, " ") != strings.Join(msgs, " ") {
		t.Error("message order differs from git log")
	}
	if lines == 0 {
		t.Error("no lines")
	}
}

// TestHistoryGroundTruthGenerated compares a generated history with git.
func TestHistoryGroundTruthGenerated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gen")
	generateRepo(t, dir, 150)
	f := &fixture{t: t, dir: dir, home: dir}
	for _, workers := range []int{1, 2, 3} {
		r := open(t, dir)
		r.SetWorkers(workers)
		src, err := r.History("", nil)
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, src)
		compareAdded(t, fmt.Sprintf("git log -p, %d workers", workers), got.lines, f.gitAdded(dir, "log"))
	}
}

const benchCommits = 500

func benchRepo(b *testing.B) string {
	dir := filepath.Join(b.TempDir(), "bench")
	generateRepo(b, dir, benchCommits)
	return dir
}

func BenchmarkHistory(b *testing.B) {
	dir := benchRepo(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		src, err := r.History("", nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := src.Fragments(context.Background(), func(f *scanner.Fragment) error { n += len(f.Lines); return nil }); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

func BenchmarkDiffHeadParent(b *testing.B) {
	dir := benchRepo(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		src, err := r.Diff(DiffOptions{Revs: []string{"HEAD~1"}})
		if err != nil {
			b.Fatal(err)
		}
		if err := src.Fragments(context.Background(), func(*scanner.Fragment) error { return nil }); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// TestHistoryMemoryFlat checks that History's live heap does not grow with
// the length of the history walked: over 1,200 commits (cache bounds
// lowered so that they fill early), the live heap of the last 300 commits
// stays within a small margin of that of commits 200-500 (the least of
// samples taken every 10 commits in each window: what is in flight
// varies, what is retained does not; a leak of 4 KiB per commit fails
// it). The older
// commits hold smaller files; only what a walk retains per commit, such as
// the set of commit IDs (about 100 bytes each), adds up.
func TestHistoryMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 1,200-commit repository")
	}
	dir := filepath.Join(t.TempDir(), "long")
	generateRepo(t, dir, 1200)
	r := open(t, dir)
	r.limits = cacheLimits{pack: 1 << 20, blob: 256 << 10, ends: 64 << 10, tree: 64 << 10}
	src, err := r.History("", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	var earlyS, lateS []uint64
	commits := 0
	err = src.Fragments(context.Background(), func(f *scanner.Fragment) error {
		if f.Kind != finding.KindCommitMessage {
			return nil
		}
		if commits++; commits%10 != 0 || commits < 200 || commits > 500 && commits < 900 {
			return nil
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if commits <= 500 {
			earlyS = append(earlyS, ms.HeapAlloc)
		} else {
			lateS = append(lateS, ms.HeapAlloc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if commits != 1200 {
		t.Fatalf("walked %d commits, want 1200", commits)
	}
	// Each window is judged by its least sample: memory that grows with
	// history is in every sample of the late window, while a transient
	// peak (a pipeline stage holding a large batch when the sample is
	// taken, the machine's load reordering the stages) is in some only.
	early, late := slices.Min(earlyS), slices.Min(lateS)
	t.Logf("least live heap: %d KiB over commits 200-500, %d KiB over commits 900-1200", early>>10, late>>10)
	if late > early+early/2+(1<<20) {
		t.Errorf("least live heap grew from %d KiB (commits 200-500) to %d KiB (commits 900-1200)", early>>10, late>>10)
	}
}

// TestHistoryTotalAndDates checks OnTotal's commit count (an unlimited
// walk counts beside the scan; a range knows it first; path filters give
// none) and that every fragment carries its commit's author date as git
// reports it.
func TestHistoryTotalAndDates(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 5; i++ {
		f.write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("line %d\n", i))
		f.commit(fmt.Sprintf("commit %d", i))
	}
	want := map[string]string{} // commit -> author date, git's %aI
	for _, l := range strings.Split(strings.TrimSpace(f.git("log", "--format=%H %aI")), "\n") {
		h, d, _ := strings.Cut(l, " ")
		want[h] = d
	}
	r := open(t, f.dir)
	tests := []struct {
		rng   string
		paths []string
		total int // -1: OnTotal not called
	}{
		{"", nil, 5},
		{"HEAD~1", nil, 4},
		{"HEAD~3..HEAD", nil, 3},
		{"", []string{"f1.txt"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.rng+strings.Join(tt.paths, ","), func(t *testing.T) {
			src, err := r.History(tt.rng, tt.paths)
			if err != nil {
				t.Fatal(err)
			}
			total := -1
			src.(interface{ OnTotal(func(int)) }).OnTotal(func(n int) { total = n })
			frags := 0
			err = src.Fragments(context.Background(), func(fr *scanner.Fragment) error {
				frags++
				if got := fr.Date.Format("2006-01-02T15:04:05-07:00"); got != want[fr.Commit] {
					t.Errorf("fragment of %s dated %s, want %s", fr.Commit, got, want[fr.Commit])
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if total != tt.total {
				t.Errorf("OnTotal gave %d, want %d", total, tt.total)
			}
			if frags == 0 {
				t.Error("no fragment")
			}
		})
	}
}

// TestHistoryListedAhead checks a range walked while it is still being
// listed (see listing): a commit listed first and excluded when the list
// becomes final (clock skew: an excluded commit older than its parent) was
// already handed to a worker, and none of its fragments may come out; the
// rest come out as git log gives them, whether the workers held their
// fragments back or had to stream them (a budget of one byte).
func TestHistoryListedAhead(t *testing.T) {
	f := newFixture(t)
	at := func(tick int, msg string, files ...string) string {
		for _, p := range files {
			f.write(p, fmt.Sprintf("%s in %s\nsecond line\n", msg, p))
		}
		f.tick = tick - 1 // commit dates the commit tick seconds in
		return f.commit(msg)
	}
	at(1, "root", "a.txt")
	y := at(50, "y", "a.txt", "b.txt")
	f.git("branch", "x")
	at(60, "p", "c.txt", "d.txt")
	at(100, "h", "a.txt", "e.txt")
	f.git("checkout", "-q", "x")
	at(10, "x", "f.txt") // older than its parent y
	f.git("checkout", "-q", "main")

	const rng = "x..main"
	wantIDs := strings.Fields(f.git("log", "--format=%H", rng))
	if len(wantIDs) != 2 || slices.Contains(wantIDs, y) {
		t.Fatalf("fixture: git log %s = %v, want h and p without y", rng, wantIDs)
	}
	want := f.gitAdded(f.dir, "log", rng)

	for _, room := range []int{aheadBytes, 1} {
		t.Run(fmt.Sprint(room), func(t *testing.T) {
			r := open(t, f.dir)
			r.SetWorkers(2)
			r.limits.ahead = room
			src, err := r.History(rng, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := src.(*historySource)
			// The list becomes final only once y, listed before x
			// excludes it, was handed to a worker.
			h.beforeFinal = func() {
				for h.walked.Load() < 3 {
					runtime.Gosched()
				}
			}
			total := -1
			h.OnTotal(func(n int) { total = n })
			got := collect(t, src)
			var ids []string
			for _, m := range got.messages {
				ids = append(ids, m.Commit)
			}
			if !reflect.DeepEqual(ids, wantIDs) {
				t.Errorf("messages = %v, want %v", ids, wantIDs)
			}
			for _, fr := range got.frags {
				if fr.Commit == y {
					t.Errorf("fragment %q of the excluded commit y", fr.Path)
				}
			}
			compareAdded(t, "git log "+rng, got.lines, want)
			if total != 2 {
				t.Errorf("OnTotal gave %d, want 2", total)
			}
			if n := h.walked.Load(); n != 3 {
				t.Errorf("%d commits handed to workers, want 3 (y speculatively)", n)
			}
		})
	}
}

// TestHistoryWorkersGoAhead checks that the workers diff later commits
// while the consumer is still busy with an earlier one (the consumer
// blocks in its first fragment until every commit was handed to a worker:
// with a queue bounded by count alone it would wait forever), and that the
// held-back fragments then come out in git log's order.
func TestHistoryWorkersGoAhead(t *testing.T) {
	f := newFixture(t)
	const n = 40
	for i := 0; i < n; i++ {
		f.write(fmt.Sprintf("f%d.txt", i%7), fmt.Sprintf("commit %d\n", i))
		f.commit(fmt.Sprintf("c%d", i))
	}
	wantIDs := strings.Fields(f.git("log", "--format=%H"))
	want := f.gitAdded(f.dir, "log")
	r := open(t, f.dir)
	r.SetWorkers(2)
	src, err := r.History("", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := src.(*historySource)
	first := true
	got := collect(t, sourceFunc(func(ctx context.Context, yield func(*scanner.Fragment) error) error {
		return h.Fragments(ctx, func(fr *scanner.Fragment) error {
			if first {
				first = false
				for h.walked.Load() < n {
					runtime.Gosched()
				}
			}
			return yield(fr)
		})
	}))
	var ids []string
	for _, m := range got.messages {
		ids = append(ids, m.Commit)
	}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Errorf("messages = %v, want %v", ids, wantIDs)
	}
	compareAdded(t, "git log", got.lines, want)
}

// sourceFunc is a scanner.Source made of a function.
type sourceFunc func(ctx context.Context, yield func(*scanner.Fragment) error) error

func (f sourceFunc) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	return f(ctx, yield)
}
