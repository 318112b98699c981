package sarif

import (
	"fmt"
	"strings"

	"github.com/privscan/privscan/finding"
	privrender "github.com/privscan/privscan/internal/render"
)

// maxTags is GitHub code scanning's hard limit on tags per rule.
const maxTags = 20

// securitySeverity maps a finding severity to GitHub's security-severity
// score (a string in the SARIF property bag). GitHub buckets scores as
// Critical ≥ 9.0, High 7.0–8.9, Medium 4.0–6.9, Low 0.1–3.9, and its default
// pull-request check fails on High or higher, so error-level findings fail
// the check and warnings and notes do not.
func securitySeverity(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return "8.0"
	case finding.SeverityWarning:
		return "5.0"
	default:
		return "2.0"
	}
}

// precision is GitHub's precision property ("very-high", "high", "medium"
// or "low") for a rule.
func precision(source, ruleID string) string {
	switch source {
	case finding.SourceCatalog, finding.SourceSecret:
		return "high"
	case finding.SourcePII:
		switch strings.TrimPrefix(ruleID, finding.SourcePII+"/") {
		case "credit-card", "iban", "us-ssn": // checksum- or range-validated
			return "high"
		case "ip-address":
			return "low"
		}
	}
	return "medium"
}

// cweTag is the CWE that best describes findings of a source, in the
// "external/cwe/cwe-N" form code scanning understands.
func cweTag(source string) string {
	switch source {
	case finding.SourceSecret:
		return "external/cwe/cwe-798" // use of hard-coded credentials
	case finding.SourceCatalog, finding.SourcePII:
		return "external/cwe/cwe-359" // exposure of private personal information
	}
	return ""
}

// tags returns the rule's tags: unique, non-empty, at most maxTags.
func tags(source, category string) []string {
	cand := []string{"privacy", "security", source, strings.ToLower(strings.TrimSpace(category)), cweTag(source)}
	out := make([]string, 0, len(cand))
	seen := make(map[string]bool, len(cand))
	for _, t := range cand {
		if t == "" || seen[t] || len(out) == maxTags {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// shortName is the rule ID without its "source/" prefix.
func shortName(source, ruleID string) string {
	if source != "" {
		if s, ok := strings.CutPrefix(ruleID, source+"/"); ok && s != "" {
			return s
		}
	}
	return ruleID
}

// kindLabel names a finding source for people.
func kindLabel(source string) string {
	switch source {
	case finding.SourceCatalog:
		return "Catalog rule"
	case finding.SourcePII:
		return "PII detector"
	case finding.SourceSecret:
		return "Secret rule"
	}
	return "Rule"
}

// ruleName is a PascalCase identifier made from the rule ID's letters and
// digits: "catalog/PER-001" becomes "CatalogPer001".
func ruleName(ruleID string) string {
	var b strings.Builder
	upper := true
	for _, r := range ruleID {
		isLetter := ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		isDigit := '0' <= r && r <= '9'
		if !isLetter && !isDigit {
			upper = true
			continue
		}
		if isLetter {
			if upper {
				r = toUpper(r)
			} else {
				r = toLower(r)
			}
		}
		b.WriteRune(r)
		upper = false
	}
	if b.Len() == 0 {
		return "PrivscanRule"
	}
	return b.String()
}

func toUpper(r rune) rune {
	if 'a' <= r && r <= 'z' {
		return r - 'a' + 'A'
	}
	return r
}

func toLower(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r - 'A' + 'a'
	}
	return r
}

// ruleTexts holds a rule's descriptions and help.
type ruleTexts struct {
	short, full, helpText, helpMarkdown string
}

// describe builds a rule's value-free descriptions and remediation help
// from the first finding of the rule.
func describe(f *finding.Finding) ruleTexts {
	name := shortName(f.Source, f.RuleID)
	label := kindLabel(f.Source)
	desc := oneLine(f.Description)

	var short string
	switch f.Source {
	case finding.SourceCatalog:
		short = "Private catalog entry " + name
	case finding.SourcePII:
		short = "Personal data: " + name
	case finding.SourceSecret:
		short = "Secret: " + name
	default:
		short = "privscan finding: " + name
	}
	if f.Category != "" {
		short += " (" + f.Category + ")"
	}

	var what string
	switch f.Source {
	case finding.SourceCatalog:
		what = "Text matched an entry of the private privscan catalog"
	case finding.SourcePII:
		what = "Text matched a built-in detector for personal data"
	case finding.SourceSecret:
		what = "Text matched a secret-detection rule (gitleaks rule set)"
	default:
		what = "Text matched a privscan rule"
	}
	full := fmt.Sprintf("%s %s", label, name)
	if f.Category != "" {
		full += " (category " + f.Category + ")"
	}
	if desc != "" {
		full += ": " + strings.TrimSuffix(desc, ".") + "."
	} else {
		full += "."
	}
	full += " " + what + ". The matched value is withheld from every privscan report."

	steps := remediation(f.Source, f.RuleID)
	var ht, hm strings.Builder
	ht.WriteString(full)
	ht.WriteString("\n\nWhat to do:\n")
	hm.WriteString("**" + mdEscape(label+" "+name) + "**")
	if f.Category != "" {
		hm.WriteString(" (category `" + mdCode(f.Category) + "`)")
	}
	if desc != "" {
		hm.WriteString(": " + mdEscape(strings.TrimSuffix(desc, ".")) + ".")
	} else {
		hm.WriteString(".")
	}
	hm.WriteString("\n\n" + what + ". The matched value is withheld from every privscan report.\n\n### What to do\n\n")
	for i, s := range steps {
		fmt.Fprintf(&ht, "%d. %s\n", i+1, s.text)
		fmt.Fprintf(&hm, "%d. %s\n", i+1, s.markdown)
	}
	return ruleTexts{short: short, full: full, helpText: strings.TrimSuffix(ht.String(), "\n"), helpMarkdown: strings.TrimSuffix(hm.String(), "\n")}
}

type step struct{ text, markdown string }

func remediation(source, ruleID string) []step {
	var out []step
	if source == finding.SourceSecret {
		out = append(out, step{
			"Rotate the secret now: treat it as compromised once it has been pushed, even if the commit is later rewritten.",
			"**Rotate the secret now**: treat it as compromised once it has been pushed, even if the commit is later rewritten.",
		}, step{
			"Remove it from the code and load it at run time from a secret store or an environment variable.",
			"Remove it from the code and load it at run time from a secret store or an environment variable.",
		})
	} else {
		out = append(out, step{
			"Replace the value with synthetic data (an invented name, an example.com address, a documented test number) or remove it.",
			"Replace the value with synthetic data (an invented name, an `example.com` address, a documented test number) or remove it.",
		})
	}
	out = append(out, step{
		"If it is in a commit message or already-pushed history, rewrite those commits before the branch is merged.",
		"If it is in a commit message or already-pushed history, rewrite those commits before the branch is merged.",
	}, step{
		"If this is a false positive, add \"privscan:allow " + ruleID + "\" on the line, or add the finding's fingerprint to .privscanignore at the repository root.",
		"If this is a false positive, add `privscan:allow " + mdCode(ruleID) + "` on the line, or add the finding's fingerprint to `.privscanignore` at the repository root.",
	})
	return out
}

// oneLine collapses whitespace runs (including newlines) to single spaces.
// oneLine is render.OneLine with runs of white space collapsed (rule
// texts are prose).
func oneLine(s string) string { return strings.Join(strings.Fields(privrender.OneLine(s)), " ") }

// mdEscape escapes the characters that would start Markdown or HTML markup.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '~':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode makes s safe inside a single-backtick code span.
func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }
