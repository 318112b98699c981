// Command precision measures how often privscan's built-in detectors fire
// on real history, where (with a catalog that never matches) every finding
// is a candidate false positive to review:
//
//	go run ./bench/cmd/precision [-privscan BIN] [-last N | -range A..B] [-sample 40]
//	    [-labels FILE]... [-out DIR [-reuse]] REPO[=RANGE]...
//	go run ./bench/cmd/precision [-privscan BIN] -corpora DIR -set NAME=LIST... [-labels FILE]...
//
// A set (-set tuning=bench/precision-tuning.txt) is a list of public
// repositories, one per line as `owner/name RANGE [kind…]`, cloned as
// DIR/NAME/<name> (DIR/NAME/<owner>+<name> for two of one name); the report names them by owner/name and gives each set
// its own summary, with the reviewed false positives per family (trailer,
// credit, url, mailto, other) and apart by kind: made-up people and
// placeholders, which the policy keeps at warning, and grammatical shapes.
//
// For each repository it runs `privscan history` (JSON), measures the
// added text of the same range with `git log -p`, and prints per detector
// and severity the number of findings and findings per 10 MB of added
// text, the findings on commit-message trailer lines that name people
// (which must be none), and a reproducible sample of the locations of
// findings at warning and above (commit, path, line, column, rule) to
// review by hand. A labels file records the review (location, TP or FP, a shape
// name); with it the sampled false-positive rate and the estimated false
// positives per 10 MB at warning and above are computed. It never prints
// matched text, and a labels file holds none.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "precision:", err)
		os.Exit(2)
	}
}

type finding struct {
	RuleID, Severity, Kind, Path, Commit string
	Line, Column                         int
}

type report struct {
	Findings []finding
	Summary  struct {
		CommitsScanned int
	}
}

type options struct {
	rng, bin, out, corpora string
	labels                 []string
	sets                   []string
	last, sample           int
	reuse                  bool
}

// corpus is one repository to measure: its directory, range, the name
// the report gives it and the set it belongs to ("" outside sets).
type corpus struct {
	dir, rng, name, set string
}

// readSet reads a list of `owner/name RANGE [kind…]` lines (blank lines
// and # comments ignored) and places each repository at
// corpora/set/<name>, or at corpora/set/<owner>+<name> when another
// repository of the list has the same name (urfave/cli and httpie/cli), so
// that neither their clones nor their kept reports collide.
func readSet(set, file, corpora string) ([]corpus, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []corpus
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Fields(l)
		owner, name, ok := strings.Cut(f[0], "/")
		if len(f) < 2 || !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("%s:%d: want owner/name RANGE [kind]", file, i+1)
		}
		out = append(out, corpus{dir: filepath.Join(corpora, set, name), rng: f[1], name: f[0], set: set})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no repositories", file)
	}
	names := make(map[string]int, len(out))
	for _, c := range out {
		names[filepath.Base(c.dir)]++
	}
	seen := make(map[string]bool, len(out))
	for i, c := range out {
		if seen[c.name] {
			return nil, fmt.Errorf("%s: %s listed twice", file, c.name)
		}
		seen[c.name] = true
		if names[filepath.Base(c.dir)] > 1 {
			out[i].dir = filepath.Join(corpora, set, strings.Replace(c.name, "/", "+", 1))
		}
	}
	return out, nil
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("precision", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.rng, "range", "", "history range for every repository without its own =RANGE (default: the last -last commits of HEAD)")
	fs.IntVar(&o.last, "last", 1000, "commits to scan when no range is given")
	fs.IntVar(&o.sample, "sample", 40, "locations of findings at warning and above to sample per repository")
	fs.StringVar(&o.bin, "privscan", "privscan", "the privscan binary")
	fs.Func("labels", "review labels (repeatable): lines of `COMMIT PATH:LINE:COLUMN RULE TP|FP [SHAPE]` (PATH is - for a commit message)", func(v string) error {
		o.labels = append(o.labels, v)
		return nil
	})
	fs.Func("set", "a set of repositories (repeatable): `NAME=FILE`, FILE listing owner/name RANGE per line, cloned under -corpora as NAME/<name>", func(v string) error {
		if n, f, ok := strings.Cut(v, "="); !ok || n == "" || f == "" {
			return errors.New("want NAME=FILE")
		}
		o.sets = append(o.sets, v)
		return nil
	})
	fs.StringVar(&o.corpora, "corpora", "", "the directory holding each set's clones (with -set)")
	fs.StringVar(&o.out, "out", "", "directory to keep each repository's privscan JSON report in (NAME.json)")
	fs.BoolVar(&o.reuse, "reuse", false, "read the report from -out instead of running privscan when it is there")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 && len(o.sets) == 0 {
		return errors.New("usage: precision [-range A..B] [-last N] [-sample N] [-labels FILE]… [-out DIR [-reuse]] REPO[=RANGE]… | -corpora DIR -set NAME=FILE…")
	}
	if len(o.sets) > 0 && o.corpora == "" {
		return errors.New("-set needs -corpora")
	}
	labels := map[string]label{}
	for _, name := range o.labels {
		l, err := readLabels(name)
		if err != nil {
			return err
		}
		for k, v := range l {
			labels[k] = v
		}
	}
	var corpora []corpus
	for _, arg := range fs.Args() {
		repo, r, _ := strings.Cut(arg, "=")
		corpora = append(corpora, corpus{dir: repo, rng: r, name: filepath.Base(repo)})
	}
	for _, set := range o.sets {
		n, f, _ := strings.Cut(set, "=")
		cs, err := readSet(n, f, o.corpora)
		if err != nil {
			return err
		}
		corpora = append(corpora, cs...)
	}
	home, err := os.MkdirTemp("", "privscan-precision")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	var rows []summary
	for _, c := range corpora {
		repo, r := c.dir, c.rng
		if r == "" {
			r = o.rng
		}
		if r == "" {
			base, err := git(repo, "rev-list", "-n1", fmt.Sprintf("--skip=%d", o.last), "HEAD")
			if err != nil || strings.TrimSpace(base) == "" {
				r = "HEAD"
			} else {
				r = strings.TrimSpace(base) + "..HEAD"
			}
		}
		rep, err := load(o, c, r, home)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		added, err := addedBytes(repo, r)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		trailers, err := trailerFindings(repo, rep.Findings)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		s := print(out, c.name, r, rep, added, trailers, o.sample, labels)
		s.set = c.set
		rows = append(rows, s)
	}
	if len(o.sets) == 0 {
		printSummary(out, rows)
		return nil
	}
	for _, set := range o.sets {
		n, _, _ := strings.Cut(set, "=")
		var in []summary
		for _, s := range rows {
			if s.set == n {
				in = append(in, s)
			}
		}
		fmt.Fprintf(out, "# Set %s\n\n", n)
		printSummary(out, in)
		printFamilies(out, in)
	}
	return nil
}

// load runs privscan history, or reads the report kept by an earlier run.
func load(o options, c corpus, rng, home string) (*report, error) {
	repo := c.dir
	var keep string
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return nil, err
		}
		name := filepath.Base(repo)
		if c.set != "" {
			name = c.set + "-" + name
		}
		keep = filepath.Join(o.out, name+".json")
		if o.reuse {
			if b, err := os.ReadFile(keep); err == nil {
				return decode(b)
			}
		}
	}
	b, err := history(o.bin, repo, rng, home)
	if err != nil {
		return nil, err
	}
	if keep != "" {
		if err := os.WriteFile(keep, b, 0o644); err != nil {
			return nil, err
		}
	}
	return decode(b)
}

func decode(b []byte) (*report, error) {
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("privscan report: %w", err)
	}
	return &rep, nil
}

func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	b, err := cmd.Output()
	return string(b), err
}

func history(bin, repo, rng, home string) ([]byte, error) {
	// A catalog that never matches: every finding comes from the built-in
	// detectors (PII and secrets).
	catalog := "## NEVER\n- category: never\n\n```values\nQzxwvut Plmoknij Ubygv\n```\n"
	cmd := exec.Command(bin, "history", rng, "--format", "json", "--fail-on", "never", "--no-progress")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "cfg"), "PRIVSCAN_CATALOG="+catalog)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("privscan history: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return b, nil
}

// addedBytes counts the bytes of added lines (commit messages are not
// counted) in the range, as `git log -p` shows them.
func addedBytes(repo, rng string) (int64, error) {
	cmd := exec.Command("git", "-C", repo, "log", "-p", "--no-color", "--no-ext-diff", "--format=", rng)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	var n int64
	sc := bufio.NewScanner(pipe)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		l := sc.Bytes()
		if len(l) > 0 && l[0] == '+' && !bytes.HasPrefix(l, []byte("+++ ")) {
			n += int64(len(l))
		}
	}
	if err := sc.Err(); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return 0, err
	}
	return n, cmd.Wait()
}

// peopleTrailer finds a trailer that names a commit's people anywhere in
// a commit-message line: where git puts it, indented or as a list item in
// a squash merge's body, or inside a line when a squash folded the body
// into the subject; also with the key's words written apart
// ("Co-authored by:").
// Any key ending in "by", "with" or "cc" counts (git accepts any token as
// a key: "Co-developed-by", "Docker-DCO-1.1-Signed-off-by", "Paired-with",
// "Stable-Cc"); "with" since round 21, whose seven Paired-with trailers
// the narrower count missed.
var peopleTrailer = regexp.MustCompile(`(?i)(?:^|[^a-z0-9._-])(?:[a-z0-9._-]+[- ](?:by|with)|(?:[a-z0-9._-]+-)?cc|signed off by|co[- ]authored by)[ \t]*:`)

// trailerFindings counts PII findings on commit-message lines that are
// people trailers. It reads the messages but reports only the count.
func trailerFindings(repo string, fs []finding) (int, error) {
	msgs := map[string][]string{}
	n := 0
	for _, f := range fs {
		if f.Kind != "commit-message" || !strings.HasPrefix(f.RuleID, "pii/") {
			continue
		}
		lines, ok := msgs[f.Commit]
		if !ok {
			m, err := git(repo, "log", "-1", "--format=%B", f.Commit)
			if err != nil {
				return 0, fmt.Errorf("commit %s: %w", f.Commit, err)
			}
			lines = strings.Split(m, "\n")
			msgs[f.Commit] = lines
		}
		if f.Line >= 1 && f.Line <= len(lines) && peopleTrailer.MatchString(lines[f.Line-1]) {
			n++
		}
	}
	return n, nil
}

// label is one reviewed location.
type label struct {
	fp    bool
	shape string
}

func locKey(commit, path string, line, col int, rule string) string {
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if path == "" {
		path = "-"
	}
	return fmt.Sprintf("%s %s:%d:%d %s", commit, path, line, col, rule)
}

// readLabels reads `COMMIT PATH:LINE:COLUMN RULE TP|FP [SHAPE…]` lines
// (PATH may hold single spaces);
// blank lines and lines starting with # are ignored.
func readLabels(name string) (map[string]label, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	out := map[string]label{}
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Fields(l)
		// A path may hold spaces ("test/Unit tests/x"): the location
		// ends at the first field followed by a rule and TP or FP.
		end := 1
		for end+2 < len(f) && f[end+2] != "TP" && f[end+2] != "FP" {
			end++
		}
		if end+2 >= len(f) {
			return nil, fmt.Errorf("%s:%d: want COMMIT PATH:LINE:COLUMN RULE TP|FP [SHAPE]", name, i+1)
		}
		f = append([]string{f[0], strings.Join(f[1:end+1], " ")}, f[end+1:]...)
		loc := f[1]
		c2 := strings.LastIndexByte(loc, ':')
		c1 := strings.LastIndexByte(loc[:max(c2, 0)], ':')
		if c1 < 0 {
			return nil, fmt.Errorf("%s:%d: want PATH:LINE:COLUMN", name, i+1)
		}
		ln, err1 := strconv.Atoi(loc[c1+1 : c2])
		col, err2 := strconv.Atoi(loc[c2+1:])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: want PATH:LINE:COLUMN", name, i+1)
		}
		out[locKey(f[0], loc[:c1], ln, col, f[2])] = label{fp: f[3] == "FP", shape: strings.Join(f[4:], " ")}
	}
	return out, nil
}

// group is the findings at warning and above of one source (PII or
// secrets) and their review.
type group struct {
	warnUp, sampled, reviewed, fps int
}

// rate is the sampled false-positive rate, and ok whether any was reviewed.
func (g group) rate() (float64, bool) {
	if g.reviewed == 0 {
		return 0, false
	}
	return float64(g.fps) / float64(g.reviewed), true
}

type summary struct {
	name, set  string
	commits    int
	mb         float64
	trailers   int
	bySeverity map[string]int
	groups     map[string]*group // "pii", "secrets"
	fpShapes   map[string]int
	families   map[string]int // reviewed false positives at warning and above per family
	people     int            // of the PII ones, those keptPeople says are kept on purpose
	unlabelled int
}

// families are the kinds of false positive the report counts apart:
// commit-message trailers, credits in metadata, addresses in URLs
// (user names, Message-IDs), mailto: contacts, and everything else.
var families = []string{"trailer", "credit", "url", "mailto", "other"}

// familyOf maps a label's shape to its family.
func familyOf(shape string) string {
	switch {
	case strings.HasPrefix(shape, "trailer"):
		return "trailer"
	case strings.HasPrefix(shape, "credit"), strings.HasPrefix(shape, "attribution"):
		return "credit"
	case strings.HasPrefix(shape, "url"), strings.HasPrefix(shape, "message-id"):
		return "url"
	case strings.HasPrefix(shape, "mailto"):
		return "mailto"
	}
	return "other"
}

// keptPeople reports whether a label's shape is a made-up person or a
// placeholder value (`fictional…`, `placeholder…`): the false positives
// docs/design/pii-precision.md keeps at warning on purpose, because
// nothing on the line separates them from a real person's data pasted
// into a test. The others are grammatical shapes, which a rule can read.
// The report counts the two kinds apart.
func keptPeople(shape string) bool {
	return strings.HasPrefix(shape, "fictional") || strings.HasPrefix(shape, "placeholder")
}

// printFamilies prints the reviewed PII false positives at warning and
// above of a set per family, with the set's totals.
func printFamilies(out io.Writer, rows []summary) {
	fmt.Fprintf(out, "PII false positives at warning and above per family (reviewed):\n\n| corpus | MB added | PII warning+ | reviewed |")
	for _, f := range families {
		fmt.Fprintf(out, " %s |", f)
	}
	fmt.Fprintf(out, " FPs | FPs per 10 MB | of them fictional or placeholder | grammatical FPs per 10 MB | trailer findings |\n| --- | ---: | ---: | ---: |")
	for range families {
		fmt.Fprintf(out, " ---: |")
	}
	fmt.Fprintf(out, " ---: | ---: | ---: | ---: | ---: |\n")
	total := summary{name: "all", families: map[string]int{}}
	var warn, reviewed, fps int
	line := func(s summary, warn, reviewed, fps int) {
		fmt.Fprintf(out, "| %s | %.1f | %d | %d |", s.name, s.mb, warn, reviewed)
		for _, f := range families {
			fmt.Fprintf(out, " %d |", s.families[f])
		}
		fmt.Fprintf(out, " %d | %.2f | %d | %.2f | %d |\n", fps, per10(fps, s.mb), s.people, per10(fps-s.people, s.mb), s.trailers)
	}
	for _, s := range rows {
		g := s.groups["pii"]
		line(s, g.warnUp, g.reviewed, g.fps)
		total.mb += s.mb
		total.trailers += s.trailers
		total.people += s.people
		for f, n := range s.families {
			total.families[f] += n
		}
		warn, reviewed, fps = warn+g.warnUp, reviewed+g.reviewed, fps+g.fps
	}
	line(total, warn, reviewed, fps)
	fmt.Fprintln(out)
}

// fpPer10 estimates the false positives per 10 MB at warning and above of
// the named groups: each group's sampled rate times its findings (exact
// when the sample holds all of them).
func (s summary) fpPer10(names ...string) (float64, bool) {
	total, any := 0.0, false
	for _, n := range names {
		g := s.groups[n]
		if g == nil || g.warnUp == 0 {
			continue
		}
		r, ok := g.rate()
		if !ok {
			return 0, false
		}
		total += r * float64(g.warnUp)
		any = true
	}
	if !any {
		return 0, true
	}
	return total / s.mb * 10, true
}

func warnUp(sev string) bool { return sev == "error" || sev == "warning" }

func groupOf(rule string) string {
	if strings.HasPrefix(rule, "pii/") {
		return "pii"
	}
	return "secrets"
}

func print(out io.Writer, name, rng string, rep *report, added int64, trailers, sample int, labels map[string]label) summary {
	mb := float64(added) / 1e6
	s := summary{name: name, commits: rep.Summary.CommitsScanned, mb: mb, trailers: trailers,
		bySeverity: map[string]int{}, fpShapes: map[string]int{}, families: map[string]int{}, groups: map[string]*group{"pii": {}, "secrets": {}}}
	fmt.Fprintf(out, "## %s (%s)\n\n%d commits, %.1f MB of added text, %d findings\n\n", s.name, rng, s.commits, mb, len(rep.Findings))
	type key struct{ rule, sev, kind string }
	counts := map[key]int{}
	var warn []int
	for i, f := range rep.Findings {
		kind := "file"
		if f.Kind == "commit-message" {
			kind = "message"
		}
		counts[key{f.RuleID, f.Severity, kind}]++
		s.bySeverity[f.Severity]++
		if warnUp(f.Severity) {
			warn = append(warn, i)
			s.groups[groupOf(f.RuleID)].warnUp++
		}
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j])
	})
	fmt.Fprintf(out, "| rule | severity | in | findings | per 10 MB |\n| --- | --- | --- | ---: | ---: |\n")
	for _, k := range keys {
		fmt.Fprintf(out, "| %s | %s | %s | %d | %.1f |\n", k.rule, k.sev, k.kind, counts[k], per10(counts[k], mb))
	}
	fmt.Fprintf(out, "\nWarning and above: %d findings (PII %d, secrets %d), %.1f per 10 MB. PII findings on people-trailer lines: %d.\n\n",
		len(warn), s.groups["pii"].warnUp, s.groups["secrets"].warnUp, per10(len(warn), mb), trailers)
	if sample <= 0 || len(warn) == 0 {
		return s
	}
	// A reproducible sample of the findings at warning and above: the same
	// repository, range and findings give the same sample.
	h := fnv.New64a()
	h.Write([]byte(s.name + rng))
	r := rand.New(rand.NewPCG(h.Sum64(), 1))
	idx := make([]int, len(warn))
	for i, p := range r.Perm(len(warn)) {
		idx[i] = warn[p]
	}
	if len(idx) > sample {
		idx = idx[:sample]
	}
	sort.Ints(idx)
	fmt.Fprintf(out, "Sample of %d of the %d findings at warning and above to review (commit, path:line:column, rule; - is the commit message):\n\n", len(idx), len(warn))
	for _, i := range idx {
		f := rep.Findings[i]
		g := s.groups[groupOf(f.RuleID)]
		g.sampled++
		k := locKey(f.Commit, f.Path, f.Line, f.Column, f.RuleID)
		l, ok := labels[k]
		mark := "unreviewed"
		switch {
		case ok && l.fp:
			g.reviewed++
			g.fps++
			s.fpShapes[l.shape]++
			if groupOf(f.RuleID) == "pii" {
				s.families[familyOf(l.shape)]++
				if keptPeople(l.shape) {
					s.people++
				}
			}
			mark = "FP " + l.shape
		case ok:
			g.reviewed++
			mark = "TP " + l.shape
		default:
			s.unlabelled++
		}
		fmt.Fprintf(out, "- %s (%s)\n", k, strings.TrimSpace(mark))
	}
	fmt.Fprintln(out)
	for _, n := range []string{"pii", "secrets"} {
		g := s.groups[n]
		if r, ok := g.rate(); ok {
			fp, _ := s.fpPer10(n)
			fmt.Fprintf(out, "%s: reviewed %d of %d sampled, %d false positives (%.0f %%); estimated false positives at warning and above: %.2f per 10 MB.\n\n",
				n, g.reviewed, g.sampled, g.fps, 100*r, fp)
		}
	}
	if len(s.fpShapes) > 0 {
		shapes := make([]string, 0, len(s.fpShapes))
		for k, n := range s.fpShapes {
			shapes = append(shapes, fmt.Sprintf("%s × %d", k, n))
		}
		sort.Strings(shapes)
		fmt.Fprintf(out, "False-positive shapes in the sample: %s.\n\n", strings.Join(shapes, ", "))
	}
	return s
}

func printSummary(out io.Writer, rows []summary) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(out, "## Summary\n\nFindings at warning and above are split into PII and secrets; the FP rate is over the reviewed sample, and FPs per 10 MB apply it to all findings at warning and above.\n\n")
	fmt.Fprintf(out, "| corpus | commits | MB added | error | warning | note | PII warning+ | PII FP rate | PII FPs per 10 MB | secrets warning+ | secrets FP rate | all FPs per 10 MB | trailer findings |\n")
	fmt.Fprintf(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range rows {
		cell := func(names ...string) string {
			if v, ok := s.fpPer10(names...); ok {
				return fmt.Sprintf("%.2f", v)
			}
			return "–"
		}
		rate := func(n string) string {
			g := s.groups[n]
			if g.reviewed == 0 {
				return "–"
			}
			return fmt.Sprintf("%d/%d", g.fps, g.reviewed)
		}
		fmt.Fprintf(out, "| %s | %d | %.1f | %d | %d | %d | %d | %s | %s | %d | %s | %s | %d |\n", s.name, s.commits, s.mb,
			s.bySeverity["error"], s.bySeverity["warning"], s.bySeverity["note"],
			s.groups["pii"].warnUp, rate("pii"), cell("pii"), s.groups["secrets"].warnUp, rate("secrets"), cell("pii", "secrets"), s.trailers)
	}
	fmt.Fprintln(out)
}

func per10(n int, mb float64) float64 {
	if mb == 0 {
		return 0
	}
	return float64(n) / mb * 10
}
