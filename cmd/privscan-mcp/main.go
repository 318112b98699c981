// Command privscan-mcp is privscan's MCP server: "privscan-mcp [--http
// <addr>] [--root <dir>]..." does what "privscan mcp" does (see "privscan
// help mcp" and docs/mcp.md). "privscan mcp" runs this binary, installed
// beside privscan, so that the privscan binary does not link the server's
// libraries, whose start-up every privscan command would otherwise pay.
package main

import (
	"context"
	"crypto"
	"crypto/sha1"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/privscan/privscan/internal/mcpcmd"
)

func main() {
	// As in cmd/privscan: privscan only reads repositories.
	_ = hash.RegisterHash(crypto.SHA1, sha1.New)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mcpcmd.Main(ctx)
	stop()
	os.Exit(code)
}
