package sarif

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"

	gosarif "github.com/owenrumney/go-sarif/v2/sarif"
	"github.com/privscan/privscan/finding"
)

const (
	// DefaultMaxResults is GitHub code scanning's limit on results per run.
	DefaultMaxResults = 25000
	// MaxRunsPerFile is GitHub code scanning's limit on runs in one file
	// (a merged log of more is still valid SARIF, but not uploadable).
	MaxRunsPerFile = 20
	// MaxUploadBytes is the gzip-compressed size the output is kept under
	// (GitHub accepts at most 10 MB; 10,000,000 bytes leaves a margin for
	// compressors that do worse than Go's default level).
	MaxUploadBytes = 10_000_000
	// DefaultInformationURI is the tool's informationUri when Options has none.
	DefaultInformationURI = "https://github.com/privscan/privscan"
	// SchemaURI is the $schema of every log: the OASIS SARIF 2.1.0 errata01 schema.
	SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// FingerprintKey is the partialFingerprints key holding Finding.Fingerprint.
	FingerprintKey = "privscanFingerprint/v1"
	// SourceRoot is the uriBaseId of every location.
	SourceRoot = "%SRCROOT%"
)

// Options configures a Handler.
type Options struct {
	// ToolVersion is tool.driver.version; when it is a semantic version
	// ("1.2.3" or "v1.2.3-rc.1") it is also tool.driver.semanticVersion
	// (without the "v").
	ToolVersion string
	// Category sets runs[0].automationDetails.id. GitHub reads everything
	// before the id's last "/" as the analysis category, so a "/" is
	// appended when Category does not end in one ("privscan" is emitted as
	// "privscan/"), as github/codeql-action/upload-sarif does with its own
	// category input. Empty: no automationDetails.
	Category string
	// InformationURI is tool.driver.informationUri (DefaultInformationURI
	// when empty).
	InformationURI string
	// MaxResults caps the results of the run: 0 or less means
	// DefaultMaxResults, and larger values are lowered to it.
	MaxResults int
	// Warn receives value-free notices (truncation). Nil: ignored.
	Warn func(msg string)
}

// Handler is a finding.Handler that renders the findings stream as one
// SARIF 2.1.0 log. It buffers findings and writes the log when Summary is
// called. It is not safe for concurrent use.
type Handler struct {
	w        io.Writer
	opts     Options
	findings []finding.Finding
	done     bool
	maxGzip  int // MaxUploadBytes; lowered by tests
}

var _ finding.Handler = (*Handler)(nil)

// NewHandler returns a Handler that writes to w. It writes nothing until
// Summary; it never opens or truncates files itself (callers that write a
// file create it with os.Create).
func NewHandler(w io.Writer, opts Options) *Handler {
	if opts.MaxResults <= 0 || opts.MaxResults > DefaultMaxResults {
		opts.MaxResults = DefaultMaxResults
	}
	if opts.InformationURI == "" {
		opts.InformationURI = DefaultInformationURI
	}
	return &Handler{w: w, opts: opts, maxGzip: MaxUploadBytes}
}

// Finding buffers f. It rejects findings that cannot be rendered as valid
// SARIF; its errors name the finding's position in the stream, never its
// content.
func (h *Handler) Finding(f *finding.Finding) error {
	if h.done {
		return errors.New("sarif: finding after summary")
	}
	n := len(h.findings) + 1
	switch {
	case f == nil:
		return fmt.Errorf("sarif: finding %d is nil", n)
	case f.RuleID == "":
		return fmt.Errorf("sarif: finding %d has no rule ID", n)
	case levelOf(f.Severity) == "":
		return fmt.Errorf("sarif: finding %d has an invalid severity", n)
	case f.Line < 1:
		return fmt.Errorf("sarif: finding %d has an invalid line number", n)
	case f.Fingerprint == "":
		return fmt.Errorf("sarif: finding %d has no fingerprint", n)
	}
	h.findings = append(h.findings, *f)
	return nil
}

// Summary writes the SARIF log. When the findings exceed MaxResults, or the
// gzip-compressed log would exceed MaxUploadBytes, it keeps the most severe
// findings (ties in stream order), halving the count until the log fits,
// records the truncation in the run's properties and calls Options.Warn.
func (h *Handler) Summary(s *finding.Summary) error {
	if h.done {
		return errors.New("sarif: summary already written")
	}
	h.done = true
	if s == nil {
		s = &finding.Summary{}
	}
	order := severityOrder(h.findings)
	keep := min(len(order), h.opts.MaxResults)
	var out []byte
	for {
		var err error
		out, err = h.render(order[:keep], s)
		if err != nil {
			return err
		}
		size, err := gzipSize(out)
		if err != nil {
			return err
		}
		if size <= h.maxGzip || keep == 0 {
			break
		}
		keep /= 2
	}
	if keep < len(h.findings) && h.opts.Warn != nil {
		h.opts.Warn(fmt.Sprintf("SARIF output truncated: reporting %d of %d findings, the most severe first (limits: %d results per run, %d MB gzip-compressed)",
			keep, len(h.findings), h.opts.MaxResults, MaxUploadBytes/1_000_000))
	}
	if _, err := h.w.Write(out); err != nil {
		return fmt.Errorf("sarif: write: %w", err)
	}
	return nil
}

// severityOrder returns finding indices, most severe first, ties in
// stream order.
func severityOrder(fs []finding.Finding) []int {
	idx := make([]int, len(fs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return fs[idx[a]].Severity > fs[idx[b]].Severity })
	return idx
}

// render encodes the log for the findings at the given indices (reported
// in stream order).
func (h *Handler) render(sel []int, s *finding.Summary) ([]byte, error) {
	kept := append([]int(nil), sel...)
	sort.Ints(kept)

	report, err := gosarif.New(gosarif.Version210)
	if err != nil {
		return nil, fmt.Errorf("sarif: %w", err)
	}
	report.Schema = SchemaURI

	driver := gosarif.NewDriver("privscan").WithInformationURI(h.opts.InformationURI)
	if v := h.opts.ToolVersion; v != "" {
		driver.WithVersion(v)
		if semverRE.MatchString(v) {
			driver.WithSemanticVersion(trimV(v))
		}
	}
	run := gosarif.NewRun(*gosarif.NewTool(driver))
	run.WithColumnKind("utf16CodeUnits")
	if c := h.opts.Category; c != "" {
		if c[len(c)-1] != '/' {
			c += "/"
		}
		run.WithAutomationDetails(gosarif.NewRunAutomationDetails().WithID(c))
	}
	inv := run.AddInvocation(true)
	if s.PolicyChanged {
		// A note-level notification: the change edits the policy that
		// judged it (the base's policy was applied).
		inv.AddTToolExecutionNotification(gosarif.NewNotification().
			WithLevel("note").
			WithMessage(gosarif.NewTextMessage("This change edits the repository's privscan policy (.privscan.toml, .privscanignore or a catalog file). The base's policy judged it; the new policy applies once merged.")).
			WithDescriptor(gosarif.NewReportingDescriptorReference().WithId("privscan/policy-changed")))
	}

	// Rules first (go-sarif gives a result added before its rule the
	// index uint(-1)), sorted by ID; then results with explicit indices.
	type ruleAgg struct {
		first int // index of the rule's first kept finding
		sev   finding.Severity
	}
	aggs := map[string]*ruleAgg{}
	var ids []string
	for _, i := range kept {
		f := &h.findings[i]
		a := aggs[f.RuleID]
		if a == nil {
			a = &ruleAgg{first: i}
			aggs[f.RuleID] = a
			ids = append(ids, f.RuleID)
		}
		a.sev = max(a.sev, f.Severity)
	}
	sort.Strings(ids)
	ruleIndex := make(map[string]int, len(ids))
	for i, id := range ids {
		a := aggs[id]
		f := &h.findings[a.first]
		t := describe(f)
		rule := gosarif.NewRule(id).
			WithName(ruleName(id)).
			WithShortDescription(gosarif.NewMultiformatMessageString(t.short)).
			WithFullDescription(gosarif.NewMultiformatMessageString(t.full)).
			WithHelp(gosarif.NewMultiformatMessageString(t.helpText).WithMarkdown(t.helpMarkdown)).
			WithDefaultConfiguration(gosarif.NewReportingConfiguration().WithLevel(levelOf(a.sev))).
			WithProperties(gosarif.Properties{
				"tags":              tags(f.Source, f.Category),
				"precision":         precision(f.Source, id),
				"security-severity": securitySeverity(a.sev),
			})
		driver.AddRule(rule)
		ruleIndex[id] = i
	}
	if len(driver.Rules) != len(ids) {
		return nil, errors.New("sarif: duplicate rule IDs")
	}

	for _, i := range kept {
		f := &h.findings[i]
		loc := resultLocation(f, f.Line, f.Column16, f.EndColumn16)
		res := gosarif.NewRuleResult(f.RuleID).
			WithRuleIndex(ruleIndex[f.RuleID]).
			WithLevel(levelOf(f.Severity)).
			WithMessage(gosarif.NewTextMessage(messageText(f))).
			WithLocations([]*gosarif.Location{loc}).
			WithPartialFingerPrints(map[string]any{FingerprintKey: f.Fingerprint})
		props := gosarif.Properties{"privscan/kind": string(f.Kind)}
		if f.Commit != "" {
			props["privscan/commit"] = f.Commit
		}
		if f.Suppressed == finding.SuppressInlineAdded {
			res.AddSuppression(underReview(f, loc))
		}
		if r := f.CorroboratedBy; r != nil {
			// The corroborating match of a record rule: in the same file
			// or message (a record rule's window never leaves it).
			at := *f
			at.Path, at.Commit = r.Path, r.Commit
			res.AddRelatedLocation(resultLocation(&at, r.Line, r.Column16, r.EndColumn16).WithId(1).
				WithMessage(gosarif.NewTextMessage("The corroborating match: " + kindLabel(finding.SourceCatalog) + " " + shortName(finding.SourceCatalog, r.RuleID) + ", of the same record; the value is withheld.")))
		}
		res.AttachPropertyBag(&gosarif.PropertyBag{Properties: props})
		// Appended directly: run.AddResult would recompute ruleIndex.
		run.Results = append(run.Results, res)
	}

	run.Properties = runProperties(s, len(h.findings), len(kept))
	report.AddRun(run)

	var buf bytes.Buffer
	if err := report.PrettyWrite(&buf); err != nil {
		return nil, fmt.Errorf("sarif: encode: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// resultLocation is the location of finding f's match at line and the
// UTF-16 columns given (0: none).
func resultLocation(f *finding.Finding, line, col16, endCol16 int) *gosarif.Location {
	region := gosarif.NewRegion().WithStartLine(line)
	if col16 >= 1 {
		region.WithStartColumn(col16)
		if endCol16 >= col16 {
			region.WithEndColumn(endCol16)
		}
	}
	return gosarif.NewLocationWithPhysicalLocation(gosarif.NewPhysicalLocation().
		WithArtifactLocation(gosarif.NewSimpleArtifactLocation(locationURI(f)).WithUriBaseId(SourceRoot)).
		WithRegion(region))
}

// underReview is the suppression of a finding that only a privscan:allow
// marker added by the change under review covers: in source, under review.
// Every field is set (go-sarif would write nulls, which the schema
// refuses); the GUID is derived from the keyed fingerprint.
func underReview(f *finding.Finding, loc *gosarif.Location) *gosarif.Suppression {
	return gosarif.NewSuppression("inSource").
		WithStatus("underReview").
		WithLocation(loc).
		WithGuid(guidOf(f.Fingerprint)).
		WithJustifcation("privscan:allow marker added by this change; it takes effect once the change is accepted")
}

// guidOf formats the first 16 bytes of a SHA-256 of s as a version 4 style
// GUID (stable for a fingerprint, reveals nothing more than it).
func guidOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// runProperties holds the value-free run summary.
func runProperties(s *finding.Summary, total, reported int) gosarif.Properties {
	p := gosarif.Properties{
		"privscan/truncated":          reported < total,
		"privscan/totalFindings":      total,
		"privscan/reportedFindings":   reported,
		"privscan/suppressedFindings": s.Suppressed,
		"privscan/filesScanned":       s.FilesScanned,
		"privscan/linesScanned":       s.LinesScanned,
		"privscan/commitsScanned":     s.CommitsScanned,
	}
	if s.PolicyChanged {
		p["privscan/policyChanged"] = true
	}
	if len(s.Skipped) > 0 {
		m := make(map[string]int, len(s.Skipped))
		for k, v := range s.Skipped {
			m[string(k)] = v
		}
		p["privscan/skipped"] = m
	}
	if len(s.SuppressedBy) > 0 {
		p["privscan/suppressedBy"] = s.SuppressedBy
	}
	return p
}

// levelOf is the SARIF level of a severity, or "" if it has none.
func levelOf(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return "error"
	case finding.SeverityWarning:
		return "warning"
	case finding.SeverityNote:
		return "note"
	}
	return ""
}

// locationURI is the relative URI of a finding: its percent-encoded path,
// or a pseudo-path under .git/privscan/ for commit messages and texts.
func locationURI(f *finding.Finding) string {
	switch {
	case f.Kind == finding.KindCommitMessage:
		if f.Commit == "" {
			return commitURINoID
		}
		return commitURIPrefix + encodePath(f.Commit)
	case f.Path == "":
		return textURI
	}
	return encodePath(f.Path)
}

// messageText names the rule, its category and the place, and says the
// value is withheld. It never contains matched text.
func messageText(f *finding.Finding) string {
	m := kindLabel(f.Source) + " " + shortName(f.Source, f.RuleID)
	if f.Category != "" {
		m += " (" + f.Category + ")"
	}
	switch {
	case f.Kind == finding.KindCommitMessage:
		m += " matched in the message of commit " + shortCommit(f.Commit) + ", line " + strconv.Itoa(f.Line)
	case f.Path == "":
		m += " matched in the scanned text, line " + strconv.Itoa(f.Line)
	default:
		m += " matched here"
	}
	m += "; the value is withheld."
	if r := f.CorroboratedBy; r != nil {
		m += " Corroborated by " + shortName(finding.SourceCatalog, r.RuleID) + " of the same record at line " + strconv.Itoa(r.Line) + " ([here](1))."
	} else if f.Uncorroborated {
		m += " No value of the same record matched near it (a record rule's match reported at its fallback severity)."
	}
	return m
}

func shortCommit(c string) string {
	if c == "" {
		return "(unknown)"
	}
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// semverRE matches a semantic version with an optional "v".
var semverRE = regexp.MustCompile(`^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

func trimV(v string) string {
	if v != "" && v[0] == 'v' {
		return v[1:]
	}
	return v
}

// gzipSize is the size of b compressed at gzip's default level.
func gzipSize(b []byte) (int, error) {
	var c countWriter
	zw := gzip.NewWriter(&c)
	if _, err := zw.Write(b); err != nil {
		return 0, fmt.Errorf("sarif: measure: %w", err)
	}
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("sarif: measure: %w", err)
	}
	return c.n, nil
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
