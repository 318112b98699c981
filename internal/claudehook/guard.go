package claudehook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/audit"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/hook"
	"github.com/privscan/privscan/internal/readwin"
	"github.com/privscan/privscan/scanner"
)

// GuardName is the guard's verb: "privscan hook claude-guard".
const GuardName = "claude-guard"

// Guard limits. A Read the guard cannot check within them is denied.
const (
	// guardMaxBytes bounds the bytes read up to the end of a Read's window.
	guardMaxBytes = 32 << 20
	// refuseAbove is the size above which a Read without a window (and
	// without allow_large) is refused by Claude Code itself, showing
	// nothing (readwin.SizeLimit, reported as 256KB): such a Read is let
	// through unchecked. The margin covers "KB" meaning 1,000 or 1,024
	// bytes and what Read counts; below it the file is checked.
	refuseAbove = readwin.SizeLimit + readwin.SizeLimit/4
	// guardTimeout bounds one guard decision (hooks.json gives the hook
	// more, so that the guard, not Claude Code, decides). A tool's output
	// is bounded by the payload's own limit (hook.MaxPayload).
	guardTimeout = 25 * time.Second
)

// OwnToolPrefixes are the names Claude Code gives privscan's own MCP
// tools: the plugin's server, and a server the user registered as
// "privscan". Their inputs stay on this machine.
var OwnToolPrefixes = [...]string{"mcp__plugin_privscan_privscan__", "mcp__privscan__"}

// imageExts are the files Read sends to the model as images, pdfExts as
// documents: privscan cannot read text in them.
var (
	imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true, ".svgz": true}
	pdfExts   = map[string]bool{".pdf": true}
)

// guardRun is one guard decision.
type guardRun struct {
	*hookRun
	g     broker.Guard
	level finding.Severity
	ds    *engine.DetectorSet
}

// Guard runs the guard of SPEC §7.1 for one hook payload:
//
//	PreToolUse Read, NotebookRead     deny a Read whose window holds a finding
//	PreToolUse WebFetch, WebSearch,   block a tool input that would carry a
//	  mcp__* (privscan's excepted)      finding off the machine
//	UserPromptSubmit                  block a prompt that holds a finding
//	PostToolUse Bash, Grep (and Read  tell the model the output held
//	  in warn mode)                     catalogued data (after the fact)
//
// A decision to deny or block returns an error with a hint (exit 2, the
// reason on stderr); a warning is written to stdout for the model and
// returns nil. What cannot be checked is denied, never let through — but
// the output check, which comes after the fact, only notes its problems.
func Guard(ctx context.Context, eng *engine.Engine, env Env, p *hook.Payload, opts Options) error {
	h := newRun(eng, env, p, opts)
	event := p.HookEventName
	if event == "" {
		switch {
		case p.Prompt != "" && p.ToolName == "":
			event = "UserPromptSubmit"
		case len(p.ToolResponse) > 0:
			event = "PostToolUse"
		default:
			event = "PreToolUse"
		}
	}
	switch event {
	case "UserPromptSubmit":
		return guardDecision(ctx, h, func(g *guardRun) error { return g.prompt(ctx) }, true)
	case "PreToolUse":
		switch {
		case p.ToolName == "Read" || p.ToolName == "NotebookRead":
			return guardDecision(ctx, h, func(g *guardRun) error { return g.read(ctx) }, true)
		case outboundTool(p.ToolName):
			return guardDecision(ctx, h, func(g *guardRun) error { return g.outbound(ctx) }, true)
		}
	case "PostToolUse":
		return guardDecision(ctx, h, func(g *guardRun) error { return g.output(ctx) }, false)
	}
	return nil
}

// outboundTool reports whether a tool sends its input off the machine:
// WebFetch, WebSearch and other MCP servers' tools.
func outboundTool(name string) bool {
	if name == "WebFetch" || name == "WebSearch" {
		return true
	}
	if !strings.HasPrefix(name, "mcp__") {
		return false
	}
	for _, own := range OwnToolPrefixes {
		if strings.HasPrefix(name, own) {
			return false
		}
	}
	return true
}

// guardDecision loads the guard's settings and detectors and runs fn.
// closed says what a problem of privscan's own does: deny (a guard before
// the fact) or only a note (after the fact).
func guardDecision(ctx context.Context, h *hookRun, fn func(*guardRun) error, closed bool) error {
	ctx, cancel := context.WithTimeout(ctx, guardTimeout)
	defer cancel()
	g, err := newGuardRun(h)
	if err == nil {
		err = fn(g)
	}
	var d *denial
	switch {
	case err == nil, errors.As(err, &d):
		return err
	case ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		err = fmt.Errorf("the check did not finish within %s", guardTimeout)
	}
	if !closed {
		h.note("not checking the tool's output: %s", oneLine(err.Error()))
		return nil
	}
	return cannotCheck(h.p, err)
}

func newGuardRun(h *hookRun) (*guardRun, error) {
	b, err := h.eng.Broker()
	if err != nil {
		return nil, err
	}
	gs, err := b.Guard()
	if err != nil {
		return nil, err
	}
	level, err := engine.FailLevel(gs.Level)
	if err != nil {
		return nil, err
	}
	return &guardRun{hookRun: h, g: gs, level: level}, nil
}

// detectors opens the catalog and the full detector set once. Without
// any catalog set up (no key map and none in the environment), the guard
// still runs the PII and secret detectors.
func (g *guardRun) detectors() (*engine.DetectorSet, error) {
	if g.ds != nil {
		return g.ds, nil
	}
	m, err := g.catalog()
	if err != nil && !errors.Is(err, broker.ErrConfigMissing) {
		return nil, err
	}
	ds, err := g.eng.DetectorSet(m)
	if err != nil {
		return nil, err
	}
	g.ds = ds
	return ds, nil
}

// scan runs the full detector set on src and collects what reaches the
// guard level. Markers in the text never silence a finding: the guard
// belongs to the user, not to the text being read. keep, when set, drops
// findings the model would not see.
func (g *guardRun) scan(ctx context.Context, src scanner.Source, keep func(*finding.Finding) bool) (*collector, error) {
	ds, err := g.detectors()
	if err != nil {
		return nil, err
	}
	opts := ds.Options()
	opts.Markers = scanner.MarkersReview
	c := &guardCollector{collector: collector{level: g.level}, keep: keep}
	if _, err := scanner.Run(ctx, src, opts, c); err != nil {
		return nil, engine.ScanError(err)
	}
	// A damaged page of a sealed catalog found nothing: fail closed.
	if err := ds.Err(); err != nil {
		return nil, err
	}
	return &c.collector, nil
}

type guardCollector struct {
	collector
	keep func(*finding.Finding) bool
}

func (c *guardCollector) Finding(f *finding.Finding) error {
	if !f.Fails(c.level, false) || c.keep != nil && !c.keep(f) {
		return nil
	}
	return c.collector.Finding(f)
}

// denial is a guard's decision to deny a Read or block a prompt or tool
// input: exit 2 with the reason.
type denial struct {
	msg, hint string
}

func (d *denial) Error() string { return d.msg }
func (d *denial) Hint() string  { return d.hint }

// cannotCheck denies what the guard could not check (never a Read let
// through unchecked).
func cannotCheck(p *hook.Payload, err error) error {
	hint := engine.Hint(err)
	what := "this tool call"
	switch {
	case p.HookEventName == "UserPromptSubmit":
		what = "this prompt"
	case p.ToolName == "Read" || p.ToolName == "NotebookRead":
		what = "this Read"
	}
	msg := fmt.Sprintf("privscan's guard could not check %s for catalogued data, so it is not allowed: %s", what, oneLine(err.Error()))
	if hint == "" {
		hint = "fix the problem above (privscan catalog check shows catalog problems), or ask the user; for a file, the MCP tool read_redacted returns it with every match replaced"
	}
	return &denial{msg: msg, hint: hint}
}

// listFindings writes the value-free list of what was found: rule,
// severity, category, and the line and columns when where is set (else
// one line per rule, with a count).
func listFindings(w io.Writer, c *collector, where bool) {
	if !where {
		count := map[string]int{}
		var order []*finding.Finding
		for i := range c.hits {
			f := &c.hits[i]
			if count[f.RuleID] == 0 {
				order = append(order, f)
			}
			count[f.RuleID]++
		}
		for _, f := range order {
			fmt.Fprintf(w, "  %s %s (%s)", f.RuleID, f.Severity, f.Category)
			if f.Description != "" {
				fmt.Fprintf(w, ": %s", oneLine(f.Description))
			}
			if n := count[f.RuleID]; n > 1 {
				fmt.Fprintf(w, " ×%d", n)
			}
			fmt.Fprintln(w)
		}
	}
	for i := range c.hits {
		if !where {
			break
		}
		f := &c.hits[i]
		fmt.Fprintf(w, "  line %d:%d-%d %s %s (%s)", f.Line, f.Column, f.EndColumn, f.RuleID, f.Severity, f.Category)
		if f.Description != "" {
			fmt.Fprintf(w, ": %s", oneLine(f.Description))
		}
		fmt.Fprintln(w)
	}
	if n := c.total - len(c.hits); n > 0 {
		fmt.Fprintf(w, "  … and %d more\n", n)
	}
}

// ruleIDs lists the distinct rules of c's findings.
func ruleIDs(c *collector) string {
	seen := map[string]bool{}
	var ids []string
	for _, f := range c.hits {
		if !seen[f.RuleID] {
			seen[f.RuleID] = true
			ids = append(ids, f.RuleID)
		}
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}

// warnModel tells the model, on stdout as Claude Code's additional
// context, that what it is about to see or has seen holds catalogued data
// (warn mode).
func (g *guardRun) warnModel(event, what string, c *collector) {
	msg := fmt.Sprintf("privscan: %s holds %d finding%s of catalogued, personal or secret data (rules: %s). Do not copy it into code, tests, fixtures, comments, commit messages, pull requests or any tool input; use placeholders such as [person:1], or synthetic values.",
		what, c.total, plural(c.total), ruleIDs(c))
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": msg}})
	if g.env.Stdout != nil {
		fmt.Fprintln(g.env.Stdout, string(out))
	}
}

// guardRecord is the guard's audit record: counts and rule IDs, never
// text, a path or a URL.
type guardRecord struct {
	Time     string   `json:"time"`
	Tool     string   `json:"tool"` // "guard:<event>:<tool>"
	AgentID  string   `json:"agent_id"`
	Outcome  string   `json:"outcome"` // "denied", "warned", "flagged"
	Findings int      `json:"findings"`
	Rules    []string `json:"rules,omitempty"`
}

// audit records a decision in the local audit log (best effort: a
// failure is a note on stderr).
func (g *guardRun) audit(outcome string, c *collector) {
	tool := g.p.ToolName
	if tool == "" {
		tool = "prompt"
	}
	event := g.p.HookEventName
	if event == "" {
		event = "guard"
	}
	if strings.HasPrefix(tool, "mcp__") {
		// Another server's tool names are chosen by its author and can
		// name anything (a customer's workspace): not recorded.
		tool = "mcp"
	}
	rec := guardRecord{Time: g.env.Now().UTC().Format(time.RFC3339), Tool: "guard:" + event + ":" + auditToolName(tool),
		AgentID: "claude-code", Outcome: outcome, Findings: c.total}
	if ids := ruleIDs(c); ids != "" {
		rec.Rules = strings.Split(ids, ", ")
	}
	if err := audit.Append(audit.Path(g.env.Getenv), rec); err != nil {
		g.note("audit log: %s", oneLine(err.Error()))
	}
}

// auditToolName keeps a tool name to the characters tool names have
// (another MCP server's tool names are chosen by its author).
func auditToolName(s string) string {
	if len(s) > 96 {
		s = s[:96]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '?'
	}, s)
}

// read guards a Read (or NotebookRead) before it runs.
func (g *guardRun) read(ctx context.Context) error {
	if g.g.Read == broker.GuardOff {
		return nil
	}
	in := &g.p.ToolInput
	path := in.FilePath
	if path == "" {
		path = in.NotebookPath
	}
	if path == "" {
		return nil // Read fails without a path: nothing is shown
	}
	path = g.expand(path)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // Read fails: nothing is shown
	case err != nil:
		return fmt.Errorf("the file cannot be read: %w", unwrapPath(err))
	case fi.IsDir():
		return nil // Read refuses a directory: nothing is shown
	case !fi.Mode().IsRegular():
		return errors.New("the file is not a regular file (a FIFO, device or socket)")
	}
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case imageExts[ext]:
		return g.unviewable("an image", "Read sends images to the model as pictures, and privscan cannot check the text in a picture")
	case pdfExts[ext]:
		return g.unviewable("a PDF", "Read sends PDF pages to the model, and privscan cannot check the text in a PDF")
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("the file cannot be read: %w", unwrapPath(err))
	}
	defer f.Close()
	if ext == ".ipynb" || g.p.ToolName == "NotebookRead" {
		return g.notebook(ctx, f)
	}
	src := &windowSource{r: f, w: readwin.Window{Offset: in.Offset, Limit: in.Limit}}
	if !in.OffsetOK || !in.LimitOK {
		// A window privscan cannot read: check the whole file.
		src.w = readwin.Window{}
	} else if in.Offset == 0 && in.Limit == 0 && !in.AllowLarge && fi.Size() > refuseAbove {
		return nil // Read refuses the file and shows none of it
	}
	c, err := g.scan(ctx, src, nil)
	if errors.Is(err, readwin.ErrTooLarge) {
		return &denial{msg: fmt.Sprintf("privscan's guard did not allow this Read: the file is too large to check (more than %d MiB up to the end of the lines it would return)", guardMaxBytes>>20),
			hint: "read a smaller window with offset and limit, or use the privscan MCP tool read_redacted, which returns the lines with every match replaced"}
	}
	if err != nil {
		return err
	}
	if c.total == 0 {
		return nil
	}
	return g.decide("PreToolUse", "the file this Read would return", c, true,
		"the file holds catalogued, personal or secret data at lines listed below, which must not enter the model's context",
		"read it through the privscan MCP tool read_redacted (same path, offset and limit: the same lines, numbered the same way, with every match replaced by a placeholder such as [person:1]); to fix the file, call redact_file (it rewrites the file with placeholders or synthetic values) and then Read it again; or Read a window (offset and limit) that leaves these lines out")
}

// unviewable decides a Read of a file privscan cannot check.
func (g *guardRun) unviewable(what, why string) error {
	if g.g.Read == broker.GuardWarn {
		g.note("this Read of %s was not checked: %s", what, why)
		return nil
	}
	return &denial{msg: fmt.Sprintf("privscan's guard did not allow this Read of %s: %s, so it could hold catalogued data unseen", what, why),
		hint: "ask the user to look at it or share it themselves if it is safe; the user can let such Reads through with [guard] read = \"warn\" in ~/.config/privscan/context-map.toml"}
}

// decide turns findings into the guard's answer: deny (block mode) or
// warn the model (warn mode). where says whether findings have line
// numbers worth listing.
func (g *guardRun) decide(event, what string, c *collector, where bool, msg, hint string) error {
	mode := g.g.Read
	switch event {
	case "UserPromptSubmit":
		mode = g.g.Prompt
	case "outbound":
		mode, event = g.g.Outbound, "PreToolUse"
	}
	if mode == broker.GuardWarn {
		g.audit("warned", c)
		g.warnModel(event, what, c)
		return nil
	}
	g.audit("denied", c)
	fmt.Fprintf(g.env.Stderr, "privscan: %s: %d finding%s at or above %s. Matched text is withheld; rules%s:\n",
		what, c.total, plural(c.total), c.level, map[bool]string{true: " and locations", false: ""}[where])
	listFindings(g.env.Stderr, c, where)
	return &denial{msg: msg, hint: hint}
}

// expand makes a Read's path absolute as Claude Code does: "~/" is HOME,
// a relative path is relative to the session's cwd.
func (g *guardRun) expand(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home := g.env.Getenv("HOME"); home != "" {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return g.abs(p)
}

// windowSource yields the lines of a Read's window, whole, as text
// fragments (markers in them are new text: they never silence a finding).
type windowSource struct {
	r io.Reader
	w readwin.Window
}

func (s *windowSource) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	return readwin.Lines(ctx, s.r, s.w, guardMaxBytes, 256<<10, func(lines []scanner.Line) error {
		return yield(&scanner.Fragment{Kind: finding.KindText, Lines: lines})
	})
}

// notebook guards a Read of a Jupyter notebook: Read renders its cells
// (sources and outputs), so every string in the notebook is checked.
func (g *guardRun) notebook(ctx context.Context, f *os.File) error {
	data, err := io.ReadAll(io.LimitReader(f, guardMaxBytes+1))
	if err != nil {
		return fmt.Errorf("the notebook cannot be read: %w", unwrapPath(err))
	}
	if len(data) > guardMaxBytes {
		return &denial{msg: fmt.Sprintf("privscan's guard did not allow this Read: the notebook is larger than %d MiB, too large to check", guardMaxBytes>>20),
			hint: "ask the user to share the cells you need"}
	}
	var doc any
	text := string(data)
	if json.Unmarshal(data, &doc) == nil {
		text = strings.Join(stringsIn(doc, nil), "\n")
	}
	c, err := g.scan(ctx, &scanner.TextSource{R: strings.NewReader(text)}, nil)
	if err != nil || c.total == 0 {
		return err
	}
	return g.decide("PreToolUse", "the notebook this Read would return", c, false,
		"the notebook's cells hold catalogued, personal or secret data, which must not enter the model's context",
		"ask the user to redact the notebook (privscan redact < notebook.ipynb), or to share the cells you need")
}

// stringsIn appends every string of a decoded JSON value (object keys
// too), each once as written and, when it holds percent or plus
// escapes, once decoded as a URL component would be.
func stringsIn(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		out = append(out, x)
		if strings.ContainsAny(x, "%+") {
			if u, err := url.QueryUnescape(x); err == nil && u != x {
				out = append(out, u)
			}
			if u, err := url.PathUnescape(x); err == nil && u != x {
				out = append(out, u)
			}
		}
	case []any:
		for _, e := range x {
			out = stringsIn(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = stringsIn(k, out)
			out = stringsIn(x[k], out)
		}
	}
	return out
}

// prompt guards what the user typed, before the model sees it.
func (g *guardRun) prompt(ctx context.Context) error {
	if g.g.Prompt == broker.GuardOff || strings.TrimSpace(g.p.Prompt) == "" {
		return nil
	}
	c, err := g.scan(ctx, &scanner.TextSource{R: strings.NewReader(g.p.Prompt)}, nil)
	if err != nil || c.total == 0 {
		return err
	}
	return g.decide("UserPromptSubmit", "this prompt", c, true,
		"the prompt was not sent: it holds catalogued, personal or secret data (listed above by rule and position, never the text)",
		"replace those spans with placeholders or synthetic values and send it again; `privscan redact` copies a text with every match replaced (for example: pbpaste | privscan redact -)")
}

// outbound guards a tool input that leaves the machine.
func (g *guardRun) outbound(ctx context.Context) error {
	if g.g.Outbound == broker.GuardOff {
		return nil
	}
	var doc any
	if len(g.p.RawToolInput) > 0 {
		if err := json.Unmarshal(g.p.RawToolInput, &doc); err != nil {
			return fmt.Errorf("the tool input is not JSON")
		}
	}
	texts := stringsIn(doc, nil)
	if len(texts) == 0 {
		return nil
	}
	c, err := g.scan(ctx, &scanner.TextSource{R: strings.NewReader(strings.Join(texts, "\n"))}, nil)
	if err != nil || c.total == 0 {
		return err
	}
	what := "the input of " + toolLabel(g.p.ToolName)
	return g.decide("outbound", what, c, false,
		"the tool was not run: its input (a URL, a query or an argument) holds catalogued, personal or secret data, which must not leave this machine",
		"rewrite the input without that data (use placeholders or synthetic values); if the user needs it sent, they must do it themselves")
}

// toolLabel names a tool in a message: its name when it has the shape of
// a tool name (another server's names are chosen by its author).
func toolLabel(name string) string {
	if strings.HasPrefix(name, "mcp__") {
		return "this MCP tool"
	}
	return auditToolName(name)
}

// output checks, after the fact, what a tool returned to the model.
func (g *guardRun) output(ctx context.Context) error {
	switch g.p.ToolName {
	case "Bash", "Grep":
	case "Read", "NotebookRead":
		if g.g.Read != broker.GuardWarn {
			return nil // checked before it ran
		}
	default:
		return nil
	}
	if len(g.p.ToolResponse) == 0 {
		return nil
	}
	var doc any
	if err := json.Unmarshal(g.p.ToolResponse, &doc); err != nil {
		return fmt.Errorf("the tool's output is not JSON")
	}
	texts := stringsIn(outputStrings(doc), nil)
	if len(strings.Join(texts, "")) == 0 {
		return nil
	}
	c, err := g.scan(ctx, &scanner.TextSource{R: strings.NewReader(strings.Join(texts, "\n"))}, nil)
	if err != nil || c.total == 0 {
		return err
	}
	g.audit("flagged", c)
	fmt.Fprintf(g.env.Stderr, "privscan: the output of this %s call holds %d finding%s of catalogued, personal or secret data at or above %s (matched text withheld):\n",
		auditToolName(g.p.ToolName), c.total, plural(c.total), c.level)
	listFindings(g.env.Stderr, c, false)
	return &denial{msg: "that data is now in your context: do not copy it anywhere",
		hint: "never write it into a file, test fixture, comment, commit message, pull request or any tool input; use placeholders such as [person:1] or synthetic values; to see such files, use the privscan MCP tool read_redacted instead of cat, grep or Read"}
}

// outputStrings keeps the parts of a tool response the model sees: for
// an object, every field but the ones that describe the call (the file
// names Grep found are shown too, so they stay).
func outputStrings(doc any) any {
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	kept := map[string]any{}
	for k, v := range obj {
		switch k {
		case "interrupted", "isImage", "mode", "numLines", "numFiles", "durationMs", "returnCodeInterpretation", "noOutputExpected":
			continue
		}
		kept[k] = v
	}
	return kept
}
