package sarif

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzEncodePath: every path encodes to a strict RFC 3986 relative
// reference that decodes back to the path (minus leading slashes).
func FuzzEncodePath(f *testing.F) {
	for _, s := range []string{"src/main.go", "a b/ü.md", "100%", "c:/x", "/abs", "😀", "q?#[]", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		enc := encodePath(p)
		for i := 0; i < len(enc); i++ {
			c := enc[i]
			if c == '%' {
				if i+2 >= len(enc) || !strings.ContainsRune("0123456789ABCDEF", rune(enc[i+1])) || !strings.ContainsRune("0123456789ABCDEF", rune(enc[i+2])) {
					t.Fatalf("bad escape in %q", enc)
				}
				i += 2
				continue
			}
			if !keepInPath(c) {
				t.Fatalf("unescaped byte %q in %q", c, enc)
			}
		}
		if strings.HasPrefix(enc, "/") {
			t.Fatalf("leading slash in %q", enc)
		}
		dec, err := url.PathUnescape(enc)
		if err != nil {
			t.Fatalf("PathUnescape(%q): %v", enc, err)
		}
		if want := strings.TrimLeft(p, "/"); dec != want {
			t.Fatalf("round trip: %q -> %q -> %q", p, enc, dec)
		}
		u, err := url.Parse(enc)
		if err != nil || u.Scheme != "" || u.Host != "" {
			t.Fatalf("url.Parse(%q) = %+v, %v", enc, u, err)
		}
	})
}
