package secrets

import (
	"slices"
	"strings"
	"testing"
)

// naiveKeywords lists (start, keyword) for every occurrence of keywords in
// line with ASCII letters lowercased.
func naiveKeywords(keywords []string, line string) [][2]int {
	low := []byte(line)
	for i, c := range low {
		if 'A' <= c && c <= 'Z' {
			low[i] = c + 'a' - 'A'
		}
	}
	return occurrences(keywords, string(low))
}

// occurrences lists (start, keyword) for every occurrence of keywords in s.
func occurrences(keywords []string, low string) [][2]int {
	var out [][2]int
	for ki, k := range keywords {
		for i := 0; i+len(k) <= len(low); i++ {
			if low[i:i+len(k)] == k {
				out = append(out, [2]int{i, ki})
			}
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int { return cmp2(a, b) })
	return out
}

func cmp2(a, b [2]int) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}

func matcherHits(m *keywordMatcher, line string) [][2]int {
	var out [][2]int
	m.lineKeywords([]byte(line), func(start int, kw int32) { out = append(out, [2]int{start, int(kw)}) })
	slices.SortFunc(out, func(a, b [2]int) int { return cmp2(a, b) })
	return out
}

var testKeywords = []string{"key", "ey", "api", "access", "a3t", "akia", "-----begin", "<add key=", "hvs.", "s."}

func TestKeywordMatcher(t *testing.T) {
	m, err := newKeywordMatcher(testKeywords)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"",
		"no keywords here",
		"apiKey := os.Getenv(\"API_KEY\")",
		"MONKEY KEYS keyey",
		"-----BEGIN RSA PRIVATE KEY-----",
		`<ADD KEY="x" value="">`,
		"xAKIAx a3T1 hvs.s.",
		"naïve café: key", // non-ASCII, offsets kept
	} {
		if got, want := matcherHits(m, line), naiveKeywords(testKeywords, line); !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", line, got, want)
		}
	}
	// Runes lowercasing to ASCII: found, with unknown offsets.
	got := matcherHits(m, "\u212aey and İ")
	if len(got) != 2 || got[0] != [2]int{-1, 0} || got[1] != [2]int{-1, 1} {
		t.Errorf("Kelvin sign: got %v, want key and ey at -1", got)
	}
	for _, bad := range [][]string{{""}, {"Key"}, {"clé"}} {
		if _, err := newKeywordMatcher(bad); err == nil {
			t.Errorf("keywords %q accepted", bad)
		}
	}
}

// TestDefaultKeywords checks the matcher over the default config's keywords.
func TestDefaultKeywords(t *testing.T) {
	d := newDetector(t)
	var all []string
	for _, r := range d.t.rules {
		for _, k := range r.keywords {
			if !slices.Contains(all, k) {
				all = append(all, k)
			}
		}
	}
	m, err := newKeywordMatcher(all)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range append(slices.Clone(codeLines), "token=ghp_x; AKIA; xoxb-; -----BEGIN; sk_live_; glpat-") {
		if got, want := matcherHits(m, line), naiveKeywords(all, line); !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", line, got, want)
		}
	}
}

func FuzzKeywordMatcher(f *testing.F) {
	f.Add("apiKey = 'KEY' -----BEGIN")
	f.Add("ééé key \u212aey İ")
	f.Add("\xff\xfe akia")
	m, err := newKeywordMatcher(testKeywords)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got := matcherHits(m, line)
		if lowersToASCII([]byte(line)) {
			// Offsets are unknown; the keywords found must be those of
			// the lowercased line.
			var want []int
			for _, h := range occurrences(testKeywords, strings.ToLower(line)) {
				want = append(want, h[1])
			}
			var kws []int
			for _, h := range got {
				if h[0] != -1 {
					t.Fatalf("offset %d for a lowercased line", h[0])
				}
				kws = append(kws, h[1])
			}
			slices.Sort(want)
			slices.Sort(kws)
			if !slices.Equal(kws, want) {
				t.Fatalf("got %v, want %v", kws, want)
			}
			return
		}
		if want := naiveKeywords(testKeywords, line); !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		// The keywords found are those gitleaks finds in the lowercased line.
		set := func(hs [][2]int) []int {
			var ks []int
			for _, h := range hs {
				if !slices.Contains(ks, h[1]) {
					ks = append(ks, h[1])
				}
			}
			slices.Sort(ks)
			return ks
		}
		if a, b := set(got), set(occurrences(testKeywords, strings.ToLower(line))); !slices.Equal(a, b) {
			t.Fatalf("keywords %v, gitleaks finds %v", a, b)
		}
	})
}
