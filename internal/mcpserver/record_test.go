package mcpserver

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestScanTextRecordRules: scan_text with a catalog sealed from a
// (synthetic) table with a record rule returns the corroborating match
// and the uncorroborated count, and the reply is valid against the tool's
// declared output schema (additionalProperties: false throughout).
func TestScanTextRecordRules(t *testing.T) {
	f := newFixture(t)
	schema := "format = \"csv\"\n[[columns]]\nname = \"name\"\nrule = \"CUST-NAME\"\ncategory = \"person\"\nmatch = \"identifier\"\n" +
		"corroborated-by = [\"email\"]\nwithin = 1\n[[columns]]\nname = \"email\"\nrule = \"CUST-EMAIL\"\ncategory = \"email\"\n"
	s, err := catalog.ParseSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := catalog.ReadTable(strings.NewReader("name,email\nQuilla Varnstedt,quilla.v@example.invalid\nMaro Castellane,maro.one@example.invalid\n"), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{0x6d, 0x13, 0xa7, 0x58}, 8)
	var b bytes.Buffer
	if err := catalog.Seal(&b, c, key, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(f.cfgDir, "t.sealed")
	f.write(t, path, b.String())
	f.env["PRIVSCAN_CATALOG_FILE"] = path
	f.env["PRIVSCAN_SEAL_KEY"] = hex.EncodeToString(key)
	h := f.start(t)
	res := h.call(t, ToolScanText, map[string]any{"text": "Quilla Varnstedt\nquilla.v@example.invalid\n\n\nMaro Castellane\n"})
	r := scanResult(t, res)
	if len(r.Findings) != 2 || r.Findings[0].CorroboratedBy == nil || r.Findings[0].CorroboratedBy.Line != 2 || r.Summary.Uncorroborated != 1 {
		t.Fatalf("findings %+v, summary %+v", r.Findings, r.Summary)
	}
	var out any
	for _, tl := range h.srv.MCPServer().ListTools() {
		if tl.Tool.Name == ToolScanText {
			if err := json.Unmarshal(tl.Tool.RawOutputSchema, &out); err != nil {
				t.Fatal(err)
			}
		}
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("out.json", out); err != nil {
		t.Fatal(err)
	}
	sch, err := comp.Compile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var inst any
	json.Unmarshal(raw, &inst)
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("scan_text's reply does not match its output schema: %v", err)
	}
	if strings.Contains(string(raw), "Quilla") || strings.Contains(string(raw), "example.invalid") {
		t.Fatal("the reply holds matched text")
	}
}
