package catalog

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokenEstimateRef is the sizing estimate scanValue must return: one token,
// plus two for every ASCII byte that is not a word byte, at most len(s).
func tokenEstimateRef(s string) int {
	n := 1
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf && asciiTab[c].kind != kindWord {
			n += 2
		}
	}
	return min(n, len(s))
}

// simpleRef is the simple result scanValue must return.
func simpleRef(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= 0x7f || (c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ')) {
			return false
		}
	}
	return true
}

func TestScanValue(t *testing.T) {
	cases := []struct {
		s      string
		simple bool
	}{
		{"", true},
		{"abc", true},
		{"Acme Corp", true},
		{"a.b@c-d.example", true},
		{"two  spaces", false},
		{" leading", false},
		{"trailing ", false},
		{" ", false},
		{"tab\there", false},
		{"del\x7f", false},
		{"nl\nx", false},
		{"Jürgen", false},
		{"\xff", false},
		{"~!#$%^&*()", true},
	}
	for _, c := range cases {
		est, simple := scanValue(c.s)
		if simple != c.simple {
			t.Errorf("scanValue(%q) simple = %v, want %v", c.s, simple, c.simple)
		}
		if want := tokenEstimateRef(c.s); est != want {
			t.Errorf("scanValue(%q) estimate = %d, want %d", c.s, est, want)
		}
	}
	// Every byte value at every position of a word and of a tail, next to
	// a space or not.
	for c := range 256 {
		for n := 1; n <= 17; n++ {
			for pos := range n {
				for _, fill := range []byte{'a', ' ', '.'} {
					b := bytes.Repeat([]byte{fill}, n)
					b[pos] = byte(c)
					s := string(b)
					est, simple := scanValue(s)
					if est != tokenEstimateRef(s) || simple != simpleRef(s) {
						t.Fatalf("scanValue(%q) = %d, %v, want %d, %v", s, est, simple, tokenEstimateRef(s), simpleRef(s))
					}
				}
			}
		}
	}
	// A simple value is its own canonical form; random strings over an
	// alphabet rich in white space and special bytes.
	alphabet := []byte("ab Z9_.-\t\x7f\x00\xc3\xa9\xe2\x80\x83@[`{/:\xdf\xff\x9f\xa0")
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		b := make([]byte, r.IntN(28))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		est, simple := scanValue(s)
		if want := tokenEstimateRef(s); est != want {
			t.Fatalf("scanValue(%q) estimate = %d, want %d", s, est, want)
		}
		if want := simpleRef(s); simple != want {
			t.Fatalf("scanValue(%q) simple = %v, want %v", s, simple, want)
		}
		if simple && !bytes.Equal(canonicalValue(nil, s), b) {
			t.Fatalf("scanValue(%q) simple, but its canonical form is %q", s, canonicalValue(nil, s))
		}
	}
}

// TestBitWriterBuckets checks that bucketed writes to a large bitset set
// exactly the bits direct writes set, whether a bucket fills up or is
// flushed at the end, and that small bitsets are not bucketed.
func TestBitWriterBuckets(t *testing.T) {
	for _, n := range []int{1000, 300_000, 1_000_000} {
		want := newBitset(1<<20, 8) // 8 Mi bits: bucketed
		got := newBitset(1<<20, 8)
		small := newBitset(1000, 8)
		wantSmall := newBitset(1000, 8)
		var multi [][]uint32
		bw := bitWriter{multi: &multi}
		bw.attach(sinkLitPrefix, &got)
		bw.attach(sinkLitFull, &small)
		if bw.sinks[sinkLitPrefix].buf == nil || bw.sinks[sinkLitFull].buf != nil {
			t.Fatal("the large bitset must be bucketed, the small one not")
		}
		r := rand.New(rand.NewPCG(uint64(n), 3))
		for range n {
			k := r.Uint64()
			bw.set(sinkLitPrefix, k)
			x := want.index(k)
			want.w[x>>6] |= 1 << (x & 63)
			k = r.Uint64()
			bw.set(sinkLitFull, k)
			x = wantSmall.index(k)
			wantSmall.w[x>>6] |= 1 << (x & 63)
		}
		bw.flush()
		for _, c := range []struct{ got, want *bitset }{{&got, &want}, {&small, &wantSmall}} {
			for i := range c.want.w {
				if c.got.w[i] != c.want.w[i] {
					t.Fatalf("n=%d, %d bits: word %d = %#x, want %#x", n, c.want.n, i, c.got.w[i], c.want.w[i])
				}
			}
		}
	}
}

// TestASCIIWordKey checks the shortcut addLit takes for the prefilter key
// of an ASCII first word: the raw bytes give the key of the folded ones.
func TestASCIIWordKey(t *testing.T) {
	k := deriveKeys([]byte("test"))
	const word = "abcxyzABCXYZ0189_"
	r := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		b := make([]byte, 1+r.IntN(9))
		for i := range b {
			b[i] = word[r.IntN(len(word))]
		}
		text := append(b, " tail"[:r.IntN(6)]...) // bytes after the word
		var w wordKeyer
		for _, c := range b {
			w.add(rune(asciiTab[c].fold))
		}
		if got, want := k.wordKey(wordPrefix(text, 0, len(b)), len(b)), k.wordKey(w.p, w.n); got != want {
			t.Fatalf("word %q: key %#x, want %#x", b, got, want)
		}
	}
}

// canonicalRef is the canonical form by definition: NFC, every run of
// Unicode white space as one space, trimmed; invalid bytes kept.
func canonicalRef(s string) string {
	s = norm.NFC.String(s)
	var b strings.Builder
	space := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n > 1 {
			if unicode.IsSpace(r) {
				if !space {
					b.WriteByte(' ')
				}
				space = true
				i += n
				continue
			}
		}
		space = false
		b.WriteString(s[i : i+n])
		i += n
	}
	return strings.TrimSuffix(b.String(), " ")
}

func TestCanonicalValue(t *testing.T) {
	alphabet := []string{"a", "Z", " ", "\t", "\n", "\v", "\r", "\x00", "\x7f", "\u0085", "\u00a0", "\u2003",
		"\u3000", "é", "e\u0301", "\u212a", "ß", "\xff", "\xc3", "\xe2\x80", "日本"}
	r := rand.New(rand.NewPCG(9, 10))
	var buf []byte
	for range 50000 {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		buf = canonicalValue(buf[:0], s)
		if want := canonicalRef(s); string(buf) != want {
			t.Fatalf("canonicalValue(%q) = %q, want %q", s, buf, want)
		}
	}
}
