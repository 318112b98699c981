// Command hooktime measures the Claude Code hooks as Claude Code runs them:
// one new privscan process per tool call, the payload on standard input.
// It lays out a repository with a bare remote, writes the payloads, runs
// each case repeatedly in alternating (ABBA) order and prints the wall-time
// medians as a Markdown table.
//
// Usage:
//
//	hooktime -privscan BIN [-hook BIN] -catalog FILE [-launch SCRIPT -plugin-root DIR]
//	    [-runs 31] [-warmup 3] [-work DIR] [-out FILE.jsonl]
//
// Cases (all on clean synthetic text, so every hook exits 0 after a full
// scan; a case that exits otherwise stops the run with its exit status):
//
//	pre/non-git      PreToolUse, Bash `ls -la`
//	pre/commit       PreToolUse, `git add -A && git commit -m …` (3 files, 80 lines)
//	pre/push         PreToolUse, `git push origin main` (3 commits ahead)
//	post/edit        PostToolUse, Edit of a tracked 200-line file (20 lines changed)
//	post/write-new   PostToolUse, Write of a new untracked 200-line file
//	post/bash        PostToolUse, Bash `ls -la` (the net: no new commit)
//	version          privscan version: the start-up the guard's budget is
//	                 measured against (guard cases ≤ 20 ms more)
//	guard/read       PreToolUse Read of a clean 2,000-line file
//	guard/read window  the same file, offset 900, limit 200
//	guard/prompt     UserPromptSubmit, a 21-line prompt
//	guard/webfetch   PreToolUse WebFetch of a clean URL
//	guard/bash output  PostToolUse Bash that printed 200 lines (the net and
//	                 the guard's check of the output)
//
// With -hook (cmd/privscan-hook), those cases run privscan-hook as the
// plugin's launcher does, and "privscan hook" is measured beside it on
// the edit ("post/edit, privscan hook").
//
// With -launch, the pre/non-git, pre/commit, post/edit, guard/read,
// guard/prompt and post/bash cases also run through
// scripts/privscan-launch as hooks.json starts them (its shell fast paths
// answer non-git commands, and Bash commands that printed nothing and
// moved no HEAD, without starting privscan).
//
// The catalog is passed as PRIVSCAN_CATALOG_FILE; HOME, XDG_* and git's
// global configuration point into the work directory.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hooktime:", err)
		os.Exit(1)
	}
}

// hookCase is one measured hook invocation.
type hookCase struct {
	Label   string
	Argv    []string
	Payload []byte
	Env     []string // extra environment
	Budget  float64  // ms; 0: none
}

// result is what hooktime records per case (one JSON line with -out).
type result struct {
	Label    string    `json:"label"`
	Argv     []string  `json:"argv"`
	Runs     int       `json:"runs"`
	WallMS   []float64 `json:"wallMs"`
	CPUMS    []float64 `json:"cpuMs"`
	MedianMS float64   `json:"medianMs"`
	MedCPUMS float64   `json:"medianCpuMs"`
	P90MS    float64   `json:"p90Ms"`
	MinMS    float64   `json:"minMs"`
	MaxMS    float64   `json:"maxMs"`
	BudgetMS float64   `json:"budgetMs,omitempty"`
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("hooktime", flag.ContinueOnError)
	bin := fs.String("privscan", "", "privscan `binary` to measure")
	hookBin := fs.String("hook", "", "privscan-hook `binary` to measure (the hooks run it when given)")
	catalog := fs.String("catalog", "", "catalog `FILE` (bench/cmd/gencatalog -n 10000)")
	launch := fs.String("launch", "", "also measure through this `privscan-launch` script")
	pluginRoot := fs.String("plugin-root", "", "the plugin checkout for -launch (its .claude-plugin/plugin.json gives the version)")
	runs := fs.Int("runs", 31, "recorded runs per case")
	warmup := fs.Int("warmup", 3, "unrecorded runs per case first")
	work := fs.String("work", "", "work `DIR` (default: a new temporary directory, removed at the end)")
	out := fs.String("out", "", "append results as JSON lines to `FILE`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bin == "" || *catalog == "" {
		return errors.New("-privscan and -catalog are required")
	}
	if *runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	absBin, err := filepath.Abs(*bin)
	if err != nil {
		return err
	}
	absHook := ""
	if *hookBin != "" {
		if absHook, err = filepath.Abs(*hookBin); err != nil {
			return err
		}
	}
	absCatalog, err := filepath.Abs(*catalog)
	if err != nil {
		return err
	}
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "hooktime-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return err
	}
	env := baseEnv(dir, absCatalog)
	repo, err := layout(dir, env)
	if err != nil {
		return fmt.Errorf("laying out the repository: %w", err)
	}
	cases := buildCases(absBin, absHook, repo)
	if *launch != "" {
		lc, err := launchCases(*launch, *pluginRoot, absBin, absHook, dir, repo)
		if err != nil {
			return err
		}
		cases = append(cases, lc...)
	}
	results, err := measure(cases, env, repo, *runs, *warmup)
	if err != nil {
		return err
	}
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(f)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				f.Close()
				return err
			}
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	report(stdout, results, *runs)
	return nil
}

func baseEnv(dir, catalog string) []string {
	keep := []string{"PATH", "LANG", "TMPDIR"}
	var env []string
	for _, k := range keep {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env,
		"HOME="+filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "xdg", "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "xdg", "state"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "xdg", "cache"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(dir, "gitconfig"),
		"PRIVSCAN_CATALOG_FILE="+catalog,
	)
}

// lines returns n lines of plain synthetic Go-like text, tagged so that
// files differ.
func lines(tag string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\t// %s step %d: compute the running total and keep the buffer small (%d)\n", tag, i, i*7%13)
	}
	return b.String()
}

// layout makes dir/repo (3 commits on main pushed to dir/remote.git, then
// 3 more not pushed; 3 changed files in the working tree; a 200-line file
// edited in 20 lines) and returns the repository's path.
func layout(dir string, env []string) (string, error) {
	for _, d := range []string{"home", "xdg/config", "xdg/state", "xdg/cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "gitconfig"), []byte("[user]\n\tname = Bench User\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		return "", err
	}
	repo := filepath.Join(dir, "repo")
	remote := filepath.Join(dir, "remote.git")
	git := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	write := func(name, text string) error {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(text), 0o644)
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return "", err
	}
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git init --bare: %w: %s", err, out)
	}
	steps := []func() error{
		func() error { return git("init", "-q", "-b", "main") },
		func() error { return git("remote", "add", "origin", remote) },
	}
	if err := runAll(steps); err != nil {
		return "", err
	}
	for i := 1; i <= 6; i++ {
		name := fmt.Sprintf("pkg/file%d.go", i)
		if err := write(name, "package pkg\n\nfunc f() {\n"+lines(fmt.Sprintf("file%d", i), 60)+"}\n"); err != nil {
			return "", err
		}
		if i == 1 {
			if err := write("pkg/big.go", "package pkg\n\nfunc big() {\n"+lines("big", 195)+"}\n"); err != nil {
				return "", err
			}
		}
		if err := runAll([]func() error{
			func() error { return git("add", "-A") },
			func() error { return git("commit", "-q", "-m", fmt.Sprintf("Add step %d of the total", i)) },
		}); err != nil {
			return "", err
		}
		if i == 3 {
			if err := git("push", "-q", "origin", "main"); err != nil {
				return "", err
			}
		}
	}
	// The working tree: 3 files with 80 added lines for the commit, 20
	// lines of big.go rewritten for the edit, a new 200-line file for the
	// write.
	for i, n := range []int{30, 30, 20} {
		if err := write(fmt.Sprintf("pkg/new%d.go", i), "package pkg\n\nfunc n() {\n"+lines(fmt.Sprintf("new%d", i), n)+"}\n"); err != nil {
			return "", err
		}
	}
	big := strings.Split("package pkg\n\nfunc big() {\n"+lines("big", 195)+"}\n", "\n")
	for i := 50; i < 70; i++ {
		big[i] = "\t// rewritten: fold the totals into one pass (" + fmt.Sprint(i) + ")"
	}
	if err := write("pkg/big.go", strings.Join(big, "\n")); err != nil {
		return "", err
	}
	if err := write("docs/notes.md", "# Notes\n\n"+strings.ReplaceAll(lines("notes", 198), "\t// ", "- ")); err != nil {
		return "", err
	}
	// What the guard's Read case reads: 2,000 lines, Read's default window.
	if err := write("pkg/long.go", lines("long", 2000)); err != nil {
		return "", err
	}
	return repo, nil
}

func runAll(steps []func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

func payload(event, tool, cwd string, input map[string]any, id string) []byte {
	p := map[string]any{
		"session_id":      "bench-session",
		"transcript_path": "/nonexistent/transcript.jsonl",
		"cwd":             cwd,
		"permission_mode": "default",
		"hook_event_name": event,
		"tool_name":       tool,
		"tool_input":      input,
		"tool_use_id":     id,
	}
	switch {
	case event == "PostToolUse" && tool == "Bash":
		p["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false}
	case event == "PostToolUse":
		p["tool_response"] = map[string]any{"success": true}
	case event == "UserPromptSubmit":
		delete(p, "tool_name")
		delete(p, "tool_input")
		delete(p, "tool_use_id")
		p["prompt"] = input["prompt"]
	}
	data, err := json.Marshal(p)
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return data
}

func buildCases(bin, hookBin, repo string) []hookCase {
	pre := []string{bin, "hook", "claude-pre-tool-use"}
	post := []string{bin, "hook", "claude-post-tool-use"}
	viaPrivscan := post
	if hookBin != "" {
		pre = []string{hookBin, "claude-pre-tool-use"}
		post = []string{hookBin, "claude-post-tool-use"}
	}
	big := filepath.Join(repo, "pkg", "big.go")
	notes := filepath.Join(repo, "docs", "notes.md")
	cases := []hookCase{
		{Label: "pre/non-git", Argv: pre, Payload: payload("PreToolUse", "Bash", repo, map[string]any{"command": "ls -la", "description": "List files"}, "toolu_bench_1")},
		{Label: "pre/commit", Argv: pre, Payload: payload("PreToolUse", "Bash", repo, map[string]any{"command": `git add -A && git commit -m "Add the running totals"`, "description": "Commit"}, "toolu_bench_2")},
		{Label: "pre/push", Argv: pre, Payload: payload("PreToolUse", "Bash", repo, map[string]any{"command": "git push origin main", "description": "Push"}, "toolu_bench_3")},
		{Label: "post/edit", Argv: post, Budget: 50, Payload: payload("PostToolUse", "Edit", repo, map[string]any{"file_path": big, "old_string": "x", "new_string": "y"}, "toolu_bench_4")},
		{Label: "post/write-new", Argv: post, Budget: 50, Payload: payload("PostToolUse", "Write", repo, map[string]any{"file_path": notes, "content": "(not read: the hook reads the file)"}, "toolu_bench_5")},
		{Label: "post/bash", Argv: post, Payload: payload("PostToolUse", "Bash", repo, map[string]any{"command": "ls -la", "description": "List files"}, "toolu_bench_6")},
	}
	if hookBin != "" {
		cases = append(cases, hookCase{Label: "post/edit, privscan hook", Argv: viaPrivscan, Payload: cases[3].Payload})
	}
	// The guard (SPEC §7.1), against the start of privscan version: its
	// budget is 20 ms more than that.
	guard := []string{bin, "hook", "claude-guard"}
	if hookBin != "" {
		guard = []string{hookBin, "claude-guard"}
	}
	long := filepath.Join(repo, "pkg", "long.go")
	bashOut := lines("output", 200)
	cases = append(cases,
		hookCase{Label: "version", Argv: []string{bin, "version"}},
		hookCase{Label: "guard/read", Argv: guard, Payload: payload("PreToolUse", "Read", repo, map[string]any{"file_path": long}, "toolu_bench_7")},
		hookCase{Label: "guard/read window", Argv: guard, Payload: payload("PreToolUse", "Read", repo, map[string]any{"file_path": long, "offset": 900, "limit": 200}, "toolu_bench_8")},
		hookCase{Label: "guard/prompt", Argv: guard, Payload: payload("UserPromptSubmit", "", repo, map[string]any{"prompt": "Please fold the running totals into one pass and add a test for the empty case; keep the public API as it is.\n" + lines("prompt", 20)}, "")},
		hookCase{Label: "guard/webfetch", Argv: guard, Payload: payload("PreToolUse", "WebFetch", repo, map[string]any{"url": "https://example.com/docs/api?page=2", "prompt": "Summarise the API"}, "toolu_bench_9")},
		hookCase{Label: "guard/bash output", Argv: post, Payload: bashOutput(repo, bashOut)},
	)
	return cases
}

// bashOutput is the PostToolUse payload of a Bash command that printed
// out (200 lines: the guard's after-the-fact check reads it all).
func bashOutput(repo, out string) []byte {
	p := map[string]any{
		"session_id": "bench-session", "transcript_path": "/nonexistent/transcript.jsonl", "cwd": repo,
		"permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input":    map[string]any{"command": "go test ./...", "description": "Run the tests"},
		"tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false},
		"tool_use_id":   "toolu_bench_10",
	}
	data, err := json.Marshal(p)
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return data
}

// launchCases runs the non-git and commit PreToolUse payloads through
// the launcher, with the binary installed where the launcher looks for it.
func launchCases(script, root, bin, hookBin, dir, repo string) ([]hookCase, error) {
	if root == "" {
		root = filepath.Join(filepath.Dir(script), "..")
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	manifest, err := os.ReadFile(filepath.Join(root, ".claude-plugin", "plugin.json"))
	if err != nil {
		return nil, fmt.Errorf("-launch: %w", err)
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil || m.Version == "" {
		return nil, errors.New("-launch: no version in the plugin manifest")
	}
	data := filepath.Join(dir, "plugin-data")
	if err := os.MkdirAll(filepath.Join(data, "bin"), 0o755); err != nil {
		return nil, err
	}
	target := filepath.Join(data, "bin", "privscan-"+m.Version)
	if err := os.Remove(target); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.Symlink(bin, target); err != nil {
		return nil, err
	}
	hookTarget := filepath.Join(data, "bin", "privscan-hook-"+m.Version)
	if err := os.Remove(hookTarget); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if hookBin != "" {
		if err := os.Symlink(hookBin, hookTarget); err != nil {
			return nil, err
		}
	}
	env := []string{"CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PLUGIN_DATA=" + data}
	argv := []string{"/bin/sh", script, "hook", "claude-pre-tool-use"}
	postArgv := []string{"/bin/sh", script, "hook", "claude-post-tool-use"}
	guardArgv := []string{"/bin/sh", script, "hook", "claude-guard"}
	base := buildCases(bin, hookBin, repo)
	byLabel := map[string][]byte{}
	for _, c := range base {
		byLabel[c.Label] = c.Payload
	}
	return []hookCase{
		{Label: "launch+pre/non-git", Argv: argv, Env: env, Payload: byLabel["pre/non-git"]},
		{Label: "launch+pre/commit", Argv: argv, Env: env, Payload: byLabel["pre/commit"]},
		{Label: "launch+post/edit", Argv: postArgv, Env: env, Payload: byLabel["post/edit"]},
		{Label: "launch+guard/read", Argv: guardArgv, Env: env, Payload: byLabel["guard/read"]},
		{Label: "launch+guard/prompt", Argv: guardArgv, Env: env, Payload: byLabel["guard/prompt"]},
		{Label: "launch+post/bash empty", Argv: postArgv, Env: env, Payload: byLabel["post/bash"]},
	}, nil
}

func measure(cases []hookCase, env []string, dir string, runs, warmup int) ([]result, error) {
	samples := make([][]float64, len(cases))
	cpu := make([][]float64, len(cases))
	once := func(i int) (wallMS, cpuMS float64, err error) {
		c := cases[i]
		cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(slices.Clip(env), c.Env...)
		cmd.Stdin = bytes.NewReader(c.Payload)
		var stderr bytes.Buffer
		cmd.Stdout = io.Discard
		cmd.Stderr = &stderr
		start := time.Now()
		err = cmd.Run()
		wall := time.Since(start)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w: %s", c.Label, err, strings.TrimSpace(stderr.String()))
		}
		used := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return float64(wall.Microseconds()) / 1000, float64(used.Microseconds()) / 1000, nil
	}
	for round := 0; round < warmup+runs; round++ {
		order := make([]int, len(cases))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			ms, cpuMS, err := once(i)
			if err != nil {
				return nil, err
			}
			if round >= warmup {
				samples[i] = append(samples[i], ms)
				cpu[i] = append(cpu[i], cpuMS)
			}
		}
	}
	out := make([]result, len(cases))
	for i, c := range cases {
		s := slices.Clone(samples[i])
		slices.Sort(s)
		cs := slices.Clone(cpu[i])
		slices.Sort(cs)
		out[i] = result{
			Label: c.Label, Argv: c.Argv, Runs: len(s), WallMS: samples[i], CPUMS: cpu[i],
			MedianMS: median(s), MedCPUMS: median(cs), P90MS: s[max(0, (len(s)*9+9)/10-1)], MinMS: s[0], MaxMS: s[len(s)-1],
			BudgetMS: c.Budget,
		}
	}
	return out, nil
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func report(w io.Writer, rs []result, runs int) {
	fmt.Fprintf(w, "| case | median ms | p90 ms | min ms | max ms | median CPU ms | budget (median) |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range rs {
		budget := ""
		if r.BudgetMS > 0 {
			verdict := "met"
			if r.MedianMS > r.BudgetMS {
				verdict = "MISSED"
			}
			budget = fmt.Sprintf("≤ %.0f ms: %s", r.BudgetMS, verdict)
		}
		fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n", r.Label, r.MedianMS, r.P90MS, r.MinMS, r.MaxMS, r.MedCPUMS, budget)
	}
	fmt.Fprintf(w, "\n%d recorded runs per case, a new process each; wall time from start to exit, CPU = user + system of the process and the children it waited for.\n", runs)
}
