package secrets

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
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
	f := &scanner.Fragment{Kind: finding.KindFile, Path: "internal/store/store.go"}
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

// benchDetect measures Detect on f (n bytes). Besides wall time it reports
// cpu-MB/s, the throughput in process CPU time (GC included), which a
// loaded machine does not distort.
func benchDetect(b *testing.B, f *scanner.Fragment, n int) {
	d := newDetector(b)
	d.Detect(f, func(scanner.Match) {}) // compile the rules it needs
	b.SetBytes(int64(n))
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		d.Detect(f, func(scanner.Match) {})
	}
	if used := cpuTime() - cpu; used > 0 && cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/used.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkDetect scans about 1 MB of code in one fragment.
func BenchmarkDetect(b *testing.B) {
	f, n := codeFragment(1 << 20)
	benchDetect(b, f, n)
}

// BenchmarkDetectHunk scans a 20-line diff hunk, the common case.
func BenchmarkDetectHunk(b *testing.B) {
	f := &scanner.Fragment{Kind: finding.KindDiff, Path: "internal/store/store.go"}
	n := 0
	for i := range 20 {
		l := codeLines[i%len(codeLines)]
		f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: []byte(l)})
		n += len(l) + 1
	}
	benchDetect(b, f, n)
}

// BenchmarkDetectEncoded scans the code of BenchmarkDetect with a line of
// base64 that decodes to text every 200 lines (a secret in one of ten), as
// fixtures and configuration hold: the decoding path's cost.
func BenchmarkDetectEncoded(b *testing.B) {
	f, n := codeFragment(1 << 20)
	for i := range f.Lines {
		if i%200 == 100 {
			v := "user=admin;mode=read-only;region=eu-west-1"
			if i%2000 == 100 {
				v = "token: " + ghPAT
			}
			l := `	blob := "` + b64(v) + `"`
			n += len(l) - len(f.Lines[i].Text)
			f.Lines[i].Text = []byte(l)
		}
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
	f := &scanner.Fragment{Kind: finding.KindFile, Path: "dist/app.min.js",
		Lines: []scanner.Line{{Number: 1, Text: []byte(sb.String())}}}
	benchDetect(b, f, sb.Len())
}

// codePool is realistic source, config and prose, dense in gitleaks
// keywords, in several languages.
var codePool = append(slices.Clone(codeLines),
	"import os",
	"API_URL = os.environ.get(\"API_URL\", \"https://api.example.com\")",
	"def get_token(session, key=None):",
	"    \"\"\"Return the access token for the session.\"\"\"",
	"    if key is None:",
	"        raise KeyError(\"missing key\")",
	"    return session.tokens[key]",
	"const authHeader = `Bearer ${token}`;",
	"export async function fetchUser(apiClient, id) {",
	"  const res = await apiClient.get(`/users/${id}`, { headers: { Authorization: authHeader } });",
	"  return res.data;",
	"}",
	"apiVersion: apps/v1",
	"kind: Deployment",
	"metadata:",
	"  name: auth-service",
	"  labels:",
	"    app: auth",
	"spec:",
	"  replicas: 3",
	"      containers:",
	"        - name: api",
	"          image: registry.example.com/auth-api:1.4.2",
	"          env:",
	"            - name: SECRET_NAME",
	"              valueFrom:",
	"                secretKeyRef:",
	"                  key: password",
	`{"name": "privscan", "version": "1.2.0", "private": true,`,
	`  "scripts": {"build": "tsc -p .", "test": "jest --coverage"},`,
	`  "dependencies": {"axios": "^1.6.0", "jsonwebtoken": "^9.0.0"}}`,
	"SELECT id, name, access_level FROM users WHERE api_key_hash = $1;",
	"# Rotate the credentials every 90 days; see docs/security.md.",
	"password:",
	"  min_length: 12",
	"key_id = data.aws_kms_key.main.key_id",
	"resource \"aws_iam_access_key\" \"ci\" {",
	"  user = aws_iam_user.ci.name",
	"}",
	"<add key=\"ClientSettingsProvider.ServiceUri\" value=\"\" />",
	"curl -s https://api.github.com/repos/acme/widgets/releases/latest",
	"  -H \"Accept: application/vnd.github+json\" \\",
	"echo \"deploying $SERVICE with token from vault\"",
	"if err != nil { return fmt.Errorf(\"load secret: %w\", err) }",
	"var tokenRe = regexp.MustCompile(`^[A-Za-z0-9_-]{20,}$`)",
	"// Die Schlüssel werden täglich rotiert (key rotation, ~24h).",
	"msg := \"naïve café ✓ — token expired\"",
	"const KEY_PREFIX = 'sk_'; // Stripe-style prefix, not a key",
	"log.info(\"api call took %d ms\", elapsed)",
	"    secret_name: app-secrets",
	"jwt.decode(token, options={\"verify_signature\": False})",
	"",
	"\t\t// access checks happen in middleware",
)

// mixedFragments returns about size bytes of code from codePool in
// fragments of a few hundred lines, with diff hunks, and no secret.
func mixedFragments(size int) ([]*scanner.Fragment, int) {
	rng := rand.New(rand.NewPCG(7, 7))
	paths := []string{"internal/auth/client.go", "app/settings.py", "web/src/api.ts", "deploy/app.yaml", "package.json", "README.md"}
	var frags []*scanner.Fragment
	n := 0
	for k := 0; n < size; k++ {
		f := &scanner.Fragment{Kind: finding.KindFile, Path: paths[k%len(paths)]}
		num := 1
		for range 100 + rng.IntN(300) {
			if rng.IntN(50) == 0 {
				num += 1 + rng.IntN(30)
			}
			l := codePool[rng.IntN(len(codePool))]
			f.Lines = append(f.Lines, scanner.Line{Number: num, Text: []byte(l)})
			num++
			n += len(l) + 1
		}
		frags = append(frags, f)
	}
	return frags, n
}

// BenchmarkDetectMixed scans about 1 MB of mixed code and configuration in
// many fragments.
func BenchmarkDetectMixed(b *testing.B) {
	frags, n := mixedFragments(1 << 20)
	d := newDetector(b)
	for _, f := range frags {
		d.Detect(f, func(scanner.Match) {})
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		for _, f := range frags {
			d.Detect(f, func(scanner.Match) {})
		}
	}
	if used := cpuTime() - cpu; used > 0 && cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/used.Seconds()/1e6, "cpu-MB/s")
	}
}
