package action_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/sarifcheck"
)

const sarifSchema = "../../testdata/schemas/sarif-schema-2.1.0.json"

// testCatalog holds the values no output may contain (catalogValues).
const testCatalog = "# Test catalog\n\n- fingerprint-key: " +
	"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff" + `

## PER-001
- category: person
- severity: error
- description: Customer contact names

` + "```values" + `
Jane Doe
Jürgen Müller
` + "```" + `

## CODE-7
- category: codename
- severity: warning

` + "```values" + `
Bluebird
` + "```" + `
`

var catalogValues = []string{"Jane Doe", "Jürgen Müller", "Bluebird"}

// repo drives the git binary.
type repo struct {
	t    *testing.T
	dir  string
	home string
	tick int
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git binary missing under CI")
		}
		t.Skip("git binary not available")
	}
}

func newRepo(t *testing.T, home string) *repo {
	t.Helper()
	needGit(t)
	r := &repo{t: t, dir: filepath.Join(t.TempDir(), "repo"), home: home}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("init", "-q", "-b", "main")
	return r
}

func gitEnv(home string, tick int) []string {
	env := []string{}
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "GIT_") || strings.HasPrefix(e, "HOME=") || strings.HasPrefix(e, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, e)
	}
	d := fmt.Sprintf("2026-01-01T00:%02d:%02d +0000", tick/60, tick%60)
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d,
		"LC_ALL=C",
	)
}

func gitIn(t *testing.T, dir, home string, tick int, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "protocol.file.allow=always", "-c", "advice.detachedHead=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = gitEnv(home, tick)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	return gitIn(r.t, r.dir, r.home, r.tick, args...)
}

func (r *repo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit writes files and commits them; it returns the commit ID.
func (r *repo) commit(msg string, files ...string) string {
	r.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		r.write(files[i], files[i+1])
	}
	r.tick++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// run is one `privscan action` run and everything it wrote.
type run struct {
	code      int
	stdout    string
	stderr    string
	outputs   map[string]string
	summary   string
	sarif     []byte
	sarifPath string
}

// job is the environment of one Actions step.
type job struct {
	t       *testing.T
	env     map[string]string
	dir     string // the workspace
	outFile string
	sumFile string
}

func newJob(t *testing.T, workspace, event string, payload any) *job {
	t.Helper()
	base := t.TempDir()
	j := &job{t: t, dir: workspace, env: map[string]string{}}
	ev := filepath.Join(base, "event.json")
	data, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ev, data, 0o644); err != nil {
		t.Fatal(err)
	}
	j.outFile = filepath.Join(base, "output")
	j.sumFile = filepath.Join(base, "summary")
	for _, f := range []string{j.outFile, j.sumFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(base, "runner-temp")
	home := filepath.Join(base, "home")
	for _, d := range []string{tmp, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	j.env = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   event,
		"GITHUB_EVENT_PATH":   ev,
		"GITHUB_WORKSPACE":    workspace,
		"GITHUB_OUTPUT":       j.outFile,
		"GITHUB_STEP_SUMMARY": j.sumFile,
		"RUNNER_TEMP":         tmp,
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"XDG_STATE_HOME":      filepath.Join(home, ".state"),
		"PRIVSCAN_CATALOG":    testCatalog,
	}
	return j
}

// run runs `privscan action` in-process through the CLI, as the binary
// would, and collects its outputs.
func (j *job) run() *run {
	j.t.Helper()
	var stdout, stderr bytes.Buffer
	env := &cli.Env{
		Args:   []string{"action"},
		Stdin:  strings.NewReader(""),
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: func(k string) string { return j.env[k] },
		Dir:    j.dir,
	}
	code := cli.Report(&stderr, cli.Run(context.Background(), env))
	r := &run{code: code, stdout: stdout.String(), stderr: stderr.String()}
	out, err := os.ReadFile(j.outFile)
	if err != nil {
		j.t.Fatal(err)
	}
	r.outputs = parseOutputs(j.t, string(out))
	sum, err := os.ReadFile(j.sumFile)
	if err != nil {
		j.t.Fatal(err)
	}
	r.summary = string(sum)
	if p := r.outputs["sarif-file"]; p != "" {
		r.sarifPath = p
		if r.sarif, err = os.ReadFile(p); err != nil {
			j.t.Fatalf("reading the sarif-file output: %v", err)
		}
	}
	j.t.Cleanup(func() {
		if j.t.Failed() {
			j.t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s\noutputs: %v\nsummary:\n%s", r.code, r.stdout, r.stderr, r.outputs, r.summary)
		}
	})
	return r
}

var heredocRE = regexp.MustCompile(`^([A-Za-z0-9_-]+)<<(ghadelimiter_[0-9a-f]{32})$`)

// parseOutputs reads a GITHUB_OUTPUT file as the runner does, accepting
// only the heredoc form with a random delimiter.
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		m := heredocRE.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("GITHUB_OUTPUT line %d is not a heredoc start: %q", i+1, lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != m[2]; i++ {
			val = append(val, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("GITHUB_OUTPUT: unterminated value of %s", m[1])
		}
		if _, dup := out[m[1]]; dup {
			t.Fatalf("GITHUB_OUTPUT: %s written twice", m[1])
		}
		out[m[1]] = strings.Join(val, "\n")
	}
	return out
}

// checkNoValues fails if any catalog value appears anywhere the run wrote,
// in any case and in either Unicode normal form.
func (r *run) checkNoValues(t *testing.T) {
	t.Helper()
	var all []string
	for k, v := range r.outputs {
		all = append(all, k+"="+v)
	}
	all = append(all, r.stdout, r.stderr, r.summary, string(r.sarif))
	hay := strings.ToLower(strings.Join(all, "\n"))
	hay = norm.NFC.String(hay) + "\n" + norm.NFD.String(hay)
	for _, v := range catalogValues {
		for _, form := range []string{norm.NFC.String(v), norm.NFD.String(v)} {
			if strings.Contains(hay, strings.ToLower(form)) {
				t.Errorf("a catalog value leaked into the run's output")
			}
		}
		// Single words of multi-word values, too.
		for _, w := range strings.Fields(v) {
			if len(w) >= 4 && strings.Contains(hay, strings.ToLower(norm.NFC.String(w))) {
				t.Errorf("a word of a catalog value leaked into the run's output")
			}
		}
	}
}

// checkSARIF validates the log against the schema and GitHub's rules.
func (r *run) checkSARIF(t *testing.T) *sarifLog {
	t.Helper()
	if len(r.sarif) == 0 {
		t.Fatal("no SARIF log written")
	}
	if err := sarifcheck.Validate(r.sarif, sarifSchema); err != nil {
		t.Fatalf("SARIF validation: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal(r.sarif, &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	return &log
}

type sarifLog struct {
	Runs []struct {
		AutomationDetails *struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Results []sarifResult `json:"results"`
	} `json:"runs"`
}

type sarifResult struct {
	RuleID     string         `json:"ruleId"`
	Level      string         `json:"level"`
	Properties map[string]any `json:"properties"`
	Locations  []struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
}

// where is "kind uri:line" of a result, e.g. "diff shared.txt:6".
func (r sarifResult) where() string {
	kind, _ := r.Properties["privscan/kind"].(string)
	l := r.Locations[0].PhysicalLocation
	return fmt.Sprintf("%s %s %s:%d", r.RuleID, kind, l.ArtifactLocation.URI, l.Region.StartLine)
}

func (l *sarifLog) wheres() []string {
	var w []string
	for _, r := range l.Runs[0].Results {
		w = append(w, r.where())
	}
	return w
}

// pullRequest builds a pull_request payload.
func pullRequest(num int, base, head, title string, body *string, fork bool) map[string]any {
	headRepo := "acme/widgets"
	if fork {
		headRepo = "someone/widgets"
	}
	return map[string]any{
		"action": "synchronize",
		"number": num,
		"pull_request": map[string]any{
			"number": num,
			"title":  title,
			"body":   body,
			"base":   map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"full_name": "acme/widgets"}},
			"head":   map[string]any{"sha": head, "ref": "feature", "repo": map[string]any{"full_name": headRepo}},
		},
		"repository": map[string]any{"full_name": "acme/widgets", "default_branch": "main"},
	}
}

func str(s string) *string { return &s }

func equalSets(t *testing.T, what string, got, want []string) {
	t.Helper()
	g := strings.Join(sorted(got), "\n")
	w := strings.Join(sorted(want), "\n")
	if g != w {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, g, w)
	}
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	return c
}
