package sarifcheck

import (
	"encoding/json"
	"strings"
	"testing"
)

const schemaPath = "../../testdata/schemas/sarif-schema-2.1.0.json"

// valid is a minimal log that satisfies the schema and every check.
const valid = `{
  "version": "2.1.0",
  "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
  "runs": [{
    "tool": {"driver": {"name": "privscan", "version": "1.0.0", "informationUri": "https://github.com/privscan/privscan",
      "rules": [
        {"id": "catalog/A", "name": "CatalogA",
         "shortDescription": {"text": "A"}, "fullDescription": {"text": "Rule A."},
         "help": {"text": "Do this.", "markdown": "**Do** this."},
         "defaultConfiguration": {"level": "error"},
         "properties": {"tags": ["privacy", "security"], "precision": "high", "security-severity": "8.0"}},
        {"id": "pii/email", "name": "PiiEmail",
         "shortDescription": {"text": "E"}, "fullDescription": {"text": "Rule E."},
         "help": {"text": "Do that."},
         "defaultConfiguration": {"level": "warning"},
         "properties": {"tags": ["privacy"], "precision": "medium", "security-severity": "5.0"}}
      ]}},
    "invocations": [{"executionSuccessful": true}],
    "automationDetails": {"id": "privscan/"},
    "columnKind": "utf16CodeUnits",
    "results": [
      {"ruleId": "pii/email", "ruleIndex": 1, "level": "warning", "message": {"text": "m"},
       "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a%20b/%C3%BC.md", "uriBaseId": "%SRCROOT%"},
         "region": {"startLine": 3, "startColumn": 2, "endColumn": 9}}}],
       "partialFingerprints": {"privscanFingerprint/v1": "abc"}}
    ]
  }]
}`

func TestValid(t *testing.T) {
	if err := Check([]byte(valid)); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if err := Validate([]byte(valid), schemaPath); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}

// mutate applies f to the decoded valid log and re-encodes it.
func mutate(t *testing.T, f func(log map[string]any)) []byte {
	t.Helper()
	var log map[string]any
	if err := json.Unmarshal([]byte(valid), &log); err != nil {
		t.Fatal(err)
	}
	f(log)
	b, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func run0(l map[string]any) map[string]any { return l["runs"].([]any)[0].(map[string]any) }
func rule0(l map[string]any) map[string]any {
	return run0(l)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)[0].(map[string]any)
}
func result0(l map[string]any) map[string]any { return run0(l)["results"].([]any)[0].(map[string]any) }
func phys0(l map[string]any) map[string]any {
	return result0(l)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
}

func TestCheckRejects(t *testing.T) {
	cases := []struct {
		name, want string
		f          func(map[string]any)
	}{
		{"ruleIndex out of range", "out of range", func(l map[string]any) { result0(l)["ruleIndex"] = 2 }},
		{"ruleIndex uint max", "out of range", func(l map[string]any) { result0(l)["ruleIndex"] = json.Number("18446744073709551615") }},
		{"ruleIndex wrong rule", "another id", func(l map[string]any) { result0(l)["ruleIndex"] = 0 }},
		{"ruleIndex missing", "ruleIndex", func(l map[string]any) { delete(result0(l), "ruleIndex") }},
		{"results null", "null", func(l map[string]any) { run0(l)["results"] = nil }},
		{"null short description", "null", func(l map[string]any) { rule0(l)["shortDescription"] = nil }},
		{"empty full description", "fullDescription", func(l map[string]any) { rule0(l)["fullDescription"] = map[string]any{"text": " "} }},
		{"no help", "help.text", func(l map[string]any) { delete(rule0(l), "help") }},
		{"no name", ".name", func(l map[string]any) { delete(rule0(l), "name") }},
		{"numeric security-severity", "security-severity", func(l map[string]any) { rule0(l)["properties"].(map[string]any)["security-severity"] = 8.0 }},
		{"security-severity not a number", "security-severity", func(l map[string]any) { rule0(l)["properties"].(map[string]any)["security-severity"] = "high" }},
		{"bad precision", "precision", func(l map[string]any) { rule0(l)["properties"].(map[string]any)["precision"] = "exact" }},
		{"21 tags", "tags", func(l map[string]any) {
			var tags []any
			for i := range 21 {
				tags = append(tags, strings.Repeat("t", i+1))
			}
			rule0(l)["properties"].(map[string]any)["tags"] = tags
		}},
		{"duplicate tag", "tags", func(l map[string]any) { rule0(l)["properties"].(map[string]any)["tags"] = []any{"a", "a"} }},
		{"bad default level", "defaultConfiguration.level", func(l map[string]any) { rule0(l)["defaultConfiguration"] = map[string]any{"level": "none"} }},
		{"bad level", ".level", func(l map[string]any) { result0(l)["level"] = "fatal" }},
		{"empty message", "message.text", func(l map[string]any) { result0(l)["message"] = map[string]any{"text": ""} }},
		{"no locations", "exactly one location", func(l map[string]any) { delete(result0(l), "locations") }},
		{"logical location only", "physicalLocation", func(l map[string]any) {
			result0(l)["locations"] = []any{map[string]any{"logicalLocations": []any{map[string]any{"name": "x"}}}}
		}},
		{"snippet", "snippet", func(l map[string]any) { phys0(l)["region"].(map[string]any)["snippet"] = map[string]any{"text": "x"} }},
		{"contextRegion", "contextRegion", func(l map[string]any) { phys0(l)["contextRegion"] = map[string]any{"startLine": 1} }},
		{"space in uri", "percent-encoded", func(l map[string]any) { phys0(l)["artifactLocation"].(map[string]any)["uri"] = "a b.md" }},
		{"non-ASCII uri", "percent-encoded", func(l map[string]any) { phys0(l)["artifactLocation"].(map[string]any)["uri"] = "ü.md" }},
		{"bad escape", "percent-encoding", func(l map[string]any) { phys0(l)["artifactLocation"].(map[string]any)["uri"] = "a%2.md" }},
		{"absolute uri", "first segment", func(l map[string]any) { phys0(l)["artifactLocation"].(map[string]any)["uri"] = "file:///tmp/a.md" }},
		{"rooted uri", "leading /", func(l map[string]any) { phys0(l)["artifactLocation"].(map[string]any)["uri"] = "/tmp/a.md" }},
		{"no uriBaseId", "uriBaseId", func(l map[string]any) { delete(phys0(l)["artifactLocation"].(map[string]any), "uriBaseId") }},
		{"startLine 0", "startLine", func(l map[string]any) { phys0(l)["region"].(map[string]any)["startLine"] = 0 }},
		{"end before start", "before startColumn", func(l map[string]any) { phys0(l)["region"].(map[string]any)["endColumn"] = 1 }},
		{"no partialFingerprints", "partialFingerprints", func(l map[string]any) { delete(result0(l), "partialFingerprints") }},
		{"columnKind", "columnKind", func(l map[string]any) { run0(l)["columnKind"] = "unicodeCodePoints" }},
		{"no invocation", "invocations", func(l map[string]any) { delete(run0(l), "invocations") }},
		{"unsuccessful", "executionSuccessful", func(l map[string]any) {
			run0(l)["invocations"] = []any{map[string]any{"executionSuccessful": false}}
		}},
		{"two runs", "exactly one run", func(l map[string]any) { l["runs"] = []any{run0(l), run0(l)} }},
		{"duplicate rule", "duplicate", func(l map[string]any) {
			d := run0(l)["tool"].(map[string]any)["driver"].(map[string]any)
			d["rules"] = []any{rule0(l), rule0(l)}
		}},
		{"version", "version", func(l map[string]any) { l["version"] = "2.0.0" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(mutate(t, tc.f))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestCheckLimits(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large single-goroutine input; skipped with -short and -race")
	}
	// Splice MaxResults+1 copies of the valid result into the document
	// textually (building it as a Go value is slow under -race).
	start := strings.Index(valid, `"results": [`) + len(`"results": [`)
	end := strings.LastIndex(valid, "]\n  }]")
	one := strings.TrimSpace(valid[start:end])
	doc := valid[:start] + strings.Repeat(one+",", MaxResults) + one + valid[end:]
	err := Check([]byte(doc))
	if err == nil || !strings.Contains(err.Error(), "25001 results exceed GitHub's limit") {
		t.Fatalf("got %v", err)
	}
	if strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("only the limit should be reported: %v", err)
	}
}

func TestCheckNotJSON(t *testing.T) {
	for _, doc := range []string{"", "{", "[]", `{"version":"2.1.0"} {}`, "null"} {
		if err := Check([]byte(doc)); err == nil {
			t.Errorf("%q accepted", doc)
		}
	}
}

// TestValidateSchemaOnly: problems only the JSON schema knows about.
func TestValidateSchemaOnly(t *testing.T) {
	v, err := NewValidator(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(map[string]any){
		"unknown top-level property": func(l map[string]any) { l["extra"] = 1 },
		"relative informationUri": func(l map[string]any) {
			run0(l)["tool"].(map[string]any)["driver"].(map[string]any)["informationUri"] = "privscan"
		},
		"startColumn 0": func(l map[string]any) { phys0(l)["region"].(map[string]any)["startColumn"] = 0 },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			doc := mutate(t, f)
			err := v.Validate(doc)
			if err == nil || !strings.Contains(err.Error(), "schema") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestValidateMissingSchema(t *testing.T) {
	if err := Validate([]byte(valid), "testdata/no-such-schema.json"); err == nil {
		t.Fatal("missing schema accepted")
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(valid))
	f.Add([]byte(`{"runs":[{"results":[{"locations":[1]}],"invocations":[1],"tool":{"driver":{"rules":[null,1]}}}]}`))
	f.Add([]byte(`{"runs":[{"results":[{"ruleIndex":-1,"locations":[{"physicalLocation":{"region":1}}]}]}]}`))
	f.Add([]byte(`[1, "x", null]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		_ = Check(doc) // must not panic
	})
}
