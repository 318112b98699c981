package mcpserver

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/privscan/privscan/broker"
)

// binaryProbe is how much of a file's start is searched for a NUL byte:
// a file with one is binary (git's rule), and is neither read nor
// rewritten.
const binaryProbe = 8 << 10

// openFile opens the resolved path real (from roots.filePath) for
// reading, without blocking on a FIFO or following a last-component
// symlink, and checks on the open file that it is a regular file. arg is
// the caller's path, for messages.
func openFile(real, arg string) (*os.File, fs.FileInfo, *toolError) {
	f, err := os.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, errorf(string(broker.CodeFileMissing), "path %s does not exist", quoteArg(arg))
		case errors.Is(err, syscall.ELOOP):
			// The last component became a symlink after it was resolved.
			return nil, nil, errorf(string(broker.CodeNotRegularFile), "path %s changed into a symlink while it was being opened; call again", quoteArg(arg))
		}
		return nil, nil, fileError(arg, "cannot be opened", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fileError(arg, "cannot be read", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, errorf(string(broker.CodeNotRegularFile), "path %s is not a regular file (a directory, FIFO, socket or device)", quoteArg(arg))
	}
	return f, fi, nil
}

// fileError reports an operating-system error on the caller's file by
// its errno alone (never a library's text).
func fileError(arg, what string, err error) *toolError {
	reason := "an I/O error"
	var errno syscall.Errno
	if errors.As(err, &errno) {
		reason = errno.Error()
	}
	return errorf(CodeScanFailed, "path %s %s: %s", quoteArg(arg), what, reason)
}

// readHead reads the first binaryProbe bytes of f and refuses a binary
// file.
func readHead(f io.Reader, arg string) ([]byte, *toolError) {
	head := make([]byte, binaryProbe)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fileError(arg, "cannot be read", err)
	}
	head = head[:n]
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, binaryError(arg)
	}
	return head, nil
}

func binaryError(arg string) *toolError {
	return errorf(CodeBinaryFile, "path %s is a binary file (it has NUL bytes in its first %s); only text files are read or redacted", quoteArg(arg), size(binaryProbe))
}
