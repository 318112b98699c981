package render

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// hostilePaths are file names a pull request controls, each written to
// become Markdown or HTML in a job summary.
var hostilePaths = []string{
	"[click](https://host.example/x)x.txt",
	"![img](https://host.example/i.png).md",
	"*emph* _under_ **strong** ~~strike~~.go",
	"`code` span.go",
	"<img src=x onerror=alert(1)>.html",
	"<https://host.example>.txt",
	"https://host.example/path.txt",
	"www.host.example/a.txt",
	"someone@host.example.txt",
	"a|b|c.txt",
	"# heading.md",
	"\\[escaped\\](url).md",
	"[ref][1]\n[1]: https://host.example.md",
	"&lt;img&gt;.txt",
	"caf\xe9.txt", // Latin-1, not UTF-8
	"caf\xe8.txt",
	"tab\there \"q\" \\.txt\xff",
}

func hostileFindings() []*finding.Finding {
	var fs []*finding.Finding
	for i, p := range hostilePaths {
		fs = append(fs, &finding.Finding{RuleID: "catalog/PER-001", Source: "catalog", Category: "person", Severity: finding.SeverityError,
			Kind: finding.KindDiff, Path: p, Line: i + 1, Column: 1, EndColumn: 5, Fingerprint: "00112233445566778899aabbccddeeff"})
	}
	return fs
}

// TestMarkdownHostilePaths renders the job summary of findings in hostile
// file names with a GitHub-flavoured Markdown renderer: every location
// cell must be plain text (no link, image, emphasis, strike, code or raw
// HTML), and show the name as it is.
func TestMarkdownHostilePaths(t *testing.T) {
	var md bytes.Buffer
	render(t, NewMarkdown(&md), hostileFindings(), &finding.Summary{Findings: len(hostilePaths), BySeverity: map[string]int{"error": len(hostilePaths)}})
	golden(t, "markdown-hostile.golden", md.Bytes())

	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	cells := regexp.MustCompile(`(?s)<td>(.*?)</td>`).FindAllStringSubmatch(html.String(), -1)
	var locs []string
	for _, c := range cells {
		if regexp.MustCompile(`:\d+:1$`).MatchString(c[1]) {
			locs = append(locs, c[1])
		}
	}
	if len(locs) != len(hostilePaths) {
		t.Fatalf("%d location cells, want %d:\n%s", len(locs), len(hostilePaths), html.String())
	}
	for _, loc := range locs {
		for _, tag := range []string{"<a", "<img", "<em", "<strong", "<del", "<code", "<h"} {
			if strings.Contains(loc, tag) {
				t.Errorf("location cell renders %s: %s", tag, loc)
			}
		}
	}
	// Every name comes out as written (HTML-escaped, newlines as spaces).
	for i, p := range hostilePaths {
		want := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;", "\n", " ").Replace(DisplayPath(p))
		if !strings.Contains(html.String(), "<td>"+want+":"+itoa(i+1)+":1</td>") {
			t.Errorf("name %q does not render as plain text; got cells:\n%s", p, strings.Join(locs, "\n"))
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestHostilePathsTextJSON: the same names in text and JSON. Names that are
// not UTF-8 are git-quoted, so that two of them never share a path.
func TestHostilePathsTextJSON(t *testing.T) {
	for _, c := range []struct {
		name string
		h    func(*bytes.Buffer) finding.Handler
	}{
		{"text", func(b *bytes.Buffer) finding.Handler { return NewText(b) }},
		{"json", func(b *bytes.Buffer) finding.Handler { return NewJSON(b, ToolInfo{Name: "privscan", Version: "1.2.3"}) }},
	} {
		var b bytes.Buffer
		render(t, c.h(&b), hostileFindings(), &finding.Summary{Findings: len(hostilePaths), BySeverity: map[string]int{"error": len(hostilePaths)}})
		golden(t, c.name+"-hostile.golden", b.Bytes())
		if c.name == "json" {
			var rep Report
			if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, f := range rep.Findings {
				if seen[f.Path] {
					t.Errorf("two findings share the path %q", f.Path)
				}
				seen[f.Path] = true
			}
			for _, want := range []string{`"caf\351.txt"`, `"caf\350.txt"`} {
				if !seen[want] {
					t.Errorf("no path %s in %v", want, seen)
				}
			}
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a\nb\r\nc\td", "a b  c d"},
		{"bell\a esc\x1b[31m del\x7f", "bell esc[31m del"},
		{"c1 \u0085nel \u009bcsi", "c1  nel csi"},
		{"ls\u2028ps\u2029", "ls ps "},
		{"bidi \u202eevil\u202c \u2066iso\u2069", "bidi evil iso"},
		{"zero\u200bwidth\u200d \ufeffbom", "zerowidth bom"},
		{"Jürgen Müller 😀", "Jürgen Müller 😀"},
	} {
		if got := OneLine(c.in); got != c.want {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
