package pii

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/scanner"
)

// benchText is realistic source: Go, YAML, JSON, Markdown and a go.sum,
// with a handful of genuine candidates among many near misses.
const benchText = `package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Handler serves the users API. See https://example.com/docs for details.
type Handler struct {
	db      *sql.DB
	timeout time.Duration // e.g. 30 * time.Second
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	var req struct {
		ID    int64  ` + "`json:\"id\"`" + `
		Email string ` + "`json:\"email\"`" + `
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, fmt.Sprintf("decode: %v", err), http.StatusBadRequest)
		return
	}
	row := h.db.QueryRowContext(ctx, "SELECT name FROM users WHERE id = $1 AND created_at > '2024-01-15'", req.ID)
	_ = row
	ts := 1700000000000
	addr := "127.0.0.1:8080"
	_ = fmt.Sprintf("%s@%s", "user", "host") + addr + fmt.Sprint(ts, 3.14159, 0xDEADBEEF)
}
# config.yaml
server:
  listen: 0.0.0.0:8443
  upstream: http://10.0.0.12:9000
  contact: ops-team@acme-corp.com
  version: 1.22.4.1
image: nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31
{"id": "f47ac10b-58cc-4372-a567-0e02b2c3d479", "phone": "+44 20 7946 0958", "amount": 1234.56}
{"dependencies": {"react": "^18.2.0", "@types/node": "20.11.5"}}
github.com/go-git/go-git/v5 v5.19.3 h1:U3Hlnbi/rTNAHrBySNewm5YkEmYPh4G1ea8S0HdV8DQ=
github.com/go-git/go-git/v5 v5.19.3/go.mod h1:Q7FQgXcp/l5KK8F5mKDk5Pla1VHDuMYc8rlwp1bzbcU=
## Changelog
- Fixed a race in std::vector handling (#1234) by @octocat in 3f786850e387550fdab836ed7e6dc881de23001b
- Server now binds [2a00:1450:4001:82a::200e]:443 and 52.14.200.7
`

func benchFragment() (*scanner.Fragment, int) {
	text := strings.Repeat(benchText, 20)
	var f scanner.Fragment
	n := 0
	for i, l := range strings.Split(text, "\n") {
		f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: []byte(l)})
		n += len(l) + 1
	}
	return &f, n
}

// BenchmarkDetect measures throughput on a dense mix of code, config and
// data lines (Mixed) and on the Go standard library's net/http server
// source (GoSource, skipped when GOROOT has no source).
func BenchmarkDetect(b *testing.B) {
	b.Run("Mixed", func(b *testing.B) {
		f, n := benchFragment()
		benchDetect(b, f, n, true)
	})
	b.Run("GoSource", func(b *testing.B) {
		root, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			b.Skip("go env GOROOT failed")
		}
		data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "src", "net", "http", "server.go"))
		if err != nil {
			b.Skip("no Go source in GOROOT")
		}
		var f scanner.Fragment
		for i, l := range bytes.Split(data, []byte("\n")) {
			f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: l})
		}
		benchDetect(b, &f, len(data), false)
	})
}

func benchDetect(b *testing.B, f *scanner.Fragment, n int, wantMatches bool) {
	d, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	matches := 0
	emit := func(scanner.Match) { matches++ }
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		d.Detect(f, emit)
	}
	if wantMatches && matches == 0 {
		b.Fatal("benchmark text produced no matches")
	}
}
