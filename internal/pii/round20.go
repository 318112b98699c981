package pii

import "bytes"

// The rules built after held-out round 20 (bench/results/precision.md,
// "Rules built after round 20"; docs/design/pii-precision.md, "Round 20's
// shapes").

// urlAuthority reports whether the address at b[start:end] is the host
// part of a URL's network location written without its scheme, quoted
// whole: "user:password@host:port", as urlsplit's netloc and the
// authority of RFC 3986 (section 3.2) write it. The colon before the
// '@' separates a user name from a password, and the host is followed by
// a port (one to five digits) that closes the string. A mailbox has no
// password before it and no port after it; the scheme-prefixed form
// (scheme://user:password@host) is urlUserinfo's. An address with text
// after the port, a port of letters, or outside a quoted string keeps
// its finding.
func urlAuthority(b []byte, start, end int) bool {
	if before(b, start) != ':' || at(b, end) != ':' {
		return false
	}
	k := end + 1
	for k < len(b) && isDigit(b[k]) {
		k++
	}
	if n := k - end - 1; n == 0 || n > 5 {
		return false
	}
	q := at(b, k)
	if q != '"' && q != '\'' {
		return false
	}
	if at := bytes.IndexByte(b[start:end], '@'); at < 0 || bytes.IndexByte(b[start+at:end], '.') < 0 {
		return false
	}
	// The user name: everything back to the opening quote, without a
	// blank or another quote.
	j := start - 1
	for j > 0 && b[j-1] != q {
		switch b[j-1] {
		case ' ', '\t', '"', '\'', '`':
			return false
		}
		j--
	}
	return j > 0 && j < start-1
}

// realmCompared reports whether the quoted address starting at start is
// compared, with == or ===, to a name ending in "realm" (wa.realm ==
// 'x@host', auth.realm === "x@host"): a test asserting a parsed HTTP
// authentication realm (RFC 2617's example realm is address-shaped), the
// comparison form of realmValue's realm="x@host". A longer word ending
// in the letters (surrealm) and other operators (!=, <=) are not read.
func realmCompared(b []byte, start int) bool {
	k := start
	if c := before(b, k); c != '"' && c != '\'' {
		return false
	}
	k--
	for before(b, k) == ' ' {
		k--
	}
	n := 0
	for before(b, k) == '=' {
		n++
		k--
	}
	if n != 2 && n != 3 {
		return false
	}
	if c := before(b, k); c == '!' || c == '<' || c == '>' {
		return false
	}
	for before(b, k) == ' ' {
		k--
	}
	head := b[:k]
	return hasSuffixFold(head, "realm") && !isAlpha(before(head, len(head)-5))
}
