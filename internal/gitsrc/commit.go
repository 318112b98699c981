package gitsrc

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// walkCommit is what the history walk reads of a commit: its tree, its
// parents, the author's and the committer's dates and the message.
type walkCommit struct {
	hash      plumbing.Hash
	tree      plumbing.Hash
	parents   []plumbing.Hash
	author    time.Time // the finding date
	committer time.Time // the walk's order
	msg       string
}

// fromGoGit takes the fields the walk reads from a commit decoded by go-git.
func fromGoGit(c *object.Commit) *walkCommit {
	return &walkCommit{hash: c.Hash, tree: c.TreeHash, parents: c.ParentHashes,
		author: c.Author.When, committer: c.Committer.When, msg: c.Message}
}

// decodeCommit decodes the fields of walkCommit from a raw commit object
// exactly as go-git's Commit.Decode does (FuzzDecodeCommit compares them
// on arbitrary input), without its line reader, its string copies of every
// header and signature, or the headers the walk does not read:
//
//   - the first line is "tree <40 hex digits>" (else ErrMalformedCommit);
//   - the "parent" lines that follow it are the parents (a bad ID is
//     ErrMalformedCommit); a parent line further down is ignored;
//   - an "author" line right after the parents, then a "committer" line
//     right after that, give the dates (elsewhere they are ignored);
//   - the message is everything after the first empty line.
func decodeCommit(h plumbing.Hash, b []byte) (*walkCommit, error) {
	c := &walkCommit{hash: h}
	line, rest := nextLine(b)
	if len(line) == 0 || isBlank(line) {
		return nil, fmt.Errorf("%w: missing tree header", object.ErrMalformedCommit)
	}
	key, data := headerField(line)
	if key != "tree" {
		return nil, fmt.Errorf("%w: tree header must be first", object.ErrMalformedCommit)
	}
	var ok bool
	if c.tree, ok = hexID(data); !ok {
		return nil, fmt.Errorf("%w: bad tree hash", object.ErrMalformedCommit)
	}
	line, rest = nextLine(rest)
	for len(line) > 0 && !isBlank(line) {
		if key, data = headerField(line); key != "parent" {
			break
		}
		p, ok := hexID(data)
		if !ok {
			return nil, fmt.Errorf("%w: bad parent hash", object.ErrMalformedCommit)
		}
		c.parents = append(c.parents, p)
		line, rest = nextLine(rest)
	}
	for _, sig := range [...]struct {
		key  string
		when *time.Time
	}{{"author", &c.author}, {"committer", &c.committer}} {
		if len(line) == 0 || isBlank(line) {
			break
		}
		if key, data = headerField(line); key == sig.key {
			*sig.when = signatureWhen(data)
			line, rest = nextLine(rest)
		}
	}
	for len(line) > 0 && !isBlank(line) {
		line, rest = nextLine(rest)
	}
	if isBlank(line) && len(rest) > 0 {
		c.msg = string(rest)
	}
	return c, nil
}

// nextLine splits b after its first newline (all of b without one), as a
// line reader reads.
func nextLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1], b[i+1:]
	}
	return b, nil
}

func isBlank(line []byte) bool { return len(line) == 1 && line[0] == '\n' }

// headerField splits a header line into its key (up to the first space)
// and its value (nil without a space), without the newline.
func headerField(line []byte) (string, []byte) {
	line = bytes.TrimRight(line, "\n")
	key, value, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return string(line), nil
	}
	return string(key), value
}

// hexID parses a 40-digit hexadecimal object ID (either case), as
// plumbing.IsHash and plumbing.NewHash do.
func hexID(b []byte) (plumbing.Hash, bool) {
	var h plumbing.Hash
	if len(b) != 2*len(h) {
		return h, false
	}
	if _, err := hex.Decode(h[:], b); err != nil {
		return plumbing.Hash{}, false
	}
	return h, true
}

// signatureWhen is the date of a signature ("Name <email> 1700000000
// +0100"), as go-git's Signature.Decode reads it: the zero time without a
// name and e-mail part or a number of seconds after it; UTC without a
// 5-byte zone that parses (a zone of "-00mm" is read as +00mm, as
// go-git does).
func signatureWhen(b []byte) time.Time {
	open := bytes.LastIndexByte(b, '<')
	closing := bytes.LastIndexByte(b, '>')
	if open == -1 || closing == -1 || closing < open || closing+2 >= len(b) {
		return time.Time{}
	}
	b = b[closing+2:]
	space := bytes.IndexByte(b, ' ')
	if space == -1 {
		space = len(b)
	}
	ts, err := strconv.ParseInt(string(b[:space]), 10, 64)
	if err != nil {
		return time.Time{}
	}
	when := time.Unix(ts, 0).In(time.UTC)
	const zoneLen = 5
	tz := space + 1
	if tz >= len(b) || tz+zoneLen > len(b) {
		return when
	}
	hours, err1 := strconv.ParseInt(string(b[tz:tz+3]), 10, 64)
	mins, err2 := strconv.ParseInt(string(b[tz+3:tz+zoneLen]), 10, 64)
	if err1 != nil || err2 != nil {
		return when
	}
	if hours < 0 {
		mins = -mins
	}
	return when.In(time.FixedZone("", int(hours*60*60+mins*60)))
}
