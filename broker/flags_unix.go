//go:build unix

package broker

import "syscall"

// openFlags are added to O_RDONLY: never block on a FIFO, never follow a
// symlink in the last path component.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
