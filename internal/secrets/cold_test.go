package secrets

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

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
	return &scanner.Fragment{Kind: scanner.KindDiff, Path: "internal/auth/client.go",
		Lines: lines(append(slices.Clone(codeLines), extra...)...)}
}

// TestColdStart measures New and the first Detect of a typical diff in
// fresh processes (this test binary, re-run), the cost secret detection
// adds to a short-lived privscan run.
func TestColdStart(t *testing.T) {
	if os.Getenv("PRIVSCAN_SECRETS_COLD") == "1" {
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
		return
	}
	if testing.Short() || raceEnabled {
		t.Skip("spawns processes and measures time")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var totals []time.Duration
	for range 5 {
		cmd := exec.Command(exe, "-test.run=^TestColdStart$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PRIVSCAN_SECRETS_COLD=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		var newUS, detectUS, n, cpuUS int64
		for _, l := range strings.Split(string(out), "\n") {
			if _, err := fmt.Sscanf(l, "cold-start: %d %d %d %d", &newUS, &detectUS, &n, &cpuUS); err == nil {
				break
			}
		}
		if n != 0 {
			t.Fatalf("typical diff: %d matches, want none", n)
		}
		total := time.Duration(newUS+detectUS) * time.Microsecond
		t.Logf("New %v, first Detect %v (CPU time of both: %v)", time.Duration(newUS)*time.Microsecond,
			time.Duration(detectUS)*time.Microsecond, time.Duration(cpuUS)*time.Microsecond)
		totals = append(totals, total)
	}
	slices.Sort(totals)
	med := totals[len(totals)/2]
	t.Logf("median New + first Detect: %v", med)
	// The budget is 20 ms; allow for slow or loaded machines.
	if med > 60*time.Millisecond {
		t.Errorf("cold start %v, budget 20 ms", med)
	}
}
