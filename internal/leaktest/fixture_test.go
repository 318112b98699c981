package leaktest

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// canarySet is the random secret material of one test run.
type canarySet struct {
	seed uint64

	persons  []string // literal rule (person): multi-word, non-ASCII
	host     string   // literal rule with boundary: none (hostname)
	account  string   // case-sensitive literal rule
	idents   []string // identifier rule values (words)
	rxPrefix string   // the regex rule is rxPrefix + `-\d{6}`
	rxHits   []string // strings the regex rule matches
	email    string   // matched by pii/email
	token    string   // matched by the gitleaks github-pat rule
	badRegex string   // an invalid regex value (catalog_invalid)
	short    string   // a two-rune literal (catalog_invalid)
	badRev   string   // a revision name that exists nowhere
	fpKey    [32]byte // the catalog's fingerprint-key
}

// regexSource is the regex rule's value.
func (c *canarySet) regexSource() string { return c.rxPrefix + `-\d{6}` }

// identSpellings returns the code-identifier spellings of an identifier
// value that the catalog matches: JaneDoe, janeDoe, jane_doe, JANE-DOE,
// janedoe.
func identSpellings(v string) []string {
	words := strings.Fields(v)
	var camel, lowerCamel strings.Builder
	lower := make([]string, len(words))
	for i, w := range words {
		lower[i] = strings.ToLower(w)
		r, n := utf8.DecodeRuneInString(lower[i])
		t := string(unicode.ToUpper(r)) + lower[i][n:]
		camel.WriteString(t)
		if i == 0 {
			lowerCamel.WriteString(lower[i])
		} else {
			lowerCamel.WriteString(t)
		}
	}
	return []string{
		camel.String(),
		lowerCamel.String(),
		strings.Join(lower, "_"),
		strings.ToUpper(strings.Join(lower, "-")),
		strings.Join(lower, ""),
	}
}

// secrets returns every string no output may contain: catalog values,
// their identifier spellings, the regex rule's source and matches, the PII
// and secret matches, the invalid catalog values, the fingerprint-key, and
// the bad revision.
func (c *canarySet) secrets() []string {
	var s []string
	s = append(s, c.persons...)
	s = append(s, c.host, c.account)
	for _, v := range c.idents {
		s = append(s, v)
		s = append(s, identSpellings(v)...)
	}
	s = append(s, c.regexSource())
	s = append(s, c.rxHits...)
	s = append(s, c.email, c.token, c.badRegex, c.short, c.badRev)
	s = append(s, hex.EncodeToString(c.fpKey[:]))
	return s
}

// matchable returns spellings of every canary that privscan's detectors
// match: the values in NFC and NFD and in other cases, the identifier
// spellings, the regex, PII and secret matches. Text made of these is
// fully redacted by `privscan redact`.
func (c *canarySet) matchable() []string {
	var s []string
	for _, p := range c.persons {
		s = append(s, p, norm.NFD.String(p), strings.ToUpper(p), strings.Replace(p, " ", " \t ", 1))
	}
	s = append(s, c.host, strings.ToUpper(c.host), c.account)
	for _, v := range c.idents {
		s = append(s, v)
		s = append(s, identSpellings(v)...)
	}
	s = append(s, c.rxHits...)
	s = append(s, c.email, c.token)
	return s
}

// newCanaries draws a canary set from seed.
func newCanaries(seed uint64) *canarySet {
	rng := mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &canarySet{seed: seed}
	// Syllables mix ASCII with letters that NFD decomposes (ü, é, ñ, å) and
	// ß, whose upper case is different in length: every such value has
	// distinct NFC, NFD and case-folded spellings.
	cons := []string{"b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "qu", "th", "ß", "ñ", "x"}
	vows := []string{"a", "e", "i", "o", "u", "ü", "é", "å", "ai", "eo"}
	ascCons := []string{"b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "x", "qu"}
	ascVows := []string{"a", "e", "i", "o", "u", "y"}
	word := func(cs, vs []string, syl int) string {
		var b strings.Builder
		for i := 0; i < syl; i++ {
			b.WriteString(cs[rng.IntN(len(cs))])
			b.WriteString(vs[rng.IntN(len(vs))])
		}
		b.WriteString(cs[rng.IntN(len(cs))])
		w := b.String()
		if w[0] == 0xc3 { // ß or ñ first: keep the first letter ASCII
			w = "v" + w
		}
		r, n := utf8.DecodeRuneInString(w)
		return string(unicode.ToUpper(r)) + w[n:]
	}
	nonASCII := func(cs, vs []string, syl int) string {
		for {
			w := word(cs, vs, syl)
			if norm.NFD.String(w) != w {
				return w
			}
		}
	}
	c.persons = []string{
		nonASCII(cons, vows, 3) + " " + nonASCII(cons, vows, 3),
		word(ascCons, ascVows, 3) + " " + nonASCII(cons, vows, 2) + " " + word(ascCons, ascVows, 3),
		nonASCII(cons, vows, 5),
	}
	c.host = strings.ToLower(word(ascCons, ascVows, 3)) + "-" + strings.ToLower(word(ascCons, ascVows, 2)) + ".corp.internal"
	c.account = "Acct" + strconv.Itoa(100000+rng.IntN(900000)) + word(ascCons, ascVows, 2)
	c.idents = []string{
		word(ascCons, ascVows, 3) + " " + word(ascCons, ascVows, 3),
		word(ascCons, ascVows, 2) + " " + word(ascCons, ascVows, 3) + " " + word(ascCons, ascVows, 2),
	}
	letters := "BCDFGHJKLMNPQRSTVWXZ"
	for i := 0; i < 5; i++ {
		c.rxPrefix += string(letters[rng.IntN(len(letters))])
	}
	for i := 0; i < 3; i++ {
		c.rxHits = append(c.rxHits, fmt.Sprintf("%s-%06d", c.rxPrefix, rng.IntN(1000000)))
	}
	c.email = strings.ToLower(word(ascCons, ascVows, 2)) + "." + strings.ToLower(word(ascCons, ascVows, 2)) + "@" + strings.ToLower(word(ascCons, ascVows, 3)) + ".com"
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	tok := []byte("ghp_")
	for i := 0; i < 36; i++ {
		tok = append(tok, alnum[rng.IntN(len(alnum))])
	}
	c.token = string(tok)
	c.badRegex = word(ascCons, ascVows, 3) + `(` + word(ascCons, ascVows, 2) + `|\p{Zzzq}`
	// Two runes from the Glagolitic block: too short for a literal, and
	// never found in any output by chance.
	c.short = string(rune(0x2C00+rng.IntN(0x2E))) + string(rune(0x2C30+rng.IntN(0x2E)))
	c.badRev = "release/" + word(ascCons, ascVows, 3) + "-" + word(ascCons, ascVows, 2)
	for i := range c.fpKey {
		c.fpKey[i] = byte(rng.Uint32())
	}
	return c
}

// seed returns the run's seed: PRIVSCAN_LEAKTEST_SEED when set (to replay
// a failure), else random.
func seed(t *testing.T) uint64 {
	if s := os.Getenv("PRIVSCAN_LEAKTEST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("PRIVSCAN_LEAKTEST_SEED: %v", err)
		}
		return v
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint64(b[:])
}

// fence wraps values in a ```values block.
func fence(values ...string) string {
	return "```values\n" + strings.Join(values, "\n") + "\n```\n"
}

// catalogMarkdown is the valid catalog of c, with fingerprint-key key.
func catalogMarkdown(c *canarySet, key [32]byte) string {
	return "# Leak test catalog\n\nProse outside rules is ignored.\n\n" +
		"- fingerprint-key: " + hex.EncodeToString(key[:]) + "\n\n" +
		"## PER-001\n- category: person\n- severity: error\n- description: Customer contact names\n\n" + fence(c.persons...) + "\n" +
		"## HOST-1\n- category: hostname\n- severity: warning\n- boundary: none\n\n" + fence(c.host) + "\n" +
		"## ACCT-1\n- category: account\n- case: sensitive\n\n" + fence(c.account) + "\n" +
		"## CODE-ID\n- category: codename\n- match: identifier\n- description: Project codenames\n\n" + fence(c.idents...) + "\n" +
		"## EMP-ID\n- category: employee-id\n- severity: note\n- match: regex\n\n" + fence(c.regexSource())
}

// brokenCatalogs are catalogs that fail to parse or compile, each with a
// canary in the offending place, keyed by a name used in test case names.
func brokenCatalogs(c *canarySet) map[string]string {
	valid := catalogMarkdown(c, c.fpKey)
	return map[string]string{
		"invalid-regex":  valid + "\n## BAD-RX\n- category: broken\n- match: regex\n\n" + fence(c.badRegex),
		"empty-regex":    valid + "\n## BAD-RX\n- category: broken\n- match: regex\n\n" + fence("(?:"+c.persons[0]+")?"),
		"short-literal":  valid + "\n## BAD-LIT\n- category: broken\n\n" + fence(c.persons[0], c.short),
		"bad-severity":   valid + "\n## BAD-SEV\n- category: broken\n- severity: " + c.persons[1] + "\n\n" + fence(c.host),
		"bad-category":   valid + "\n## BAD-CAT\n- category: " + c.persons[2] + "\n\n" + fence(c.host),
		"bad-setting":    valid + "\n## BAD-SET\n- category: broken\n- " + strings.ToLower(identSpellings(c.idents[0])[0]) + ": " + c.email + "\n\n" + fence(c.host),
		"bad-rule-id":    valid + "\n## " + c.rxHits[0] + " " + c.persons[0] + "\n- category: broken\n\n" + fence(c.host),
		"bad-fp-key":     strings.Replace(valid, "- fingerprint-key: "+hex.EncodeToString(c.fpKey[:]), "- fingerprint-key: "+c.persons[0], 1),
		"duplicate-rule": valid + "\n## PER-001\n- category: person\n\n" + fence(c.persons[1]),
		"no-fence":       valid + "\n## NO-FENCE\n- category: broken\n\n" + c.persons[2] + "\n",
		"unclosed-fence": valid + "\n## OPEN\n- category: broken\n\n```values\n" + c.persons[0] + "\n" + c.email + "\n",
		"value-control":  valid + "\n## CTRL\n- category: broken\n\n" + fence(c.persons[0]+"\x01"+c.account),
	}
}

// gitRunner runs the git binary in a repository with a fixed identity and
// clock, isolated from the user's configuration.
type gitRunner struct {
	t    *testing.T
	dir  string
	env  []string
	tick int
}

func newGit(t *testing.T, dir, home string) *gitRunner {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git binary missing under CI")
		}
		t.Skip("git binary not available")
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LANG=C", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com"}
	return &gitRunner{t: t, dir: dir, env: env}
}

func (g *gitRunner) run(args ...string) string {
	g.t.Helper()
	g.tick++
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	date := fmt.Sprintf("2026-01-01T00:%02d:%02dZ", g.tick/60, g.tick%60)
	cmd.Env = append(append([]string{}, g.env...), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// contexts writes each spelling in the contexts a leak hides in: Go
// string and comment, JSON, YAML, a URL, a Markdown line.
func goFile(pkg string, spellings []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	for i, s := range spellings {
		fmt.Fprintf(&b, "// owner: %s\nvar fixture%d = %q\n", s, i, s)
		if isIdent(s) {
			fmt.Fprintf(&b, "func %s() {}\nvar x%d = %s\n", s, i, s)
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(unicode.IsLetter(r) || r == '_' || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

func jsonFile(spellings []string) string {
	var rows []map[string]string
	for _, s := range spellings {
		rows = append(rows, map[string]string{"name": s, "note": "seed for " + s})
	}
	b, _ := json.MarshalIndent(rows, "", "  ")
	return string(b) + "\n"
}

func yamlFile(spellings []string) string {
	var b strings.Builder
	b.WriteString("users:\n")
	for _, s := range spellings {
		fmt.Fprintf(&b, "  - name: %s # contact %s\n    url: https://crm.example.com/u/%s\n", s, s, url.PathEscape(s))
	}
	return b.String()
}

func mdFile(spellings []string) string {
	var b strings.Builder
	b.WriteString("# Notes\n\n")
	for _, s := range spellings {
		fmt.Fprintf(&b, "- Talked to %s about the migration.\n", s)
	}
	return b.String()
}

// fixture is the generated world of a test run.
type fixture struct {
	c       *canarySet
	root    string // t.TempDir()
	home    string // HOME (config and state below it)
	config  string // XDG_CONFIG_HOME
	state   string // XDG_STATE_HOME
	repo    string // the git repository
	inputs  string // payloads and other test inputs
	branch  string // the feature branch, named with canaries
	catFile string // the valid catalog
	mapFile string
	git     *gitRunner
	status  string // git status after the fixture is built
}

// env returns the environment of a run.
func (f *fixture) env() map[string]string {
	return map[string]string{
		"HOME":            f.home,
		"XDG_CONFIG_HOME": f.config,
		"XDG_STATE_HOME":  f.state,
		"NO_COLOR":        "1",
	}
}

// newFixture builds the catalog, the key map and the repository.
func newFixture(t *testing.T, c *canarySet) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{c: c, root: root,
		home:   filepath.Join(root, "home"),
		config: filepath.Join(root, "home", ".config"),
		state:  filepath.Join(root, "home", ".state"),
		repo:   filepath.Join(root, "repo"),
		inputs: filepath.Join(root, "inputs"),
	}
	for _, d := range []string{f.home, f.config, f.state, f.repo, f.inputs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pdir := filepath.Join(f.config, "privscan")
	f.catFile = filepath.Join(pdir, "catalog.md")
	f.mapFile = filepath.Join(pdir, "context-map.toml")
	writeFile(t, f.catFile, catalogMarkdown(c, c.fpKey))
	writeFile(t, filepath.Join(pdir, "guide.md"), "# Privacy guide\n\nUse synthetic names such as Jane Doe.\n")
	writeFile(t, filepath.Join(pdir, "notes.txt"), "not markdown: "+c.persons[0]+"\n")
	if err := os.MkdirAll(filepath.Join(pdir, "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(pdir, "big.md")
	writeFile(t, big, "## BIG\n- category: big\n\n"+fence(c.persons[0]))
	if err := os.Truncate(big, 65<<20); err != nil {
		t.Fatal(err)
	}
	var mp strings.Builder
	mp.WriteString("[keys]\nguide = \"guide.md\"\nmissing = \"missing.md\"\ntxt = \"notes.txt\"\ndir = \"dir.md\"\nbig = \"big.md\"\ncatalog-as-context = \"catalog.md\"\n\n[catalogs]\ndefault = \"catalog.md\"\nmissing = \"missing.md\"\ntxt = \"notes.txt\"\ndir = \"dir.md\"\nbig = \"big.md\"\n")
	for name, md := range brokenCatalogs(c) {
		writeFile(t, filepath.Join(pdir, "broken-"+name+".md"), md)
		fmt.Fprintf(&mp, "broken-%s = \"broken-%s.md\"\n", name, name)
	}
	writeFile(t, f.mapFile, mp.String())

	f.git = newGit(t, f.repo, filepath.Join(root, "githome"))
	f.buildRepo(t)
	return f
}

// buildRepo creates main (clean), a feature branch whose commit adds
// canaries in files and in its message, a staged change, an unstaged
// change, an untracked file and an ignored file, all holding canaries.
func (f *fixture) buildRepo(t *testing.T) {
	c, g := f.c, f.git
	g.run("init", "-q", "-b", "main")
	writeFile(t, filepath.Join(f.repo, "README.md"), "# Demo service\n\nNothing private here.\n")
	writeFile(t, filepath.Join(f.repo, ".gitignore"), "ignored/\n")
	writeFile(t, filepath.Join(f.repo, "src", "app.go"), "package src\n\nfunc Run() {}\n")
	g.run("add", "-A")
	g.run("commit", "-q", "-m", "Initial commit")

	sp := c.matchable()
	f.branch = "feature/" + identSpellings(c.idents[0])[0] + "-" + c.rxHits[0]
	g.run("checkout", "-q", "-b", f.branch)
	writeFile(t, filepath.Join(f.repo, "internal", "users", "fixtures.go"), goFile("users", sp))
	writeFile(t, filepath.Join(f.repo, "data", "seed.json"), jsonFile(sp))
	writeFile(t, filepath.Join(f.repo, "config", "app.yaml"), yamlFile(sp))
	g.run("add", "-A")
	g.run("commit", "-q", "-m", "Add fixtures for "+c.persons[0]+" and "+c.idents[1]+"\n\nAsked by "+c.email+" ("+c.rxHits[1]+"), host "+c.host+", token "+c.token+".")
	g.run("tag", "v-"+identSpellings(c.idents[1])[0])
	writeFile(t, filepath.Join(f.repo, "docs", "notes.md"), mdFile(sp))
	g.run("add", "-A")
	g.run("commit", "-q", "-m", "Notes on "+identSpellings(c.idents[0])[2]+"\n\n"+strings.Join(sp, "\n"))

	// Staged, unstaged, untracked and ignored changes.
	writeFile(t, filepath.Join(f.repo, "src", "app.go"), "package src\n\nfunc Run() {}\n\n"+goFile("src", sp)[len("package src\n\n"):])
	g.run("add", "src/app.go")
	writeFile(t, filepath.Join(f.repo, "README.md"), "# Demo service\n\nNothing private here.\n\n"+mdFile(sp))
	writeFile(t, filepath.Join(f.repo, "notes", "untracked.yaml"), yamlFile(sp))
	writeFile(t, filepath.Join(f.repo, "ignored", "private.txt"), mdFile(sp))
	f.status = g.run("status", "--porcelain", "--ignored", "-uall")
}

// eventPayload is a GitHub webhook payload for event, with canaries in
// every free-text field.
func (f *fixture) eventPayload(event string, base, head string) []byte {
	c := f.c
	body := "Fixes the report from " + c.persons[1] + " (" + c.email + ").\n\n" + strings.Join(c.matchable(), "\n")
	repoObj := map[string]any{"full_name": "acme/" + strings.ToLower(identSpellings(c.idents[0])[4]), "default_branch": "main"}
	var ev map[string]any
	switch event {
	case "pull_request":
		ev = map[string]any{
			"action": "opened",
			"pull_request": map[string]any{
				"number": 7,
				"title":  "Add " + c.persons[0] + " fixtures for " + c.rxHits[2],
				"body":   body,
				"base":   map[string]any{"sha": base, "ref": "main", "repo": repoObj},
				"head":   map[string]any{"sha": head, "ref": f.branch, "repo": repoObj},
				"user":   map[string]any{"login": identSpellings(c.idents[1])[2]},
			},
			"repository": repoObj,
		}
	case "push":
		ev = map[string]any{
			"ref": "refs/heads/" + f.branch, "before": base, "after": head,
			"created": false, "deleted": false, "forced": false,
			"head_commit": map[string]any{"message": body},
			"pusher":      map[string]any{"name": c.persons[2], "email": c.email},
			"repository":  repoObj,
		}
	}
	b, err := json.Marshal(ev)
	if err != nil {
		panic(err)
	}
	return b
}
