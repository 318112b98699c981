package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path"
	"strings"

	"github.com/privscan/privscan/internal/synth"
)

// Options configures Generate.
type Options struct {
	Seed        int64
	Commits     int
	SizeMB      float64 // total added text
	CatalogSeed int64
	CatalogN    int
	Plant       int // distinct catalog values planted
	Branch      string
}

// Stats summarises a generated history.
type Stats struct {
	Commits       int   `json:"commits"`
	AddedBytes    int64 `json:"addedTextBytes"`
	AddedLines    int64 `json:"addedLines"`
	BlobBytes     int64 `json:"blobBytesWritten"`
	FilesAtHead   int   `json:"filesAtHead"`
	HeadTreeBytes int64 `json:"headTreeBytes"`
	Renames       int   `json:"renames"`
	Deletes       int   `json:"deletes"`
	Binaries      int   `json:"binaryBlobs"`
	CatalogLines  int   `json:"plantedCatalogLines"`
	CatalogMsgs   int   `json:"plantedCatalogMessages"`
	PIILines      int   `json:"plantedPIILines"`
	SecretLines   int   `json:"plantedSecrets"`
	LastCommitAdd int   `json:"lastCommitAddedLines"`
}

// Rates of planted lines among generated lines (one in N).
const (
	catalogEvery = 400
	piiEvery     = 400
	secretEvery  = 2500
	maxFileLines = 900
)

type fileKind int

const (
	kindGo fileKind = iota
	kindYAML
	kindJSON
	kindMarkdown
	kindBinary
)

type file struct {
	path  string
	kind  fileKind
	lines []string
	bin   []byte
}

type gen struct {
	o     Options
	r     *rand.Rand
	w     io.Writer
	err   error
	st    Stats
	files []*file
	index map[string]int
	plant []string
	next  int // next planted catalog value
	mark  int
	when  int64
}

// Generate writes the fast-import stream of the history o describes to w.
func Generate(w io.Writer, o Options) (Stats, error) {
	if o.Commits < 2 {
		return Stats{}, errors.New("need at least 2 commits")
	}
	if o.SizeMB <= 0 {
		return Stats{}, errors.New("size must be positive")
	}
	if o.Branch == "" {
		o.Branch = "main"
	}
	g := &gen{
		o:     o,
		r:     rand.New(rand.NewPCG(uint64(o.Seed), 0x6e7265706f)),
		w:     w,
		index: map[string]int{},
		when:  1609459200, // 2021-01-01T00:00:00Z
	}
	if o.CatalogN > 0 && o.Plant > 0 {
		vals := synth.Values(o.CatalogSeed, o.CatalogN)
		pr := rand.New(rand.NewPCG(uint64(o.Seed), 0x706c616e74))
		for _, i := range pr.Perm(len(vals))[:min(o.Plant, len(vals))] {
			g.plant = append(g.plant, vals[i])
		}
	}
	total := int64(o.SizeMB * (1 << 20))
	for c := 0; c < o.Commits && g.err == nil; c++ {
		last := c == o.Commits-1
		var budget int64
		if last {
			budget = 3000 // a typical small commit
		} else {
			left := o.Commits - 1 - c
			avg := float64(total-g.st.AddedBytes) / float64(left)
			budget = int64(avg * min(8, max(0.1, g.r.ExpFloat64())))
		}
		g.commit(c, budget, last)
	}
	for _, f := range g.files {
		g.st.FilesAtHead++
		if f.kind == kindBinary {
			g.st.HeadTreeBytes += int64(len(f.bin))
		} else {
			g.st.HeadTreeBytes += int64(len(joinLines(f.lines)))
		}
	}
	return g.st, g.err
}

func (g *gen) printf(format string, a ...any) {
	if g.err == nil {
		_, g.err = fmt.Fprintf(g.w, format, a...)
	}
}

func (g *gen) data(b []byte) {
	g.printf("data %d\n", len(b))
	if g.err == nil {
		_, g.err = g.w.Write(b)
	}
	g.printf("\n")
}

var authors = []string{"Ada Quillfeather", "Bo Marchetti", "Cy Okonkwo-Lind", "Dee Ravensworth",
	"Eli Tannhauser", "Fen Castellano", "Gus Vandermolen", "Hal Ibsworth"}

func (g *gen) commit(c int, budget int64, last bool) {
	g.mark++
	g.when += 600 + g.r.Int64N(6*3600)
	a := authors[g.r.IntN(len(authors))]
	handle := strings.ToLower(strings.Fields(a)[0])
	g.printf("commit refs/heads/%s\nmark :%d\n", g.o.Branch, g.mark)
	g.printf("author %s <%s@dev.invalid> %d +0000\n", a, handle, g.when)
	g.printf("committer %s <%s@dev.invalid> %d +0000\n", a, handle, g.when)
	g.data([]byte(g.message()))
	if g.mark > 1 {
		g.printf("from :%d\n", g.mark-1)
	}
	added0 := g.st.AddedLines
	switch {
	case last:
		g.lastCommit()
	case c < 15:
		for budget > 0 {
			budget -= g.addFile(budget)
		}
	default:
		if g.o.Commits >= 10 && c%(g.o.Commits/10) == 7 {
			g.binary()
		}
		if g.r.IntN(50) == 0 {
			budget -= g.rename()
		}
		if g.r.IntN(200) == 0 && len(g.files) > 40 {
			g.remove()
		}
		for budget > 0 {
			if g.r.IntN(7) == 0 {
				budget -= g.addFile(budget)
			} else {
				budget -= g.edit(budget)
			}
		}
	}
	if last {
		g.st.LastCommitAdd = int(g.st.AddedLines - added0)
	}
	g.st.Commits++
	g.printf("\n")
}

// lastCommit is a typical small change: a few hunks in three existing text
// files, one of them holding a catalog value.
func (g *gen) lastCommit() {
	var picked []*file
	for _, i := range g.r.Perm(len(g.files)) {
		if f := g.files[i]; f.kind != kindBinary && len(f.lines) > 10 {
			picked = append(picked, f)
			if len(picked) == 3 {
				break
			}
		}
	}
	for i, f := range picked {
		pos := g.r.IntN(len(f.lines))
		n := 15 + g.r.IntN(20)
		var add []string
		for j := 0; j < n; j++ {
			if i == 0 && j == n/2 && len(g.plant) > 0 {
				add = append(add, g.catalogLine(f.kind))
				continue
			}
			add = append(add, g.line(f.kind))
		}
		g.st.AddedLines += int64(len(add))
		f.lines = splice(f.lines, pos, 1, add)
		g.st.AddedBytes += int64(len(joinLines(add)))
		g.modify(f)
	}
}

func splice(lines []string, pos, del int, add []string) []string {
	out := make([]string, 0, len(lines)-del+len(add))
	out = append(out, lines[:pos]...)
	out = append(out, add...)
	return append(out, lines[pos+del:]...)
}

func joinLines(lines []string) []byte {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	b := make([]byte, 0, n)
	for _, l := range lines {
		b = append(b, l...)
		b = append(b, '\n')
	}
	return b
}

func (g *gen) modify(f *file) {
	var b []byte
	if f.kind == kindBinary {
		b = f.bin
	} else {
		b = joinLines(f.lines)
	}
	g.st.BlobBytes += int64(len(b))
	g.printf("M 100644 inline %s\n", f.path)
	g.data(b)
}

func (g *gen) track(f *file) {
	g.index[f.path] = len(g.files)
	g.files = append(g.files, f)
}

func (g *gen) untrack(f *file) {
	i := g.index[f.path]
	lastF := g.files[len(g.files)-1]
	g.files[i] = lastF
	g.index[lastF.path] = i
	g.files = g.files[:len(g.files)-1]
	delete(g.index, f.path)
}

var dirs = []string{"cmd/server", "cmd/worker", "cmd/admin", "internal/billing", "internal/users",
	"internal/auth", "internal/ledger", "internal/search", "internal/notify", "internal/store",
	"pkg/client", "pkg/api", "pkg/retry", "deploy/prod", "deploy/staging", "deploy/dev", "config",
	"docs", "docs/runbooks", "docs/adr", "testdata/fixtures", "testdata/golden", "scripts/ops"}

var words = strings.Fields(`user account billing invoice ledger search index token session cache
handler service store query result status order payment refund report export import sync audit
event metric worker job queue batch retry limit config client server router schema migration`)

func (g *gen) newPath(kind fileKind) string {
	for {
		d := dirs[g.r.IntN(len(dirs))]
		name := words[g.r.IntN(len(words))]
		if g.r.IntN(2) == 0 {
			name += "_" + words[g.r.IntN(len(words))]
		}
		var p string
		switch kind {
		case kindGo:
			if g.r.IntN(3) == 0 {
				name += "_test"
			}
			p = name + ".go"
		case kindYAML:
			p = name + ".yaml"
		case kindJSON:
			p = name + ".json"
		case kindMarkdown:
			p = strings.ToUpper(name[:1]) + name[1:] + ".md"
		default:
			p = name + []string{".png", ".pdf", ".bin"}[g.r.IntN(3)]
		}
		p = path.Join(d, p)
		if _, ok := g.index[p]; !ok {
			return p
		}
	}
}

func (g *gen) textKind() fileKind {
	switch n := g.r.IntN(20); {
	case n < 10:
		return kindGo
	case n < 14:
		return kindYAML
	case n < 17:
		return kindJSON
	}
	return kindMarkdown
}

// addFile adds a text file of about min(budget, a random size) bytes and
// returns the bytes added.
func (g *gen) addFile(budget int64) int64 {
	kind := g.textKind()
	size := min(budget, 1500+g.r.Int64N(16000))
	f := &file{path: g.newPath(kind), kind: kind}
	f.lines = g.lines(kind, size)
	if kind == kindJSON {
		f.lines = append(append([]string{"["}, f.lines...), "  {}", "]")
	}
	g.track(f)
	g.modify(f)
	n := int64(len(joinLines(f.lines)))
	g.st.AddedBytes += n
	g.st.AddedLines += int64(len(f.lines))
	return max(n, 1)
}

// edit changes one to four places of an existing text file and returns the
// bytes added.
func (g *gen) edit(budget int64) int64 {
	if len(g.files) == 0 {
		return g.addFile(budget)
	}
	var f *file
	for range 8 {
		if c := g.files[g.r.IntN(len(g.files))]; c.kind != kindBinary {
			f = c
			break
		}
	}
	if f == nil {
		return g.addFile(budget)
	}
	var added int64
	for h := 1 + g.r.IntN(4); h > 0 && added < budget; h-- {
		lo, hi := 0, len(f.lines)
		if f.kind == kindJSON && hi >= 2 {
			lo, hi = 1, hi-2 // keep the brackets
		}
		pos := lo + g.r.IntN(hi-lo+1)
		del := min(g.r.IntN(8), hi-pos)
		if len(f.lines) > maxFileLines {
			del = min(del+10+g.r.IntN(60), hi-pos)
		}
		add := g.lines(f.kind, min(budget-added, 200+g.r.Int64N(2500)))
		f.lines = splice(f.lines, pos, del, add)
		n := int64(len(joinLines(add)))
		added += n
		g.st.AddedLines += int64(len(add))
	}
	g.st.AddedBytes += added
	g.modify(f)
	return max(added, 1)
}

// rename moves a text file to another directory and rewrites 5–40 % of its
// lines (within git's and go-git's similarity thresholds).
func (g *gen) rename() int64 {
	var f *file
	for range 8 {
		if c := g.files[g.r.IntN(len(g.files))]; c.kind != kindBinary && len(c.lines) >= 20 {
			f = c
			break
		}
	}
	if f == nil {
		return 0
	}
	old := f.path
	g.untrack(f)
	f.path = path.Join(dirs[g.r.IntN(len(dirs))], path.Base(old))
	if _, taken := g.index[f.path]; taken || f.path == old {
		f.path = g.newPath(f.kind)
	}
	g.track(f)
	g.printf("R %s %s\n", old, f.path)
	var added int64
	frac := 0.05 + 0.35*g.r.Float64()
	for i := range f.lines {
		if (i == 0 || i == len(f.lines)-1) && f.kind == kindJSON {
			continue
		}
		if g.r.Float64() < frac {
			f.lines[i] = g.line(f.kind)
			added += int64(len(f.lines[i]) + 1)
			g.st.AddedLines++
		}
	}
	g.st.AddedBytes += added
	g.st.Renames++
	g.modify(f)
	return added
}

func (g *gen) remove() {
	f := g.files[g.r.IntN(len(g.files))]
	g.untrack(f)
	g.printf("D %s\n", f.path)
	g.st.Deletes++
}

// binary adds an image-like blob with NUL bytes, or rewrites an existing one.
func (g *gen) binary() {
	var f *file
	for _, c := range g.files {
		if c.kind == kindBinary && g.r.IntN(2) == 0 {
			f = c
			break
		}
	}
	if f == nil {
		f = &file{path: g.newPath(kindBinary), kind: kindBinary}
		g.track(f)
	}
	n := 4096 + g.r.IntN(40000)
	b := make([]byte, n)
	copy(b, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for i := 16; i < n; i++ {
		b[i] = byte(g.r.Uint32())
	}
	f.bin = b
	g.st.Binaries++
	g.modify(f)
}

// lines returns generated lines of about size bytes for a file of kind.
func (g *gen) lines(kind fileKind, size int64) []string {
	var out []string
	var n int64
	for n < size || len(out) == 0 {
		var l string
		switch {
		case len(g.plant) > 0 && g.r.IntN(catalogEvery) == 0:
			l = g.catalogLine(kind)
		case g.r.IntN(piiEvery) == 0:
			l = g.piiLine(kind)
			g.st.PIILines++
		case g.r.IntN(secretEvery) == 0:
			s := g.secretLines(kind)
			g.st.SecretLines++
			out = append(out, s...)
			n += int64(len(joinLines(s)))
			continue
		default:
			l = g.line(kind)
		}
		out = append(out, l)
		n += int64(len(l) + 1)
	}
	return out
}

func (g *gen) catalogLine(kind fileKind) string {
	v := g.plant[g.next%len(g.plant)]
	g.next++
	g.st.CatalogLines++
	return fmt.Sprintf(plantTemplates[kind][g.r.IntN(len(plantTemplates[kind]))], v)
}

var plantTemplates = map[fileKind][]string{
	kindGo: {"\towner := %q", "\t// Reviewed by %s last quarter.", "\t{Name: %q, Active: true},",
		"\tlog.Printf(\"sync for %s failed: %%v\", err)", "// TODO(%s): remove after the migration."},
	kindYAML:     {"  maintainer: %s", "    contact: \"%s\"", "# owner: %s", "  - host: %s"},
	kindJSON:     {`  {"id": 1042, "contact": "%s", "active": true},`, `  {"owner": "%s", "tier": "gold"},`},
	kindMarkdown: {"Escalate to %s if the job fails twice.", "| %s | on call | weekdays |", "- Reviewed with %s."},
}

func (g *gen) line(kind fileKind) string {
	r := g.r
	switch kind {
	case kindYAML:
		ind := strings.Repeat("  ", r.IntN(4))
		switch r.IntN(6) {
		case 0:
			return ind + "- name: " + ident(r, "-")
		case 1:
			return fmt.Sprintf("%s%s: %d", ind, ident(r, "_"), r.IntN(10000))
		case 2:
			return fmt.Sprintf("%simage: registry.example.com/%s:v%d.%d.%d", ind, ident(r, "-"), r.IntN(4), r.IntN(30), r.IntN(10))
		case 3:
			return fmt.Sprintf("%s%s: %q", ind, ident(r, "_"), sentence(r, 2+r.IntN(5)))
		case 4:
			return fmt.Sprintf("%s%s: %v", ind, ident(r, "_"), r.IntN(2) == 0)
		}
		return ind + ident(r, "_") + ":"
	case kindJSON:
		return fmt.Sprintf(`  {"id": %d, "%s": "%s", "count": %d, "enabled": %v},`,
			r.IntN(1000000), ident(r, "_"), sentence(r, 1+r.IntN(3)), r.IntN(500), r.IntN(2) == 0)
	case kindMarkdown:
		switch r.IntN(8) {
		case 0:
			return "## " + strings.ToUpper(sentence(r, 2)[:1]) + sentence(r, 3)[1:]
		case 1:
			return "- " + sentence(r, 4+r.IntN(8)) + "."
		case 2:
			return ""
		case 3:
			return fmt.Sprintf("| %s | %d | %s |", ident(r, "-"), r.IntN(100), sentence(r, 2))
		}
		return strings.ToUpper(sentence(r, 1)[:1]) + sentence(r, 8+r.IntN(14))[1:] + "."
	}
	// Go: synth's source lines are mostly Go.
	t := synth.Text(int64(r.Uint64()>>1), 1, nil)
	return string(bytes.TrimSuffix(bytes.SplitN(t, []byte("\n"), 2)[0], []byte("\n")))
}

func ident(r *rand.Rand, sep string) string {
	n := 1 + r.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
	}
	return strings.Join(parts, sep)
}

var prose = strings.Fields(`the a this that we it when if then after before each every new old
request response service job queue retry limit deploy rollback alert page config value field table
index migration run runs fails passes returns handles checks updates writes reads keeps drops
should must may never always only also quickly safely again later first`)

func sentence(r *rand.Rand, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = prose[r.IntN(len(prose))]
	}
	return strings.Join(parts, " ")
}

var (
	msgTypes  = strings.Fields("fix feat chore refactor docs test perf build")
	msgVerbs  = strings.Fields("handle add remove rename simplify document cache retry validate log")
	msgThanks = []string{"Reported-by: %s", "Thanks to %s for the review.", "Requested by %s."}
)

func (g *gen) message() string {
	r := g.r
	s := fmt.Sprintf("%s(%s): %s %s %s\n", msgTypes[r.IntN(len(msgTypes))], words[r.IntN(len(words))],
		msgVerbs[r.IntN(len(msgVerbs))], words[r.IntN(len(words))], words[r.IntN(len(words))])
	if r.IntN(3) == 0 {
		s += "\n" + strings.ToUpper(sentence(r, 1)[:1]) + sentence(r, 10+r.IntN(20))[1:] + ".\n"
	}
	if len(g.plant) > 0 && r.IntN(50) == 0 {
		v := g.plant[g.next%len(g.plant)]
		g.next++
		g.st.CatalogMsgs++
		s += "\n" + fmt.Sprintf(msgThanks[r.IntN(len(msgThanks))], v) + "\n"
	}
	return s
}
