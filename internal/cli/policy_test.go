package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/cli"
)

const policyCatalog = "- fingerprint-key: 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n\n" +
	"## PEOPLE\n- category: person\n- description: Customer names\n\n```values\nZelda Quartermaine\n```\n"

// policyRepo is a repository whose main branch has a clean base; each
// case adds a branch "pr" on top of it.
type policyRepo struct {
	dir string
	env map[string]string
}

func newPolicyRepo(t *testing.T, baseFiles map[string]string) *policyRepo {
	t.Helper()
	root := t.TempDir()
	cat := filepath.Join(root, "catalog.md")
	if err := os.WriteFile(cat, []byte(policyCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &policyRepo{dir: filepath.Join(root, "repo"), env: map[string]string{"HOME": root, "PRIVSCAN_CATALOG_FILE": cat}}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	r.git(t, "init", "-q", "-b", "main")
	r.write(t, map[string]string{"app.go": "package app\n\nfunc main() {\n\tname := \"nobody\"\n}\n"})
	r.write(t, baseFiles)
	r.git(t, "add", "-A")
	r.git(t, "commit", "-qm", "base")
	r.git(t, "checkout", "-qb", "pr")
	return r
}

func (r *policyRepo) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *policyRepo) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(r.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// commit writes files and commits them on the current branch.
func (r *policyRepo) commit(t *testing.T, msg string, files map[string]string) {
	t.Helper()
	r.write(t, files)
	r.git(t, "add", "-A")
	r.git(t, "commit", "-qm", msg)
}

type policyReport struct {
	Findings []struct {
		RuleID, Path, Suppressed string
		Line                     int
	}
	Summary struct {
		Findings, Suppressed int
		PolicyChanged        bool
		SuppressedBy         map[string]int
	}
}

// scan runs privscan with JSON output and returns the exit code and report.
func (r *policyRepo) scan(t *testing.T, args ...string) (int, policyReport) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: append(args, "--format", "json"), Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return r.env[k] }, Dir: r.dir}
	code := cli.Report(&stderr, cli.Run(context.Background(), e))
	if code == 2 {
		t.Fatalf("privscan %v: exit 2: %s", args, stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), "Zelda") {
		t.Fatal("output contains the catalog value")
	}
	var rep policyReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("privscan %v: %v\n%s", args, err, stdout.String())
	}
	return code, rep
}

const leakLine = "package app\n\nfunc main() {\n\tname := \"Zelda Quartermaine\"\n}\n"

// TestChangeCannotSilenceItself: a change that adds a leak and relaxes
// its own policy is still judged by the base's policy, in every comparison
// of two commits; its edit of the policy is reported.
func TestChangeCannotSilenceItself(t *testing.T) {
	attacks := []struct {
		name  string
		files func(fingerprint string) map[string]string
		// policyEdit: the attack edits a policy file (reported as such).
		policyEdit bool
		// marker: the leak is silenced by a marker the change adds.
		marker bool
	}{
		{"exclude everything", func(string) map[string]string {
			return map[string]string{"app.go": leakLine, ".privscan.toml": "exclude = [\"**\"]\n"}
		}, true, false},
		{"severity off", func(string) map[string]string {
			return map[string]string{"app.go": leakLine, ".privscan.toml": "[severity]\n\"catalog/PEOPLE\" = \"off\"\n"}
		}, true, false},
		{"fail-on never", func(string) map[string]string {
			return map[string]string{"app.go": leakLine, ".privscan.toml": "fail-on = \"never\"\n"}
		}, true, false},
		{"ignore its own fingerprint", func(fp string) map[string]string {
			return map[string]string{"app.go": leakLine, ".privscanignore": fp + "\n"}
		}, true, false},
		{"marker on the leaking line", func(string) map[string]string {
			return map[string]string{"app.go": strings.Replace(leakLine, "\"Zelda Quartermaine\"", "\"Zelda Quartermaine\" // privscan:allow", 1)}
		}, false, true},
	}
	modes := []struct {
		name string
		args []string
	}{
		{"diff a..b", []string{"diff", "main..pr", "--no-messages"}},
		{"diff a...b", []string{"diff", "main...pr", "--no-messages"}},
		{"diff a b", []string{"diff", "main", "pr", "--no-messages"}},
		{"history a..b", []string{"history", "main..pr"}},
	}
	for _, a := range attacks {
		for _, m := range modes {
			t.Run(a.name+"/"+m.name, func(t *testing.T) {
				r := newPolicyRepo(t, nil)
				// The fingerprint the leak will have, for the ignore-file attack.
				r.commit(t, "leak", map[string]string{"app.go": leakLine})
				_, probe := r.scan(t, "diff", "main..pr", "--no-messages")
				if len(probe.Findings) != 1 {
					t.Fatalf("probe: %+v", probe)
				}
				fp := probeFingerprint(t, r)
				r.git(t, "reset", "-q", "--hard", "main")
				r.commit(t, "the attack", a.files(fp))

				code, rep := r.scan(t, m.args...)
				if code != 1 {
					t.Fatalf("exit %d, want 1 (the base's policy fails the leak): %+v", code, rep)
				}
				if rep.Summary.PolicyChanged != a.policyEdit {
					t.Errorf("policyChanged %v, want %v", rep.Summary.PolicyChanged, a.policyEdit)
				}
				var leak int
				for _, f := range rep.Findings {
					if f.RuleID == "catalog/PEOPLE" && f.Path == "app.go" && f.Line == 4 {
						leak++
						if want := map[bool]string{true: "inline-added", false: ""}[a.marker]; f.Suppressed != want {
							t.Errorf("suppressed %q, want %q", f.Suppressed, want)
						}
					}
				}
				if leak != 1 {
					t.Fatalf("the leak is not reported: %+v", rep)
				}
				if a.marker {
					// --allow-new-markers accepts the change's own marker.
					if code, _ := r.scan(t, append(m.args, "--allow-new-markers")...); code != 0 {
						t.Errorf("--allow-new-markers: exit %d, want 0", code)
					}
				}
				// --policy-from worktree applies the working tree's (the
				// change's) files: the person running the scan chose that.
				if a.policyEdit && a.name != "ignore its own fingerprint" {
					if code, _ := r.scan(t, append(m.args, "--policy-from", "worktree")...); code != 0 {
						t.Errorf("--policy-from worktree: exit %d, want 0", code)
					}
				}
			})
		}
	}
}

// probeFingerprint returns the fingerprint of the single finding of
// main..pr.
func probeFingerprint(t *testing.T, r *policyRepo) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &cli.Env{Args: []string{"diff", "main..pr", "--no-messages", "--format", "json"}, Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return r.env[k] }, Dir: r.dir, Stdin: strings.NewReader("")}
	cli.Run(context.Background(), e)
	var rep struct {
		Findings []struct{ Fingerprint string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Findings) != 1 {
		t.Fatalf("probe: %v %s", err, stdout.String())
	}
	return rep.Findings[0].Fingerprint
}

// TestBasePolicyStillApplies: the controls. The base's own policy keeps
// applying to a change, and a marker that was already on the base side
// keeps suppressing when the change edits its line.
func TestBasePolicyStillApplies(t *testing.T) {
	t.Run("base excludes vendor", func(t *testing.T) {
		r := newPolicyRepo(t, map[string]string{".privscan.toml": "exclude = [\"vendor/**\"]\n"})
		r.commit(t, "vendored", map[string]string{"vendor/x.go": leakLine})
		if code, rep := r.scan(t, "diff", "main..pr", "--no-messages"); code != 0 || rep.Summary.PolicyChanged {
			t.Fatalf("exit %d: %+v", code, rep)
		}
	})
	t.Run("marker already on the base", func(t *testing.T) {
		r := newPolicyRepo(t, map[string]string{"app.go": "package app\n\nfunc main() {\n\tname := \"nobody\" // privscan:allow\n}\n"})
		// Line 4 of app.go carries a marker on main; the change edits it.
		r.commit(t, "edit", map[string]string{"app.go": "package app\n\nfunc main() {\n\tname := \"Zelda Quartermaine\" // privscan:allow\n}\n"})
		code, rep := r.scan(t, "diff", "main..pr", "--no-messages")
		if code != 0 || rep.Summary.Suppressed != 1 || rep.Summary.SuppressedBy["inline"] != 1 {
			t.Fatalf("exit %d: %+v", code, rep)
		}
	})
	t.Run("working tree: the author is the reviewer", func(t *testing.T) {
		r := newPolicyRepo(t, nil)
		r.write(t, map[string]string{"app.go": leakLine, ".privscan.toml": "[severity]\n\"catalog/PEOPLE\" = \"off\"\n"})
		if code, rep := r.scan(t, "diff", "main"); code != 0 || rep.Summary.PolicyChanged {
			t.Fatalf("exit %d: %+v", code, rep)
		}
	})
}

// TestDetectorsOffByTheChange: a change that turns a built-in detector off
// in its own .privscan.toml is still scanned with it, in every comparison
// of two commits; the working tree's scan honours the edit.
func TestDetectorsOffByTheChange(t *testing.T) {
	for _, args := range [][]string{
		{"diff", "main..pr", "--no-messages"}, {"diff", "main...pr", "--no-messages"}, {"history", "main..pr"},
	} {
		r := newPolicyRepo(t, nil)
		r.commit(t, "contact", map[string]string{
			"contact.txt":    "write to zelda.q@quartermaine-holdings.net\n",
			".privscan.toml": "[detectors]\nemail = false\n",
		})
		code, rep := r.scan(t, args...)
		found := false
		for _, f := range rep.Findings {
			found = found || (f.RuleID == "pii/email" && f.Path == "contact.txt" && f.Line == 1)
		}
		if code != 1 || !found || !rep.Summary.PolicyChanged {
			t.Errorf("%v: exit %d, email found %v, policyChanged %v", args, code, found, rep.Summary.PolicyChanged)
		}
		if code, _ := r.scan(t, append(args, "--policy-from", "worktree")...); code != 0 {
			t.Errorf("%v --policy-from worktree: exit %d, want 0", args, code)
		}
	}
}
