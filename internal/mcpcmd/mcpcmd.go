// Package mcpcmd is the privscan-mcp command: "privscan mcp" with the MCP
// server linked in. The privscan binary does not link the server (its
// libraries cost every privscan process about 20 ms of start-up); its
// "mcp" command runs privscan-mcp, and this package is what runs then.
package mcpcmd

import (
	"context"
	"fmt"
	"os"

	"github.com/privscan/privscan/internal/cli"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/mcpserver"
)

// Serve is cli.Env.ServeMCP for a binary that links the server: it serves
// the MCP tools on env's stdin and stdout, or with opts.HTTP as
// Streamable HTTP, until the input ends or ctx is done.
func Serve(ctx context.Context, env *cli.Env, opts cli.MCPOptions) error {
	srv, err := mcpserver.New(mcpserver.Options{
		Dir:     env.Dir,
		Roots:   opts.Roots,
		Getenv:  env.Getenv,
		Stderr:  env.Stderr,
		Version: cli.ToolVersion(),
	})
	if err != nil {
		return engine.WithHint(fmt.Errorf("mcp: %w", err), "--root must name an existing directory")
	}
	// Compile the default catalog and the secret rules in the background,
	// so the first call does not pay for them.
	go srv.Prewarm()
	if opts.HTTP != "" {
		return srv.ServeHTTP(ctx, opts.HTTP, func(url string) {
			fmt.Fprintf(env.Stderr, "privscan: mcp: listening on %s\n", url)
		})
	}
	return srv.ServeStdio(ctx, env.Stdin, env.Stdout)
}

// Main runs privscan-mcp as a process, with the arguments of "privscan
// mcp", and returns its exit code.
func Main(ctx context.Context) int {
	return run(ctx, append([]string{"mcp"}, os.Args[1:]...))
}

// MainLinked runs privscan as a process, its whole CLI, with "privscan
// mcp" served in this process rather than by privscan-mcp: for tests that
// run their own binary as privscan.
func MainLinked(ctx context.Context) int {
	return run(ctx, os.Args[1:])
}

func run(ctx context.Context, args []string) int {
	env := &cli.Env{
		Args:     args,
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Getenv:   os.Getenv,
		ServeMCP: Serve,
	}
	return cli.Report(os.Stderr, cli.Run(ctx, env))
}
