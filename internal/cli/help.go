package cli

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"strings"
)

// usage is the text of `privscan help`. It is the one source of the
// command list: the README's "Commands" block and the package
// documentation of cmd/privscan are copies that TestUsageSources keeps
// identical (go test ./internal/cli -run TestUsageSources -update
// rewrites them).
//
//go:embed usage.txt
var usage string

// helpFor returns a command's help: its text, then its flags with their
// defaults, generated from the flag set the command parses with (nil: no
// flags).
func helpFor(cmd string, fs *flag.FlagSet) string {
	h, ok := commandHelp[cmd]
	if !ok {
		return strings.TrimSpace(usage)
	}
	if fs == nil {
		return h
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if len(names) == 0 {
		return h
	}
	return h + "\n\nFlags:\n" + flagList(fs)
}

// flagList formats fs's flags, one or two lines each:
//
//	--format FORMAT       output format … (default "text")
func flagList(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		arg, text := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		if arg != "" {
			name += " " + strings.ToUpper(arg)
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			text += fmt.Sprintf(" (default %q)", def)
		}
		text = strings.ReplaceAll(text, "\n", "\n"+strings.Repeat(" ", 24))
		if len(name) <= 20 {
			fmt.Fprintf(&b, "  %-20s  %s\n", name, text)
		} else {
			fmt.Fprintf(&b, "  %s\n  %-20s  %s\n", name, "", text)
		}
	})
	return strings.TrimRight(b.String(), "\n")
}

// runHelp prints a command's help, as `privscan <command> --help` does.
func runHelp(ctx context.Context, env *Env, topic string) error {
	var args []string
	switch topic {
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
		return nil
	case "catalog":
		args = []string{"catalog", "check", "--help"}
	case "hook":
		args = []string{"hook", "claude-pre-tool-use", "--help"}
	default:
		if _, ok := commandHelp[topic]; !ok {
			return unknownCommand(topic)
		}
		args = []string{topic, "--help"}
	}
	sub := *env
	sub.Args = args
	return run(ctx, &sub)
}

// commandHelp holds each command's details; helpFor adds its flags.
var commandHelp = map[string]string{
	"diff": `privscan diff [<commit> | <a>..<b> | <a>...<b> | <a> <b>] [--staged] [flags] [-- <path>...]

Scans the lines a diff adds, with git diff's revision semantics:
  (no revision)   working tree vs index, as "git diff"
  <commit>        <commit> vs working tree
  <a>..<b>, <a> <b>   commit a vs commit b
  <a>...<b>       merge base of a and b vs b
  --staged        index vs HEAD (what "git commit" would record)
Comparisons with the working tree also scan untracked files that are not
ignored (--no-untracked: exactly git diff's files). With two commits, the
commit messages in the range are scanned too (--no-messages to skip).
No git binary is needed.`,
	"history": `privscan history [<range>] [flags] [-- <path>...]

Scans every non-merge commit's patch against its first parent, and every
commit message, in <range> (default: all of HEAD). <range> is a revision
("main"), or "<a>..<b>".`,
	"scan": `privscan scan [<path>...] [flags]

Scans whole files of the working tree (default: the whole repository),
honouring .gitignore.`,
	"text": `privscan text [<file>|-] [flags]

Scans any text: a commit message, a PR body, a log. "-" or no argument reads
stdin. Lines and columns are those of the text. Every line is scanned whole:
a line longer than 64 MiB is not cut but stops the scan with an error (exit
2), as does input past --max-input or not read within --max-time (so an
endless stream such as /dev/zero cannot hang a script).`,
	"redact": `privscan redact [<file>|-] [--catalog-key KEY]

Copies text to stdout with every catalog match, PII match and secret replaced
by [<category>:<n>] ([secret:<n>] for secrets); the same value gets the same
n within one run. Everything else is copied byte for byte. Streams: memory
stays bounded for any input size.

redact never copies a line it could not scan whole: a line longer than
64 MiB is replaced by "[privscan: line N withheld: longer than 64 MiB]", the
rest is copied, and privscan exits 2. Input past --max-input or not read
within --max-time also ends with exit 2; treat the output as incomplete.`,
	"catalog": `privscan catalog check [--catalog-key KEY]
privscan catalog seal [--catalog-key KEY] [--key-file F] -o FILE.sealed
privscan catalog seal --from TABLE --schema SCHEMA.toml [--format csv|tsv|jsonl] [--part-rows N] [--key-file F] -o FILE.sealed

check parses and lints the catalog (or loads a sealed one and checks the
integrity of every page of its tables, which a scan checks only as it
reads them); prints value counts per rule, category and severity, and lint
warnings. Never prints a value.

seal compiles the literal and identifier rules of a Markdown catalog into a
sealed catalog: keyed hashes and rule metadata, no value in any form that can
be recovered or confirmed without the seal key, so it can be committed or
shipped where the plaintext must not be. The seal key (256 bits, 64 hex
digits) comes from PRIVSCAN_SEAL_KEY, or is generated and written to
--key-file (mode 0600, never overwritten, never printed). Scans read it from
PRIVSCAN_SEAL_KEY or a seal-key entry in the key map. A regex rule cannot be
sealed: keep regex rules in a Markdown catalog combined with the sealed one.

seal --from reads the values from a table export instead: CSV or TSV with a
header row, or JSON Lines (- for stdin), streamed row by row. The schema
(TOML) lists the columns that are values and the rule, category, severity
and match mode (literal, identifier) each feeds; other columns are never
read as values. Bad rows (wrong width, invalid UTF-8, a control character,
a value under 3 characters) are skipped and listed by line number and
reason, never content; more than the schema's max-bad-rows fails the seal.
The sealed file finds exactly what the equivalent Markdown catalog finds
(docs/catalog.md, "Catalogs from a table"). A table of more than
--part-rows rows (default 10000000) is sealed in parts, each built,
written and freed before the next is read (memory bounded by a part):
FILE.sealed, FILE.part2.sealed, ... FILE.partK.sealed, one catalog named by
FILE.sealed; a missing, extra or foreign part is catalog_invalid.

Record rules: a column with corroborated-by (columns of the same row) and
within (lines, or "file") counts only when a value of its own row in one of
those columns matches that near it (a common name only with that
customer's email or account); otherwise it is dropped, or reported at note
with uncorroborated = "note". A column with search = false only
corroborates. The sealed file decides "same row" with keyed record
identifiers; the finding names the corroborating rule and location
(docs/catalog.md, "Record rules").`,
	"init": `privscan init [--platform claude-code] [--force]

Creates the key map ($XDG_CONFIG_HOME/privscan/context-map.toml) and a sample
catalog with a random fingerprint-key, both mode 0600. Refuses to overwrite
existing files unless --force is given.`,
	"demo": `privscan demo

Builds a throw-away repository and catalog in a temporary directory, commits
a change that leaks a catalogued name, an email and a secret, and runs
"privscan diff HEAD~1" on it. Needs no configuration.`,
	"action": ActionHelp,
	"org": `privscan org plan (--github ORG | --gitlab GROUP | --repos FILE) [--shards N] -o plan.json
privscan org scan --plan plan.json [--shard I] --out DIR
privscan org merge DIR... [--format json|sarif|markdown] [--output FILE]

An organisation-wide history backfill for an existing distributed engine
(GitHub Actions, a Kubernetes Indexed Job): see docs/org.md.

plan lists the repositories (the GitHub REST API with GITHUB_TOKEN and
GITHUB_API_URL, GitLab's with GITLAB_TOKEN and GITLAB_API_URL, or a file of
clone URLs, credentials removed) and balances them over N shards, largest
first; a very large history is split into commit ranges. The plan holds
names, credential-free URLs, sizes and ranges, nothing secret.

scan runs one shard (--shard, else JOB_COMPLETION_INDEX, else the only
one): each repository is cloned bare with go-git into a temporary folder
(https with PRIVSCAN_GIT_TOKEN, else the listing API's token; ssh; file
URLs are read in place), its history scanned as privscan history scans it,
and one JSON and one SARIF report written under DIR/reports. DIR/manifest.json
records what finished: run again, a shard resumes, and later scans only the
commits added since. A repository that fails (gone, auth, corrupt, over
--max-repo-size) is recorded with a value-free reason and the shard goes on.

merge joins shard folders into one report: per-repository counts, every
finding once with its repository, failures, and the planned repositories
with no result. SARIF has one run per repository (automationDetails.id
privscan-org/<name>/).

Exit codes: 0 done (findings do not fail org commands), 2 error.`,
	"mcp":  MCPHelp,
	"hook": HookHelp + "\n\n" + PostHookHelp,
	"version": `privscan version

Prints the version.`,
}
