package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
)

func runCatalog(env *Env, args []string) error {
	fs := flag.NewFlagSet("catalog check", flag.ContinueOnError)
	key := fs.String("catalog-key", "", "catalog `KEY` in the key map")
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(env.Stdout, helpFor("catalog", fs))
			return nil
		}
		if len(args) == 0 {
			return usagef("usage: privscan catalog check [--catalog-key KEY]")
		}
		return &nameError{what: "unknown catalog command", raw: args[0], candidates: []string{"check"},
			suggestFmt: "did you mean `privscan catalog %s`?", hint: "usage: privscan catalog check [--catalog-key KEY]"}
	}
	pos, paths, err := parseArgs(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(env.Stdout, helpFor("catalog", fs))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos)+len(paths) > 0 {
		return usagef("catalog check takes no arguments")
	}
	b, err := broker.Open(broker.Options{Getenv: env.Getenv})
	if err != nil {
		return err
	}
	// Compiling checks what parsing cannot (regex limits); the broker
	// reports a failure as catalog_invalid, as every scan does.
	parts, info, err := b.CheckCatalog(*key)
	if err != nil {
		return err
	}
	printCheck(env, parts, info)
	return nil
}

// printCheck prints the value-free counts and lint of the checked
// catalogs: per category and severity over all of them, and, when
// several are combined, one line per catalog.
func printCheck(env *Env, parts []broker.CheckedCatalog, info broker.CatalogInfo) {
	all := &catalog.Catalog{}
	for _, p := range parts {
		all.Rules = append(all.Rules, p.Catalog.Rules...)
	}
	counts := all.Counts()
	fmt.Fprintf(env.Stdout, "catalog: %d rule%s, %d value%s (from %s)\n", counts.Rules, plural(counts.Rules), counts.Values, plural(counts.Values), describeSource(info))
	fpLine := func(c *catalog.Catalog) string {
		if c.FingerprintKey == nil {
			return "fingerprint-key: not set (fingerprints are keyed by a digest of the catalog and change whenever it changes)"
		}
		return "fingerprint-key: set"
	}
	if len(parts) == 1 {
		fmt.Fprintln(env.Stdout, fpLine(parts[0].Catalog))
	} else {
		fmt.Fprintf(env.Stdout, "combined from %d catalogs (rule IDs are unique across them; each rule's fingerprints are keyed by its own catalog's key, the built-in detectors' by the first's):\n", len(parts))
		for i, p := range parts {
			c := p.Catalog.Counts()
			fmt.Fprintf(env.Stdout, "  %d. %s: %d rule%s, %d value%s; %s\n", i+1, describePart(p.Part), c.Rules, plural(c.Rules), c.Values, plural(c.Values), fpLine(p.Catalog))
		}
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\ncategory\trules\tvalues")
	for _, cc := range counts.Categories {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", cc.Category, cc.Rules, cc.Values)
	}
	fmt.Fprintln(tw, "\nseverity\trules\tvalues")
	for _, sc := range counts.Severities {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", sc.Severity, sc.Rules, sc.Values)
	}
	tw.Flush()
	var lines []string
	for i, p := range parts {
		for _, w := range catalog.Lint(p.Catalog) {
			if len(parts) > 1 {
				lines = append(lines, fmt.Sprintf("%d. %s", i+1, w))
			} else {
				lines = append(lines, w.String())
			}
		}
	}
	if len(lines) == 0 {
		fmt.Fprintln(env.Stdout, "\nlint: no warnings")
		return
	}
	fmt.Fprintf(env.Stdout, "\nlint: %d warning%s\n", len(lines), plural(len(lines)))
	for _, l := range lines {
		fmt.Fprintf(env.Stdout, "  %s\n", l)
	}
}

// describeSource names where the catalogs came from (never a path).
func describeSource(info broker.CatalogInfo) string {
	if info.Key != "" {
		return fmt.Sprintf("key map entry %q", info.Key)
	}
	env, file := false, 0
	for _, p := range info.Parts {
		if p.Source == broker.SourceEnv {
			env = true
		} else {
			file++
		}
	}
	switch {
	case env && file > 0:
		return broker.EnvCatalog + " and " + broker.EnvCatalogFile
	case env:
		return broker.EnvCatalog
	}
	return broker.EnvCatalogFile
}

// describePart names one catalog of a combination: its variable, or its
// file's base name.
func describePart(p broker.CatalogPart) string {
	if p.Source == broker.SourceEnv {
		return broker.EnvCatalog
	}
	return filepath.Base(p.Path)
}

const sampleCatalog = `# privscan catalog

This file lists identifiers that must never appear in code, fixtures, comments
or commit messages. Only privscan reads it; findings name the rule, never the
value. Format: https://github.com/privscan/privscan#catalog-format

- fingerprint-key: %s

## PEOPLE
- category: person
- severity: error
- description: Customer and colleague names
- match: identifier

` + "```values" + `
Replace Me Example
` + "```" + `

## HOSTS
- category: internal-host
- severity: error
- description: Internal host names

` + "```values" + `
replace-me.internal.invalid
` + "```" + `

## EMPLOYEE-ID
- category: employee-id
- severity: warning
- match: regex
- description: Employee ID format

` + "```values" + `
EMP-\d{6}
` + "```" + `
`

const sampleGuide = `# Privacy guide for agents

- Never copy real customer or colleague data into code, fixtures, comments or
  commit messages. Use synthetic data: "Jane Doe", "user@example.com",
  "192.0.2.10", "4111 1111 1111 1111" (a test card number).
- Before committing, ask the privacy-scanner subagent to scan the staged diff
  and the commit message.
`

func runInit(env *Env, args []string) error {
	fset := flag.NewFlagSet("init", flag.ContinueOnError)
	force := fset.Bool("force", false, "overwrite existing files")
	platform := fset.String("platform", "", "also set up for `PLATFORM` (claude-code)")
	pos, _, err := parseArgs(fset, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(env.Stdout, helpFor("init", fset))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("init takes no arguments")
	}
	if *platform != "" && *platform != "claude-code" {
		return usagef("unknown --platform (want claude-code)")
	}
	b, err := broker.Open(broker.Options{Getenv: env.Getenv})
	if err != nil {
		return err
	}
	mapPath := b.MapPath()
	if mapPath == "" {
		return withHint(errors.New("cannot locate the configuration directory"), "set HOME or XDG_CONFIG_HOME")
	}
	dir := filepath.Dir(mapPath)
	key := make([]byte, 32)
	rand.Read(key)
	files := []struct{ path, content string }{
		{filepath.Join(dir, "catalog.md"), fmt.Sprintf(sampleCatalog, hex.EncodeToString(key))},
	}
	mapText := "# privscan key map. Paths are relative to this file's folder.\n\n" +
		"# Reference content an authorized agent may read with load_context(key).\n[keys]\n"
	if *platform == "claude-code" {
		files = append(files, struct{ path, content string }{filepath.Join(dir, "privacy-guide.md"), sampleGuide})
		mapText += "privacy-guide = \"privacy-guide.md\"\n"
	}
	mapText += "\n# Catalogs: never returned to any caller; only the scanner reads them.\n[catalogs]\ndefault = \"catalog.md\"\n"
	files = append(files, struct{ path, content string }{mapPath, mapText})
	if !*force {
		for _, f := range files {
			if _, err := os.Lstat(f.path); err == nil {
				return withHint(fmt.Errorf("%s already exists", f.path), "pass --force to overwrite it")
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	for _, f := range files {
		if err := writePrivate(f.path, f.content); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "wrote %s\n", f.path)
	}
	fmt.Fprintln(env.Stdout, "\nEdit catalog.md, then run `privscan catalog check` and `privscan diff HEAD~1`.")
	if *platform == "claude-code" {
		fmt.Fprint(env.Stdout, `
Claude Code: the privacy-scanner subagent uses catalog key "default" and
context key "privacy-guide". Allow its tools without prompts by adding to
~/.claude/settings.json (or .claude/settings.json):

  "permissions": {
    "allow": ["mcp__plugin_privscan_privscan__*"],
    "deny": ["Read(~/.config/privscan/**)", "Bash(cat ~/.config/privscan/*)"]
  }

The plugin's hooks block a git commit, git push or gh pr/issue text that
holds catalogued data before it runs, and report what a file edit or a Bash
command just added. A privscan:allow marker or policy edit in the change
itself never counts: commit a deliberate exception yourself, outside Claude.
`)
	}
	return nil
}

// writePrivate writes content to path with mode 0600, replacing any file.
func writePrivate(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".privscan-init-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
