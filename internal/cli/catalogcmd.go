package cli

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
)

const catalogUsage = "usage: privscan catalog check [--catalog-key KEY] | privscan catalog seal [--catalog-key KEY | --from TABLE --schema SCHEMA.toml [--part-rows N]] [--key-file F] -o FILE.sealed"

func runCatalog(env *Env, args []string) error {
	fs := flag.NewFlagSet("catalog", flag.ContinueOnError)
	key := fs.String("catalog-key", "", "catalog `KEY` in the key map")
	keyFile := fs.String("key-file", "", "seal: write a new random seal key to `F` (mode 0600; an existing file is never overwritten) unless PRIVSCAN_SEAL_KEY holds one")
	out := fs.String("o", "", "seal: the sealed catalog to write, `FILE.sealed` (replaced whole if it exists)")
	from := fs.String("from", "", "seal: read the values from a table export, `TABLE` (.csv, .tsv, .jsonl; - for stdin) instead of a Markdown catalog")
	schema := fs.String("schema", "", "seal --from: the `SCHEMA.toml` mapping the table's columns to rules")
	format := fs.String("format", "", "seal --from: the table's `FORMAT` (csv, tsv, jsonl), over the schema's format and the file name's suffix")
	noProgress := fs.Bool("no-progress", false, "seal --from: no progress line on a terminal")
	partRows := fs.Int("part-rows", 0, "seal --from: seal the table in parts of at most `N` rows (default 10000000), one file each (FILE.sealed, FILE.part2.sealed, ...)")
	if len(args) == 0 || (args[0] != "check" && args[0] != "seal") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(env.Stdout, helpFor("catalog", fs))
			return nil
		}
		if len(args) == 0 {
			return usagef(catalogUsage)
		}
		return &nameError{what: "unknown catalog command", raw: args[0], candidates: []string{"check", "seal"},
			suggestFmt: "did you mean `privscan catalog %s`?", hint: catalogUsage}
	}
	pos, paths, help, err := parseOrHelp(env, fs, "catalog", args[1:])
	if help || err != nil {
		return err
	}
	if len(pos)+len(paths) > 0 {
		return usagef("catalog %s takes no arguments", args[0])
	}
	b, err := broker.Open(broker.Options{Getenv: env.Getenv})
	if err != nil {
		return err
	}
	if args[0] == "seal" {
		t := tableSource{from: *from, schema: *schema, format: *format, progress: !*noProgress, partRows: *partRows}
		switch {
		case *partRows < 0:
			return usagef("--part-rows must be a positive number of rows")
		case *partRows > 0 && t.from == "":
			return usagef("--part-rows goes with --from TABLE")
		case t.from != "" && *key != "":
			return usagef("--from and --catalog-key name two sources: seal one")
		case t.from == "" && (t.schema != "" || t.format != ""):
			return usagef("--schema and --format go with --from TABLE")
		case t.from != "" && t.schema == "":
			return usagef("--from needs --schema SCHEMA.toml (which columns are values, and their rules)")
		}
		return runSeal(env, b, *key, *keyFile, *out, t)
	}
	if *keyFile != "" || *out != "" || *from != "" || *schema != "" || *format != "" || *partRows != 0 {
		return usagef("--key-file, -o, --from, --schema, --format and --part-rows belong to `privscan catalog seal`")
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

// tableSource is the table export that `catalog seal --from` reads.
type tableSource struct {
	from, schema, format string
	progress             bool
	partRows             int
}

// runSeal seals the Markdown catalog selected by key, or the table t.from,
// into out.
func runSeal(env *Env, b *broker.Broker, key, keyFile, out string, t tableSource) error {
	if out == "" {
		return usagef("catalog seal needs -o FILE.sealed")
	}
	if !strings.HasSuffix(strings.ToLower(out), ".sealed") {
		return usagef("-o must name a file ending in .sealed (privscan reads sealed catalogs by that suffix)")
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(env.Dir, p)
	}
	out = abs(out)
	var sealKey []byte
	if v := env.Getenv(broker.EnvSealKey); v != "" {
		k, err := catalog.ParseSealKey([]byte(v))
		if err != nil {
			return withHint(fmt.Errorf("%s is not a seal key: %w", broker.EnvSealKey, err), "unset it to have `--key-file F` generate a key, or set it to 64 hex digits")
		}
		sealKey = k
		if catalog.WeakSealKey(k) {
			fmt.Fprintf(env.Stderr, "privscan: warning: %s does not look random (a repeated byte or pattern, or few distinct bytes): anyone who holds the sealed file could guess such a key and then test values; unset it and pass --key-file F for a random one\n", broker.EnvSealKey)
		}
		if keyFile != "" {
			fmt.Fprintf(env.Stderr, "privscan: note: %s holds the seal key, so --key-file is not written\n", broker.EnvSealKey)
			keyFile = ""
		}
	} else {
		if keyFile == "" {
			return withHint(errors.New("no seal key: PRIVSCAN_SEAL_KEY is not set and no --key-file was given"),
				"pass --key-file F to generate a random key into F (mode 0600), or set PRIVSCAN_SEAL_KEY to 64 hex digits")
		}
		keyFile = abs(keyFile)
		if _, err := os.Lstat(keyFile); err == nil {
			return withHint(fmt.Errorf("%s already exists", keyFile), "a seal key file is never overwritten: name a new file, or set PRIVSCAN_SEAL_KEY to the key it holds")
		}
		sealKey = make([]byte, catalog.SealKeySize)
		if _, err := rand.Read(sealKey); err != nil {
			return fmt.Errorf("generating a seal key: %w", err)
		}
	}
	if t.from != "" {
		return runSealTable(env, t, abs, sealKey, keyFile, out)
	}
	c, info, err := b.ReadCatalogToSeal(key)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".privscan-seal-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 1<<20)
	err = catalog.Seal(bw, c, sealKey, nil)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sealErr(err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if keyFile != "" {
		if err := writeKeyFile(keyFile, sealKey); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	counts := c.Counts()
	fi, _ := os.Stat(out)
	var size int64
	if fi != nil {
		size = fi.Size()
	}
	source := describeSource(info)
	fmt.Fprintf(env.Stdout, "sealed %d rule%s, %d value%s (from %s) into %s (%d bytes)\n", counts.Rules, plural(counts.Rules), counts.Values, plural(counts.Values), source, out, size)
	reportSealEnd(env.Stdout, c.Rules, keyFile)
	return nil
}

// sealErr adds a hint to an error of catalog.Seal.
func sealErr(err error) error {
	var re *catalog.SealRegexError
	if errors.As(err, &re) {
		return withHint(err, "only literal and identifier rules can be sealed: move regex rules to a Markdown catalog and combine it with the sealed one (a [catalogs] list, or PRIVSCAN_CATALOG beside PRIVSCAN_CATALOG_FILE)")
	}
	return err
}

// bufPart is a part of catalog.SealTable written to a temporary file
// through a buffer.
type bufPart struct {
	f  *os.File
	bw *bufio.Writer
}

func (p *bufPart) Write(b []byte) (int, error) { return p.bw.Write(b) }

func (p *bufPart) ReadAt(b []byte, off int64) (int, error) {
	if err := p.bw.Flush(); err != nil {
		return 0, err
	}
	return p.f.ReadAt(b, off)
}

func (p *bufPart) WriteAt(b []byte, off int64) (int, error) {
	if err := p.bw.Flush(); err != nil {
		return 0, err
	}
	return p.f.WriteAt(b, off)
}

// runSealTable seals the table t into out, in parts of at most
// t.partRows rows (out, then catalog.PartName(out, i)): each part is
// written to a temporary file, and the parts are renamed into place once
// all are written, the first last; parts of an earlier seal beyond the
// new last part are removed.
func runSealTable(env *Env, t tableSource, abs func(string) string, sealKey []byte, keyFile, out string) error {
	var parts []*bufPart
	defer func() {
		for _, p := range parts {
			p.f.Close()
			os.Remove(p.f.Name())
		}
	}()
	var res *catalog.SealTableResult
	rep, err := readTable(env, t, abs, func(in io.Reader, s *catalog.Schema, opts *catalog.TableOptions) (*catalog.TableReport, error) {
		r, rep, err := catalog.SealTable(in, s, sealKey, &catalog.SealTableOptions{Table: opts, PartRows: t.partRows}, func(int) (catalog.PartFile, error) {
			f, err := os.CreateTemp(filepath.Dir(out), ".privscan-seal-*")
			if err != nil {
				return nil, fmt.Errorf("writing %s: %w", out, err)
			}
			p := &bufPart{f: f, bw: bufio.NewWriterSize(f, 1<<20)}
			parts = append(parts, p)
			return p, nil
		})
		res = r
		return rep, err
	})
	if err != nil {
		return sealErr(err)
	}
	for _, p := range parts {
		err := p.bw.Flush()
		if cerr := p.f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(p.f.Name(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
	}
	if keyFile != "" {
		if err := writeKeyFile(keyFile, sealKey); err != nil {
			return err
		}
	}
	for i := len(parts); i >= 1; i-- {
		if err := os.Rename(parts[i-1].f.Name(), catalog.PartName(out, i)); err != nil {
			return fmt.Errorf("writing %s: %w", catalog.PartName(out, i), err)
		}
	}
	for i := len(parts) + 1; ; i++ {
		if err := os.Remove(catalog.PartName(out, i)); err != nil {
			break
		}
		fmt.Fprintf(env.Stderr, "privscan: removed %s, a part of the catalog sealed there before\n", catalog.PartName(out, i))
	}
	var total int64
	values := 0
	for _, n := range res.Sizes {
		total += n
	}
	for _, n := range res.Values {
		values += n
	}
	good := rep.Rows - rep.BadRows
	source := fmt.Sprintf("%d row%s of %s", good, plural(good), tableName(t.from))
	if rep.BadRows > 0 {
		source += fmt.Sprintf("; %d bad row%s skipped", rep.BadRows, plural(rep.BadRows))
	}
	into := fmt.Sprintf("%s (%d bytes)", out, total)
	if res.Parts > 1 {
		into = fmt.Sprintf("%s and %s … %s, %d parts of at most %d rows (%d bytes in all)", out, filepath.Base(catalog.PartName(out, 2)), filepath.Base(catalog.PartName(out, res.Parts)), res.Parts, slices.Max(res.PartRows), total)
	}
	fmt.Fprintf(env.Stdout, "sealed %d rule%s, %d value%s (from %s) into %s\n", len(res.Rules), plural(len(res.Rules)), values, plural(values), source, into)
	reportSealEnd(env.Stdout, res.Rules, keyFile)
	return nil
}

// reportSealEnd ends a seal's report, Markdown's or a table's: a line per
// record rule (rule IDs and settings only) and, when the seal key was
// generated, where it was written.
func reportSealEnd(w io.Writer, rules []catalog.Rule, keyFile string) {
	for i := range rules {
		if line := recordRuleLine(rules[i].ID, rules[i].Record); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	if keyFile != "" {
		fmt.Fprintf(w, "seal key written to %s (mode 0600): keep it secret (a CI secret, a password manager); scans read it from PRIVSCAN_SEAL_KEY or a seal-key entry in the key map\n", keyFile)
	}
}

// recordRuleLine describes rule id's part in record rules, rec, for the
// seal's and check's reports (rule IDs and settings only), or "" when it
// takes none.
func recordRuleLine(id string, rec *catalog.RecordRule) string {
	switch {
	case rec == nil:
		return ""
	case rec.Hidden:
		return "  record rule: " + id + " only corroborates (search = false)"
	case len(rec.By) == 0:
		return ""
	}
	window := "in the same file or message"
	if rec.Within != catalog.WithinFile {
		window = fmt.Sprintf("within %d line%s", rec.Within, plural(rec.Within))
	}
	fallback := "dropped"
	if rec.Uncorroborated != 0 {
		fallback = "reported at " + rec.Uncorroborated.String()
	}
	return fmt.Sprintf("  record rule: %s counts only with a match of %s of the same row %s (otherwise %s)", id, strings.Join(rec.By, " or "), window, fallback)
}

// writeKeyFile creates path with mode 0600 and writes key to it as hex; an
// existing file is never replaced.
func writeKeyFile(path string, key []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return withHint(fmt.Errorf("%s already exists", path), "a seal key file is never overwritten: name a new file")
		}
		return fmt.Errorf("writing the seal key: %w", err)
	}
	_, err = f.Write(catalog.FormatSealKey(key))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("writing the seal key: %w", err)
	}
	return nil
}

// printCheck prints the value-free counts and lint of the checked
// catalogs: per rule, category and severity over all of them, and, when
// several are combined, one line per catalog. A sealed catalog has its
// rules and value counts but no values to lint.
func printCheck(env *Env, parts []broker.CheckedCatalog, info broker.CatalogInfo) {
	type ruleRow struct {
		id, category string
		sev          catalog.Severity
		values       int
	}
	var rows []ruleRow
	countsOf := func(p broker.CheckedCatalog) catalog.Counts {
		if p.Sealed != nil {
			return p.Sealed.Counts()
		}
		return p.Catalog.Counts()
	}
	all := &catalog.Sealed{}
	for _, p := range parts {
		if p.Sealed != nil {
			all.Rules = append(all.Rules, p.Sealed.Rules...)
			continue
		}
		for _, r := range p.Catalog.Rules {
			all.Rules = append(all.Rules, catalog.SealedRule{RuleInfo: catalog.RuleInfo{ID: r.ID, Category: r.Category, Severity: r.Severity}, Values: len(r.Values)})
		}
	}
	for _, r := range all.Rules {
		rows = append(rows, ruleRow{r.ID, r.Category, r.Severity, r.Values})
	}
	counts := all.Counts()
	fmt.Fprintf(env.Stdout, "catalog: %d rule%s, %d value%s (from %s)\n", counts.Rules, plural(counts.Rules), counts.Values, plural(counts.Values), describeSource(info))
	fpLine := func(p broker.CheckedCatalog) string {
		switch {
		case p.Sealed != nil && p.Sealed.Parts > 1:
			return fmt.Sprintf("sealed in %d parts, every part checked (fingerprint-key kept encrypted under the seal key)", p.Sealed.Parts)
		case p.Sealed != nil:
			return "sealed (fingerprint-key kept encrypted under the seal key)"
		case p.Catalog.FingerprintKey == nil:
			return "fingerprint-key: not set (fingerprints are keyed by a digest of the catalog and change whenever it changes)"
		}
		return "fingerprint-key: set"
	}
	if len(parts) == 1 {
		fmt.Fprintln(env.Stdout, fpLine(parts[0]))
	} else {
		fmt.Fprintf(env.Stdout, "combined from %d catalogs (rule IDs are unique across them; each rule's fingerprints are keyed by its own catalog's key, the built-in detectors' by the first's):\n", len(parts))
		for i, p := range parts {
			c := countsOf(p)
			fmt.Fprintf(env.Stdout, "  %d. %s: %d rule%s, %d value%s; %s\n", i+1, describePart(p.Part), c.Rules, plural(c.Rules), c.Values, plural(c.Values), fpLine(p))
		}
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nrule\tcategory\tseverity\tvalues")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.id, r.category, r.sev, r.values)
	}
	fmt.Fprintln(tw, "\ncategory\trules\tvalues")
	for _, cc := range counts.Categories {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", cc.Category, cc.Rules, cc.Values)
	}
	fmt.Fprintln(tw, "\nseverity\trules\tvalues")
	for _, sc := range counts.Severities {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", sc.Severity, sc.Rules, sc.Values)
	}
	tw.Flush()
	var rec []string
	for _, r := range all.Rules {
		if line := recordRuleLine(r.ID, r.Record); line != "" {
			rec = append(rec, line)
		}
	}
	if len(rec) > 0 {
		fmt.Fprintln(env.Stdout, "\nrecord rules (docs/catalog.md, \"Record rules\"):")
		for _, l := range rec {
			fmt.Fprintln(env.Stdout, l)
		}
	}
	var lines []string
	for i, p := range parts {
		if p.Catalog == nil {
			continue
		}
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
	pos, _, help, err := parseOrHelp(env, fset, "init", args)
	if help || err != nil {
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
