//go:build !unix

package mcpserver

import (
	"os"
	"testing"
)

// mkfifo stands in a directory for a FIFO where there are none: the
// cases expect not_regular_file either way.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
}
