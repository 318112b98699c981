package leaktest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// actionMatrix runs `privscan action` for pull_request, push, merge_group
// and workflow_dispatch events, and its error and skip paths, checking
// stdout (annotations), stderr, the SARIF file, GITHUB_STEP_SUMMARY and
// GITHUB_OUTPUT.
func (w *world) actionMatrix(t *testing.T) {
	c := w.c
	mainSHA := w.git.run("rev-parse", "main")
	headSHA := w.git.run("rev-parse", "HEAD")
	event := func(name, kind string, payload []byte) string {
		p := filepath.Join(w.inputs, "event-"+name+".json")
		if err := os.WriteFile(p, payload, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pr := event("pr", "pull_request", w.eventPayload("pull_request", mainSHA, headSHA))
	push := event("push", "push", w.eventPayload("push", mainSHA, headSHA))
	mg, _ := json.Marshal(map[string]any{"merge_group": map[string]any{"base_sha": mainSHA, "head_sha": headSHA, "base_ref": "refs/heads/main", "head_ref": "refs/heads/gh-readonly-queue/main/" + w.branch}})
	mgPath := event("mg", "merge_group", mg)
	var forkEv map[string]any
	_ = json.Unmarshal(w.eventPayload("pull_request", mainSHA, headSHA), &forkEv)
	forkEv["pull_request"].(map[string]any)["head"].(map[string]any)["repo"] = map[string]any{"full_name": "fork/" + strings.ToLower(identSpellings(c.idents[1])[4])}
	fb, _ := json.Marshal(forkEv)
	fork := event("fork", "pull_request", fb)
	badSHA := event("bad-sha", "pull_request", w.eventPayload("pull_request", c.persons[0], headSHA))
	malformed := event("malformed", "pull_request", []byte(`{"pull_request": {"title": "`+c.persons[0]+`", "body": `+c.email+`}`))
	wrongType := event("wrong-type", "pull_request", []byte(`{"pull_request": {"title": ["`+c.persons[1]+`"]}}`))
	noPR := event("no-pr", "pull_request", []byte(`{"repository": {"full_name": "`+c.persons[2]+`"}}`))

	catalog := catalogMarkdown(c, c.fpKey)
	base := func(ev, path string) map[string]string {
		return map[string]string{
			"GITHUB_EVENT_NAME": ev, "GITHUB_EVENT_PATH": path, "GITHUB_WORKSPACE": w.repo,
			"GITHUB_SHA": headSHA, "RUNNER_TEMP": "{out}",
			"GITHUB_STEP_SUMMARY": "{out}/step-summary.md", "GITHUB_OUTPUT": "{out}/github-output.txt",
			"PRIVSCAN_CATALOG": catalog,
		}
	}
	with := func(m map[string]string, kv ...string) map[string]string {
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	type ac struct {
		path  string
		env   map[string]string
		codes []int
		want  string
	}
	cases := []ac{
		{"ok:pull_request", base("pull_request", pr), []int{0}, "scanned"},
		{"ok:pull_request/no-annotations", with(base("pull_request", pr), "PRIVSCAN_ANNOTATIONS", "false", "PRIVSCAN_SCAN_PR_TEXT", "false"), []int{0}, "scanned"},
		{"ok:pull_request/fail-on-note", with(base("pull_request", pr), "PRIVSCAN_FAIL_ON", "note", "PRIVSCAN_CATEGORY", "privscan/pr"), []int{0}, "scanned"},
		{"ok:pull_request/inputs", with(base("pull_request", pr), "PRIVSCAN_BASE", "main", "PRIVSCAN_HEAD", w.branch, "PRIVSCAN_SARIF_FILE", "{out}/custom.sarif"), []int{0}, "scanned"},
		{"ok:pull_request/catalog-file", with(base("pull_request", pr), "PRIVSCAN_CATALOG", "", "PRIVSCAN_CATALOG_FILE", w.catFile), []int{0}, "scanned"},
		{"ok:pull_request/no-output", with(base("pull_request", pr), "GITHUB_OUTPUT", ""), []int{1}, "scanned"},
		{"ok:push", base("push", push), []int{0}, "scanned"},
		{"ok:push/base-input", with(base("push", push), "PRIVSCAN_BASE", "v-"+identSpellings(c.idents[1])[0]), []int{0}, "scanned"},
		{"ok:merge_group", base("merge_group", mgPath), []int{0}, "scanned"},
		{"ok:workflow_dispatch", with(base("workflow_dispatch", push), "PRIVSCAN_BASE", "main"), []int{0}, "scanned"},
		{"skip:fork", with(base("pull_request", fork), "PRIVSCAN_CATALOG", "", "XDG_CONFIG_HOME", filepath.Join(w.inputs, "cfg-empty")), []int{0}, ""},
		{"skip:no-catalog", with(base("push", push), "PRIVSCAN_CATALOG", "", "XDG_CONFIG_HOME", filepath.Join(w.inputs, "cfg-empty")), []int{0}, ""},
		{"err:pull_request_target", base("pull_request_target", pr), []int{2}, "pull_request_target"},
		{"err:bad-rev-input", with(base("pull_request", pr), "PRIVSCAN_BASE", c.badRev), []int{2}, "unknown revision"},
		{"err:bad-rev-input-head", with(base("push", push), "PRIVSCAN_BASE", "main", "PRIVSCAN_HEAD", identSpellings(c.idents[0])[3]), []int{2}, "unknown revision"},
		{"err:rev-input-option", with(base("pull_request", pr), "PRIVSCAN_BASE", "--"+identSpellings(c.idents[0])[2]), []int{2}, "base"},
		{"err:rev-input-space", with(base("pull_request", pr), "PRIVSCAN_HEAD", c.persons[0]), []int{2}, "head"},
		{"err:rev-input-range", with(base("pull_request", pr), "PRIVSCAN_BASE", "main.."+c.badRev), []int{2}, "base"},
		{"err:fail-on-input", with(base("pull_request", pr), "PRIVSCAN_FAIL_ON", c.persons[1]), []int{2}, "fail-on"},
		{"err:bool-input", with(base("pull_request", pr), "PRIVSCAN_ANNOTATIONS", c.persons[2]), []int{2}, "annotations"},
		{"err:category-input", with(base("pull_request", pr), "PRIVSCAN_CATEGORY", c.persons[0]+"\x01"), []int{2}, "category"},
		{"err:event-sha", base("pull_request", badSHA), []int{2}, "sha"},
		{"err:event-malformed", base("pull_request", malformed), []int{2}, "event payload"},
		{"err:event-type", base("pull_request", wrongType), []int{2}, "event payload"},
		{"err:event-no-pr", base("pull_request", noPR), []int{2}, "pull_request"},
		{"err:event-missing", base("pull_request", filepath.Join(w.inputs, "nonexistent.json")), []int{2}, "GITHUB_EVENT_PATH"},
		{"err:catalog_invalid", with(base("pull_request", pr), "PRIVSCAN_CATALOG", brokenCatalogs(c)["invalid-regex"]), []int{2}, "catalog_invalid"},
		{"err:catalog_invalid/short", with(base("pull_request", pr), "PRIVSCAN_CATALOG", brokenCatalogs(c)["short-literal"]), []int{2}, "catalog_invalid"},
		{"err:not_markdown", with(base("pull_request", pr), "PRIVSCAN_CATALOG", "", "PRIVSCAN_CATALOG_FILE", filepath.Join(w.config, "privscan", "notes.txt")), []int{2}, "not_markdown"},
		{"err:too_large", with(base("pull_request", pr), "PRIVSCAN_CATALOG", w.hugeCatalog()), []int{2}, "too_large"},
		{"err:cancel", base("pull_request", pr), []int{2}, "interrupted"},
	}
	for _, a := range cases {
		cs := cliCase{group: "action", verb: "action " + a.env["GITHUB_EVENT_NAME"], path: a.path, args: []string{"action"}, env: a.env, codes: a.codes,
			touch: []string{"step-summary.md", "github-output.txt"}}
		if a.want != "" {
			cs.want = []string{a.want}
		}
		if strings.HasPrefix(a.path, "ok:") {
			cs.found = "catalog/PER-001" // in the SARIF log and the job summary
		}
		if a.path == "err:cancel" {
			cs.cancel = "before"
		}
		w.runCLI(t, cs)
	}
}

// hookMatrix runs the Claude Code PreToolUse hook with commands and staged
// changes that hold canaries.
func (w *world) hookMatrix(t *testing.T) {
	c := w.c
	payload := func(command, cwd string) []byte {
		b, _ := json.Marshal(map[string]any{
			"session_id": "s-" + identSpellings(c.idents[0])[2], "cwd": cwd, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "commit " + c.persons[0]},
		})
		return b
	}
	msgFile := filepath.Join(w.inputs, "commit-msg.txt")
	writeFile(t, msgFile, "Fix for "+c.persons[1]+"\n\n"+strings.Join(c.matchable(), "\n")+"\n")
	quoted := strings.ReplaceAll(c.persons[0], "'", "")
	type hc struct {
		path  string
		stdin []byte
		args  []string
		codes []int
		want  string
	}
	cases := []hc{
		{"block:staged+message", payload("git commit -m 'Add "+quoted+" ("+c.email+")'", w.repo), nil, []int{2}, "blocked"},
		{"block:all", payload("cd "+w.repo+" && git commit -am 'wip "+c.rxHits[0]+"'", "/"), nil, []int{2}, "blocked"},
		{"block:message-file", payload("git -C "+w.repo+" commit -F "+msgFile, w.root), nil, []int{2}, "blocked"},
		{"block:heredoc", payload("git commit -F - <<'EOF'\n"+c.persons[2]+"\n"+identSpellings(c.idents[1])[0]+"\nEOF", w.repo), nil, []int{2}, "blocked"},
		{"block:paths", payload("git commit README.md -m x", w.repo), nil, []int{2}, "blocked"},
		{"block:fail-on", payload("git commit -m ok", w.repo), []string{"--fail-on", "note"}, []int{2}, "blocked"},
		{"block:chained", payload("git add -A && git commit -m '"+c.token+"' && git -C "+w.repo+" commit -m again", w.repo), nil, []int{2}, "blocked"},
		{"pass:not-commit", payload("echo '"+quoted+"' && grep -r "+c.rxHits[0]+" .", w.repo), nil, []int{0}, ""},
		{"pass:not-a-repo", payload("git commit -m '"+quoted+"'", w.inputs), nil, []int{0}, ""},
		{"pass:other-tool", []byte(`{"tool_name": "Write", "tool_input": {"command": "git commit -m '` + quoted + `'"}}`), nil, []int{0}, ""},
		{"note:malformed", []byte(`{"tool_name": "Bash", "tool_input": {"command": "git commit -m '` + quoted + `'"`), nil, []int{0}, "hook payload"},
		{"note:wrong-type", []byte(`{"tool_name": "Bash", "cwd": ["` + c.persons[1] + `"], "tool_input": {"command": "git commit"}}`), nil, []int{0}, "hook payload"},
		{"note:not-json", []byte(c.persons[2] + " " + c.email), nil, []int{0}, "hook payload"},
		{"note:catalog_invalid", payload("git commit -m '"+quoted+"'", w.repo), []string{"--catalog-key", "broken-invalid-regex"}, []int{0}, "catalog_invalid"},
		{"note:config_invalid", payload("git commit -m '"+quoted+"'", w.repo), nil, []int{0}, "config_invalid"},
		{"err:fail-on-value", payload("git commit", w.repo), []string{"--fail-on", c.persons[0]}, []int{2}, "--fail-on"},
		{"err:unknown-flag", payload("git commit", w.repo), []string{"--" + identSpellings(c.idents[0])[2]}, []int{2}, "unknown flag"},
	}
	for _, h := range cases {
		cs := cliCase{group: "hook", verb: "hook claude-pre-tool-use", path: h.path, args: append([]string{"hook", "claude-pre-tool-use"}, h.args...), stdin: h.stdin, codes: h.codes}
		if h.want != "" {
			cs.want = []string{h.want}
		}
		if strings.HasPrefix(h.path, "block:") {
			cs.want = append(cs.want, "catalog/")
		}
		if h.path == "note:config_invalid" {
			cs.env = map[string]string{"XDG_CONFIG_HOME": filepath.Join(w.inputs, "cfg-invalid-toml")}
		}
		w.runCLI(t, cs)
	}
}

// guardMatrix runs the Claude Code guard (claude-guard, and the output
// check of claude-post-tool-use) on Reads, prompts, outbound tool inputs
// and tool outputs that hold every canary, in every shape: whole files,
// windows, notebooks, URLs, nested MCP arguments; and its error paths.
func (w *world) guardMatrix(t *testing.T) {
	c := w.c
	sp := c.matchable()
	all := strings.Join(sp, "\n")
	fixtures := filepath.Join(w.repo, "internal", "users", "fixtures.go")
	nb := filepath.Join(w.inputs, "guard.ipynb")
	nbDoc, _ := json.Marshal(map[string]any{"nbformat": 4, "cells": []any{map[string]any{"cell_type": "code", "source": sp,
		"outputs": []any{map[string]any{"output_type": "stream", "text": []string{c.persons[1], c.email}}}}}})
	writeFile(t, nb, string(nbDoc))
	img := filepath.Join(w.inputs, c.persons[0]+".png")
	writeFile(t, img, "\x89PNG\r\n\x1a\n"+c.persons[0])
	payload := func(event, tool string, input map[string]any, extra map[string]any) []byte {
		p := map[string]any{"session_id": "s-" + identSpellings(c.idents[0])[2], "cwd": w.repo, "hook_event_name": event,
			"transcript_path": filepath.Join(w.inputs, c.persons[2]+".jsonl")}
		if tool != "" {
			p["tool_name"], p["tool_input"] = tool, input
		}
		for k, v := range extra {
			p[k] = v
		}
		b, _ := json.Marshal(p)
		return b
	}
	read := func(path string, kv ...any) []byte {
		in := map[string]any{"file_path": path}
		for i := 0; i+1 < len(kv); i += 2 {
			in[kv[i].(string)] = kv[i+1]
		}
		return payload("PreToolUse", "Read", in, nil)
	}
	bashOut := func(stdout, stderr string) []byte {
		return payload("PostToolUse", "Bash", map[string]any{"command": "cat " + c.persons[0]},
			map[string]any{"tool_response": map[string]any{"stdout": stdout, "stderr": stderr, "interrupted": false}})
	}
	type gc struct {
		path  string
		verb  string
		stdin []byte
		args  []string
		env   map[string]string
		codes []int
		want  string
	}
	guard := "claude-guard"
	cases := []gc{
		{"deny:read-whole", guard, read(fixtures), nil, nil, []int{2}, "read_redacted"},
		{"deny:read-window", guard, read(fixtures, "offset", 2, "limit", 3), nil, nil, []int{2}, "line"},
		{"deny:read-relative", guard, read("docs/notes.md"), nil, nil, []int{2}, "catalog/"},
		{"deny:read-untracked", guard, read(filepath.Join(w.repo, "notes", "untracked.yaml")), nil, nil, []int{2}, "catalog/"},
		{"deny:read-ignored", guard, read(filepath.Join(w.repo, "ignored", "private.txt")), nil, nil, []int{2}, "catalog/"},
		{"deny:read-catalog-itself", guard, read(w.catFile), nil, nil, []int{2}, "catalog/"},
		{"deny:notebook", guard, read(nb), nil, nil, []int{2}, "notebook"},
		{"deny:notebook-read", guard, payload("PreToolUse", "NotebookRead", map[string]any{"notebook_path": nb}, nil), nil, nil, []int{2}, "notebook"},
		{"deny:image", guard, read(img), nil, nil, []int{2}, "an image"},
		{"deny:prompt", guard, payload("UserPromptSubmit", "", nil, map[string]any{"prompt": "Draft a reply to " + c.persons[0] + "\n" + all}), nil, nil, []int{2}, "privscan redact"},
		{"deny:webfetch", guard, payload("PreToolUse", "WebFetch", map[string]any{"url": "https://example.com/u/" + strings.ReplaceAll(c.persons[1], " ", "%20") + "?h=" + c.host, "prompt": c.email}, nil), nil, nil, []int{2}, "must not leave"},
		{"deny:websearch", guard, payload("PreToolUse", "WebSearch", map[string]any{"query": c.persons[2] + " " + c.token}, nil), nil, nil, []int{2}, "must not leave"},
		{"deny:mcp-nested", guard, payload("PreToolUse", "mcp__tracker__"+identSpellings(c.idents[0])[2], map[string]any{"fields": map[string]any{c.persons[0]: []any{all}}}, nil), nil, nil, []int{2}, "this MCP tool"},
		{"flag:bash-output", guard, bashOut(all, c.persons[0]), nil, nil, []int{2}, "do not copy"},
		{"flag:bash-output-post", "claude-post-tool-use", bashOut(all, ""), nil, nil, []int{2}, "do not copy"},
		{"flag:grep-output", guard, payload("PostToolUse", "Grep", map[string]any{"pattern": c.persons[0]},
			map[string]any{"tool_response": map[string]any{"mode": "content", "content": all, "filenames": []string{c.persons[1] + ".txt"}}}), nil, nil, []int{2}, "do not copy"},
		{"warn:read", guard, read(fixtures), nil, map[string]string{"XDG_CONFIG_HOME": filepath.Join(w.inputs, "cfg-guard-warn")}, []int{0}, ""},
		{"pass:read-clean", guard, read(filepath.Join(w.repo, ".gitignore")), nil, nil, []int{0}, ""},
		{"pass:own-tool", guard, payload("PreToolUse", "mcp__plugin_privscan_privscan__scan_text", map[string]any{"text": all}, nil), nil, nil, []int{0}, ""},
		{"fail:malformed", guard, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + c.persons[0]), nil, nil, []int{2}, "could not read the hook payload"},
		{"fail:not-json", guard, []byte(c.persons[2] + " " + c.email), nil, nil, []int{2}, "could not read the hook payload"},
		{"fail:catalog_invalid", guard, read(fixtures), []string{"--catalog-key", "broken-invalid-regex"}, nil, []int{2}, "catalog_invalid"},
		{"fail:config_invalid", guard, read(fixtures), nil, map[string]string{"XDG_CONFIG_HOME": filepath.Join(w.inputs, "cfg-invalid-toml")}, []int{2}, "config_invalid"},
		{"fail:missing-catalog-key", guard, payload("UserPromptSubmit", "", nil, map[string]any{"prompt": all}), []string{"--catalog-key", "nosuch"}, nil, []int{2}, "unknown_key"},
	}
	warnCfg := filepath.Join(w.inputs, "cfg-guard-warn", "privscan")
	if err := os.MkdirAll(warnCfg, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(warnCfg, "catalog.md"), catalogMarkdown(c, c.fpKey))
	writeFile(t, filepath.Join(warnCfg, "context-map.toml"), "[catalogs]\ndefault = \"catalog.md\"\n\n[guard]\nread = \"warn\"\n")
	for _, g := range cases {
		cs := cliCase{group: "guard", verb: "hook " + g.verb, path: g.path, args: append([]string{"hook", g.verb}, g.args...), stdin: g.stdin, codes: g.codes, env: g.env}
		if g.want != "" {
			cs.want = []string{g.want}
		}
		w.runCLI(t, cs)
	}
}
