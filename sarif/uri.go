package sarif

import "strings"

// Pseudo-locations for findings that have no file in the repository tree.
// Git never tracks a path under ".git/", so these can never name a real
// file of the scanned repository, and no tool will read a file there to
// compute a line hash.
const (
	// commitURIPrefix is followed by the full commit ID.
	commitURIPrefix = ".git/privscan/commit/"
	// commitURINoID is used for a commit-message finding without a commit ID.
	commitURINoID = ".git/privscan/commit-message"
	// textURI locates findings in free text (stdin, a pull request body).
	textURI = ".git/privscan/text"
)

// encodePath turns a slash-separated relative path into an RFC 3986
// relative reference: every byte outside the unreserved set, the
// sub-delimiters, "@" and "/" is percent-encoded as UTF-8 ("a b/ü" becomes
// "a%20b/%C3%BC"). ":" is always encoded so that the first segment can
// never be read as a URI scheme, and "%" is encoded so that existing
// percent signs survive a decode. Leading slashes are dropped: the result
// is relative to %SRCROOT%.
func encodePath(p string) string {
	p = strings.TrimLeft(p, "/")
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if keepInPath(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

// keepInPath reports whether c may appear unencoded in a path segment
// (RFC 3986 pchar minus ":", plus "/").
func keepInPath(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '.', '_', '~', // unreserved
		'!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', // sub-delims
		'@', '/':
		return true
	}
	return false
}
