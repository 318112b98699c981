package secrets

import (
	"strings"
	"testing"

	"github.com/privscan/privscan/scanner"
)

// codeLines is ordinary Go code, dense in gitleaks keywords (key, token,
// api, access) as real code is, so the keyword prefilter lets the generic
// rules run.
var codeLines = []string{
	"// Package store keeps user sessions and their access tokens.",
	"func (s *Store) Get(ctx context.Context, key string) (*Session, error) {",
	"\tif key == \"\" {",
	"\t\treturn nil, fmt.Errorf(\"store: empty key\")",
	"\t}",
	"\ts.mu.Lock()",
	"\tdefer s.mu.Unlock()",
	"\tsess, ok := s.sessions[key]",
	"\tif !ok || sess.Expires.Before(time.Now()) {",
	"\t\treturn nil, ErrNotFound",
	"\t}",
	"\treturn sess, nil",
	"}",
	"",
	"type Config struct {",
	"\tAPIBaseURL string `json:\"apiBaseUrl\"`",
	"\tTimeout    time.Duration `json:\"timeout\"`",
	"\tRetries    int `json:\"retries\"`",
	"}",
	"",
	"var defaultHeaders = map[string]string{\"Content-Type\": \"application/json\", \"Accept\": \"*/*\"}",
	"\tfor i, item := range items {",
	"\t\ttotal += item.Price * float64(item.Quantity)",
	"\t\tlog.Printf(\"item %d: %s\", i, item.Name)",
	"\t}",
}

// codeFragment returns about size bytes of code with a secret planted
// every 2000 lines.
func codeFragment(size int) (*scanner.Fragment, int) {
	f := &scanner.Fragment{Kind: scanner.KindFile, Path: "internal/store/store.go"}
	n := 0
	for i := 0; n < size; i++ {
		l := codeLines[i%len(codeLines)]
		if i%2000 == 1000 {
			l = `	awsID := "` + awsKey + `"`
		}
		f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: []byte(l)})
		n += len(l) + 1
	}
	return f, n
}

func benchDetect(b *testing.B, f *scanner.Fragment, n int) {
	d := newDetector(b)
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		d.Detect(f, func(scanner.Match) {})
	}
}

// BenchmarkDetect scans about 1 MB of code in one fragment.
func BenchmarkDetect(b *testing.B) {
	f, n := codeFragment(1 << 20)
	benchDetect(b, f, n)
}

// BenchmarkDetectHunk scans a 20-line diff hunk, the common case.
func BenchmarkDetectHunk(b *testing.B) {
	f := &scanner.Fragment{Kind: scanner.KindDiff, Path: "internal/store/store.go"}
	n := 0
	for i := range 20 {
		l := codeLines[i%len(codeLines)]
		f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: []byte(l)})
		n += len(l) + 1
	}
	benchDetect(b, f, n)
}

// BenchmarkDetectLongLine scans one keyword-dense line of MaxLineBytes,
// the longest line that is scanned.
func BenchmarkDetectLongLine(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < MaxLineBytes-100 {
		sb.WriteString(`var apiKey=cfg.get("key");token=fetch(secret,password);x=0x1f2e3d4c;`)
	}
	f := &scanner.Fragment{Kind: scanner.KindFile, Path: "dist/app.min.js",
		Lines: []scanner.Line{{Number: 1, Text: []byte(sb.String())}}}
	benchDetect(b, f, sb.Len())
}
