package secrets

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// keywordMatcher finds every occurrence of a set of ASCII keywords in a
// line, ignoring ASCII case, the way gitleaks finds them in lowercased
// text. It is an Aho-Corasick automaton compiled into a dense transition
// table over byte classes; it is immutable once built.
type keywordMatcher struct {
	class  [256]uint8 // byte -> byte class; 0 is "in no keyword"
	nclass int
	next   []uint16  // state*nclass + class -> state
	out    [][]int32 // keywords ending in a state, including via suffixes
	kwLen  []int     // keyword -> length in bytes
}

// maxKeywordStates bounds the automaton (states are uint16).
const maxKeywordStates = 1 << 16

// newKeywordMatcher builds a matcher for keywords, which must be
// lowercase, non-empty ASCII strings without duplicates.
func newKeywordMatcher(keywords []string) (*keywordMatcher, error) {
	m := &keywordMatcher{nclass: 1, kwLen: make([]int, len(keywords))}
	for _, k := range keywords {
		if k == "" {
			return nil, errors.New("empty keyword")
		}
		for i := 0; i < len(k); i++ {
			c := k[i]
			if c >= 0x80 || ('A' <= c && c <= 'Z') {
				return nil, fmt.Errorf("keyword of %d bytes is not lowercase ASCII", len(k))
			}
			if m.class[c] == 0 {
				m.class[c] = uint8(m.nclass)
				m.nclass++
			}
		}
	}
	if m.nclass > 255 {
		return nil, errors.New("too many distinct keyword bytes")
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}

	// The trie, as a sparse goto function; -1 is "no edge". It has at most
	// one state per keyword byte besides the root: allocated once.
	nc := m.nclass
	maxStates := 1
	for _, k := range keywords {
		maxStates += len(k)
	}
	gotoFn := make([]int32, nc, nc*maxStates) // state 0, the root
	for i := range gotoFn {
		gotoFn[i] = -1
	}
	own := make([][]int32, 1, maxStates)
	for ki, k := range keywords {
		m.kwLen[ki] = len(k)
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := int(m.class[k[i]])
			t := gotoFn[int(s)*nc+c]
			if t < 0 {
				t = int32(len(own))
				if int(t) >= maxKeywordStates {
					return nil, errors.New("keyword automaton too large")
				}
				own = append(own, nil)
				n := len(gotoFn)
				gotoFn = gotoFn[:n+nc]
				for i := n; i < n+nc; i++ {
					gotoFn[i] = -1
				}
				gotoFn[int(s)*nc+c] = t
			}
			s = t
		}
		own[s] = append(own[s], int32(ki))
	}

	// Breadth-first: failure links, outputs and the dense table.
	n := len(own)
	m.next = make([]uint16, n*nc)
	m.out = make([][]int32, n)
	fail := make([]int32, n)
	queue := make([]int32, 0, n)
	for c := range nc {
		if t := gotoFn[c]; t > 0 {
			m.next[c] = uint16(t)
			queue = append(queue, t)
		}
	}
	m.out[0] = own[0]
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] = append(own[s][:len(own[s]):len(own[s])], m.out[fail[s]]...)
		for c := range nc {
			t := gotoFn[int(s)*nc+c]
			if t < 0 {
				m.next[int(s)*nc+c] = m.next[int(fail[s])*nc+c]
				continue
			}
			fail[t] = int32(m.next[int(fail[s])*nc+c])
			m.next[int(s)*nc+c] = uint16(t)
			queue = append(queue, t)
		}
	}
	return m, nil
}

// scan calls fn(start, keyword) for every occurrence of a keyword in b,
// ignoring ASCII case, in order of the occurrences' ends.
func (m *keywordMatcher) scan(b []byte, fn func(start int, kw int32)) {
	nc := m.nclass
	s := 0
	for i, c := range b {
		s = int(m.next[s*nc+int(m.class[c])])
		for _, k := range m.out[s] {
			fn(i+1-m.kwLen[k], k)
		}
	}
}

// Runes other than ASCII letters whose lowercase is ASCII: gitleaks
// lowercases text with strings.ToLower, which turns them into keyword
// letters, so a line holding one is matched in lowercased form.
var (
	capitalIDot = []byte("\u0130") // İ -> i
	kelvinSign  = []byte("\u212a") // K -> k
)

// lowersToASCII reports whether b holds a rune that strings.ToLower turns
// into an ASCII byte although it is not ASCII itself.
func lowersToASCII(b []byte) bool {
	return bytes.Contains(b, capitalIDot) || bytes.Contains(b, kelvinSign)
}

// lineKeywords calls fn for the keywords in one line of text as gitleaks
// would find them in the lowercased text. start is the byte offset of the
// occurrence in line, or -1 when the line had to be lowercased first (the
// offsets of the lowercased text do not map onto the line).
func (m *keywordMatcher) lineKeywords(line []byte, fn func(start int, kw int32)) {
	ascii := true
	for _, c := range line {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	// Non-ASCII runes other than the two above lowercase to non-ASCII
	// bytes, which are in no keyword, so matching the line as is (with
	// ASCII case folding) finds what matching its lowercase form would.
	if ascii || !lowersToASCII(line) {
		m.scan(line, fn)
		return
	}
	m.scan([]byte(strings.ToLower(string(line))), func(_ int, kw int32) { fn(-1, kw) })
}
