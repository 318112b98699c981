package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// Tool names. Claude Code calls them ToolPrefix + name.
const (
	ToolLoadContext = "load_context"
	ToolScanDiff    = "scan_diff"
	ToolScanText    = "scan_text"
	ToolRedactText  = "redact_text"
	// ToolReadRedacted reads a file as Claude Code's Read would, redacted.
	ToolReadRedacted = "read_redacted"
	// ToolRedactFile rewrites a file with its matches replaced: the one
	// tool that writes.
	ToolRedactFile = "redact_file"
)

// ToolPrefix is how Claude Code prefixes the tools of the server "privscan"
// of the plugin "privscan". Claude Code refuses tool names over 64
// characters.
const ToolPrefix = "mcp__plugin_privscan_privscan__"

// ToolNames lists the tools in registration order.
var ToolNames = [...]string{ToolLoadContext, ToolScanDiff, ToolScanText, ToolRedactText, ToolReadRedacted, ToolRedactFile}

const instructions = `privscan checks code changes and text for catalogued private identifiers (customer and colleague names, internal hosts, account numbers, codenames), PII and secrets. No tool ever returns a catalog value or the matched text: findings name a rule, a category and a location. Use scan_diff before committing or opening a pull request, scan_text for commit messages and PR descriptions, redact_text to get a shareable copy of a text. When the privscan guard denies a Read because a file holds private data, read the file with read_redacted instead; to fix a file that the guard, a scan or the commit gate flagged, use redact_file rather than editing values you cannot see. load_context returns reference documents by the key you were given. scan_text, redact_text, read_redacted and redact_file answer a limited number of distinct texts per agent and hour (error rate_limited past it).`

const (
	descCatalogKey = `Catalog key given in your instructions (for example "default"). Omit it to use the server's default catalog (PRIVSCAN_CATALOG, PRIVSCAN_CATALOG_FILE, or the key map's "default"). The catalog itself is never returned by any tool.`
	descAgentID    = `Your agent name (for example "privacy-scanner"), recorded in the user's local audit log. Letters, digits and . _ : @ / + - only, at most 64 characters.`
)

// findingSchema is the docs/findings.md finding.
var findingSchema = obj(props{
	"ruleId":      str("catalog/<rule-id>, pii/<detector> or secret/<gitleaks-rule-id>."),
	"source":      enum("Which detector family matched.", "catalog", "pii", "secret"),
	"category":    str("The rule's category, e.g. person, internal-host, email, secret."),
	"severity":    enum("The finding's severity.", "error", "warning", "note"),
	"kind":        enum("diff: an added line; commit-message: a commit's message; text: the scanned text; file: a whole file.", "diff", "file", "commit-message", "text"),
	"path":        str("File path relative to the repository root; empty for commit messages and text."),
	"commit":      str("The commit whose message or patch this is, when the comparison is between commits; otherwise empty."),
	"line":        integer("1-based line number in the new version of the file (or in the text)."),
	"column":      integer("1-based column of the match's first character, in Unicode code points."),
	"endColumn":   integer("Column just after the match's last character (exclusive), in code points."),
	"fingerprint": str("Keyed fingerprint identifying the finding across runs; add it to .privscanignore to accept a finding deliberately."),
	"suppressed":  enum("Set when the finding is reported although a suppression covers it: inline-added means only a privscan:allow marker that the compared change itself adds covers it, which does not count until the change is accepted.", "inline-added"),
	"corroboratedBy": obj(props{
		"ruleId":    str("The corroborating rule."),
		"path":      str("Its file (the finding's)."),
		"commit":    str("Its commit (the finding's)."),
		"line":      integer("1-based line of the corroborating match."),
		"column":    integer("1-based column, in code points."),
		"endColumn": integer("Exclusive end column, in code points."),
	}, "ruleId", "path", "commit", "line", "column", "endColumn"),
	"uncorroborated": boolean("True on a record rule's match that found no corroborating match of the same record and is reported at its fallback severity (note)."),
}, "ruleId", "source", "category", "severity", "kind", "path", "commit", "line", "column", "endColumn", "fingerprint")

func countsOf(desc string) map[string]any {
	return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}, "description": desc}
}

var scanOutputSchema = obj(props{
	"version":    integer("Report format version (1)."),
	"tool":       obj(props{"name": str("privscan"), "version": str("privscan's version.")}, "name", "version"),
	"comparison": str("What scan_diff compared, in words."),
	"findings":   map[string]any{"type": "array", "items": findingSchema, "description": "The findings, in file and line order, at most 100 (see truncated). They never contain the matched text."},
	"summary": obj(props{
		"findings":       integer("Total findings, including any left out of the list."),
		"returned":       integer("Findings listed in this reply."),
		"suppressed":     integer("Findings suppressed by privscan:allow comments, .privscanignore or a baseline."),
		"filesScanned":   integer("Files (or texts) scanned."),
		"linesScanned":   integer("Lines scanned."),
		"commitsScanned": integer("Commit messages scanned."),
		"bySeverity":     countsOf("Findings per severity."),
		"skipped":        countsOf("Files not scanned, per reason: binary, lfs, submodule, excluded."),
		"suppressedBy":   countsOf("Suppressed findings per source: inline, inline-added (markers the compared change adds; those findings are listed), ignore-file, baseline."),
		"policyChanged":  boolean("True when the compared change edits the repository's privscan policy (.privscan.toml, .privscanignore): the base's policy was applied."),
		"uncorroborated": integer("Matches of record rules dropped because no value of the same record matched near them (catalogs sealed from a table with record rules)."),
	}, "findings", "returned", "suppressed", "filesScanned", "linesScanned", "commitsScanned", "bySeverity", "skipped", "suppressedBy", "policyChanged"),
	"truncated": boolean("True when findings were left out of the list to keep the reply small; the counts are complete. Narrow the scan (paths) to see the rest."),
	"rules": map[string]any{
		"type":        "object",
		"description": "Findings per rule ID, with the rule's category, severity and value-free description.",
		"additionalProperties": obj(props{
			"count":       integer("Findings of this rule."),
			"category":    str("The rule's category."),
			"severity":    enum("The rule's severity.", "error", "warning", "note"),
			"description": str("The rule's description from the catalog (never a value)."),
		}, "count", "category", "severity"),
	},
}, "version", "tool", "findings", "summary", "truncated", "rules")

var redactOutputSchema = obj(props{
	"text":         str("The text with every match replaced by [<category>:<n>]; the same value gets the same n within one call. Everything else is unchanged."),
	"replacements": integer("Number of replacements made."),
	"lines":        integer("Lines in the text."),
	"byCategory":   countsOf("Replacements per category."),
}, "text", "replacements", "lines", "byCategory")

var readOutputSchema = obj(props{
	"text":         str("The lines of the window as Claude Code's Read shows them (each prefixed by its line number), joined by newlines, with every match replaced by [<category>:<n>]; the same value gets the same n within one call. A single line longer than the reply's limit (48 KiB) is cut after redaction."),
	"startLine":    integer("Number of the first line returned (0 when none)."),
	"lines":        integer("Lines returned."),
	"replacements": integer("Replacements in the lines returned."),
	"byCategory":   countsOf("Replacements per category."),
	"cutLines":     integer("Lines cut to keep the reply under 48 KiB (only a line longer than that)."),
	"endOfFile":    boolean("True when the file ended inside the window (an offset past the end returns no lines)."),
	"truncated":    boolean("True when the reply stopped before the end of the window to stay small: call again with offset set to nextOffset."),
	"nextOffset":   integer("The offset to pass to read on, when truncated."),
}, "text", "startLine", "lines", "replacements", "byCategory", "cutLines", "endOfFile", "truncated")

var redactFileOutputSchema = obj(props{
	"path":         str("The file, relative to the server's working directory when inside it."),
	"style":        enum("How matches were replaced.", StylePlaceholder, StyleSynthetic),
	"written":      boolean("True when the file was rewritten; false when nothing matched and the file was left alone."),
	"replacements": integer("Matches replaced."),
	"lines":        integer("Lines in the file."),
	"byRule":       countsOf("Replacements per rule ID."),
	"byCategory":   countsOf("Replacements per category."),
	"locations": map[string]any{"type": "array", "description": "The replacements in file order, at most 100 (see truncated); never the replaced text.", "items": obj(props{
		"line":     integer("1-based line number."),
		"column":   integer("1-based column of the replaced match in the original line, in Unicode code points."),
		"ruleId":   str("The rule that matched: catalog/<rule-id>, pii/<detector> or secret/<gitleaks-rule-id>."),
		"category": str("The rule's category."),
	}, "line", "column", "ruleId", "category")},
	"truncated": boolean("True when locations were left out of the list; the counts are complete."),
}, "path", "style", "written", "replacements", "lines", "byRule", "byCategory", "locations", "truncated")

// Tools returns the tool definitions served by privscan mcp.
func Tools() []mcp.Tool {
	return []mcp.Tool{
		tool(ToolLoadContext, "Load reference context",
			`Returns the raw Markdown of a reference document (for example a privacy guide) that the user's key map lists under [keys]. Pass the exact key your instructions give you: keys cannot be listed, and an unknown key fails with code unknown_key. Catalog keys are not accepted here, because catalogs are never returned by any tool.`,
			obj(props{
				"key":      str("The context key from your instructions, e.g. \"privacy-guide\"."),
				"agent_id": str(descAgentID),
			}, "key"), nil),
		tool(ToolScanDiff, "Scan a git diff for private data",
			`Scans the lines a git diff adds (and, between two commits, the commit messages) for catalogued identifiers (customer and colleague names, internal hosts, account numbers, codenames...), PII (email, phone, credit card, IBAN, US SSN, IP address) and secrets. Returns findings with rule ID, category, severity, file, line and columns, never the matched text or a catalog value, plus summary counts.

What is compared:
- no base, staged false (default): HEAD vs the working tree, including untracked files that are not ignored: everything not committed yet;
- staged true: HEAD vs the index, exactly what "git commit" would record;
- base only: that revision vs the working tree (vs the index with staged true); base may also be a range "A..B", or "A...B" (merge base of A and B vs B, as for a pull request);
- base and head: commit vs commit, plus the messages of the commits in between.
At most 100 findings are listed (truncated says whether some were left out; summary and rules count all): pass paths to narrow the scan.`,
			obj(props{
				"catalog_key": str(descCatalogKey),
				"repo":        str("Directory in the git repository to scan, absolute or relative to the server's working directory (default: the working directory). It must lie inside the server's working directory or a --root directory."),
				"base":        str("Old side of the comparison: a revision such as HEAD~1, main or a commit ID, or a range A..B / A...B when head is omitted."),
				"head":        str("New side: a revision. Requires base; cannot be combined with staged."),
				"staged":      boolean("Compare with the index (staged changes) instead of the working tree."),
				"paths":       map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": MaxPaths, "description": "Limit the scan to these files, directories or globs, relative to repo (like git diff -- <path>...). At most 100."},
				"agent_id":    str(descAgentID),
			}), scanOutputSchema),
		tool(ToolScanText, "Scan text for private data",
			fmt.Sprintf(`Scans a text, such as a draft commit message, a pull request title or description, or a code snippet, for the same catalogued identifiers, PII and secrets as scan_diff. Returns findings located by line and column in the text, never the matched text, plus summary counts. At most %s of text; at most 100 findings are listed.`, size(MaxScanText)),
			obj(props{
				"catalog_key": str(descCatalogKey),
				"text":        map[string]any{"type": "string", "maxLength": MaxScanText, "description": "The text to scan."},
				"agent_id":    str(descAgentID),
			}, "text"), scanOutputSchema),
		tool(ToolRedactText, "Redact private data from text",
			fmt.Sprintf(`Returns a copy of a text with every catalogued identifier, PII match and secret replaced by a placeholder [<category>:<n>] ([secret:<n>] for secrets); the same value gets the same n within one call, and everything else is unchanged. Use it to produce a shareable version of a log, an issue report or a description. At most %s of text; use scan_text to check longer text.`, size(MaxRedactText)),
			obj(props{
				"catalog_key": str(descCatalogKey),
				"text":        map[string]any{"type": "string", "maxLength": MaxRedactText, "description": "The text to redact."},
				"agent_id":    str(descAgentID),
			}, "text"), redactOutputSchema),
		tool(ToolReadRedacted, "Read a file with private data redacted",
			`Reads a text file the way Claude Code's Read tool does, with every catalogued identifier, PII match and secret replaced by [<category>:<n>]. Use it when privscan's guard denied a Read because the file holds private data: you get the same lines, numbered the same way, without the values. offset and limit work as Read's: the lines from offset (1-based; default the first line), at most limit lines (default: to the end of the file). When truncated is true the reply stopped early to stay small: call again with offset set to nextOffset. The path must be inside the server's working directory or a --root directory; binary files are refused (binary_file). Each distinct text read counts against a budget per agent and hour shared with scan_text and redact_text (rate_limited past it; reading the same lines again is free).`,
			obj(props{
				"path":        str("The file to read, absolute or relative to the server's working directory."),
				"offset":      map[string]any{"type": "integer", "minimum": 0, "description": "The line number to start reading from (1-based), as Read's offset. Omit it to start at the first line."},
				"limit":       map[string]any{"type": "integer", "minimum": 0, "description": "The number of lines to read, as Read's limit. Omit it to read to the end of the file."},
				"catalog_key": str(descCatalogKey),
				"agent_id":    str(descAgentID),
			}, "path"), readOutputSchema),
		writes(tool(ToolRedactFile, "Redact private data in a file",
			fmt.Sprintf(`Rewrites a file in place, replacing every catalogued identifier, PII match and secret: with a placeholder [<category>:<n>] (style "placeholder", the default), or with a synthetic look-alike of the same kind (style "synthetic": Jane Doe, user1@example.com, host1.example.internal, 555-0100, 192.0.2.1, REDACTED-SECRET-1; other categories <category>-<n>). Use it to fix a file that privscan's Read guard, a scan or the commit gate flagged, instead of editing values you cannot see. Line endings, the file's permissions and every byte outside a match are kept; the file is replaced atomically, and only when the result holds no match. Returns the replacements by rule ID, line and column, never the text. Running it again on the redacted file changes nothing. Each distinct file content counts against the budget shared with scan_text, redact_text and read_redacted (rate_limited past it). The path must be a regular text file inside the server's working directory or a --root directory, at most %s. Check the result with read_redacted or scan_diff.`, size(MaxRedactFile)),
			obj(props{
				"path":        str("The file to rewrite, absolute or relative to the server's working directory."),
				"style":       enum("placeholder (default): [<category>:<n>]; synthetic: a look-alike of the same kind.", StylePlaceholder, StyleSynthetic),
				"catalog_key": str(descCatalogKey),
				"agent_id":    str(descAgentID),
			}, "path"), redactFileOutputSchema)),
	}
}

// writes marks t as the tool that writes: not read-only, destructive
// (it replaces the file's content), idempotent (a second call finds
// nothing to replace).
func writes(t mcp.Tool) mcp.Tool {
	ro, destructive := false, true
	t.Annotations.ReadOnlyHint = &ro
	t.Annotations.DestructiveHint = &destructive
	return t
}

func tool(name, title, desc string, input, output map[string]any) mcp.Tool {
	t := mcp.NewTool(name,
		mcp.WithToolTitle(title),
		mcp.WithDescription(desc),
		mcp.WithTitleAnnotation(title),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	t.InputSchema = mcp.ToolInputSchema{}
	t.RawInputSchema = mustJSON(input)
	if output != nil {
		t.RawOutputSchema = mustJSON(output)
	}
	return t
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mcpserver: schema does not encode: " + err.Error())
	}
	return b
}

type props map[string]any

func obj(p props, required ...string) map[string]any {
	m := map[string]any{"type": "object", "properties": map[string]any(p), "additionalProperties": false}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func integer(desc string) map[string]any {
	return map[string]any{"type": "integer", "description": desc}
}

func boolean(desc string) map[string]any {
	return map[string]any{"type": "boolean", "description": desc}
}

func enum(desc string, values ...string) map[string]any {
	return map[string]any{"type": "string", "enum": values, "description": desc}
}
