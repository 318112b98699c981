package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/privscan/privscan/internal/mcpserver"
)

// MCPHelp is the help text of "privscan mcp".
const MCPHelp = `privscan mcp [--http <addr>] [--root <dir>]...

Serves the MCP tools load_context, scan_diff, scan_text and redact_text
(docs/mcp.md) on stdin/stdout, or with --http as Streamable HTTP at
http://<addr>/mcp. The address must be a loopback address (":8765" means
127.0.0.1:8765): the server has no authentication, refuses requests whose
Host or Origin is not local, and writes only the protocol to stdout.

scan_diff may read repositories inside the working directory and the --root
directories (symlinks resolved). Every call appends one line to the audit log
$XDG_STATE_HOME/privscan/audit.jsonl (~/.local/state/privscan/ when unset):
tool, a keyed digest of the key, agent_id (argument, else PRIVSCAN_AGENT,
else "unknown"), counts and duration; never a key, a value or scanned text.

Claude Code without the plugin:
  claude mcp add privscan -- privscan mcp`

// rootFlags collects repeated --root flags.
type rootFlags []string

func (r *rootFlags) String() string { return strings.Join(*r, ",") }
func (r *rootFlags) Set(v string) error {
	if v == "" {
		return errors.New("empty --root")
	}
	*r = append(*r, v)
	return nil
}

func runMCP(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	httpAddr := fs.String("http", "", "serve Streamable HTTP on the loopback `ADDR` instead of stdio")
	var roots rootFlags
	fs.Var(&roots, "root", "another `DIR` whose repositories may be scanned (repeatable)")
	pos, paths, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(env.Stdout, helpFor("mcp", fs))
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos)+len(paths) > 0 {
		return usagef("mcp takes no arguments")
	}
	if *httpAddr != "" {
		if _, err := mcpserver.ListenAddr(*httpAddr); err != nil {
			return usagef("%s", err.Error())
		}
	}
	for i, r := range roots {
		roots[i] = absPath(env, r)
	}
	srv, err := mcpserver.New(mcpserver.Options{
		Dir:     env.Dir,
		Roots:   roots,
		Getenv:  env.Getenv,
		Stderr:  env.Stderr,
		Version: ToolVersion(),
	})
	if err != nil {
		return withHint(fmt.Errorf("mcp: %w", err), "--root must name an existing directory")
	}
	// Compile the default catalog and the secret rules in the background,
	// so the first call does not pay for them.
	go srv.Prewarm()
	if *httpAddr != "" {
		return srv.ServeHTTP(ctx, *httpAddr, func(url string) {
			fmt.Fprintf(env.Stderr, "privscan: mcp: listening on %s\n", url)
		})
	}
	return srv.ServeStdio(ctx, env.Stdin, env.Stdout)
}
