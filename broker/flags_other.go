//go:build !unix

package broker

import "io/fs"

// openFlags: platforms without O_NONBLOCK/O_NOFOLLOW rely on the lstat and
// fstat checks alone.
const openFlags = 0

// ownedByUs: ownership is not checked on these platforms (the folder's
// mode and the handle still are).
func ownedByUs(fs.FileInfo, bool) bool { return true }
