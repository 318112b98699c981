//go:build !unix

package broker

// openFlags: platforms without O_NONBLOCK/O_NOFOLLOW rely on the lstat and
// fstat checks alone.
const openFlags = 0
