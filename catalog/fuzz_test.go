package catalog

import (
	"errors"
	"go/scanner"
	"go/token"
	"os"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// templateCorpus holds every string literal of the parser files plus
// the regexp/syntax error codes: the only text, besides rule IDs, quoted
// setting keys and numbers, that an error or warning may contain.
var templateCorpus = sync.OnceValues(func() (string, error) {
	var b strings.Builder
	err := eachStringLiteral([]string{"parse.go", "markdown.go", "settings.go", "values.go", "lint.go"}, func(u string) {
		b.WriteString(u)
		b.WriteByte(0)
	})
	if err != nil {
		return "", err
	}
	for _, code := range []syntax.ErrorCode{syntax.ErrInvalidCharClass, syntax.ErrInvalidCharRange, syntax.ErrInvalidEscape,
		syntax.ErrInvalidNamedCapture, syntax.ErrInvalidPerlOp, syntax.ErrInvalidRepeatOp, syntax.ErrInvalidRepeatSize,
		syntax.ErrInvalidUTF8, syntax.ErrMissingBracket, syntax.ErrMissingParen, syntax.ErrMissingRepeatArgument,
		syntax.ErrTrailingBackslash, syntax.ErrUnexpectedParen, syntax.ErrNestingDepth, syntax.ErrLarge} {
		b.WriteString(code.String())
		b.WriteByte(0)
	}
	return b.String(), nil
})

// eachStringLiteral calls fn with the value of every string literal in
// the named source files of this package.
func eachStringLiteral(names []string, fn func(string)) error {
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(name, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.STRING {
				if u, err := strconv.Unquote(lit); err == nil {
					fn(u)
				}
			}
		}
	}
	return nil
}

var (
	// Dynamic parts of messages: "rule ID", quoted IDs and keys, numbers.
	ruleIDPart  = regexp.MustCompile(`rule [A-Za-z][A-Za-z0-9._-]{0,63}`)
	quotedPart  = regexp.MustCompile(`"[A-Za-z][A-Za-z0-9._-]{0,63}"`)
	messageHead = regexp.MustCompile(`^catalog(?: line [0-9]+)?: `)
)

// checkTemplated fails unless msg is made only of template text, rule IDs,
// quoted keys and numbers: every word of it, with those removed, is a word
// of the template corpus, and every other character occurs in the corpus.
func checkTemplated(t *testing.T, msg string) {
	t.Helper()
	corpus, err := templateCorpus()
	if err != nil {
		t.Fatal(err)
	}
	words := corpusWordSet()
	rest := stripDynamic(msg)
	for _, w := range strings.FieldsFunc(rest, notWordRune) {
		if !words[w] && strings.Trim(w, "0123456789") != "" {
			t.Fatalf("message has non-template word %q: %q", w, msg)
		}
	}
	for _, c := range rest {
		if c != 0 && notWordRune(c) && !strings.ContainsRune(corpus, c) {
			t.Fatalf("message has non-template character %q: %q", c, msg)
		}
	}
}

// stripDynamic replaces the message heads, rule IDs and quoted IDs or keys
// of msg with NUL bytes.
func stripDynamic(msg string) string {
	var b strings.Builder
	for line := range strings.Lines(msg) {
		b.WriteString(messageHead.ReplaceAllString(line, "\x00"))
	}
	rest := ruleIDPart.ReplaceAllString(b.String(), "rule \x00")
	return quotedPart.ReplaceAllString(rest, "\x00")
}

func notWordRune(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }

var corpusWordSet = sync.OnceValue(func() map[string]bool {
	corpus, _ := templateCorpus()
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(corpus, notWordRune) {
		set[w] = true
	}
	return set
})

// leafErrors flattens joined errors.
func leafErrors(err error) []error {
	if m, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range m.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	return []error{err}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(specExample))
	f.Add([]byte("- fingerprint-key: " + strings.Repeat("0f", 32) + "\n## A\n- category: x\n- match: identifier\n- boundary: none\n~~~~values\nAcme Corp\n```\n~~~~\n"))
	f.Add([]byte("## R\r\n* category: c\r\n+ case: sensitive\r\n- description: d\r\n```values\r\nab(c\r\n```\r\n## R\n"))
	f.Add([]byte("\uFEFF# T\n```\n## X\n```\n## Y ##\n- category: y\n- match: regex\n```values\n\\bZorb\\b\n(?i)a*\n[^\\x00-\\x{10FFFF}]\n```\n"))
	f.Add([]byte("## A\n- category: x\n- description: zorblax\n```values\nZORBLAX\n```\n# End\n```values\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse(src)
		if err != nil {
			if c != nil {
				t.Fatal("catalog returned with an error")
			}
			leaves := leafErrors(err)
			if len(leaves) > MaxParseErrors+1 {
				t.Fatalf("%d errors", len(leaves))
			}
			for _, e := range leaves {
				var pe *ParseError
				if !errors.As(e, &pe) || pe != e {
					t.Fatalf("error %T is not a *ParseError", e)
				}
				if strings.Contains(pe.Reason, "\n") {
					t.Fatalf("reason spans lines: %q", pe.Reason)
				}
				checkTemplated(t, e.Error())
			}
			// Beyond IDs, keys and line numbers, no value-fence line shows.
			msg := err.Error()
			rest := stripDynamic(msg)
			corpus, _ := templateCorpus()
			for _, v := range fencedValues(string(src)) {
				numeric := strings.Trim(v, "0123456789") == "" // could be a line number
				if len(v) >= 4 && !numeric && strings.Contains(rest, v) && !strings.Contains(corpus, v) {
					t.Fatalf("error quotes value %q: %s", v, msg)
				}
			}
			return
		}
		ids := map[string]bool{}
		total := 0
		for _, r := range c.Rules {
			if !validRuleID([]byte(r.ID)) || ids[r.ID] || !validCategory([]byte(r.Category)) {
				t.Fatalf("bad rule %q / %q", r.ID, r.Category)
			}
			ids[r.ID] = true
			if len(r.Values) == 0 || len(r.Values) != len(r.ValueLines) {
				t.Fatalf("rule %s: %d values, %d lines", r.ID, len(r.Values), len(r.ValueLines))
			}
			for k, v := range r.Values {
				s := v.reveal()
				if s == "" || !utf8.ValidString(s) || strings.TrimSpace(s) != s || checkValue(s, r.Match) != "" {
					t.Fatalf("rule %s: bad value %q", r.ID, s)
				}
				if int(r.ValueLines[k]) <= r.Line || (k > 0 && r.ValueLines[k] <= r.ValueLines[k-1]) {
					t.Fatalf("rule %s: value lines %v (heading %d)", r.ID, r.ValueLines, r.Line)
				}
			}
			total += len(r.Values)
		}
		if n := c.Counts(); n.Rules != len(c.Rules) || n.Values != total {
			t.Fatalf("Counts = %+v", n)
		}
		for _, w := range Lint(c) {
			checkTemplated(t, w.String())
		}
	})
}
