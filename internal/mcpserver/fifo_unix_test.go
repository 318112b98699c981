//go:build unix

package mcpserver

import (
	"syscall"
	"testing"
)

// mkfifo creates a FIFO at p.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
}
