package action_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/action"
)

// TestChangeCannotSilenceItself: a pull request (test merge commit), a push
// and a merge group that add a leak and relax the repository's policy in
// the same change are judged by the base's policy; the policy edit is
// reported; a marker the change adds fails the check unless
// allow-new-markers is set.
func TestChangeCannotSilenceItself(t *testing.T) {
	t.Parallel()
	leak := "a\nb\ncontact: Jane Doe\n"
	attacks := []struct {
		name   string
		files  []string
		marker bool
	}{
		{"exclude everything", []string{"shared.txt", leak, ".privscan.toml", "exclude = [\"**\"]\n"}, false},
		{"severity off", []string{"shared.txt", leak, ".privscan.toml", "[severity]\n\"catalog/PER-001\" = \"off\"\n"}, false},
		{"fail-on never", []string{"shared.txt", leak, ".privscan.toml", "fail-on = \"never\"\n"}, false},
		{"marker", []string{"shared.txt", "a\nb\ncontact: Jane Doe // privscan:allow\n"}, true},
	}
	for _, a := range attacks {
		for _, event := range []string{"pull_request", "push", "merge_group"} {
			t.Run(a.name+"/"+event, func(t *testing.T) {
				t.Parallel()
				r := newRepo(t, t.TempDir())
				base := r.commit("initial", "shared.txt", "a\nb\n", ".privscan.toml", "fail-on = \"warning\"\n")
				r.git("checkout", "-q", "-b", "feature")
				head := r.commit("the change", a.files...)
				var merge string
				if event == "pull_request" {
					r.git("checkout", "-q", "--detach", base)
					r.tick++
					r.git("merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge %s into %s", head, base), head)
					merge = r.git("rev-parse", "HEAD")
				}
				mkJob := func() *job {
					var j *job
					switch event {
					case "pull_request":
						j = newJob(t, r.dir, "pull_request", pullRequest(3, base, head, "Tidy", str("Refactoring only."), false))
						j.env["GITHUB_SHA"] = merge
						j.env["GITHUB_REF"] = "refs/pull/3/merge"
					case "push":
						j = newJob(t, r.dir, "push", map[string]any{
							"ref": "refs/heads/main", "before": base, "after": head,
							"repository": map[string]any{"full_name": "acme/widgets", "default_branch": "main"},
						})
					case "merge_group":
						j = newJob(t, r.dir, "merge_group", map[string]any{
							"action":      "checks_requested",
							"merge_group": map[string]any{"base_sha": base, "head_sha": head, "base_ref": "refs/heads/main", "head_ref": "refs/heads/gh-readonly-queue/main/pr-3"},
							"repository":  map[string]any{"full_name": "acme/widgets", "default_branch": "main"},
						})
					}
					return j
				}
				res := mkJob().run()
				res.checkNoValues(t)
				if res.outputs["exit-code"] != "1" {
					t.Fatalf("outputs %v, want exit-code 1 (the base's policy fails the leak)\nsummary: %s", res.outputs, res.summary)
				}
				log := res.checkSARIF(t)
				equalSets(t, "results", log.wheres(), []string{"catalog/PER-001 diff shared.txt:3"})
				if a.marker {
					if !strings.Contains(res.summary, "under review") || !strings.Contains(string(res.sarif), `"underReview"`) {
						t.Errorf("the marker the change adds is not reported as under review:\n%s", res.summary)
					}
					// Every finding is under review: said plainly, never
					// "0 findings ()" beside a failing check.
					if res.outputs["under-review"] != "1" || res.outputs["findings"] != "0" || strings.Contains(res.summary, "()") ||
						!strings.Contains(res.summary, "**0 findings** and **1 under review**") {
						t.Errorf("outputs %v; summary:\n%s", res.outputs, res.summary)
					}
					j := mkJob()
					j.env[action.EnvAllowNewMarkers] = "true"
					if again := j.run(); again.outputs["exit-code"] != "0" {
						t.Errorf("allow-new-markers: outputs %v, want exit-code 0", again.outputs)
					}
				} else if !strings.Contains(res.summary, "Policy changed") || !strings.Contains(string(res.sarif), "privscan/policy-changed") {
					t.Errorf("the policy edit is not reported:\n%s", res.summary)
				}
			})
		}
	}
}
