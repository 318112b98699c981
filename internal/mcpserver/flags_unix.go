//go:build unix

package mcpserver

import (
	"io/fs"
	"syscall"
)

// openFlags are added to O_RDONLY when a file is opened for
// read_redacted and redact_file: never block on a FIFO, never follow a
// symlink in the last path component.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// hardLinks returns the number of names of the file fi describes.
func hardLinks(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
