// Package cli implements the privscan command line. cmd/privscan is a thin
// main around Run.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/privscan/privscan/internal/gitsrc"
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
	// ServeMCP serves "privscan mcp" in this process with the parsed
	// options. privscan leaves it nil and runs the privscan-mcp binary
	// instead (cmd/privscan-mcp sets it), so that no other command pays
	// for starting the MCP server's libraries.
	ServeMCP func(ctx context.Context, env *Env, opts MCPOptions) error
	// OpenRepo opens the repository a scan reads; nil: the engine's
	// default (tests count the opens: a scan opens one).
	OpenRepo func(dir string) (*gitsrc.Repo, error)
}

// Version is the privscan version, set at build time with
// -ldflags "-X github.com/privscan/privscan/internal/cli.Version=v1.2.3";
// otherwise the module version from the build info, or "devel".
var Version = ""

// Commit and Date are the source commit and its time, set at build time
// (-X …/internal/cli.Commit=… -X …/internal/cli.Date=…); otherwise read
// from the build's VCS stamp when there is one.
var Commit, Date = "", ""

// versionText is what `privscan version` prints: the version, then the
// commit it was built from and the Go version that built it.
func versionText() string {
	commit, date, modified := Commit, Date, false
	goVersion := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		for _, st := range bi.Settings {
			switch st.Key {
			case "vcs.revision":
				if commit == "" {
					commit = st.Value
				}
			case "vcs.time":
				if date == "" {
					date = st.Value
				}
			case "vcs.modified":
				modified = st.Value == "true" && Commit == ""
			}
		}
	}
	if commit == "" {
		commit = "unknown"
	}
	if date != "" {
		commit += " (" + date + ")"
	}
	if modified {
		commit += ", with local changes"
	}
	return fmt.Sprintf("privscan %s\ncommit: %s\ngo: %s\n", ToolVersion(), commit, goVersion)
}

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
var commands = []string{"diff", "history", "scan", "text", "redact", "catalog", "init", "demo", "mcp", "hook", "action", "org", "version", "help"}

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
	case "org":
		return runOrg(ctx, env, rest)
	case "version", "--version":
		fmt.Fprint(env.Stdout, versionText())
		return nil
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			return runHelp(ctx, env, rest[0])
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
