package broker

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/privscan/privscan/catalog"
)

// MaxFileSize is the largest context file or Markdown catalog the broker
// reads: 64 MiB (a catalog of a million customer names and emails is about
// 22 MiB).
const MaxFileSize = 64 << 20

// MaxMapSize is the largest key map the broker reads: 1 MiB.
const MaxMapSize = 1 << 20

// MaxSealedSize is the largest sealed catalog the broker loads: 2 GiB.
const MaxSealedSize = catalog.MaxSealedSize

// maxSealKeyFile bounds a seal key file (64 hex digits and white space).
const maxSealKeyFile = 1 << 10

// fileErr is a file-rule failure before it is put in context (which key,
// which map). msg is value-free.
type fileErr struct {
	code Code
	msg  string
	err  error // an errno, or nil
}

// fileMeta describes the file actually read (from fstat of the opened fd).
type fileMeta struct {
	path    string // resolved path
	modTime time.Time
	size    int64
}

// hasMDSuffix reports whether the name ends in ".md", ASCII case-insensitively.
func hasMDSuffix(path string) bool {
	return len(path) >= 3 && strings.EqualFold(path[len(path)-3:], ".md")
}

// hasSealedSuffix reports whether the name ends in ".sealed", ASCII
// case-insensitively.
func hasSealedSuffix(path string) bool {
	return len(path) >= 7 && strings.EqualFold(path[len(path)-7:], ".sealed")
}

// MaxSealSourceSize is the largest Markdown catalog that privscan catalog
// seal reads (ReadCatalogToSeal): 1 GiB, for catalogs of tens of millions
// of values, which only a sealed catalog can serve to scans.
const MaxSealSourceSize = 1 << 30

// catalogLimit is the size limit of a catalog file named real; mdLimit is
// a Markdown catalog's (0: MaxFileSize).
func catalogLimit(real string, mdLimit int64) int64 {
	if hasSealedSuffix(real) {
		return MaxSealedSize
	}
	if mdLimit > 0 {
		return mdLimit
	}
	return MaxFileSize
}

// resolveCatalog applies the file rules that need no open to a catalog
// file: its resolved name must end in .md or .sealed, and its size is
// checked against that kind's limit.
func resolveCatalog(path string, mdLimit int64) (string, fs.FileInfo, *fileErr) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, lookupErr(err)
	}
	if !hasMDSuffix(real) && !hasSealedSuffix(real) {
		return "", nil, &fileErr{CodeNotMarkdown, "file name does not end in .md or .sealed (after following symlinks)", nil}
	}
	return resolve(real, catalogLimit(real, mdLimit), false)
}

// openSealed opens the resolved sealed catalog real under the file rules
// and loads it with key (see catalog.OpenSealed: it is mapped, not read).
// When real is the first part of a catalog sealed in parts, its other
// parts (catalog.PartName, beside it) are opened under the same rules and
// joined (catalog.JoinSealed); a missing part, or a part after the last,
// is an invalid catalog. The meta is the first part's (the file that a
// new seal replaces last).
func openSealed(real string, key []byte) (*catalog.Matcher, *catalog.Sealed, fileMeta, *fileErr, error) {
	m, s, meta, ferr, err := openSealedFile(real, key)
	if ferr != nil || err != nil || s.Parts == 0 {
		return m, s, meta, ferr, err
	}
	ms, ss := []*catalog.Matcher{m}, []*catalog.Sealed{s}
	if s.Part == 1 {
		for i := 2; i <= s.Parts; i++ {
			name := catalog.PartName(real, i)
			what := fmt.Sprintf("part %d of %d (%s)", i, s.Parts, filepath.Base(name))
			pr, _, ferr := resolveCatalog(name, 0)
			if ferr == nil && !hasSealedSuffix(pr) {
				ferr = &fileErr{CodeNotMarkdown, "file name does not end in .sealed (after following symlinks)", nil}
			}
			if ferr != nil {
				return nil, nil, fileMeta{}, nil, fmt.Errorf("%w: %s: %s", catalog.ErrSealedInvalid, what, ferr.msg)
			}
			pm, ps, _, ferr, err := openSealedFile(pr, key)
			switch {
			case ferr != nil:
				return nil, nil, fileMeta{}, nil, fmt.Errorf("%w: %s: %s", catalog.ErrSealedInvalid, what, ferr.msg)
			case errors.Is(err, catalog.ErrSealKeyWrong):
				return nil, nil, fileMeta{}, nil, fmt.Errorf("%w: %s: the seal key does not open it (a part of a catalog sealed with another key)", catalog.ErrSealedInvalid, what)
			case err != nil:
				return nil, nil, fileMeta{}, nil, fmt.Errorf("%s: %w", what, err)
			}
			ms, ss = append(ms, pm), append(ss, ps)
		}
		next := catalog.PartName(real, s.Parts+1)
		if _, err := os.Lstat(next); err == nil {
			return nil, nil, fileMeta{}, nil, fmt.Errorf("%w: %s is beside a sealed catalog in %d parts (a part of another seal?): remove it, or seal the table again", catalog.ErrSealedInvalid, filepath.Base(next), s.Parts)
		}
	}
	jm, js, err := catalog.JoinSealed(ms, ss)
	if err != nil {
		return nil, nil, fileMeta{}, nil, err
	}
	return jm, js, meta, nil, nil
}

// openSealedFile opens and loads one file of openSealed.
func openSealedFile(real string, key []byte) (*catalog.Matcher, *catalog.Sealed, fileMeta, *fileErr, error) {
	f, err := os.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, fileMeta{}, lookupErr(err), nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fileMeta{}, &fileErr{CodeFileMissing, "file cannot be read", errnoOf(err)}, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fileMeta{}, notRegular(fi.Mode()), nil
	}
	if fi.Size() > MaxSealedSize {
		return nil, nil, fileMeta{}, tooLarge(MaxSealedSize), nil
	}
	m, s, err := catalog.OpenSealedPart(f, fi.Size(), key)
	if err != nil {
		return nil, nil, fileMeta{}, nil, err
	}
	return m, s, fileMeta{path: real, modTime: fi.ModTime(), size: fi.Size()}, nil, nil
}

// errnoOf extracts the errno of a file-system error, or nil.
func errnoOf(err error) error {
	var en syscall.Errno
	if errors.As(err, &en) {
		return en
	}
	return nil
}

// lookupErr classifies an error from resolving or opening a path. Every
// message is fixed text: the os errors themselves name paths and are not
// repeated.
func lookupErr(err error) *fileErr {
	en := errnoOf(err)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &fileErr{CodeFileMissing, "file does not exist", en}
	case errors.Is(err, syscall.ENOTDIR):
		return &fileErr{CodeFileMissing, "file does not exist (a path component is not a directory)", en}
	case errors.Is(err, fs.ErrPermission):
		return &fileErr{CodeFileMissing, "file cannot be read: permission denied", en}
	case errors.Is(err, syscall.ELOOP):
		return &fileErr{CodeNotRegularFile, "file is a symbolic link", en}
	case errors.Is(err, syscall.ENAMETOOLONG):
		return &fileErr{CodeFileMissing, "file name is too long", en}
	case en == nil:
		// filepath.EvalSymlinks reports a loop (more than 255 links) as a
		// plain error without an errno.
		return &fileErr{CodeFileMissing, "file cannot be resolved: too many symbolic links (a loop?)", nil}
	}
	return &fileErr{CodeFileMissing, "file cannot be opened: " + en.Error(), en}
}

// describeMode names a non-regular file type for a message.
func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

func notRegular(m fs.FileMode) *fileErr {
	d := describeMode(m)
	if d == "not a regular file" {
		return &fileErr{CodeNotRegularFile, "file is not a regular file", nil}
	}
	return &fileErr{CodeNotRegularFile, "file is " + d + ", not a regular file", nil}
}

func tooLarge(limit int64) *fileErr {
	return &fileErr{CodeTooLarge, "file is larger than " + sizeName(limit), nil}
}

func sizeName(limit int64) string {
	switch limit {
	case MaxFileSize:
		return "64 MiB"
	case MaxMapSize:
		return "1 MiB"
	case MaxSealedSize:
		return "2 GiB"
	case MaxSealSourceSize:
		return "1 GiB"
	}
	return strconv.FormatInt(limit, 10) + " bytes"
}

// resolve applies the file rules that need no open: symlink resolution, the
// .md suffix (when requireMD), lstat type and size. It returns the resolved
// path and its lstat info.
func resolve(path string, limit int64, requireMD bool) (string, fs.FileInfo, *fileErr) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, lookupErr(err)
	}
	if requireMD && !hasMDSuffix(real) {
		return "", nil, &fileErr{CodeNotMarkdown, "file name does not end in .md (after following symlinks)", nil}
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return "", nil, lookupErr(err)
	}
	if !fi.Mode().IsRegular() {
		return "", nil, notRegular(fi.Mode())
	}
	if fi.Size() > limit {
		return "", nil, tooLarge(limit)
	}
	return real, fi, nil
}

// readFile reads path under the file rules. limit is MaxFileSize or
// MaxMapSize; requireMD enforces the .md suffix on the resolved name.
func readFile(path string, limit int64, requireMD bool) ([]byte, fileMeta, *fileErr) {
	real, _, ferr := resolve(path, limit, requireMD)
	if ferr != nil {
		return nil, fileMeta{}, ferr
	}
	return readResolved(real, limit)
}

// readResolved opens an already resolved path without following a symlink
// and without blocking on a FIFO, checks the opened descriptor with fstat and
// reads at most limit+1 bytes.
func readResolved(real string, limit int64) ([]byte, fileMeta, *fileErr) {
	f, err := os.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, fileMeta{}, lookupErr(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileMeta{}, &fileErr{CodeFileMissing, "file cannot be read", errnoOf(err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, fileMeta{}, notRegular(fi.Mode())
	}
	if fi.Size() > limit {
		return nil, fileMeta{}, tooLarge(limit)
	}
	data, ferr := readLimited(f, fi.Size(), limit)
	if ferr != nil {
		return nil, fileMeta{}, ferr
	}
	return data, fileMeta{path: real, modTime: fi.ModTime(), size: fi.Size()}, nil
}

// readLimited reads r to its end, refusing more than limit bytes: at most
// limit+1 bytes are consumed. sizeHint (the fstat size) only presizes the
// buffer: a file of the size it had is read into one allocation of its
// size plus one byte (the byte that tells its end; bytes.Buffer would
// double the buffer for it).
func readLimited(r io.Reader, sizeHint, limit int64) ([]byte, *fileErr) {
	r = io.LimitReader(r, limit+1)
	size := 512
	if sizeHint >= 0 && sizeHint <= limit {
		size = int(sizeHint) + 1
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew: let append grow the buffer
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &fileErr{CodeFileMissing, "file cannot be read", errnoOf(err)}
		}
	}
	if int64(len(buf)) > limit {
		return nil, tooLarge(limit)
	}
	return buf, nil
}
