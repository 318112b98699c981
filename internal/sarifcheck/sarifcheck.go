// Package sarifcheck checks a privscan SARIF log the way GitHub code
// scanning will receive it: against the OASIS SARIF 2.1.0 JSON schema and
// against GitHub's upload rules and limits and privscan's own SARIF
// contract (docs/findings.md). It is meant for tests of every package that emits
// SARIF (the sarif renderer, the CLI, the GitHub Action).
package sarifcheck

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// GitHub code scanning limits.
const (
	MaxRuns        = 20
	MaxResults     = 25000
	MaxRules       = 25000
	MaxTags        = 20
	MaxUploadBytes = 10_000_000 // gzip-compressed
)

// maxProblems bounds the problems one error reports.
const maxProblems = 25

// Validate checks doc against the SARIF 2.1.0 schema at schemaPath
// (draft-04, format assertions on) and then with Check. It returns every
// problem found, joined. It compiles the schema on every call; tests that
// validate many logs can compile it once with NewValidator.
func Validate(doc []byte, schemaPath string) error {
	v, err := NewValidator(schemaPath)
	if err != nil {
		return err
	}
	return v.Validate(doc)
}

// Validator holds a compiled SARIF schema.
type Validator struct {
	schema *jsonschema.Schema
}

// NewValidator compiles the SARIF 2.1.0 JSON schema at schemaPath.
func NewValidator(schemaPath string) (*Validator, error) {
	sch, err := compileSchema(schemaPath)
	if err != nil {
		return nil, err
	}
	return &Validator{schema: sch}, nil
}

// Validate checks doc against the schema and then with Check.
func (v *Validator) Validate(doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("sarifcheck: not JSON: %w", err)
	}
	var errs []error
	if err := v.schema.Validate(inst); err != nil {
		errs = append(errs, fmt.Errorf("sarifcheck: schema: %w", err))
	}
	if err := Check(doc); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func compileSchema(path string) (*jsonschema.Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sarifcheck: schema: %w", err)
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("sarifcheck: schema %s: %w", path, err)
	}
	const url = "file:///sarif-schema-2.1.0.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.AssertFormat()
	if err := c.AddResource(url, schemaDoc); err != nil {
		return nil, fmt.Errorf("sarifcheck: schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("sarifcheck: schema: %w", err)
	}
	return sch, nil
}

// Check applies GitHub code scanning's rules and privscan's SARIF contract
// to doc, without the JSON schema:
//
//   - version "2.1.0", a $schema, exactly one run (GitHub: at most 20);
//   - no JSON null anywhere; no "snippet" or "contextRegion" anywhere;
//   - tool.driver.name set; columnKind "utf16CodeUnits";
//     invocations[0].executionSuccessful true; automationDetails.id, if
//     present, non-empty;
//   - at most 25,000 rules and 25,000 results;
//   - rules: unique non-empty id, name, shortDescription.text,
//     fullDescription.text and help.text; defaultConfiguration.level one of
//     error, warning, note; properties.tags unique non-empty strings, at
//     most 20; properties.precision one of very-high, high, medium, low;
//     properties.security-severity a string holding a number in [0, 10];
//   - results: ruleId; ruleIndex in range and naming a rule with the same
//     id; a valid level; non-empty message.text; exactly one location with
//     a physicalLocation whose artifactLocation.uri is a valid RFC 3986
//     relative reference (no scheme, no leading "/") with uriBaseId
//     "%SRCROOT%", and a region with startLine ≥ 1 and valid columns;
//     non-empty partialFingerprints of non-empty strings;
//   - the gzip-compressed document is at most 10 MB.
func Check(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return fmt.Errorf("sarifcheck: not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("sarifcheck: trailing data after the JSON document")
	}
	c := &checker{}
	c.walk([]string{"$"}, root)
	c.log(root)
	if n, err := gzipSize(doc); err != nil {
		c.add("$", "cannot measure compressed size: %v", err)
	} else if n > MaxUploadBytes {
		c.add("$", "gzip-compressed size %d exceeds %d bytes", n, MaxUploadBytes)
	}
	return c.err()
}

type checker struct {
	problems []string
	more     int
}

func (c *checker) add(path, format string, args ...any) {
	if len(c.problems) == maxProblems {
		c.more++
		return
	}
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	msg := "sarifcheck: " + strings.Join(c.problems, "\nsarifcheck: ")
	if c.more > 0 {
		msg += fmt.Sprintf("\nsarifcheck: … and %d more problems", c.more)
	}
	return errors.New(msg)
}

// walk rejects nulls and forbidden keys anywhere in the document. path
// holds the segments leading to v; it is joined only to report a problem.
func (c *checker) walk(path []string, v any) {
	switch v := v.(type) {
	case nil:
		c.add(strings.Join(path, ""), "null value")
	case map[string]any:
		for k, e := range v {
			if k == "snippet" || k == "contextRegion" {
				c.add(strings.Join(path, ""), "forbidden property %q", k)
			}
			c.walk(append(path, "."+k), e)
		}
	case []any:
		for i, e := range v {
			c.walk(append(path, "["+strconv.Itoa(i)+"]"), e)
		}
	}
}

func (c *checker) log(root any) {
	top, ok := root.(map[string]any)
	if !ok {
		c.add("$", "not an object")
		return
	}
	if s, _ := top["version"].(string); s != "2.1.0" {
		c.add("$.version", "want \"2.1.0\"")
	}
	if s, _ := top["$schema"].(string); s == "" {
		c.add("$.$schema", "missing")
	}
	runs, _ := top["runs"].([]any)
	switch {
	case len(runs) > MaxRuns:
		c.add("$.runs", "%d runs exceed GitHub's limit of %d", len(runs), MaxRuns)
	case len(runs) != 1:
		c.add("$.runs", "want exactly one run, got %d", len(runs))
	}
	for i, r := range runs {
		c.run(fmt.Sprintf("$.runs[%d]", i), r)
	}
}

func (c *checker) run(path string, v any) {
	run, ok := v.(map[string]any)
	if !ok {
		c.add(path, "not an object")
		return
	}
	driver, _ := obj(run, "tool")["driver"].(map[string]any)
	if s, _ := driver["name"].(string); s == "" {
		c.add(path+".tool.driver.name", "missing")
	}
	if s, _ := run["columnKind"].(string); s != "utf16CodeUnits" {
		c.add(path+".columnKind", "want \"utf16CodeUnits\"")
	}
	invs, _ := run["invocations"].([]any)
	if len(invs) == 0 {
		c.add(path+".invocations", "missing")
	} else if inv, _ := invs[0].(map[string]any); inv["executionSuccessful"] != true {
		c.add(path+".invocations[0].executionSuccessful", "want true")
	}
	if ad, ok := run["automationDetails"].(map[string]any); ok {
		if s, _ := ad["id"].(string); s == "" {
			c.add(path+".automationDetails.id", "empty")
		}
	}

	rules, ok := driver["rules"].([]any)
	if !ok {
		c.add(path+".tool.driver.rules", "missing (want an array, possibly empty)")
	}
	if len(rules) > MaxRules {
		c.add(path+".tool.driver.rules", "%d rules exceed GitHub's limit of %d", len(rules), MaxRules)
	}
	ids := make([]string, len(rules))
	seen := map[string]bool{}
	for i, r := range rules {
		rp := fmt.Sprintf("%s.tool.driver.rules[%d]", path, i)
		ids[i] = c.rule(rp, r)
		if ids[i] != "" {
			if seen[ids[i]] {
				c.add(rp+".id", "duplicate rule id")
			}
			seen[ids[i]] = true
		}
	}

	results, ok := run["results"].([]any)
	if !ok {
		c.add(path+".results", "missing (want an array, possibly empty)")
	}
	if len(results) > MaxResults {
		c.add(path+".results", "%d results exceed GitHub's limit of %d", len(results), MaxResults)
	}
	for i, r := range results {
		c.result(fmt.Sprintf("%s.results[%d]", path, i), r, ids)
	}
}

// rule checks one reportingDescriptor and returns its id.
func (c *checker) rule(path string, v any) string {
	r, ok := v.(map[string]any)
	if !ok {
		c.add(path, "not an object")
		return ""
	}
	id, _ := r["id"].(string)
	if id == "" {
		c.add(path+".id", "missing")
	}
	if s, _ := r["name"].(string); s == "" {
		c.add(path+".name", "missing")
	}
	for _, k := range []string{"shortDescription", "fullDescription", "help"} {
		if s, _ := obj(r, k)["text"].(string); strings.TrimSpace(s) == "" {
			c.add(path+"."+k+".text", "missing or empty")
		}
	}
	if md, ok := obj(r, "help")["markdown"]; ok {
		if s, _ := md.(string); strings.TrimSpace(s) == "" {
			c.add(path+".help.markdown", "empty")
		}
	}
	if !validLevel(obj(r, "defaultConfiguration")["level"]) {
		c.add(path+".defaultConfiguration.level", "want error, warning or note")
	}
	props := obj(r, "properties")
	tags, ok := props["tags"].([]any)
	if !ok {
		c.add(path+".properties.tags", "missing")
	}
	if len(tags) > MaxTags {
		c.add(path+".properties.tags", "%d tags exceed GitHub's limit of %d", len(tags), MaxTags)
	}
	seen := map[string]bool{}
	for i, t := range tags {
		s, _ := t.(string)
		if s == "" || seen[s] {
			c.add(fmt.Sprintf("%s.properties.tags[%d]", path, i), "empty, not a string or duplicate")
		}
		seen[s] = true
	}
	switch p, _ := props["precision"].(string); p {
	case "very-high", "high", "medium", "low":
	default:
		c.add(path+".properties.precision", "want very-high, high, medium or low")
	}
	ss, ok := props["security-severity"].(string)
	if !ok {
		c.add(path+".properties.security-severity", "missing or not a string")
	} else if f, err := strconv.ParseFloat(ss, 64); err != nil || f < 0 || f > 10 {
		c.add(path+".properties.security-severity", "not a number in [0, 10]")
	}
	return id
}

func (c *checker) result(path string, v any, ruleIDs []string) {
	r, ok := v.(map[string]any)
	if !ok {
		c.add(path, "not an object")
		return
	}
	id, _ := r["ruleId"].(string)
	if id == "" {
		c.add(path+".ruleId", "missing")
	}
	if idx, ok := intOf(r["ruleIndex"]); !ok {
		c.add(path+".ruleIndex", "missing or not an integer")
	} else if idx < 0 || idx >= int64(len(ruleIDs)) {
		c.add(path+".ruleIndex", "%d out of range [0, %d)", idx, len(ruleIDs))
	} else if ruleIDs[idx] != id {
		c.add(path+".ruleIndex", "points to a rule with another id")
	}
	if !validLevel(r["level"]) {
		c.add(path+".level", "want error, warning or note")
	}
	if s, _ := obj(r, "message")["text"].(string); strings.TrimSpace(s) == "" {
		c.add(path+".message.text", "missing or empty")
	}
	locs, _ := r["locations"].([]any)
	if len(locs) != 1 {
		c.add(path+".locations", "want exactly one location, got %d", len(locs))
	}
	for i, l := range locs {
		c.location(fmt.Sprintf("%s.locations[%d]", path, i), l)
	}
	pf, _ := r["partialFingerprints"].(map[string]any)
	if len(pf) == 0 {
		c.add(path+".partialFingerprints", "missing or empty")
	}
	for k, v := range pf {
		if s, _ := v.(string); s == "" {
			c.add(path+".partialFingerprints."+k, "empty or not a string")
		}
	}
}

func (c *checker) location(path string, v any) {
	l, ok := v.(map[string]any)
	if !ok {
		c.add(path, "not an object")
		return
	}
	pl, ok := l["physicalLocation"].(map[string]any)
	if !ok {
		c.add(path+".physicalLocation", "missing (GitHub rejects results without one)")
		return
	}
	al := obj(pl, "artifactLocation")
	uri, _ := al["uri"].(string)
	if err := checkRelativeURI(uri); err != nil {
		c.add(path+".physicalLocation.artifactLocation.uri", "%v", err)
	}
	if s, _ := al["uriBaseId"].(string); s != "%SRCROOT%" {
		c.add(path+".physicalLocation.artifactLocation.uriBaseId", "want \"%%SRCROOT%%\"")
	}
	reg, ok := pl["region"].(map[string]any)
	if !ok {
		c.add(path+".physicalLocation.region", "missing")
		return
	}
	if n, ok := intOf(reg["startLine"]); !ok || n < 1 {
		c.add(path+".physicalLocation.region.startLine", "missing or < 1")
	}
	sc, hasStart := intOf(reg["startColumn"])
	ec, hasEnd := intOf(reg["endColumn"])
	if _, present := reg["startColumn"]; present && (!hasStart || sc < 1) {
		c.add(path+".physicalLocation.region.startColumn", "not an integer ≥ 1")
	}
	if _, present := reg["endColumn"]; present && (!hasEnd || ec < 1) {
		c.add(path+".physicalLocation.region.endColumn", "not an integer ≥ 1")
	}
	if hasStart && hasEnd && ec < sc {
		c.add(path+".physicalLocation.region.endColumn", "before startColumn")
	}
}

// checkRelativeURI accepts an RFC 3986 relative-path reference: only
// unreserved, reserved and percent-encoded characters, no scheme, no
// authority, no leading "/".
func checkRelativeURI(u string) error {
	if u == "" {
		return errors.New("missing")
	}
	if u[0] == '/' {
		return errors.New("not relative (leading /)")
	}
	seg, _, _ := strings.Cut(u, "/")
	if strings.Contains(seg, ":") {
		return errors.New("first segment contains ':' (reads as a scheme)")
	}
	for i := 0; i < len(u); i++ {
		ch := u[i]
		switch {
		case ch == '%':
			if i+2 >= len(u) || !isHex(u[i+1]) || !isHex(u[i+2]) {
				return errors.New("invalid percent-encoding")
			}
			i += 2
		case 'a' <= ch && ch <= 'z', 'A' <= ch && ch <= 'Z', '0' <= ch && ch <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=:@/?#", ch) >= 0:
		default:
			return fmt.Errorf("character 0x%02X must be percent-encoded", ch)
		}
	}
	return nil
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func validLevel(v any) bool {
	switch s, _ := v.(string); s {
	case "error", "warning", "note":
		return true
	}
	return false
}

// obj returns m[k] as an object, or nil.
func obj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

func intOf(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	if _, err := strconv.ParseUint(n.String(), 10, 64); err == nil {
		return math.MaxInt64, true // e.g. uint(-1), which go-sarif can emit
	}
	return 0, false
}

func gzipSize(b []byte) (int, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return buf.Len(), nil
}
