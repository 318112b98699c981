// Command privscan finds catalogued identifiers, PII and secrets in git
// changes and reports them without ever printing a value. See doc.go and
// "privscan help".
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/privscan/privscan/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx)
	stop()
	os.Exit(code)
}
