package org_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// yamlDocs decodes every document of a YAML file into generic values.
func yamlDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
}

// strict decodes a generic document into a typed API object, refusing
// unknown fields (a misspelt or misplaced key).
func strict(t *testing.T, doc map[string]any, into any) {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		t.Fatalf("%v: %v", doc["kind"], err)
	}
}

// TestKubernetesManifest decodes deploy/kubernetes/org-backfill.yaml into
// the k8s.io/api types (unknown fields fail) and checks the shape: an
// Indexed Job whose pods read the catalog and seal key from a Secret and
// write results on a volume, and a merge Job on the same volume.
func TestKubernetesManifest(t *testing.T) {
	docs := yamlDocs(t, "../../deploy/kubernetes/org-backfill.yaml")
	jobs := map[string]*batchv1.Job{}
	var pvc *corev1.PersistentVolumeClaim
	for _, d := range docs {
		switch d["kind"] {
		case "Job":
			var j batchv1.Job
			strict(t, d, &j)
			if j.APIVersion != "batch/v1" {
				t.Errorf("job %s: apiVersion %s", j.Name, j.APIVersion)
			}
			jobs[j.Name] = &j
		case "PersistentVolumeClaim":
			pvc = new(corev1.PersistentVolumeClaim)
			strict(t, d, pvc)
		default:
			t.Errorf("unexpected kind %v", d["kind"])
		}
	}
	if pvc == nil {
		t.Fatal("no results volume claim")
	}
	scan, merge := jobs["privscan-org-scan"], jobs["privscan-org-merge"]
	if scan == nil || merge == nil {
		t.Fatalf("jobs: %v", jobs)
	}
	if scan.Spec.CompletionMode == nil || *scan.Spec.CompletionMode != batchv1.IndexedCompletion || scan.Spec.Completions == nil {
		t.Error("the scan Job is not an Indexed Job with completions")
	}
	pod := scan.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever && pod.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy %s", pod.RestartPolicy)
	}
	c := pod.Containers[0]
	if !strings.Contains(strings.Join(c.Command, " "), "org scan --plan /plan/plan.json --out /results/shard-$JOB_COMPLETION_INDEX") {
		t.Errorf("shard command: %v", c.Command)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env["PRIVSCAN_SEAL_KEY"]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.Value != "" {
		t.Error("the seal key does not come from a Secret")
	}
	if e := env["PRIVSCAN_GIT_TOKEN"]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.Value != "" {
		t.Error("the git token does not come from a Secret")
	}
	if env["PRIVSCAN_CATALOG_FILE"].Value != "/catalog/catalog.sealed" {
		t.Error("PRIVSCAN_CATALOG_FILE does not name the mounted sealed catalog")
	}
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	if v := vols[mounts["/catalog"]]; v.Secret == nil {
		t.Error("the catalog is not mounted from a Secret")
	}
	if v := vols[mounts["/results"]]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != pvc.Name {
		t.Error("results are not on the claimed volume")
	}
	if v := vols[mounts["/plan"]]; v.ConfigMap == nil {
		t.Error("the plan is not mounted from a ConfigMap")
	}
	mc := merge.Spec.Template.Spec.Containers[0]
	if !strings.Contains(strings.Join(mc.Command, " "), "org merge /results/shard-*") {
		t.Errorf("merge command: %v", mc.Command)
	}
	for _, e := range mc.Env {
		if strings.Contains(e.Name, "SEAL") || strings.Contains(e.Name, "TOKEN") {
			t.Errorf("the merge Job gets %s: it needs no secret", e.Name)
		}
	}
}

// TestWorkflowShape checks .github/workflows/org-backfill.yml beyond
// actionlint (scripts/ci-action): both triggers, the three jobs, the
// matrix from the plan's shards, the secrets only where they are needed.
func TestWorkflowShape(t *testing.T) {
	docs := yamlDocs(t, "../../.github/workflows/org-backfill.yml")
	if len(docs) != 1 {
		t.Fatalf("%d documents", len(docs))
	}
	w := docs[0]
	on, _ := w["on"].(map[string]any)
	if _, ok := on["workflow_call"]; !ok {
		t.Error("no workflow_call")
	}
	if _, ok := on["workflow_dispatch"]; !ok {
		t.Error("no workflow_dispatch")
	}
	jobs, _ := w["jobs"].(map[string]any)
	for _, j := range []string{"plan", "scan", "merge"} {
		if jobs[j] == nil {
			t.Errorf("no %s job", j)
		}
	}
	b, _ := json.Marshal(jobs["scan"])
	if !strings.Contains(string(b), `fromJSON(needs.plan.outputs.shards)`) {
		t.Error("the shard matrix does not come from the plan")
	}
	for _, j := range []string{"plan", "merge"} {
		b, _ := json.Marshal(jobs[j])
		if strings.Contains(string(b), "PRIVSCAN_CATALOG_SEALED") || strings.Contains(string(b), "PRIVSCAN_SEAL_KEY") {
			t.Errorf("the %s job gets the catalog or its key", j)
		}
	}
}

// workflowRun returns the run script of the step named name in job.
func workflowRun(t *testing.T, job, name string) string {
	t.Helper()
	w := yamlDocs(t, "../../.github/workflows/org-backfill.yml")[0]
	steps, _ := w["jobs"].(map[string]any)[job].(map[string]any)["steps"].([]any)
	for _, s := range steps {
		st, _ := s.(map[string]any)
		if n, _ := st["name"].(string); strings.HasPrefix(n, name) {
			run, _ := st["run"].(string)
			return run
		}
	}
	t.Fatalf("no step %q in job %s", name, job)
	return ""
}

// TestWorkflowScripts runs the workflow's own shard and merge scripts
// with bash, as a runner does, privscan on PATH: a sealed catalog larger
// than one environment string may be (128 KiB) committed to the calling
// repository scans through catalog-file, the merge of the shards equals
// privscan history, and a shard without any catalog or with a catalog-file
// that is not there fails at once with exit 2 and an ::error:: line.
func TestWorkflowScripts(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	f := newOrg(t, 4)
	bin := filepath.Join(f.dir, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "privscan"), []byte("#!/bin/sh\nPRIVSCAN_ORG_TEST_MAIN=1 exec '"+os.Args[0]+"' \"$@\"\n"), 0o755)
	env := append(append(os.Environ(), f.env...), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	// A catalog of the planted name and 12,000 filler values, sealed.
	var md strings.Builder
	md.WriteString("## PEOPLE\n- category: person\n\n```values\n" + catName + "\n")
	for i := range 12000 {
		fmt.Fprintf(&md, "Filler Person %05d\n", i)
	}
	md.WriteString("```\n")
	plain := filepath.Join(f.dir, "big.md")
	os.WriteFile(plain, []byte(md.String()), 0o600)
	const key = "7f0c1e2d3b4a59687766554433221100ffeeddccbbaa99887766554433221100"
	sealed := filepath.Join(f.dir, "caller", ".github", "privacy", "catalog.sealed")
	os.MkdirAll(filepath.Dir(sealed), 0o755)
	if _, e, code := f.run(t, f.dir, []string{"PRIVSCAN_CATALOG_FILE=" + plain, "PRIVSCAN_SEAL_KEY=" + key}, "catalog", "seal", "-o", sealed); code != 0 {
		t.Fatal(e)
	}
	if fi, err := os.Stat(sealed); err != nil || fi.Size() <= 128<<10 {
		t.Fatalf("the sealed catalog should exceed 128 KiB: %v", err)
	}

	plan := filepath.Join(f.dir, "plan.json")
	if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "--shards", "2", "-o", plan); code != 0 {
		t.Fatal(e)
	}
	script := func(run, dir string, extra ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bash, "-e", "-c", run)
		cmd.Dir = dir
		cmd.Env = append(append([]string{}, env...), extra...)
		out, err := cmd.CombinedOutput()
		f.noLeak(t, "workflow script output", string(out))
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	shard := workflowRun(t, "scan", "Scan shard")
	merged := filepath.Join(f.dir, "merge", "shards")
	for i := range 2 {
		// A job's workspace: the plan artifact and the checked-out file.
		ws := filepath.Join(f.dir, fmt.Sprintf("job%d", i))
		os.MkdirAll(filepath.Join(ws, "rt"), 0o700)
		b, _ := os.ReadFile(plan)
		os.WriteFile(filepath.Join(ws, "plan.json"), b, 0o644)
		os.Symlink(filepath.Join(f.dir, "caller"), filepath.Join(ws, "caller"))
		vars := []string{"RUNNER_TEMP=" + filepath.Join(ws, "rt"), fmt.Sprintf("SHARD=%d", i),
			"CATALOG_PATH=.github/privacy/catalog.sealed", "CATALOG_SEALED=", "PRIVSCAN_CATALOG=", "PRIVSCAN_CATALOG_FILE=",
			"PRIVSCAN_SEAL_KEY=" + key}
		if out, code := script(shard, ws, vars...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, out)
		}
		// download-artifact with merge-multiple: every shard's out/ in one folder.
		os.MkdirAll(merged, 0o755)
		if err := os.Rename(filepath.Join(ws, "out", fmt.Sprintf("shard-%d", i)), filepath.Join(merged, fmt.Sprintf("shard-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	summary := filepath.Join(f.dir, "summary.md")
	if out, code := script(workflowRun(t, "merge", "Merge"), filepath.Dir(merged), "GITHUB_STEP_SUMMARY="+summary); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, out)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(merged), "report", "findings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc mergedDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// privscan history with the same sealed catalog.
	f.env = append(f.env, "PRIVSCAN_CATALOG_FILE="+sealed, "PRIVSCAN_SEAL_KEY="+key)
	equalKeys(t, mergedKeys(t, doc), f.historyKeys(t))
	if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "organisation backfill") {
		t.Errorf("job summary: %q", s)
	}

	ws := filepath.Join(f.dir, "job0")
	for _, tc := range []struct{ name, path, want string }{
		{"no catalog", "", "::error::set catalog-file"},
		{"catalog-file missing", "nope.sealed", "::error::catalog-file is not a file"},
	} {
		out, code := script(shard, ws, "RUNNER_TEMP="+filepath.Join(ws, "rt"), "SHARD=0", "CATALOG_PATH="+tc.path,
			"CATALOG_SEALED=", "PRIVSCAN_CATALOG=", "PRIVSCAN_CATALOG_FILE=", "PRIVSCAN_SEAL_KEY="+key)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%s: exit %d: %s", tc.name, code, out)
		}
	}
}
