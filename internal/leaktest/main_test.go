package leaktest

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/privscan/privscan/internal/mcpcmd"
)

// asPrivscan makes the test binary act as the privscan command (as
// cmd/privscan's main does), so the MCP server and a few commands run as a
// real process without a separate build.
const asPrivscan = "PRIVSCAN_LEAKTEST_AS_PRIVSCAN"

// readyFDEnv names a file descriptor on which the child writes one byte
// once its signal handler is installed (tests that send a real SIGINT
// wait for it).
const readyFDEnv = "PRIVSCAN_LEAKTEST_READY_FD"

func TestMain(m *testing.M) {
	if os.Getenv(asPrivscan) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		if os.Getenv(readyFDEnv) == "3" {
			ready := os.NewFile(3, "ready")
			_, _ = ready.Write([]byte{1})
			_ = ready.Close()
		}
		// "privscan mcp" served in this process, as the privscan-mcp that
		// privscan runs for it does.
		code := mcpcmd.MainLinked(ctx)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
