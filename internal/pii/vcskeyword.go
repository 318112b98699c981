package pii

import "bytes"

// Version-control keywords: RCS, CVS and Subversion expand "$Id$",
// "$Header$" and "$Author$" in a checked-out file to the last commit's
// file name, revision, date, time and author, in a fixed field order
// between the keyword's "$…:" and a closing "$" on the same line. The
// author field is the committer's user name, which on some hosts was an
// address: the version-control system's own credit, as a commit's author
// is.

// vcsKeyword reports an address that is the author field of an expanded
// version-control keyword: "$Author: address $", or "$Id: FILE REV DATE
// TIME address $" and "$Header: PATH REV DATE TIME address $", with CVS's
// optional state word ("Exp") before the closing "$". An address after
// "$Id:" without the fields, or without the closing "$" on its line, is
// not.
func vcsKeyword(line []byte, start, end int) bool {
	if !vcsKeywordEnd(line[end:]) || before(line, start) != ' ' {
		return false
	}
	head := line[:start]
	d := bytes.LastIndexByte(head, '$')
	if d < 0 {
		return false
	}
	kw := head[d+1:]
	c := bytes.IndexByte(kw, ':')
	if c < 0 {
		return false
	}
	name, fields := kw[:c], bytes.Fields(kw[c+1:])
	switch {
	case string(name) == "Author":
		return len(fields) == 0
	case string(name) == "Id", string(name) == "Header":
		return len(fields) == 4 && revision(fields[1]) && keywordDate(fields[2]) && keywordTime(fields[3])
	}
	return false
}

// vcsKeywordEnd reports the end of an expanded keyword after its author
// field: " $", or " State $" (CVS's state, a word of letters).
func vcsKeywordEnd(t []byte) bool {
	if len(t) < 2 || t[0] != ' ' {
		return false
	}
	t = t[1:]
	if t[0] == '$' {
		return true
	}
	k := 0
	for k < len(t) && isAlpha(t[k]) {
		k++
	}
	return k > 0 && at(t, k) == ' ' && at(t, k+1) == '$'
}

// revision reports a revision number: "230" (Subversion) or "1.12.2.1"
// (RCS and CVS).
func revision(f []byte) bool {
	if len(f) == 0 || !isDigit(f[0]) || !isDigit(f[len(f)-1]) {
		return false
	}
	for _, c := range f {
		if !isDigit(c) && c != '.' {
			return false
		}
	}
	return !bytes.Contains(f, []byte(".."))
}

// keywordDate reports a keyword's date: YYYY-MM-DD (Subversion) or
// YYYY/MM/DD (RCS and CVS).
func keywordDate(f []byte) bool {
	if len(f) != 10 || (f[4] != '-' && f[4] != '/') || f[7] != f[4] {
		return false
	}
	return allDigits(f[:4]) && allDigits(f[5:7]) && allDigits(f[8:])
}

// keywordTime reports a keyword's time: HH:MM:SS, with Subversion's "Z".
func keywordTime(f []byte) bool {
	f = bytes.TrimSuffix(f, []byte("Z"))
	return len(f) == 8 && f[2] == ':' && f[5] == ':' && allDigits(f[:2]) && allDigits(f[3:5]) && allDigits(f[6:])
}
