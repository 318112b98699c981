package action_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/privscan/privscan/internal/action"
)

const (
	actionYML      = "../../action.yml"
	workflowsDir   = "../../.github/workflows"
	actionSchema   = "../../testdata/schemas/github-action.json"
	actionSchemaID = "https://json.schemastore.org/github-action.json"
)

// loadYAML decodes a YAML file into JSON-compatible values.
func loadYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func TestActionYMLSchema(t *testing.T) {
	f, err := os.Open(actionSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(actionSchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(actionSchemaID)
	if err != nil {
		t.Fatal(err)
	}
	// Through JSON, so the validator sees JSON types.
	j, err := json.Marshal(loadYAML(t, actionYML))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
}

// TestActionYMLContract checks action.yml against docs/action.md and the wiring
// with privscan action: every input reaches the scan step through env
// under the name internal/action reads, and every output is the scan
// step's.
func TestActionYMLContract(t *testing.T) {
	a := loadYAML(t, actionYML)
	inputs, _ := a["inputs"].(map[string]any)
	var names []string
	for k, v := range inputs {
		names = append(names, k)
		if d, _ := v.(map[string]any)["description"].(string); d == "" {
			t.Errorf("input %s has no description", k)
		}
	}
	sort.Strings(names)
	want := []string{"allow-new-markers", "annotations", "base", "catalog", "catalog-file", "category", "fail-on", "head", "sarif-file", "scan-pr-text", "seal-key", "upload-sarif"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("inputs %v, want %v", names, want)
	}
	for _, k := range []string{"upload-sarif", "scan-pr-text", "annotations"} {
		if d := inputs[k].(map[string]any)["default"]; d != "true" {
			t.Errorf("input %s default %v, want 'true'", k, d)
		}
	}
	if d := inputs["allow-new-markers"].(map[string]any)["default"]; d != "false" {
		t.Errorf("input allow-new-markers default %v, want 'false'", d)
	}
	outputs, _ := a["outputs"].(map[string]any)
	for _, k := range []string{"findings", "under-review", "sarif-file", "exit-code"} {
		o, _ := outputs[k].(map[string]any)
		if o["value"] != "${{ steps.scan.outputs."+k+" }}" || o["description"] == "" {
			t.Errorf("output %s = %v", k, o)
		}
	}
	if len(outputs) != 4 {
		t.Errorf("outputs %v", outputs)
	}

	runs := a["runs"].(map[string]any)
	if runs["using"] != "composite" {
		t.Fatalf("runs.using = %v", runs["using"])
	}
	envOf := map[string]string{
		"catalog": action.EnvCatalog, "catalog-file": action.EnvCatalogFile, "base": action.EnvBase, "head": action.EnvHead,
		"fail-on": action.EnvFailOn, "sarif-file": action.EnvSARIFFile, "category": action.EnvCategory,
		"scan-pr-text": action.EnvScanPRText, "annotations": action.EnvAnnotations, "allow-new-markers": action.EnvAllowNewMarkers,
		"seal-key": action.EnvSealKey,
	}
	var scan, upload map[string]any
	for _, s := range runs["steps"].([]any) {
		step := s.(map[string]any)
		if step["id"] == "scan" {
			scan = step
		}
		if u, _ := step["uses"].(string); strings.HasPrefix(u, "github/codeql-action/upload-sarif@") {
			upload = step
		}
	}
	if scan == nil || upload == nil {
		t.Fatal("no scan step or no upload-sarif step")
	}
	env, _ := scan["env"].(map[string]any)
	for in, name := range envOf {
		if env[name] != "${{ inputs."+in+" }}" {
			t.Errorf("scan step env %s = %v, want input %s", name, env[name], in)
		}
	}
	if len(env) != len(envOf) {
		t.Errorf("scan step env has %d entries, want %d", len(env), len(envOf))
	}
	if r, _ := scan["run"].(string); !strings.Contains(r, "privscan\" action") {
		t.Errorf("scan step runs %q", r)
	}
	if cond, _ := upload["if"].(string); !strings.Contains(cond, "inputs.upload-sarif == 'true'") || !strings.Contains(cond, "steps.scan.outputs.sarif-file != ''") {
		t.Errorf("upload-sarif condition %q", cond)
	}
}

var pinnedRE = regexp.MustCompile(`^[^@\s]+@[0-9a-f]{40}$`)

// TestNoExpressionsInRunBlocks checks action.yml and every workflow: no run
// script contains an expression (inputs, secrets and event fields reach
// scripts through env), and every third-party action is pinned by a full
// commit SHA with a version comment.
func TestNoExpressionsInRunBlocks(t *testing.T) {
	files := []string{actionYML}
	wf, err := filepath.Glob(filepath.Join(workflowsDir, "*.yml"))
	if err != nil || len(wf) == 0 {
		t.Fatalf("no workflows: %v", err)
	}
	files = append(files, wf...)
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		steps := 0
		walkSteps(&root, func(step *yaml.Node) {
			steps++
			for i := 0; i+1 < len(step.Content); i += 2 {
				k, v := step.Content[i].Value, step.Content[i+1]
				switch k {
				case "run":
					for _, bad := range []string{"${{ inputs.", "${{ secrets.", "${{"} {
						if strings.Contains(v.Value, bad) {
							t.Errorf("%s:%d: run block contains %q", path, v.Line, bad)
						}
					}
				case "uses":
					if strings.HasPrefix(v.Value, "./") {
						continue
					}
					if !pinnedRE.MatchString(v.Value) {
						t.Errorf("%s:%d: %s is not pinned by a full commit SHA", path, v.Line, v.Value)
					}
					if !strings.HasPrefix(strings.TrimSpace(v.LineComment), "# v") {
						t.Errorf("%s:%d: %s has no version comment", path, v.Line, v.Value)
					}
				}
			}
		})
		if steps == 0 {
			t.Errorf("%s: no steps found", path)
		}
	}
}

// walkSteps calls fn for every mapping in a "steps" sequence.
func walkSteps(n *yaml.Node, fn func(*yaml.Node)) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			walkSteps(c, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "steps" && n.Content[i+1].Kind == yaml.SequenceNode {
				for _, s := range n.Content[i+1].Content {
					if s.Kind == yaml.MappingNode {
						fn(s)
					}
				}
				continue
			}
			walkSteps(n.Content[i+1], fn)
		}
	}
}

// TestWorkflow checks the repository's own workflow: least privilege, a
// full clone, the catalog from a secret.
func TestWorkflow(t *testing.T) {
	w := loadYAML(t, filepath.Join(workflowsDir, "privscan.yml"))
	if p, _ := w["permissions"].(map[string]any); len(p) != 1 || p["contents"] != "read" {
		t.Errorf("workflow permissions %v, want contents: read only", w["permissions"])
	}
	job := w["jobs"].(map[string]any)["privscan"].(map[string]any)
	perms := job["permissions"].(map[string]any)
	want := map[string]any{"contents": "read", "security-events": "write", "pull-requests": "read"}
	if len(perms) != len(want) {
		t.Errorf("job permissions %v, want %v", perms, want)
	}
	for k, v := range want {
		if perms[k] != v {
			t.Errorf("job permission %s = %v, want %v", k, perms[k], v)
		}
	}
	var checkout, self map[string]any
	for _, s := range job["steps"].([]any) {
		step := s.(map[string]any)
		u, _ := step["uses"].(string)
		switch {
		case strings.HasPrefix(u, "actions/checkout@"):
			checkout = step
		case u == "./":
			self = step
		}
	}
	if checkout == nil || self == nil {
		t.Fatal("workflow lacks the checkout or the uses: ./ step")
	}
	if with := checkout["with"].(map[string]any); with["fetch-depth"] != 0 {
		t.Errorf("checkout fetch-depth = %v, want 0", with["fetch-depth"])
	}
	if with := self["with"].(map[string]any); with["catalog"] != "${{ secrets.PRIVSCAN_CATALOG }}" {
		t.Errorf("catalog = %v, want the PRIVSCAN_CATALOG secret", with["catalog"])
	}
	on := w["on"].(map[string]any)
	if _, ok := on["pull_request"]; !ok {
		t.Error("workflow does not run on pull_request")
	}
	if _, ok := on["pull_request_target"]; ok {
		t.Error("workflow runs on pull_request_target")
	}
}
