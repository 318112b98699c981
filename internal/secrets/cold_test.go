package secrets

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// typicalDiff is a 50-line diff hunk of ordinary code and configuration,
// holding the keywords real changes hold (key, token, api, auth, secret,
// password, access) and no secret.
func typicalDiff() *scanner.Fragment {
	extra := []string{
		"func (c *Client) Login(ctx context.Context, user, password string) (*Token, error) {",
		"\treq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.apiURL+\"/auth/login\", nil)",
		"\tif err != nil {",
		"\t\treturn nil, fmt.Errorf(\"auth: build request: %w\", err)",
		"\t}",
		"\treq.SetBasicAuth(user, password)",
		"\treq.Header.Set(\"X-Api-Version\", apiVersion)",
		"\tresp, err := c.http.Do(req)",
		"\tif err != nil {",
		"\t\treturn nil, fmt.Errorf(\"auth: login: %w\", err)",
		"\t}",
		"\tdefer resp.Body.Close()",
		"\tvar tok Token",
		"\tif err := json.NewDecoder(resp.Body).Decode(&tok); err != nil {",
		"\t\treturn nil, fmt.Errorf(\"auth: decode token: %w\", err)",
		"\t}",
		"\tc.cache.Set(secretKey(user), tok.AccessToken, tok.ExpiresIn)",
		"\treturn &tok, nil",
		"}",
		"",
		"// secretKey is the cache key of a user's access token.",
		"func secretKey(user string) string { return \"token:\" + user }",
		"",
		"const apiVersion = \"2024-06-01\"",
		"var errNoAccess = errors.New(\"access denied\")",
	}
	return &scanner.Fragment{Kind: finding.KindDiff, Path: "internal/auth/client.go",
		Lines: lines(append(slices.Clone(codeLines), extra...)...)}
}

// TestTypicalDiffQuiet: a typical diff full of secret-ish keywords holds no
// secret, so detection must report nothing on it.
func TestTypicalDiffQuiet(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	d.Detect(typicalDiff(), func(scanner.Match) { n++ })
	if n != 0 {
		t.Fatalf("typical diff: %d matches, want none", n)
	}
}

// coldChildEnv makes TestColdStartChild do its work: the benchmark below
// runs this test binary again so that New and the first Detect happen in
// a fresh process, as in a short-lived privscan run.
const coldChildEnv = "PRIVSCAN_SECRETS_COLD"

// TestColdStartChild is the child half of BenchmarkColdStart; it does
// nothing in a normal test run.
func TestColdStartChild(t *testing.T) {
	if os.Getenv(coldChildEnv) != "1" {
		t.Skip("child process of BenchmarkColdStart")
	}
	cpu0 := cpuTime()
	start := time.Now()
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	mid := time.Now()
	n := 0
	d.Detect(typicalDiff(), func(scanner.Match) { n++ })
	end := time.Now()
	fmt.Printf("cold-start: %d %d %d %d\n", mid.Sub(start).Microseconds(), end.Sub(mid).Microseconds(), n, (cpuTime() - cpu0).Microseconds())
}

// BenchmarkColdStart measures New and the first Detect of a typical diff
// in fresh processes: the cost secret detection adds to a short-lived
// privscan run (budget: 20 ms). It reports the medians as new-us,
// detect-us and cpu-us; ns/op includes the process start.
//
//	go test -run '^$' -bench ColdStart -benchtime 9x ./internal/secrets/
func BenchmarkColdStart(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	var news, detects, cpus []int64
	for b.Loop() {
		cmd := exec.Command(exe, "-test.run=^TestColdStartChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), coldChildEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("child: %v", err)
		}
		var newUS, detectUS, n, cpuUS int64
		found := false
		for _, l := range strings.Split(string(out), "\n") {
			if _, err := fmt.Sscanf(l, "cold-start: %d %d %d %d", &newUS, &detectUS, &n, &cpuUS); err == nil {
				found = true
				break
			}
		}
		if !found || n != 0 {
			b.Fatalf("child: no measurement or %d matches in the typical diff", n)
		}
		news, detects, cpus = append(news, newUS), append(detects, detectUS), append(cpus, cpuUS)
	}
	median := func(v []int64) float64 { slices.Sort(v); return float64(v[len(v)/2]) }
	b.ReportMetric(median(news), "new-us")
	b.ReportMetric(median(detects), "detect-us")
	b.ReportMetric(median(cpus), "cpu-us")
}
