package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/action"
)

// prRepo builds a pull request whose test merge commit shifts the leaked
// line: base adds two lines at the top of shared.txt, the head adds a
// catalogued name at its end (line 4 at the head, line 6 after the merge)
// and a commit whose message names a codename. GitHub's merge commit
// message names the codename too: it must not be scanned.
type prRepo struct {
	*repo
	base, head, merge string
}

func newPRRepo(t *testing.T) *prRepo {
	r := newRepo(t, t.TempDir())
	r.commit("initial", "shared.txt", "a\nb\nc\n", "README.md", "widgets\n")
	r.git("checkout", "-q", "-b", "feature")
	r.commit("add a contact", "shared.txt", "a\nb\nc\ncontact: Jane Doe\n")
	head := r.commit("notes for Bluebird", "notes.md", "nothing to see\n")
	r.git("checkout", "-q", "main")
	base := r.commit("prepend", "shared.txt", "x\ny\na\nb\nc\n")
	r.git("checkout", "-q", "--detach", base)
	r.tick++
	r.git("merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge %s into %s (Bluebird)", head, base), head)
	merge := r.git("rev-parse", "HEAD")
	return &prRepo{repo: r, base: base, head: head, merge: merge}
}

func TestPullRequestMergeCommit(t *testing.T) {
	t.Parallel()
	r := newPRRepo(t)
	j := newJob(t, r.dir, "pull_request", pullRequest(7, r.base, r.head, "Tidy the widgets", str("Refactoring only."), false))
	j.env["GITHUB_SHA"] = r.merge
	j.env["GITHUB_REF"] = "refs/pull/7/merge"
	j.env["PRIVSCAN_CATEGORY"] = "privscan/pr"
	res := j.run()
	res.checkNoValues(t)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0 (findings are reported through exit-code)", res.code)
	}
	if res.outputs["exit-code"] != "1" || res.outputs["findings"] != "2" {
		t.Errorf("outputs = %v, want findings 2, exit-code 1", res.outputs)
	}
	if !filepath.IsAbs(res.sarifPath) || filepath.Dir(res.sarifPath) != j.env["RUNNER_TEMP"] || filepath.Base(res.sarifPath) != action.DefaultSARIFName {
		t.Errorf("sarif-file = %q, want %s in RUNNER_TEMP", res.sarifPath, action.DefaultSARIFName)
	}
	log := res.checkSARIF(t)
	// Line 6 is the line in the merge commit; the merge commit's own
	// message is not scanned; the head commit's message is.
	equalSets(t, "results", log.wheres(), []string{
		"catalog/PER-001 diff shared.txt:6",
		"catalog/CODE-7 commit-message .git/privscan/commit/" + r.head + ":1",
	})
	if ad := log.Runs[0].AutomationDetails; ad == nil || ad.ID != "privscan/pr/" {
		t.Errorf("automationDetails = %+v, want id privscan/pr/", ad)
	}
	// Annotations: the error first, then the warning.
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "::error file=shared.txt,line=6,") || !strings.HasPrefix(lines[1], "::warning ") {
		t.Errorf("annotations:\n%s", res.stdout)
	}
	for _, want := range []string{"## privscan", "catalog/PER-001", "shared.txt:6:", "pull request #7 ", short(r.base) + ".." + short(r.merge), "title and body"} {
		if !strings.Contains(res.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.summary)
		}
	}
	if len(res.summary) > action.MaxSummaryBytes {
		t.Errorf("summary is %d bytes", len(res.summary))
	}
}

func TestPullRequestHeadCheckedOut(t *testing.T) {
	t.Parallel()
	r := newPRRepo(t)
	r.git("checkout", "-q", "--detach", r.head)
	j := newJob(t, r.dir, "pull_request", pullRequest(8, r.base, r.head, "Tidy", nil, false))
	res := j.run()
	res.checkNoValues(t)
	log := res.checkSARIF(t)
	// base...head: the head's own line numbers.
	equalSets(t, "results", log.wheres(), []string{
		"catalog/PER-001 diff shared.txt:4",
		"catalog/CODE-7 commit-message .git/privscan/commit/" + r.head + ":1",
	})
	if !strings.Contains(res.summary, short(r.base)+"..."+short(r.head)) {
		t.Errorf("summary does not name base...head:\n%s", res.summary)
	}
}

func TestPullRequestTitleAndBody(t *testing.T) {
	t.Parallel()
	r := newRepo(t, t.TempDir())
	base := r.commit("initial", "a.txt", "one\n")
	head := r.commit("clean change", "a.txt", "one\ntwo\n")
	body := "Context\n\nAsked by Jürgen Müller."
	payload := pullRequest(9, base, head, "Onboarding Jane Doe", &body, false)

	t.Run("scanned", func(t *testing.T) {
		t.Parallel()
		res := newJob(t, r.dir, "pull_request", payload).run()
		res.checkNoValues(t)
		log := res.checkSARIF(t)
		equalSets(t, "results", log.wheres(), []string{
			"catalog/PER-001 text .git/privscan/text:1",
			"catalog/PER-001 text .git/privscan/text:5",
		})
		if res.outputs["findings"] != "2" || res.outputs["exit-code"] != "1" {
			t.Errorf("outputs = %v", res.outputs)
		}
		if strings.Contains(res.stdout, "file=") || !strings.Contains(res.stdout, "::error title=privscan catalog/PER-001::<text>, line 1: ") {
			t.Errorf("annotations of text findings:\n%s", res.stdout)
		}
		if !strings.Contains(res.summary, "title (line 1) and body (from line 3)") {
			t.Errorf("summary does not explain <text>:\n%s", res.summary)
		}
	})
	t.Run("scan-pr-text false", func(t *testing.T) {
		t.Parallel()
		j := newJob(t, r.dir, "pull_request", payload)
		j.env[action.EnvScanPRText] = "false"
		res := j.run()
		res.checkNoValues(t)
		log := res.checkSARIF(t)
		if len(log.Runs[0].Results) != 0 || res.outputs["findings"] != "0" || res.outputs["exit-code"] != "0" {
			t.Errorf("results %v, outputs %v; want none", log.wheres(), res.outputs)
		}
		if strings.Contains(res.summary, "title and body") {
			t.Errorf("summary claims the title was scanned:\n%s", res.summary)
		}
	})
}

func TestForkPullRequestWithoutCatalog(t *testing.T) {
	t.Parallel()
	r := newPRRepo(t)
	j := newJob(t, r.dir, "pull_request", pullRequest(10, r.base, r.head, "Onboarding Jane Doe", nil, true))
	delete(j.env, action.EnvCatalog)
	j.env[action.EnvCatalogFile] = ""
	res := j.run()
	res.checkNoValues(t)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0", res.code)
	}
	if !strings.HasPrefix(res.stdout, "::notice title=privscan::no catalog is available") || !strings.Contains(res.stdout, "forks") {
		t.Errorf("stdout = %q, want a notice about forks", res.stdout)
	}
	want := map[string]string{"findings": "0", "under-review": "0", "exit-code": "0", "sarif-file": ""}
	if fmt.Sprint(res.outputs) != fmt.Sprint(want) {
		t.Errorf("outputs = %v, want %v", res.outputs, want)
	}
	if !strings.Contains(res.summary, "Skipped") {
		t.Errorf("summary = %q", res.summary)
	}
	if _, err := os.Stat(filepath.Join(j.env["RUNNER_TEMP"], action.DefaultSARIFName)); err == nil {
		t.Error("a SARIF log was written for a skipped run (uploading it would close alerts)")
	}
}

func TestShallowClone(t *testing.T) {
	t.Parallel()
	up := newRepo(t, t.TempDir())
	base := up.commit("initial", "a.txt", "one\n")
	head := up.commit("leak", "a.txt", "one\ncontact: Jane Doe\n")
	ws := filepath.Join(t.TempDir(), "ws")
	gitIn(t, filepath.Dir(ws), up.home, 0, "clone", "-q", "--depth", "1", "file://"+up.dir, ws)

	for _, c := range []struct {
		event   string
		payload map[string]any
	}{
		{"pull_request", pullRequest(11, base, head, "Tidy", nil, false)},
		{"push", map[string]any{"ref": "refs/heads/main", "before": base, "after": head, "repository": map[string]any{"full_name": "acme/widgets", "default_branch": "main"}}},
	} {
		t.Run(c.event, func(t *testing.T) {
			res := newJob(t, ws, c.event, c.payload).run()
			res.checkNoValues(t)
			if res.code != 2 {
				t.Fatalf("exit %d, want 2", res.code)
			}
			if !strings.Contains(res.stderr, "privscan: error: unknown revision") || !strings.Contains(res.stderr, "shallow") ||
				!strings.Contains(res.stderr, "privscan: hint: ") || !strings.Contains(res.stderr, "`fetch-depth: 0`") {
				t.Errorf("stderr = %q, want an error naming the shallow clone and a hint naming fetch-depth: 0", res.stderr)
			}
			if len(res.outputs) != 0 {
				t.Errorf("outputs written on error: %v", res.outputs)
			}
		})
	}
}

func TestPushNewBranch(t *testing.T) {
	t.Parallel()
	up := newRepo(t, t.TempDir())
	up.commit("initial", "a.txt", "one\n")
	up.commit("main leak, already reported", "main.txt", "Jane Doe\n")
	ws := filepath.Join(t.TempDir(), "ws")
	gitIn(t, filepath.Dir(ws), up.home, 0, "clone", "-q", "file://"+up.dir, ws)
	r := &repo{t: t, dir: ws, home: up.home, tick: 10}
	r.git("checkout", "-q", "-b", "feature")
	r.commit("first", "f.txt", "Jürgen Müller\n")
	c2 := r.commit("second", "g.txt", "clean\n")
	push := func(def string) map[string]any {
		return map[string]any{
			"ref": "refs/heads/feature", "before": strings.Repeat("0", 40), "after": c2, "created": true,
			"repository": map[string]any{"full_name": "acme/widgets", "default_branch": def},
		}
	}

	t.Run("commits not on the default branch", func(t *testing.T) {
		t.Parallel()
		res := newJob(t, ws, "push", push("main")).run()
		res.checkNoValues(t)
		log := res.checkSARIF(t)
		// Both new commits; not main's history.
		equalSets(t, "results", log.wheres(), []string{"catalog/PER-001 diff f.txt:1"})
		if !strings.Contains(res.summary, "new branch") {
			t.Errorf("summary = %q", res.summary)
		}
		if res.outputs["exit-code"] != "1" {
			t.Errorf("outputs = %v", res.outputs)
		}
	})
	t.Run("default branch unknown", func(t *testing.T) {
		t.Parallel()
		res := newJob(t, ws, "push", push("")).run()
		res.checkNoValues(t)
		log := res.checkSARIF(t)
		// Only the pushed commit against its parent.
		if len(log.Runs[0].Results) != 0 || res.outputs["exit-code"] != "0" {
			t.Errorf("results %v, outputs %v; want none", log.wheres(), res.outputs)
		}
		if !strings.Contains(res.summary, "commit "+short(c2)+" against its parent") {
			t.Errorf("summary = %q", res.summary)
		}
	})
	t.Run("deleted branch", func(t *testing.T) {
		t.Parallel()
		p := push("main")
		p["after"], p["before"], p["deleted"], p["created"] = strings.Repeat("0", 40), c2, true, false
		res := newJob(t, ws, "push", p).run()
		if res.code != 0 || !strings.HasPrefix(res.stdout, "::notice ") || res.outputs["findings"] != "0" || res.outputs["sarif-file"] != "" {
			t.Errorf("exit %d, stdout %q, outputs %v", res.code, res.stdout, res.outputs)
		}
	})
}

func TestPushFastForward(t *testing.T) {
	t.Parallel()
	r := newRepo(t, t.TempDir())
	before := r.commit("initial", "a.txt", "one\n")
	r.commit("leak", "a.txt", "one\nBluebird\n")
	after := r.commit("more", "b.txt", "two\n")
	j := newJob(t, r.dir, "push", map[string]any{
		"ref": "refs/heads/main", "before": before, "after": after,
		"repository": map[string]any{"full_name": "acme/widgets", "default_branch": "main"},
	})
	j.env[action.EnvFailOn] = "error" // the codename rule is a warning
	j.env[action.EnvAnnotations] = "false"
	res := j.run()
	res.checkNoValues(t)
	log := res.checkSARIF(t)
	equalSets(t, "results", log.wheres(), []string{"catalog/CODE-7 diff a.txt:2"})
	if res.outputs["findings"] != "1" || res.outputs["exit-code"] != "0" {
		t.Errorf("outputs = %v, want 1 finding below fail-on", res.outputs)
	}
	if res.stdout != "" {
		t.Errorf("annotations written with annotations: false: %q", res.stdout)
	}
}

func TestMergeGroup(t *testing.T) {
	t.Parallel()
	r := newRepo(t, t.TempDir())
	base := r.commit("initial", "a.txt", "one\n")
	r.commit("queued PR 1", "a.txt", "one\nJane Doe\n")
	head := r.commit("queued PR 2", "b.txt", "two\n")
	j := newJob(t, r.dir, "merge_group", map[string]any{
		"action":      "checks_requested",
		"merge_group": map[string]any{"base_sha": base, "head_sha": head, "base_ref": "refs/heads/main", "head_ref": "refs/heads/gh-readonly-queue/main/pr-1"},
		"repository":  map[string]any{"full_name": "acme/widgets", "default_branch": "main"},
	})
	j.env[action.EnvSARIFFile] = "reports/out.sarif"
	res := j.run()
	res.checkNoValues(t)
	log := res.checkSARIF(t)
	equalSets(t, "results", log.wheres(), []string{"catalog/PER-001 diff a.txt:2"})
	if want := filepath.Join(r.dir, "reports", "out.sarif"); res.sarifPath != want {
		t.Errorf("sarif-file = %q, want %q", res.sarifPath, want)
	}
	if !strings.Contains(res.summary, "merge group "+short(base)+"..."+short(head)) {
		t.Errorf("summary = %q", res.summary)
	}
}

func TestWorkflowDispatch(t *testing.T) {
	t.Parallel()
	r := newRepo(t, t.TempDir())
	first := r.commit("initial", "a.txt", "one\n")
	r.commit("leak", "a.txt", "one\nJane Doe\n")
	last := r.commit("clean", "b.txt", "two\n")
	payload := map[string]any{"inputs": map[string]any{}, "ref": "refs/heads/main", "repository": map[string]any{"full_name": "acme/widgets"}}

	t.Run("HEAD~1..HEAD", func(t *testing.T) {
		t.Parallel()
		j := newJob(t, r.dir, "workflow_dispatch", payload)
		j.env["GITHUB_SHA"] = last
		res := j.run()
		res.checkNoValues(t)
		log := res.checkSARIF(t)
		if len(log.Runs[0].Results) != 0 {
			t.Errorf("results %v; want none (only the last commit)", log.wheres())
		}
	})
	t.Run("base input", func(t *testing.T) {
		t.Parallel()
		j := newJob(t, r.dir, "workflow_dispatch", payload)
		j.env[action.EnvBase] = first
		res := j.run()
		res.checkNoValues(t)
		log := res.checkSARIF(t)
		equalSets(t, "results", log.wheres(), []string{"catalog/PER-001 diff a.txt:2"})
	})
	t.Run("root commit", func(t *testing.T) {
		t.Parallel()
		j := newJob(t, r.dir, "workflow_dispatch", payload)
		j.env[action.EnvHead] = first
		res := j.run()
		res.checkNoValues(t)
		if res.code != 0 || !strings.Contains(res.summary, "root commit "+short(first)) {
			t.Errorf("exit %d, summary %q", res.code, res.summary)
		}
	})
}

func TestPullRequestTargetRefused(t *testing.T) {
	t.Parallel()
	r := newPRRepo(t)
	res := newJob(t, r.dir, "pull_request_target", pullRequest(12, r.base, r.head, "Jane Doe", nil, true)).run()
	res.checkNoValues(t)
	if res.code != 2 {
		t.Fatalf("exit %d, want 2", res.code)
	}
	if !strings.Contains(res.stderr, "refusing to scan a pull_request_target event") || !strings.Contains(res.stderr, "hint: run the action on the `pull_request` event") {
		t.Errorf("stderr = %q", res.stderr)
	}
	if res.stdout != "" || len(res.outputs) != 0 || res.summary != "" {
		t.Errorf("wrote outputs for a refused event: stdout %q outputs %v summary %q", res.stdout, res.outputs, res.summary)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	r := newPRRepo(t)
	for _, c := range []struct {
		name    string
		event   string
		payload any
		env     map[string]string
		want    string
	}{
		{"bad fail-on", "pull_request", pullRequest(1, r.base, r.head, "t", nil, false), map[string]string{action.EnvFailOn: "loud"}, `input fail-on: unknown level`},
		{"bad boolean", "pull_request", pullRequest(1, r.base, r.head, "t", nil, false), map[string]string{action.EnvAnnotations: "yes"}, "input annotations: not a boolean"},
		{"option-like base", "pull_request", pullRequest(1, r.base, r.head, "t", nil, false), map[string]string{action.EnvBase: "--output=x"}, "input base"},
		{"no event name", "", pullRequest(1, r.base, r.head, "t", nil, false), nil, "GITHUB_EVENT_NAME is not set"},
		{"payload without pull_request", "pull_request", map[string]any{"action": "opened"}, nil, "event payload has no pull_request"},
		{"malformed SHA", "pull_request", pullRequest(1, "Jane Doe", r.head, "t", nil, false), nil, "pull_request.base.sha is not a commit SHA"},
		{"unsupported event", "schedule", map[string]any{}, nil, `event "schedule" is not supported without the base input`},
		{"invalid catalog", "pull_request", pullRequest(1, r.base, r.head, "t", nil, false), map[string]string{action.EnvCatalog: "## BAD\n- category: person\n\n```values\nJane Doe\nab\n```\n"}, "catalog_invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			j := newJob(t, r.dir, c.event, c.payload)
			for k, v := range c.env {
				j.env[k] = v
			}
			res := j.run()
			res.checkNoValues(t)
			if res.code != 2 || !strings.Contains(res.stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", res.code, res.stderr, c.want)
			}
			if len(res.outputs) != 0 {
				t.Errorf("outputs written on error: %v", res.outputs)
			}
		})
	}
}

func TestNoOutputFile(t *testing.T) {
	t.Parallel()
	r := newPRRepo(t)
	j := newJob(t, r.dir, "pull_request", pullRequest(13, r.base, r.head, "t", nil, false))
	delete(j.env, "GITHUB_OUTPUT")
	delete(j.env, "GITHUB_STEP_SUMMARY")
	res := j.run()
	res.checkNoValues(t)
	// Outside a runner nobody reads exit-code: findings fail the command.
	if res.code != 1 {
		t.Errorf("exit %d, want 1", res.code)
	}
}

func short(sha string) string { return sha[:12] }
