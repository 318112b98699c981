package org_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
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
