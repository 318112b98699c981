// Command gitleakscmp compares the secret findings of a gitleaks JSON
// report (gitleaks git --report-format json) with those of a privscan JSON
// report (privscan history --format json) of the same commits, as sets of
// (commit, path, line, rule) keys. It prints counts, the differences by
// rule, and each differing key (never a secret, a match or a line text).
//
// Usage:
//
//	gitleakscmp [-list 50] GITLEAKS.json PRIVSCAN.json
//
// privscan findings other than secrets and other than lines of diffs
// (commit messages, which gitleaks git does not scan) are left out.
// gitleaks findings of decoded text (tagged decode-depth:N) are counted
// apart.
//
// The line of a key is the line where the secret starts, as privscan
// reports it: gitleaks reports where the match starts, which for rules
// spanning lines (a curl command and its header on the next line) is an
// earlier line, so its line is moved by the newlines of the match before
// the secret. A finding of decoded text keeps gitleaks' line, that of the
// encoded text.
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

type key struct {
	Commit, Path string
	Line         int
	Rule         string
}

type glFinding struct {
	Commit        string
	File          string
	StartLine     int
	RuleID        string
	Tags          []string
	Match, Secret string // used to find the secret's line, never printed
}

type psReport struct {
	Findings []struct {
		RuleID string `json:"ruleId"`
		Source string `json:"source"`
		Kind   string `json:"kind"`
		Path   string `json:"path"`
		Commit string `json:"commit"`
		Line   int    `json:"line"`
	} `json:"findings"`
}

func main() {
	list := flag.Int("list", 50, "differing keys listed per side (0: none, -1: all)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: gitleakscmp [-list N] GITLEAKS.json PRIVSCAN.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), flag.Arg(1), *list); err != nil {
		fmt.Fprintln(os.Stderr, "gitleakscmp:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, glPath, psPath string, list int) error {
	gl, decoded, err := readGitleaks(glPath)
	if err != nil {
		return err
	}
	ps, err := readPrivscan(psPath)
	if err != nil {
		return err
	}
	var both, onlyGL, onlyPS []key
	for k := range gl {
		if ps[k] {
			both = append(both, k)
		} else {
			onlyGL = append(onlyGL, k)
		}
	}
	for k := range ps {
		if !gl[k] {
			onlyPS = append(onlyPS, k)
		}
	}
	dec := func(ks []key) int {
		n := 0
		for _, k := range ks {
			if decoded[k] {
				n++
			}
		}
		return n
	}
	fmt.Fprintf(w, "gitleaks: %d keys (%d of decoded text)\n", len(gl), len(decoded))
	fmt.Fprintf(w, "privscan: %d keys\n", len(ps))
	fmt.Fprintf(w, "both: %d (%d of decoded text)\n", len(both), dec(both))
	fmt.Fprintf(w, "only gitleaks: %d (%d of decoded text)\n", len(onlyGL), dec(onlyGL))
	fmt.Fprintf(w, "only privscan: %d\n", len(onlyPS))
	for _, side := range []struct {
		name string
		ks   []key
	}{{"only gitleaks", onlyGL}, {"only privscan", onlyPS}} {
		if len(side.ks) == 0 {
			continue
		}
		byRule := map[string]int{}
		for _, k := range side.ks {
			byRule[k.Rule]++
		}
		rules := make([]string, 0, len(byRule))
		for r := range byRule {
			rules = append(rules, r)
		}
		slices.SortFunc(rules, func(a, b string) int { return cmp.Or(cmp.Compare(byRule[b], byRule[a]), cmp.Compare(a, b)) })
		fmt.Fprintf(w, "\n%s by rule:\n", side.name)
		for _, r := range rules {
			fmt.Fprintf(w, "  %5d %s\n", byRule[r], r)
		}
		slices.SortFunc(side.ks, func(a, b key) int {
			return cmp.Or(cmp.Compare(a.Commit, b.Commit), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Rule, b.Rule))
		})
		n := len(side.ks)
		if list >= 0 {
			n = min(n, list)
		}
		if n > 0 {
			fmt.Fprintf(w, "%s keys:\n", side.name)
		}
		for _, k := range side.ks[:n] {
			tag := ""
			if decoded[k] {
				tag = " (decoded)"
			}
			fmt.Fprintf(w, "  %.12s %s:%d %s%s\n", k.Commit, k.Path, k.Line, k.Rule, tag)
		}
		if n < len(side.ks) {
			fmt.Fprintf(w, "  … %d more\n", len(side.ks)-n)
		}
	}
	return nil
}

// readGitleaks returns the keys of a gitleaks report and those of them
// found only in decoded text.
func readGitleaks(path string) (all, decoded map[key]bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var fs []glFinding
	if err := json.Unmarshal(b, &fs); err != nil {
		return nil, nil, fmt.Errorf("%s: not a gitleaks JSON report: %w", path, err)
	}
	all, decoded = map[key]bool{}, map[key]bool{}
	plain := map[key]bool{}
	for _, f := range fs {
		isDecoded := slices.ContainsFunc(f.Tags, func(t string) bool { return strings.HasPrefix(t, "decode-depth:") })
		line := f.StartLine
		if i := strings.Index(f.Match, f.Secret); i > 0 && f.Secret != "" && !isDecoded {
			line += strings.Count(f.Match[:i], "\n")
		}
		k := key{f.Commit, f.File, line, f.RuleID}
		all[k] = true
		if isDecoded {
			decoded[k] = true
		} else {
			plain[k] = true
		}
	}
	for k := range plain {
		delete(decoded, k)
	}
	return all, decoded, nil
}

func readPrivscan(path string) (map[key]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r psReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a privscan JSON report: %w", path, err)
	}
	if r.Findings == nil && !strings.Contains(string(b), `"findings"`) {
		return nil, errors.New(path + ": no findings array")
	}
	out := map[key]bool{}
	for _, f := range r.Findings {
		if f.Source != "secret" || f.Kind != "diff" {
			continue
		}
		out[key{f.Commit, f.Path, f.Line, strings.TrimPrefix(f.RuleID, "secret/")}] = true
	}
	return out, nil
}
