// Package cli implements the privscan command line. cmd/privscan is a thin
// main around Run.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// Env is everything a command may touch of the process: no command reads
// os.Args, os.Stdin, os.Getenv or the working directory directly, so tests
// run commands in-process.
type Env struct {
	Args   []string // without the program name
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Dir    string // working directory; "" = "."
	// StderrTTY and StdoutTTY say whether the streams are terminals (progress
	// bar, colour).
	StderrTTY, StdoutTTY bool
}

// Version is the privscan version, set at build time with
// -ldflags "-X github.com/privscan/privscan/internal/cli.Version=v1.2.3";
// otherwise the module version from the build info, or "devel".
var Version = ""

// ToolVersion returns the version string reported everywhere.
func ToolVersion() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-devel"
}

const usage = `privscan finds catalogued identifiers, PII and secrets in git changes,
and never prints what it found.

Usage:
  privscan diff [<commit> | <a>..<b> | <a>...<b> | <a> <b>] [--staged] [-- <path>...]
  privscan history [<range>] [-- <path>...]
  privscan scan [<path>...]
  privscan text [<file>|-]
  privscan redact [<file>|-]
  privscan catalog check
  privscan init [--platform claude-code] [--force]
  privscan mcp [--http <addr>] [--root <dir>]...
  privscan hook claude-pre-tool-use
  privscan action
  privscan demo
  privscan version

Common flags (diff, history, scan, text):
  --format text|json|sarif|github|markdown   output format (default text)
  --output FILE          write the report to FILE instead of stdout
  --fail-on LEVEL        error|warning|note|never: exit 1 when a finding is at
                         or above LEVEL (default warning, or the repo's fail-on)
  --catalog-key KEY      use the [catalogs] KEY of the key map
  --baseline FILE        suppress findings whose fingerprint is in a previous
                         --format json report
  --config FILE          repository config (default <repo>/.privscan.toml)
  --category ID          SARIF automationDetails.id
  --no-color             no colour (also NO_COLOR)
  -q                     no summary line

Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 error.
The catalog comes from --catalog-key, then PRIVSCAN_CATALOG, then
PRIVSCAN_CATALOG_FILE, then the "default" entry of
$XDG_CONFIG_HOME/privscan/context-map.toml. Run "privscan help <command>"
for a command's details.
`

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
stdin. Lines and columns are those of the text.`,
	"redact": `privscan redact [<file>|-] [--catalog-key KEY]

Copies text to stdout with every catalog match, PII match and secret replaced
by [<category>:<n>] ([secret:<n>] for secrets); the same value gets the same
n within one run. Everything else is copied byte for byte. Streams: memory
stays bounded for any input size.`,
	"catalog": `privscan catalog check [--catalog-key KEY]

Parses and lints the catalog; prints rule and value counts per category and
severity, and lint warnings. Never prints a value.`,
	"init": `privscan init [--platform claude-code] [--force]

Creates the key map ($XDG_CONFIG_HOME/privscan/context-map.toml) and a sample
catalog with a random fingerprint-key, both mode 0600. Refuses to overwrite
existing files unless --force is given.`,
	"demo": `privscan demo

Builds a throw-away repository and catalog in a temporary directory, commits
a change that leaks a catalogued name, an email and a secret, and runs
"privscan diff HEAD~1" on it. Needs no configuration.`,
	"action": ActionHelp,
	"mcp":    MCPHelp,
	"hook":   HookHelp,
	"version": `privscan version

Prints the version.`,
}

// Run runs one privscan command. The error maps to an exit code with
// ExitCode; Report prints it.
func Run(ctx context.Context, env *Env) error {
	err := run(ctx, env)
	if err != nil {
		resolveNames(ctx, newScreen(env, env.Args), err)
	}
	return err
}

// commands lists the commands, for suggestions.
var commands = []string{"diff", "history", "scan", "text", "redact", "catalog", "init", "demo", "mcp", "hook", "action", "version", "help"}

func unknownCommand(typed string) error {
	return &nameError{what: "unknown command", raw: typed, candidates: commands,
		suggestFmt: "did you mean `privscan %s`?", hint: "run `privscan help` for the commands"}
}

func run(ctx context.Context, env *Env) error {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Dir == "" {
		env.Dir = "."
	}
	args := env.Args
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "diff", "history", "scan", "text":
		return runScan(ctx, env, cmd, rest)
	case "redact":
		return runRedact(ctx, env, rest)
	case "catalog":
		return runCatalog(env, rest)
	case "init":
		return runInit(env, rest)
	case "demo":
		return runDemo(ctx, env, rest)
	case "mcp":
		return runMCP(ctx, env, rest)
	case "hook":
		return runHook(ctx, env, rest)
	case "action":
		return runAction(ctx, env, rest)
	case "version", "--version":
		fmt.Fprintf(env.Stdout, "privscan %s\n", ToolVersion())
		return nil
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if h, ok := commandHelp[rest[0]]; ok {
				fmt.Fprintln(env.Stdout, h)
				return nil
			}
			return unknownCommand(rest[0])
		}
		fmt.Fprint(env.Stdout, usage)
		return nil
	}
	// The command is repeated only after screening: arguments can hold
	// catalogued names, and error messages end up in CI logs.
	return unknownCommand(cmd)
}

// Main runs privscan as a process: it is what cmd/privscan calls.
func Main(ctx context.Context) int {
	env := &Env{
		Args:      os.Args[1:],
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		Getenv:    os.Getenv,
		StderrTTY: isTerminal(os.Stderr),
		StdoutTTY: isTerminal(os.Stdout),
	}
	return Report(os.Stderr, Run(ctx, env))
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func helpFor(cmd string) string {
	if h, ok := commandHelp[cmd]; ok {
		return h
	}
	return strings.TrimSpace(usage)
}

// stdinReader returns env.Stdin wrapped so that a read blocked on an idle
// terminal or pipe ends with ctx's error when ctx is cancelled (Ctrl-C).
// The goroutine copying from stdin may outlive the call until the process
// exits or stdin yields; that is the price of an interruptible read.
func stdinReader(ctx context.Context, env *Env) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, env.Stdin)
		pw.CloseWithError(err)
	}()
	context.AfterFunc(ctx, func() { pw.CloseWithError(ctx.Err()) })
	return pr
}
