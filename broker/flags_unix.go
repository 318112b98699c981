//go:build unix

package broker

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlags are added to O_RDONLY: never block on a FIFO, never follow a
// symlink in the last path component.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// ownedByUs reports whether fi belongs to the process's user (or, with
// rootOK, to root: a system folder above the user's home).
func ownedByUs(fi fs.FileInfo, rootOK bool) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	uid := uint32(os.Getuid())
	return st.Uid == uid || rootOK && st.Uid == 0
}
