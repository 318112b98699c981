package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/privscan/privscan/internal/loopback"
)

// MCPHelp is the help text of "privscan mcp".
const MCPHelp = `privscan mcp [--http <addr>] [--root <dir>]...

Serves the MCP tools load_context, scan_diff, scan_text, redact_text,
read_redacted and redact_file (docs/mcp.md) on stdin/stdout, or with --http
as Streamable HTTP at http://<addr>/mcp. The address must be a loopback
address (":8765" means 127.0.0.1:8765): the server has no authentication,
refuses requests whose Host or Origin is not local, and writes only the
protocol to stdout.

scan_diff may read repositories, and read_redacted and redact_file files,
inside the working directory and the --root directories (symlinks
resolved); redact_file is the one tool that writes. scan_text, redact_text,
read_redacted and redact_file answer at most [guard] probe-budget distinct
texts per agent and hour (default 1000). Every call appends one line to the audit log
$XDG_STATE_HOME/privscan/audit.jsonl (~/.local/state/privscan/ when unset):
tool, a keyed digest of the key, agent_id (argument, else PRIVSCAN_AGENT,
else "unknown"), counts and duration; never a key, a value or scanned text.

The server is the privscan-mcp binary, installed beside privscan by the
release archives, the Claude Code plugin and
"go install github.com/privscan/privscan/cmd/...@<version>":
"privscan mcp" runs it (so that no other command pays for starting the
server's libraries), and "privscan-mcp [--http <addr>] [--root <dir>]..."
is the same server.

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

// MCPOptions are the parsed arguments of "privscan mcp".
type MCPOptions struct {
	HTTP  string   // --http: the loopback address to serve Streamable HTTP on; "" means stdio
	Roots []string // --root: more directories scan_diff may read, absolute
}

func runMCP(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	httpAddr := fs.String("http", "", "serve Streamable HTTP on the loopback `ADDR` instead of stdio")
	var roots rootFlags
	fs.Var(&roots, "root", "another `DIR` whose repositories may be scanned (repeatable)")
	pos, paths, help, err := parseOrHelp(env, fs, "mcp", args)
	if help || err != nil {
		return err
	}
	if len(pos)+len(paths) > 0 {
		return usagef("mcp takes no arguments")
	}
	if *httpAddr != "" {
		if _, err := loopback.ListenAddr(*httpAddr); err != nil {
			return usagef("%s", err.Error())
		}
	}
	if env.ServeMCP != nil {
		opts := MCPOptions{HTTP: *httpAddr}
		for _, r := range roots {
			opts.Roots = append(opts.Roots, absPath(env, r))
		}
		return env.ServeMCP(ctx, env, opts)
	}
	return runMCPBinary(ctx, env, args)
}

// mcpBinaryName is the MCP server's binary.
const mcpBinaryName = "privscan-mcp"

// errNoMCPBinary: privscan-mcp is neither beside privscan nor on PATH.
var errNoMCPBinary = errors.New("the MCP server, privscan-mcp, is not installed beside privscan or on PATH")

// findMCPBinary returns the privscan-mcp to run: the one beside the running
// executable (see mcpBeside), else privscan-mcp on PATH.
func findMCPBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		if p := mcpBeside(self); p != "" {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(mcpBinaryName); err == nil {
		return p, nil
	}
	return "", errNoMCPBinary
}

// mcpBeside names the privscan-mcp that belongs beside the privscan
// binary self, named as self is: privscan-mcp beside privscan,
// privscan-mcp.exe beside privscan.exe, privscan-mcp-1.2.3 beside
// privscan-1.2.3 (as the Claude Code plugin installs them). It is "" when
// self is not named privscan-something.
func mcpBeside(self string) string {
	dir, base := filepath.Split(self)
	rest, ok := strings.CutPrefix(base, "privscan")
	if !ok || (rest != "" && rest[0] != '-' && rest[0] != '.') {
		return ""
	}
	return filepath.Join(dir, mcpBinaryName+rest)
}

// runMCPBinary runs privscan-mcp with args on env's streams and ends with
// its exit code. It has reported its own errors. An interrupt or SIGTERM
// of privscan (ctx done) is passed on as an interrupt, and the server is
// killed if it has not stopped 10 s later.
func runMCPBinary(ctx context.Context, env *Env, args []string) error {
	bin, err := findMCPBinary()
	if err != nil {
		v := Version
		if v == "" || !strings.HasPrefix(v, "v") {
			v = "latest"
		}
		return withHint(fmt.Errorf("mcp: %w", err),
			"install it from the same release as privscan (every release archive has it), or with: go install github.com/privscan/privscan/cmd/privscan-mcp@"+v)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	cmd.Dir = env.Dir
	cmd.Cancel = func() error {
		if runtime.GOOS == "windows" {
			return cmd.Process.Kill() // no interrupt to send there
		}
		return cmd.Process.Signal(os.Interrupt)
	}
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return exitStatus(ee.ExitCode())
	case ctx.Err() != nil:
		// Stopped by the interrupt passed on, as the server itself stops.
		return nil
	}
	return fmt.Errorf("mcp: run %s: %w", bin, err)
}
