//go:build !unix

package mcpserver

import "io/fs"

// openFlags: platforms without O_NONBLOCK/O_NOFOLLOW rely on the path
// resolution and fstat checks alone.
const openFlags = 0

// hardLinks is 1 where the link count is not known.
func hardLinks(fs.FileInfo) uint64 { return 1 }
