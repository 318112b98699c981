// Command privscan-hook is privscan's Claude Code hooks in a binary of
// their own: "privscan-hook claude-pre-tool-use" does what "privscan hook
// claude-pre-tool-use" does, without linking the CLI's other commands and
// the MCP server, whose package initialisation every hook process would
// otherwise pay. The plugin's launcher runs it when it is installed beside
// privscan.
package main

import (
	"context"
	"crypto"
	"crypto/sha1"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/privscan/privscan/internal/claudehook"
)

func main() {
	// As in cmd/privscan: privscan only reads repositories.
	_ = hash.RegisterHash(crypto.SHA1, sha1.New)
	// A hook lives for tens of milliseconds and allocates a few MB: a
	// collection would cost more than the memory it frees.
	debug.SetGCPercent(400)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := claudehook.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, claudehook.Env{Stderr: os.Stderr, Getenv: os.Getenv, Dir: "."})
	stop()
	os.Exit(code)
}
