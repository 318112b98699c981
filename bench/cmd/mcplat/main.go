// Command mcplat measures the latency of privscan's MCP scan_diff tool
// through a real stdio client connection (mcp-go's client spawning
// "privscan mcp" in the repository): initialize, warm-up calls, then N
// timed calls. It reports min, median, p90 and max latency and the server's
// peak RSS (VmHWM).
//
// Usage:
//
//	mcplat -privscan BIN -repo DIR [-n 50] [-warmup 1] [-base HEAD~1] [-head HEAD] [-out FILE.jsonl]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mcplat:", err)
		os.Exit(1)
	}
}

// Result is the JSON line mcplat records.
type Result struct {
	Group     string    `json:"group"`
	Label     string    `json:"label"`
	Runs      int       `json:"runs"`
	WallMS    []float64 `json:"wallMs"`
	MinMS     float64   `json:"minMs"`
	MedianMS  float64   `json:"medianMs"`
	P90MS     float64   `json:"p90Ms"`
	MaxMS     float64   `json:"maxMs"`
	PeakRSSMB float64   `json:"peakRssMb"`
	StartMS   float64   `json:"startMs"` // spawn + initialize + first call
	Findings  int       `json:"findings"`
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mcplat", flag.ContinueOnError)
	bin := fs.String("privscan", "privscan", "privscan binary")
	repo := fs.String("repo", ".", "repository (the server's working directory)")
	n := fs.Int("n", 50, "timed calls")
	warm := fs.Int("warmup", 1, "untimed calls after the first")
	base := fs.String("base", "HEAD~1", "scan_diff base")
	head := fs.String("head", "HEAD", "scan_diff head")
	out := fs.String("out", "", "append the result as one JSON line to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 {
		return errors.New("-n must be at least 1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var server *exec.Cmd
	t0 := time.Now()
	c, err := client.NewStdioMCPClientWithOptions(*bin, os.Environ(), []string{"mcp"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			server = exec.CommandContext(ctx, command, args...)
			server.Env = env
			server.Dir = *repo
			return server, nil
		}))
	if err != nil {
		return err
	}
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "privscan-bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	call := func() (int, error) {
		var req mcp.CallToolRequest
		req.Params.Name = "scan_diff"
		req.Params.Arguments = map[string]any{"base": *base, "head": *head, "agent_id": "bench"}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("scan_diff returned an error: %s", toolText(res))
		}
		return findings(res), nil
	}
	r := Result{Group: "mcp", Label: "mcp scan_diff warm", Runs: *n}
	if r.Findings, err = call(); err != nil {
		return err
	}
	r.StartMS = float64(time.Since(t0)) / 1e6
	for range *warm {
		if _, err := call(); err != nil {
			return err
		}
	}
	for range *n {
		t := time.Now()
		if _, err := call(); err != nil {
			return err
		}
		r.WallMS = append(r.WallMS, float64(time.Since(t))/1e6)
	}
	if server != nil && server.Process != nil {
		r.PeakRSSMB = vmHWM(server.Process.Pid)
	}
	w := slices.Sorted(slices.Values(r.WallMS))
	r.MinMS, r.MaxMS = w[0], w[len(w)-1]
	r.MedianMS, r.P90MS = quantile(w, 0.5), quantile(w, 0.9)
	fmt.Fprintf(stdout, "mcp scan_diff %s..%s: %d calls, min %.1f ms, median %.1f ms, p90 %.1f ms, max %.1f ms; first call after spawn %.0f ms; server peak RSS %.1f MB; %d findings\n",
		*base, *head, r.Runs, r.MinMS, r.MedianMS, r.P90MS, r.MaxMS, r.StartMS, r.PeakRSSMB, r.Findings)
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(r)
		_, err = f.Write(append(b, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return nil
}

// toolText returns the text content of a tool result (error messages carry
// no values: the server never returns them).
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// findings reads summary.findings from the structured result, or from the
// text content when it is JSON; -1 when neither says.
func findings(res *mcp.CallToolResult) int {
	var v struct {
		Summary struct {
			Findings int `json:"findings"`
		} `json:"summary"`
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && json.Unmarshal(b, &v) == nil {
			return v.Summary.Findings
		}
	}
	if json.Unmarshal([]byte(toolText(res)), &v) == nil {
		return v.Summary.Findings
	}
	return -1
}

// vmHWM returns a process's peak resident set size in MB from
// /proc/<pid>/status, or 0.
func vmHWM(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}
