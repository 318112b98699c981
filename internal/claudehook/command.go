package claudehook

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/hook"
	"github.com/privscan/privscan/internal/render"
)

// Run reads the hook payload from stdin and runs the hook name (PreName,
// PostName or GuardName). A payload that cannot be read lets the tool
// call through (a note on env.Stderr and nil), except for the guard,
// which cannot tell what it would let through and denies it.
func Run(ctx context.Context, eng *engine.Engine, env Env, stdin io.Reader, name string, opts Options) error {
	p, err := hook.Parse(stdin)
	if err != nil {
		if name == GuardName {
			return &denial{msg: fmt.Sprintf("privscan's guard could not read the hook payload (%s), so it allows nothing it cannot check", err),
				hint: "this is a privscan bug or a Claude Code change: please report it"}
		}
		fmt.Fprintf(env.Stderr, "privscan: hook: could not read the hook payload (%s); not gating this command\n", err)
		return nil
	}
	switch name {
	case PostName:
		return PostToolUse(ctx, eng, env, p, opts)
	case GuardName:
		return Guard(ctx, eng, env, p, opts)
	}
	return PreToolUse(ctx, eng, env, p, opts)
}

// Hook names, the first argument of "privscan hook" and of privscan-hook.
const (
	PreName  = "claude-pre-tool-use"
	PostName = "claude-post-tool-use"
)

// mainHelp is privscan-hook's help.
const mainHelp = `usage: privscan-hook claude-pre-tool-use|claude-post-tool-use|claude-guard [--fail-on LEVEL] [--catalog-key KEY]

privscan-hook is the Claude Code hooks of privscan in a binary of their
own, without the CLI's other commands and the MCP server, so that the
process every tool call starts is smaller and starts sooner. It takes the
arguments of "privscan hook" and behaves the same; "privscan hook --help"
describes both.`

// Main is privscan-hook's command line (cmd/privscan-hook): args are the
// arguments after the program name. It returns the exit code: 0 to let the
// tool call through, 2 to block it (the reason on stderr, for Claude), as
// "privscan hook" does. Argument errors never quote the argument.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, env Env) int {
	if len(args) == 0 || args[0] != PreName && args[0] != PostName && args[0] != GuardName {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stdout, mainHelp)
			return 0
		}
		return Exit(env.Stderr, engine.WithHint(fmt.Errorf("want %s, %s or %s as the first argument", PreName, PostName, GuardName),
			"run `privscan hook --help` for usage"))
	}
	fs := flag.NewFlagSet("privscan-hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts Options
	fs.StringVar(&opts.FailOn, "fail-on", "", "")
	fs.StringVar(&opts.CatalogKey, "catalog-key", "", "")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		if err == flag.ErrHelp {
			fmt.Fprintln(stdout, mainHelp)
			return 0
		}
		// The flag package quotes what it could not parse: say which
		// arguments are accepted instead.
		return Exit(env.Stderr, engine.WithHint(fmt.Errorf("%s takes --fail-on LEVEL and --catalog-key KEY only", args[0]),
			"run `privscan hook --help` for usage"))
	}
	if opts.FailOn != "" {
		if _, err := engine.FailLevel(opts.FailOn); err != nil {
			return Exit(env.Stderr, engine.WithHint(fmt.Errorf("unknown --fail-on level (value withheld)"),
				"want error, warning, note or never"))
		}
	}
	eng := engine.New(engine.Config{Getenv: env.Getenv})
	if env.Stdout == nil {
		env.Stdout = stdout
	}
	return Exit(env.Stderr, Run(ctx, eng, env, stdin, args[0], opts))
}

// Exit prints err as privscan prints errors ("privscan: error: …" and
// "privscan: hint: …", one line each) and returns the exit code: 0 for
// nil, else 2.
func Exit(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	render.Error(stderr, err.Error(), engine.Hint(err))
	return 2
}
