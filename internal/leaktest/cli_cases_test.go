package leaktest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var formats = []string{"text", "json", "sarif", "github", "markdown"}

// errCase is an error path shared by the commands that read a catalog.
type errCase struct {
	path string
	env  map[string]string
	args []string
	want string // the error code or phrase stderr must contain
}

// inputs writes the test's input files and returns their paths.
func (w *world) writeInputs(t *testing.T) map[string]string {
	t.Helper()
	c := w.c
	in := map[string]string{}
	put := func(name, content string) string {
		p := filepath.Join(w.inputs, name)
		writeFile(t, p, content)
		in[name] = p
		return p
	}
	put("pr.txt", "Title: fixtures for "+c.persons[0]+"\n\n"+strings.Join(c.matchable(), "\n")+"\n")
	put("bad.toml", "fail-on = \"warning\"\nexclude = [\""+c.persons[0]+"\", \""+c.email+"\"\n")
	put("bad-key.toml", identSpellings(c.idents[0])[2]+" = \""+c.persons[1]+"\"\n")
	put("bad-severity.toml", "[severity]\n\""+c.rxHits[0]+"\" = \""+c.persons[2]+"\"\n")
	put("unknown-pii-rule.toml", "[severity]\n\"pii/"+identSpellings(c.idents[0])[1]+"\" = \"off\"\n")
	put("unknown-catalog-rule.toml", "[severity]\n\"catalog/"+identSpellings(c.idents[1])[2]+"\" = \"off\"\n")
	put("bad-detector.toml", "[detectors]\n"+identSpellings(c.idents[1])[2]+" = true\n")
	put("bad-baseline.json", "{\"version\": 1, \"findings\": [{\"fingerprint\": \""+c.persons[0]+"\"}, "+c.email)
	put("wrong-baseline.json", "{\"version\": 7, \"tool\": \""+c.token+"\"}")

	// Key maps in their own XDG_CONFIG_HOME.
	cfg := func(name, mapContent string) {
		p := filepath.Join(w.inputs, "cfg-"+name, "privscan", "context-map.toml")
		if mapContent != "" {
			writeFile(t, p, mapContent)
		} else if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		in["cfg-"+name] = filepath.Join(w.inputs, "cfg-"+name)
	}
	cfg("empty", "")
	cfg("invalid-toml", "[catalogs]\ndefault = "+c.persons[0]+"\n")
	cfg("unterminated", "[catalogs]\ndefault = \""+c.persons[1]+"\n")
	cfg("wrong-type", "[catalogs]\ndefault = 5\n\""+c.persons[2]+"\" = \"x.md\"\n")
	cfg("unknown-table", "["+identSpellings(c.idents[0])[2]+"]\n"+c.rxHits[0]+" = \""+c.email+"\"\n")
	cfg("no-default", "[catalogs]\nother = \"other.md\"\n")
	cfg("map-dir", "")
	if err := os.MkdirAll(filepath.Join(in["cfg-map-dir"], "privscan", "context-map.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg("binary", "[catalogs]\ndefault = \"\xff\xfe"+c.persons[0]+"\"\n")
	return in
}

// catalogErrors are the broken catalog setups, one per error kind (and one
// per way of producing catalog_invalid), each with canaries in the bad
// input.
func (w *world) catalogErrors(in map[string]string) []errCase {
	c := w.c
	cases := []errCase{
		{path: "config_missing", env: map[string]string{"XDG_CONFIG_HOME": in["cfg-empty"]}, want: "config_missing"},
		{path: "config_invalid/toml", env: map[string]string{"XDG_CONFIG_HOME": in["cfg-invalid-toml"]}, want: "config_invalid"},
		{path: "config_invalid/unterminated", env: map[string]string{"XDG_CONFIG_HOME": in["cfg-unterminated"]}, want: "config_invalid"},
		{path: "config_invalid/type", env: map[string]string{"XDG_CONFIG_HOME": in["cfg-wrong-type"]}, want: "config_invalid"},
		{path: "config_invalid/table", env: map[string]string{"XDG_CONFIG_HOME": in["cfg-unknown-table"]}, want: "config_invalid"},
		{path: "config_invalid/binary", env: map[string]string{"XDG_CONFIG_HOME": in["cfg-binary"]}, want: "config_invalid"},
		{path: "unreadable-map", env: map[string]string{"XDG_CONFIG_HOME": in["cfg-map-dir"]}, want: "config_invalid"},
		{path: "unknown_key", args: []string{"--catalog-key", "nosuch"}, want: "unknown_key"},
		{path: "unknown_key/no-default", env: map[string]string{"XDG_CONFIG_HOME": in["cfg-no-default"]}, want: "unknown_key"},
		{path: "file_missing", args: []string{"--catalog-key", "missing"}, want: "file_missing"},
		{path: "not_markdown", args: []string{"--catalog-key", "txt"}, want: "not_markdown"},
		{path: "not_markdown/env-file", env: map[string]string{"PRIVSCAN_CATALOG_FILE": filepath.Join(w.config, "privscan", "notes.txt")}, want: "not_markdown"},
		{path: "not_regular_file", args: []string{"--catalog-key", "dir"}, want: "not_regular_file"},
		{path: "too_large", args: []string{"--catalog-key", "big"}, want: "too_large"},
		{path: "too_large/env", env: map[string]string{"PRIVSCAN_CATALOG": w.hugeCatalog()}, want: "too_large"},
		{path: "catalog_invalid/env", env: map[string]string{"PRIVSCAN_CATALOG": brokenCatalogs(c)["invalid-regex"]}, want: "catalog_invalid"},
	}
	names := make([]string, 0)
	for n := range brokenCatalogs(c) {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cases = append(cases, errCase{path: "catalog_invalid/" + n, args: []string{"--catalog-key", "broken-" + n}, want: "catalog_invalid"})
	}
	return cases
}

// hugeCatalog is a PRIVSCAN_CATALOG over the 64 MiB limit, full of canaries.
func (w *world) hugeCatalog() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.huge == "" {
		line := w.c.persons[0] + "\n"
		w.huge = "## HUGE\n- category: huge\n\n```values\n" + strings.Repeat(line, (65<<20)/len(line)) + "```\n"
	}
	return w.huge
}

// cliMatrix runs every CLI verb through its success and error paths, the
// scanning verbs in every format.
func (w *world) cliMatrix(t *testing.T) {
	c := w.c
	in := w.writeInputs(t)
	ok := []int{0, 1}
	fail := []int{2}
	catErrs := w.catalogErrors(in)

	// A baseline written by privscan itself (its output is checked too).
	w.runCLI(t, cliCase{group: "scan", verb: "diff", format: "json", path: "ok:baseline-source",
		args: []string{"diff", "main..HEAD", "--output", "{out}/baseline.json"}, codes: ok})
	baseline := filepath.Join(w.inputs, "baseline.json")
	w.runCLI(t, cliCase{group: "scan", verb: "diff", format: "json", path: "ok:baseline-copy",
		args: []string{"diff", "main..HEAD", "--output", baseline, "--fail-on", "never"}, codes: []int{0}})

	success := map[string][][]string{
		"diff": {
			{}, {"--staged"}, {"--no-untracked"}, {"HEAD~2"}, {"HEAD"},
			{"main.." + w.branch}, {"main..." + w.branch}, {"main", w.branch},
			{"v-" + identSpellings(c.idents[1])[0] + "..HEAD"},
			{"HEAD~2", "--no-messages", "--", "docs", "src"},
			{"main..HEAD", "--output", "{out}/report"},
			{"main..HEAD", "--baseline", baseline},
			{"main..HEAD", "-q", "--fail-on", "never", "--category", "privscan/leaktest"},
			{"HEAD", "--config", filepath.Join(w.inputs, "ok.toml")},
			{"HEAD", "--config", in["unknown-catalog-rule.toml"]},
			{"HEAD~2", "-v", "--show-fingerprints"},
			{"main..HEAD", "-v", "--config", filepath.Join(w.inputs, "ok.toml")},
		},
		"history": {{}, {"main.." + w.branch}, {w.branch}, {"--", "docs"}, {"main..HEAD", "--baseline", baseline},
			{"-v"}, {"-v", "--show-fingerprints", "--config", filepath.Join(w.inputs, "ok.toml")}, {"main..HEAD", "-v", "--baseline", baseline}},
		"scan": {{}, {"internal", "docs", "notes"}, {"--output", "{out}/report", "--fail-on", "error"}, {"-v", "--show-fingerprints"}},
		"text": {{"-"}, {in["pr.txt"]}, {}, {"-", "-v", "--show-fingerprints"}},
	}
	writeFile(t, filepath.Join(w.inputs, "ok.toml"), "fail-on = \"error\"\nexclude = [\"docs/**\"]\n[detectors]\nphone = false\n[severity]\n\"catalog/EMP-ID\" = \"warning\"\n")
	verbs := []string{"diff", "history", "scan", "text"}
	prText, _ := os.ReadFile(in["pr.txt"])
	for _, verb := range verbs {
		for _, format := range formats {
			for i, args := range success[verb] {
				cs := cliCase{group: "scan", verb: verb, format: format, path: "ok:" + pathName(i, args),
					args: append([]string{verb}, args...), stdin: prText, codes: ok, found: "catalog/PER-001"}
				if strings.Contains(cs.path, "baseline") {
					cs.found = "" // the baseline suppresses every finding
				}
				w.runCLI(t, cs)
			}
			errs := append([]errCase{}, catErrs...)
			errs = append(errs,
				errCase{path: "bad-flag/format-value", args: []string{"--format", c.persons[0]}, want: "--format"},
				errCase{path: "bad-flag/fail-on-value", args: []string{"--fail-on", c.persons[1]}, want: "--fail-on"},
				errCase{path: "bad-flag/unknown-flag", args: []string{"--" + identSpellings(c.idents[0])[2]}, want: "unknown flag"},
				errCase{path: "bad-flag/unknown-flag-value", args: []string{"--" + identSpellings(c.idents[1])[3] + "=" + c.email}, want: "unknown flag"},
				errCase{path: "bad-config/toml", args: []string{"--config", in["bad.toml"]}, want: "config"},
				errCase{path: "bad-config/key", args: []string{"--config", in["bad-key.toml"]}, want: "config"},
				errCase{path: "bad-config/severity", args: []string{"--config", in["bad-severity.toml"]}, want: "config"},
				errCase{path: "bad-config/detector", args: []string{"--config", in["bad-detector.toml"]}, want: "config"},
				errCase{path: "bad-baseline/syntax", args: []string{"--baseline", in["bad-baseline.json"]}, want: "baseline"},
				errCase{path: "bad-baseline/version", args: []string{"--baseline", in["wrong-baseline.json"]}, want: "baseline"},
				errCase{path: "cancel/before", want: "interrupted"},
				errCase{path: "bad-config/missing", args: []string{"--config", filepath.Join(w.inputs, identSpellings(c.idents[0])[1]+".toml")}, want: "does not exist"},
				errCase{path: "bad-config/severity-rule", args: []string{"--config", in["unknown-pii-rule.toml"]}, want: "does not exist"},
			)
			if verb == "scan" {
				errs = append(errs, errCase{path: "bad-path/missing", args: []string{identSpellings(c.idents[0])[1]}, want: "does not exist"})
			}
			if verb == "diff" || verb == "history" {
				errs = append(errs,
					errCase{path: "bad-rev/rev", args: []string{c.badRev}, want: "unknown revision"},
					errCase{path: "bad-rev/range-head", args: []string{"main.." + c.badRev + "-" + c.rxHits[1]}, want: "unknown revision"},
					errCase{path: "bad-rev/range-base", args: []string{identSpellings(c.idents[0])[3] + ".." + w.branch}, want: "unknown revision"},
				)
			}
			if verb == "diff" {
				errs = append(errs,
					errCase{path: "bad-rev/two", args: []string{"main", c.badRev}, want: "unknown revision"},
					errCase{path: "bad-rev/symmetric", args: []string{c.badRev + "..." + w.branch}, want: "unknown revision"},
					errCase{path: "bad-args/three-revs", args: []string{"main", w.branch, c.badRev}, want: "revisions"},
				)
			}
			if verb == "text" {
				errs = append(errs, errCase{path: "bad-args/two-files", args: []string{in["pr.txt"], c.persons[0]}, want: "at most one"})
			}
			for _, e := range errs {
				cs := cliCase{group: "scan", verb: verb, format: format, path: "err:" + e.path,
					args: append([]string{verb}, e.args...), env: e.env, stdin: prText, codes: fail, want: []string{e.want}}
				if e.path == "cancel/before" {
					cs.cancel = "before"
				}
				w.runCLI(t, cs)
			}
			if verb == "diff" || verb == "history" {
				// A path filter named by a canary that matches nothing: the
				// warning must not name it.
				w.runCLI(t, cliCase{group: "scan", verb: verb, format: format, path: "ok:unmatched-path-filter",
					args: []string{verb, "--", "docs", identSpellings(c.idents[0])[1]}, codes: ok, want: []string{"path filter 2 of 2 matched no file"}})
			}
			// Interrupted while reading: stdin for text, a timer elsewhere
			// (the run may finish first: either way nothing may leak).
			cs := cliCase{group: "scan", verb: verb, format: format, path: "err:cancel/during",
				args: []string{verb}, stdin: []byte(strings.Repeat(string(prText), 200)), cancel: "timed"}
			if verb == "text" {
				cs.cancel, cs.codes, cs.want = "during", fail, []string{"interrupted"}
			}
			w.runCLI(t, cs)
		}
	}

	// redact: copies text, so its input holds canaries only in spellings
	// the detectors match: every one must be replaced.
	w.runCLI(t, cliCase{group: "other", verb: "redact", path: "ok:stdin", args: []string{"redact"}, stdin: prText, codes: []int{0}, found: "[person:"})
	w.runCLI(t, cliCase{group: "other", verb: "redact", path: "ok:file", args: []string{"redact", in["pr.txt"], "-q"}, codes: []int{0}, found: "[codename:"})
	w.runCLI(t, cliCase{group: "other", verb: "redact", path: "ok:config", args: []string{"redact", "-", "--config", filepath.Join(w.inputs, "ok.toml")}, stdin: prText, codes: []int{0}, found: "[employee-id:"})
	w.runCLI(t, cliCase{group: "other", verb: "redact", path: "err:cancel/before", args: []string{"redact"}, stdin: prText, cancel: "before", codes: fail, want: []string{"interrupted"}})
	w.runCLI(t, cliCase{group: "other", verb: "redact", path: "err:cancel/during", args: []string{"redact"}, stdin: []byte(strings.Repeat(string(prText), 200)), cancel: "during", codes: fail, want: []string{"interrupted"}})
	w.runCLI(t, cliCase{group: "other", verb: "redact", path: "err:bad-flag", args: []string{"redact", "--" + identSpellings(c.idents[0])[2] + "=" + c.persons[0]}, codes: fail, want: []string{"unknown flag"}})
	w.runCLI(t, cliCase{group: "other", verb: "redact", path: "err:bad-config", args: []string{"redact", "--config", in["bad.toml"]}, stdin: prText, codes: fail, want: []string{"config"}})
	w.runCLI(t, cliCase{group: "other", verb: "redact", path: "err:two-files", args: []string{"redact", in["pr.txt"], c.persons[1]}, codes: fail})
	for _, e := range catErrs {
		w.runCLI(t, cliCase{group: "other", verb: "redact", path: "err:" + e.path, args: append([]string{"redact"}, e.args...), env: e.env, stdin: prText, codes: fail, want: []string{e.want}})
	}

	// catalog check
	w.runCLI(t, cliCase{group: "other", verb: "catalog check", path: "ok", args: []string{"catalog", "check"}, codes: []int{0}})
	w.runCLI(t, cliCase{group: "other", verb: "catalog check", path: "ok:env", args: []string{"catalog", "check"},
		env: map[string]string{"PRIVSCAN_CATALOG": catalogMarkdown(c, c.fpKey)}, codes: []int{0}})
	w.runCLI(t, cliCase{group: "other", verb: "catalog check", path: "err:extra-arg", args: []string{"catalog", "check", c.persons[0]}, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "catalog check", path: "err:sub-command", args: []string{"catalog", c.persons[0]}, codes: fail})
	for _, e := range catErrs {
		w.runCLI(t, cliCase{group: "other", verb: "catalog check", path: "err:" + e.path, args: append([]string{"catalog", "check"}, e.args...), env: e.env, codes: fail, want: []string{e.want}})
	}

	// init writes the key map and a sample catalog under a fresh HOME.
	fresh := filepath.Join(w.root, "fresh-home")
	freshEnv := map[string]string{"HOME": fresh, "XDG_CONFIG_HOME": filepath.Join(fresh, ".config"), "XDG_STATE_HOME": filepath.Join(fresh, ".state")}
	w.runCLI(t, cliCase{group: "other", verb: "init", path: "ok", args: []string{"init"}, env: freshEnv, codes: []int{0}})
	w.runCLI(t, cliCase{group: "other", verb: "init", path: "err:exists", args: []string{"init"}, env: freshEnv, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "init", path: "ok:claude-code", args: []string{"init", "--platform", "claude-code", "--force"}, env: freshEnv, codes: []int{0}})
	w.runCLI(t, cliCase{group: "other", verb: "init", path: "err:platform-value", args: []string{"init", "--platform", c.persons[0]}, env: freshEnv, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "init", path: "err:extra-arg", args: []string{"init", c.persons[1]}, env: freshEnv, codes: fail})

	// The rest: version, help, demo, usage errors, mcp's flag checks.
	w.runCLI(t, cliCase{group: "other", verb: "version", path: "ok", args: []string{"version"}, codes: []int{0}})
	w.runCLI(t, cliCase{group: "other", verb: "help", path: "ok", args: []string{"help"}, codes: []int{0}})
	w.runCLI(t, cliCase{group: "other", verb: "help", path: "err:unknown-topic", args: []string{"help", c.persons[0]}, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "unknown", path: "err:unknown-command", args: []string{identSpellings(c.idents[0])[4]}, codes: fail})
	// Mistakes are named only after screening: every spelling of a
	// catalogued identifier, as a command or a flag, stays withheld.
	for i, sp := range identSpellings(c.idents[1]) {
		w.runCLI(t, cliCase{group: "other", verb: "unknown", path: fmt.Sprintf("err:unknown-command/spelling-%d", i), args: []string{sp}, codes: fail, want: []string{"unknown command (name withheld)"}})
		w.runCLI(t, cliCase{group: "other", verb: "unknown", path: fmt.Sprintf("err:unknown-flag/spelling-%d", i), args: []string{"history", "--" + sp}, codes: fail, want: []string{"unknown flag (name withheld)"}})
	}
	w.runCLI(t, cliCase{group: "other", verb: "unknown", path: "err:no-command", args: nil, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "demo", path: "ok", args: []string{"demo"}, codes: []int{0}})
	w.runCLI(t, cliCase{group: "other", verb: "mcp", path: "err:http-addr", args: []string{"mcp", "--http", c.persons[0]}, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "mcp", path: "err:arg", args: []string{"mcp", c.persons[0]}, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "mcp", path: "err:root", args: []string{"mcp", "--root", filepath.Join(w.root, "nonexistent")}, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "hook", path: "err:unknown-hook", args: []string{"hook", c.persons[0]}, codes: fail})
	w.runCLI(t, cliCase{group: "other", verb: "action", path: "err:arg", args: []string{"action", c.persons[0]}, codes: fail})
}

// pathName names a success path by its arguments, with canaries replaced.
func pathName(i int, args []string) string {
	if len(args) == 0 {
		return "default"
	}
	var parts []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			parts = append(parts, a)
		}
	}
	return strings.Join(append([]string{"args" + string(rune('A'+i))}, parts...), "")
}
