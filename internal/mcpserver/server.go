// Package mcpserver is privscan's MCP server (docs/mcp.md): the tools
// load_context, scan_diff, scan_text, redact_text, read_redacted and
// redact_file, served over stdio or Streamable HTTP on a loopback address.
//
// The catalog never crosses the MCP boundary: tools return rule IDs,
// categories, locations and counts, never a catalog value or matched text;
// errors are tool results with isError set and a {"code","message"} JSON
// body whose message is value-free. Every call appends one line to the
// audit log (see AuditPath). Catalogs are compiled once and recompiled
// when their source changes. Repositories and paths are confined to the
// server's working directory and its --root directories, symlinks
// resolved. redact_file is the one tool that writes. scan_text,
// redact_text and read_redacted spend a guess budget per agent (probe.go).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
)

// Options configure a Server.
type Options struct {
	// Dir is the working directory, the first root; "" means ".".
	Dir string
	// Roots are further directories a caller may scan (--root).
	Roots []string
	// Getenv reads the environment: the broker's variables, PRIVSCAN_AGENT,
	// XDG_STATE_HOME and HOME. nil means os.Getenv.
	Getenv func(string) string
	// Stderr receives diagnostics. nil means os.Stderr.
	Stderr io.Writer
	// Version is privscan's version, reported in serverInfo and replies.
	Version string
	// AuditPath overrides the audit log's location; "" means
	// AuditPath(Getenv).
	AuditPath string
	// Now is the clock of the guess budget; nil means time.Now.
	Now func() time.Time
}

// Server is privscan's MCP server. It is safe for concurrent calls.
type Server struct {
	mcp     *server.MCPServer
	eng     *engine.Engine // the broker, the compiled catalogs, the secret rules
	roots   roots
	audit   *auditLog
	getenv  func(string) string
	stderr  io.Writer
	version string
	now     func() time.Time
	probes  *probeBudget // the guess budget (probe.go)
}

// New returns a Server. It fails when a root does not exist.
func New(o Options) (*Server, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Version == "" {
		o.Version = "devel"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	rs, err := newRoots(append([]string{o.Dir}, o.Roots...))
	if err != nil {
		return nil, err
	}
	eng := engine.New(engine.Config{Getenv: o.Getenv})
	if _, err := eng.Broker(); err != nil {
		return nil, err
	}
	ap := o.AuditPath
	if ap == "" {
		ap = AuditPath(o.Getenv)
	}
	s := &Server{
		eng:     eng,
		roots:   rs,
		audit:   newAuditLog(ap, o.Stderr),
		getenv:  o.Getenv,
		stderr:  o.Stderr,
		version: o.Version,
		now:     o.Now,
		probes:  newProbeBudget(o.Now),
	}
	s.mcp = server.NewMCPServer("privscan", o.Version,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		server.WithTitle("privscan"),
		server.WithDescription("Privacy scanner for code changes: catalogued identifiers, PII and secrets, never revealing a value."),
	)
	handlers := map[string]func(context.Context, *call) (any, string, *toolError){
		ToolLoadContext:  s.loadContext,
		ToolScanDiff:     s.scanDiff,
		ToolScanText:     s.scanText,
		ToolRedactText:   s.redactText,
		ToolReadRedacted: s.readRedacted,
		ToolRedactFile:   s.redactFile,
	}
	for _, t := range Tools() {
		s.mcp.AddTool(t, s.handler(t.Name, handlers[t.Name]))
	}
	return s, nil
}

// MCPServer returns the underlying mcp-go server (for in-process clients).
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// Prewarm compiles the default catalog and the secret rules, so that the
// first call is fast. Errors are ignored: the calls report them.
func (s *Server) Prewarm() { s.eng.Prewarm() }

// call is one tool call being served.
type call struct {
	args *args
	rec  *AuditRecord
	// keyKind and key are digested into the audit record.
	keyKind, key string
}

// handler wraps a tool's logic: argument object check, agent_id,
// panic containment, the error result and the audit record.
func (s *Server) handler(name string, fn func(context.Context, *call) (any, string, *toolError)) server.ToolHandlerFunc {
	allowed := allowedArgs(name)
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		start := time.Now()
		c := &call{rec: &AuditRecord{Tool: name, Time: start.UTC().Format(time.RFC3339Nano)}}
		defer func() {
			if r := recover(); r != nil {
				// The panic value is dropped: it could hold scanned text.
				fmt.Fprintf(s.stderr, "privscan: error: mcp: %s: internal error (details withheld)\n", name)
				res = errorResult(errorf(CodeInternal, "internal error while serving %s; details are withheld because they could include scanned text", name))
				c.rec.Outcome, c.rec.Code = "error", CodeInternal
			}
			c.rec.DurationMS = time.Since(start).Milliseconds()
			s.audit.write(c.rec, c.keyKind, c.key)
		}()
		c.rec.AgentID = s.defaultAgent()
		a, te := readArgs(req.Params.Arguments, allowed...)
		if te == nil {
			c.args = a
			var id string
			if id, te = a.agentID(); id != "" {
				c.rec.AgentID = id
			}
		}
		var (
			structured any
			text       string
		)
		if te == nil {
			structured, text, te = fn(ctx, c)
		}
		if te != nil {
			c.rec.Outcome, c.rec.Code = "error", te.Code
			return errorResult(te), nil
		}
		c.rec.Outcome = "ok"
		return &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.NewTextContent(text)},
			StructuredContent: structured,
		}, nil
	}
}

func allowedArgs(tool string) []string {
	switch tool {
	case ToolLoadContext:
		return []string{"key", "agent_id"}
	case ToolScanDiff:
		return []string{"catalog_key", "repo", "base", "head", "staged", "paths", "agent_id"}
	case ToolReadRedacted:
		return []string{"path", "offset", "limit", "catalog_key", "agent_id"}
	case ToolRedactFile:
		return []string{"path", "style", "catalog_key", "agent_id"}
	}
	return []string{"catalog_key", "text", "agent_id"}
}

// defaultAgent is PRIVSCAN_AGENT when it is a valid agent ID, else
// "unknown".
func (s *Server) defaultAgent() string {
	if id := s.getenv("PRIVSCAN_AGENT"); validAgentID(id) {
		return id
	}
	return "unknown"
}

// errorResult is the tool result of a failed call.
func errorResult(te *toolError) *mcp.CallToolResult {
	b, _ := json.Marshal(te)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, IsError: true}
}

func jsonText(v any) (string, *toolError) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", errorf(CodeInternal, "cannot encode the reply")
	}
	return string(b), nil
}

// loadContext serves load_context.
func (s *Server) loadContext(_ context.Context, c *call) (any, string, *toolError) {
	key, te := c.args.str("key", true, maxKeyLen)
	if te != nil {
		return nil, "", te
	}
	c.keyKind, c.key = "context", key
	b, err := s.eng.Broker()
	if err != nil {
		return nil, "", classify(err)
	}
	data, err := b.LoadContext(key)
	if err != nil {
		return nil, "", classify(err)
	}
	c.rec.Bytes = intp(len(data))
	return nil, string(data), nil
}

// matcher reads catalog_key and returns the compiled catalog.
func (s *Server) matcher(c *call) (*catalog.Matcher, *toolError) {
	key, te := c.args.str("catalog_key", false, maxKeyLen)
	if te != nil {
		return nil, te
	}
	c.keyKind, c.key = "catalog", key
	m, info, err := s.eng.Catalog(key)
	if err != nil {
		return nil, classify(err)
	}
	c.rec.Catalog = info.Source.String()
	if key == "" && info.Source == broker.SourceMap {
		c.key = info.Key
	}
	return m, nil
}

// spendProbe charges probe id to the call's agent (the guess budget of
// probe.go): nil when it may be answered, else rate_limited.
func (s *Server) spendProbe(c *call, id probeID) *toolError {
	b, err := s.eng.Broker()
	if err != nil {
		return classify(err)
	}
	g, err := b.Guard()
	if err != nil {
		return classify(err)
	}
	v := s.probes.admit(c.rec.AgentID, id, g.ProbeBudget)
	if v.ok {
		return nil
	}
	if v.alert {
		c.rec.Alert = AlertProbeBudget
	}
	return rateLimited(g.ProbeBudget, s.now(), v.until)
}

// textArg reads the required text argument (which may be empty).
func textArg(c *call, max int) (string, *toolError) {
	if _, ok := c.args.m["text"]; !ok {
		return "", errorf(CodeInvalidArgument, "missing required argument text")
	}
	t, te := c.args.str("text", false, max)
	if te != nil && te.Code == CodeInputTooLarge {
		te.Message += ": split the text"
	}
	return t, te
}

// scanText serves scan_text.
func (s *Server) scanText(ctx context.Context, c *call) (any, string, *toolError) {
	text, te := textArg(c, MaxScanText)
	if te != nil {
		return nil, "", te
	}
	c.rec.Bytes = intp(len(text))
	m, te := s.matcher(c)
	if te != nil {
		return nil, "", te
	}
	if te := s.spendProbe(c, s.probes.textID(c.key, text)); te != nil {
		return nil, "", te
	}
	col := newCollector(s.version)
	if _, err := s.eng.Scan(ctx, engine.Request{Matcher: m, Target: engine.Text(strings.NewReader(text), "", "")}, col); err != nil {
		return nil, "", classify(err)
	}
	return s.scanReply(c, col.result())
}

func (s *Server) scanReply(c *call, r *ScanResult) (any, string, *toolError) {
	c.rec.Findings = intp(r.Summary.Findings)
	c.rec.Returned = intp(r.Summary.Returned)
	c.rec.Suppressed = intp(r.Summary.Suppressed)
	c.rec.Files = intp(r.Summary.FilesScanned)
	c.rec.Lines = intp(r.Summary.LinesScanned)
	c.rec.Truncated = r.Truncated
	text, te := jsonText(r)
	if te != nil {
		return nil, "", te
	}
	return r, text, nil
}

// limitedBuffer fails writes beyond max bytes.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

var errOutputTooLarge = errors.New("output too large")

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, errOutputTooLarge
	}
	return b.Buffer.Write(p)
}

// redactText serves redact_text.
func (s *Server) redactText(ctx context.Context, c *call) (any, string, *toolError) {
	text, te := textArg(c, MaxRedactText)
	if te != nil {
		return nil, "", te
	}
	c.rec.Bytes = intp(len(text))
	m, te := s.matcher(c)
	if te != nil {
		return nil, "", te
	}
	if te := s.spendProbe(c, s.probes.textID(c.key, text)); te != nil {
		return nil, "", te
	}
	r, err := s.eng.Redactor(engine.Request{Matcher: m})
	if err != nil {
		return nil, "", classify(err)
	}
	out := &limitedBuffer{max: maxRedactedOutput}
	if err := r.Copy(ctx, out, strings.NewReader(text)); err != nil {
		err = engine.ScanError(err)
		if errors.Is(err, errOutputTooLarge) {
			return nil, "", errorf(CodeInputTooLarge, "the redacted text would be over %s; redact a shorter text", size(maxRedactedOutput))
		}
		return nil, "", classify(err)
	}
	st := r.Stats()
	res := &RedactResult{Text: out.String(), Replacements: st.Replacements, Lines: st.Lines, ByCategory: map[string]int{}}
	for k, v := range st.ByCategory {
		res.ByCategory[k] = v
	}
	c.rec.Replacements = intp(st.Replacements)
	c.rec.Lines = intp(st.Lines)
	body, te := jsonText(res)
	if te != nil {
		return nil, "", te
	}
	return res, body, nil
}

// resolved returns p with symlinks resolved, or p when that fails.
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// scanDiff serves scan_diff.
func (s *Server) scanDiff(ctx context.Context, c *call) (any, string, *toolError) {
	a := c.args
	repoArg, te := a.str("repo", false, maxPathLen)
	if te != nil {
		return nil, "", te
	}
	base, te := rev(a, "base")
	if te != nil {
		return nil, "", te
	}
	head, te := rev(a, "head")
	if te != nil {
		return nil, "", te
	}
	staged, te := a.boolean("staged")
	if te != nil {
		return nil, "", te
	}
	paths, te := a.strList("paths", MaxPaths, maxPathLen)
	if te != nil {
		return nil, "", te
	}
	c.rec.Staged = &staged
	c.rec.Paths = intp(len(paths))
	switch {
	case head != "" && base == "":
		return nil, "", errorf(CodeInvalidArgument, "head needs base: pass the old side as base")
	case head != "" && staged:
		return nil, "", errorf(CodeInvalidArgument, "staged compares the index with one revision: pass base only, or drop staged")
	case head != "" && strings.Contains(base, ".."):
		return nil, "", errorf(CodeInvalidArgument, "base is a range: omit head, or pass single revisions as base and head")
	case staged && strings.Contains(base, ".."):
		return nil, "", errorf(CodeInvalidArgument, "staged compares the index with one revision, not a range")
	}

	dir, te := s.roots.repoDir(repoArg)
	if te != nil {
		return nil, "", te
	}
	// The catalog before the repository: it is the likelier problem, and
	// nothing is scanned without it.
	m, te := s.matcher(c)
	if te != nil {
		return nil, "", te
	}
	repo, err := gitsrc.Open(dir)
	if err != nil {
		if errors.Is(err, gitsrc.ErrNotRepo) {
			return nil, "", errorf(CodeRepoNotFound, "no git repository contains %s", quoteArg(orDot(repoArg)))
		}
		return nil, "", classify(err)
	}
	defer repo.Close()

	rel := make([]string, 0, len(paths))
	for _, p := range paths {
		r, te := s.roots.scanPath(dir, p)
		if te != nil {
			return nil, "", te
		}
		rel = append(rel, r)
	}
	if root := repo.Root(); root != "" && !s.roots.contains(resolved(root)) && len(rel) == 0 {
		// The repository reaches above the allowed roots: scan only the
		// part of it inside them.
		rel = []string{"."}
	}

	col := newCollector(s.version)
	res, err := s.eng.Scan(ctx, engine.Request{Matcher: m, CatalogKey: c.key, Repo: repo, Target: diffTarget(base, head, staged, rel)}, col)
	if err != nil {
		return nil, "", classify(err)
	}
	col.res.Comparison = res.Comparison
	return s.scanReply(c, col.result())
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

// rev reads base or head: a revision as git reads it, without options or
// control characters.
func rev(a *args, name string) (string, *toolError) {
	r, te := a.str(name, false, maxRevLen)
	if te != nil {
		if te.Code == CodeInputTooLarge {
			te.Code = CodeInvalidArgument
		}
		return "", te
	}
	if strings.HasPrefix(r, "-") {
		return "", errorf(CodeInvalidArgument, "%s must be a revision, not an option", name)
	}
	for _, ch := range r {
		if ch < 0x20 || ch == 0x7f {
			return "", errorf(CodeInvalidArgument, "%s contains a control character", name)
		}
	}
	return r, nil
}

// diffTarget is the comparison scan_diff documents: with no base, HEAD
// against the working tree (the empty tree before the first commit) or,
// with staged, the index.
func diffTarget(base, head string, staged bool, paths []string) engine.Target {
	o := gitsrc.DiffOptions{Staged: staged, Paths: paths}
	switch {
	case base != "" && head != "":
		o.Revs = []string{base, head}
	case base != "":
		o.Revs = []string{base}
	case !staged:
		o.Revs, o.EmptyIfUnborn = []string{"HEAD"}, true
	}
	return engine.Target(engine.Diff(o))
}
