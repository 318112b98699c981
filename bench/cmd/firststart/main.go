// Command firststart measures the Claude Code plugin's first start: the
// time from starting scripts/privscan-launch mcp with an empty plugin data
// directory to the MCP initialize answer, and to the first tools/call that
// the real privscan answers (until then the launcher answers not_ready and
// the client retries, as a subagent would). Three ways to get the binary:
//
//   - release: the release archive of the plugin's version and its
//     checksums.txt, built here and served on 127.0.0.1
//     (PRIVSCAN_RELEASE_BASE_URL); no Go build may happen;
//   - cold: no release (nothing listens at the base URL) and an empty
//     GOCACHE in a temporary directory, so the launcher builds privscan
//     and the standard library from scratch (the module cache is kept and
//     GOPROXY is off: no download is timed);
//   - warm: the binary is already in the data directory (later sessions).
//
// Usage:
//
//	firststart [-root DIR] [-runs 5] [-cold-runs 3] [-poll 50ms] [-modes release,cold,warm]
//
// It prints one Markdown table (median, min, max per mode) and, with -out,
// writes the raw runs as JSON lines.
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "firststart:", err)
		os.Exit(1)
	}
}

// Run is one measured first start.
type Run struct {
	Mode    string  `json:"mode"`
	InitMS  float64 `json:"initMs"`  // launcher started → initialize answered
	ReadyMS float64 `json:"readyMs"` // launcher started → first tools/call answered by privscan
	Retries int     `json:"retries"` // not_ready answers before that
}

type config struct {
	root, work, version string
	release             string // the release binary
	baseURL, closedURL  string
	catalog             string
	poll                time.Duration
	goEnv               []string
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("firststart", flag.ContinueOnError)
	root := fs.String("root", ".", "the plugin root (this repository)")
	runs := fs.Int("runs", 5, "runs of the release and warm modes")
	coldRuns := fs.Int("cold-runs", 3, "runs of the cold mode (each a full build of privscan and the standard library)")
	poll := fs.Duration("poll", 50*time.Millisecond, "interval between tools/call retries while the launcher answers not_ready")
	modes := fs.String("modes", "release,cold,warm", "comma-separated modes to measure")
	out := fs.String("out", "", "also write the raw runs to this JSON lines file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		return errors.New("the launcher is POSIX sh")
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		return err
	}
	c := &config{root: abs, poll: *poll}
	if c.version, err = pluginVersion(abs); err != nil {
		return err
	}
	if c.work, err = os.MkdirTemp("", "privscan-firststart-"); err != nil {
		return err
	}
	defer os.RemoveAll(c.work)
	for _, k := range []string{"GOMODCACHE", "GOPATH", "GOROOT"} {
		v, err := exec.Command("go", "env", k).Output()
		if err != nil {
			return fmt.Errorf("go env %s: %w", k, err)
		}
		c.goEnv = append(c.goEnv, k+"="+strings.TrimSpace(string(v)))
	}
	c.catalog = filepath.Join(c.work, "catalog.md")
	if err := os.WriteFile(c.catalog, []byte("# Bench catalog\n\n## PER-001\n- category: person\n- match: identifier\n\n```values\nQuillon Vantablack\n```\n"), 0o600); err != nil {
		return err
	}

	fmt.Fprintf(os.Stderr, "firststart: building the release binaries of privscan %s\n", c.version)
	c.release = filepath.Join(c.work, "release", "privscan")
	// As GoReleaser builds them: privscan and its companions.
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X github.com/privscan/privscan/internal/cli.Version="+c.version,
		"-o", filepath.Dir(c.release)+string(filepath.Separator), "./cmd/privscan", "./cmd/privscan-hook", "./cmd/privscan-mcp")
	build.Dir, build.Stderr = abs, os.Stderr
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	stop, err := c.serveRelease()
	if err != nil {
		return err
	}
	defer stop()
	if c.closedURL, err = closedURL(); err != nil {
		return err
	}

	var all []Run
	for _, mode := range strings.Split(*modes, ",") {
		n := *runs
		if mode == "cold" {
			n = *coldRuns
		}
		var warmData string
		for i := 0; i < n; i++ {
			data, err := os.MkdirTemp(c.work, "data-")
			if err != nil {
				return err
			}
			switch mode {
			case "release", "cold":
			case "warm":
				if warmData == "" {
					// Prepare once from the release, untimed.
					if _, err := c.start("release", data); err != nil {
						return err
					}
					warmData = data
				}
				data = warmData
			default:
				return fmt.Errorf("unknown mode %q", mode)
			}
			r, err := c.start(mode, data)
			if err != nil {
				return fmt.Errorf("%s run %d: %w", mode, i+1, err)
			}
			fmt.Fprintf(os.Stderr, "firststart: %s run %d: initialize %.0f ms, first real tools/call %.0f ms (%d not_ready)\n", mode, i+1, r.InitMS, r.ReadyMS, r.Retries)
			all = append(all, r)
			if mode != "warm" {
				os.RemoveAll(data)
			}
		}
	}
	if *out != "" {
		var b bytes.Buffer
		for _, r := range all {
			line, _ := json.Marshal(r)
			b.Write(append(line, '\n'))
		}
		if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	report(stdout, all)
	return nil
}

// start runs the launcher as Claude Code would and times one first start.
func (c *config) start(mode, data string) (Run, error) {
	r := Run{Mode: mode}
	home := filepath.Join(c.work, "home")
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + c.work,
		"CLAUDE_PLUGIN_ROOT=" + c.root,
		"CLAUDE_PLUGIN_DATA=" + data,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"PRIVSCAN_CATALOG_FILE=" + c.catalog,
		"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=",
	}
	env = append(env, c.goEnv...)
	switch mode {
	case "release", "warm":
		env = append(env, "PRIVSCAN_RELEASE_BASE_URL="+c.baseURL)
	case "cold":
		cache, err := os.MkdirTemp(c.work, "gocache-")
		if err != nil {
			return r, err
		}
		defer os.RemoveAll(cache)
		env = append(env, "PRIVSCAN_RELEASE_BASE_URL="+c.closedURL, "GOCACHE="+cache)
	}
	cmd := exec.Command(filepath.Join(c.root, "scripts/privscan-launch"), "mcp")
	cmd.Env, cmd.Dir = env, c.work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return r, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return r, err
	}
	out := bufio.NewReader(outPipe)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	defer func() {
		in.Close()
		cmd.Wait()
	}()
	id := 0
	call := func(method, params string) (map[string]any, error) {
		id++
		msg := fmt.Sprintf(`{"method":%q,"params":%s,"jsonrpc":"2.0","id":%d}`+"\n", method, params, id)
		if _, err := io.WriteString(in, msg); err != nil {
			return nil, err
		}
		line, err := out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %w; launcher stderr:\n%s", method, err, stderr.String())
		}
		var resp struct {
			ID     int            `json:"id"`
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.ID != id || resp.Result == nil {
			return nil, fmt.Errorf("%s: unexpected answer %.300s", method, line)
		}
		return resp.Result, nil
	}
	if _, err := call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"firststart","version":"1"}}`); err != nil {
		return r, err
	}
	r.InitMS = ms(time.Since(t0))
	if _, err := io.WriteString(in, `{"method":"notifications/initialized","jsonrpc":"2.0"}`+"\n"); err != nil {
		return r, err
	}
	for {
		res, err := call("tools/call", `{"name":"scan_text","arguments":{"text":"reviewed by Quillon Vantablack","agent_id":"firststart"}}`)
		if err != nil {
			return r, err
		}
		text := toolText(res)
		switch {
		case strings.Contains(text, `"code":"not_ready"`):
			r.Retries++
			time.Sleep(c.poll)
			continue
		case res["isError"] == true:
			// The launcher's preparation log says why (it is removed
			// when the launcher exits).
			logs, _ := filepath.Glob(filepath.Join(data, "launch-*.log"))
			var why []byte
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				why = append(why, b...)
			}
			if len(why) > 4000 {
				why = why[len(why)-4000:]
			}
			return r, fmt.Errorf("tools/call failed: %.300s\npreparation log:\n%s", text, why)
		case !strings.Contains(text, "catalog/PER-001"):
			return r, fmt.Errorf("tools/call found nothing: %.300s", text)
		}
		r.ReadyMS = ms(time.Since(t0))
		break
	}
	if mode == "release" {
		// The binary must be the release's, not a build.
		got, err := os.ReadFile(filepath.Join(data, "bin", "privscan-"+c.version))
		if err != nil {
			return r, err
		}
		want, err := os.ReadFile(c.release)
		if err != nil {
			return r, err
		}
		if !bytes.Equal(got, want) {
			return r, errors.New("the installed binary is not the release binary")
		}
	}
	return r, nil
}

func toolText(res map[string]any) string {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	first, _ := content[0].(map[string]any)
	s, _ := first["text"].(string)
	return s
}

// serveRelease packs the release binary as GoReleaser does (tar.gz with
// LICENSE and README.md, checksums.txt) and serves it on 127.0.0.1.
func (c *config) serveRelease() (func(), error) {
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		return nil, fmt.Errorf("no release for %s", runtime.GOARCH)
	}
	type file struct {
		name string
		data []byte
		mode int64
	}
	files := []file{{"LICENSE", []byte("MIT\n"), 0o644}, {"README.md", []byte("privscan\n"), 0o644}}
	for _, name := range []string{"privscan", "privscan-hook", "privscan-mcp"} {
		bin, err := os.ReadFile(filepath.Join(filepath.Dir(c.release), name))
		if err != nil {
			return nil, err
		}
		files = append(files, file{name, bin, 0o755})
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	archive := fmt.Sprintf("privscan_%s_%s_%s.tar.gz", c.version, runtime.GOOS, arch)
	sum := sha256.Sum256(buf.Bytes())
	checksums := hex.EncodeToString(sum[:]) + "  " + archive + "\n"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v" + c.version + "/checksums.txt":
			io.WriteString(w, checksums)
		case "/v" + c.version + "/" + archive:
			w.Write(buf.Bytes())
		default:
			http.NotFound(w, r)
		}
	})}
	go srv.Serve(ln)
	c.baseURL = "http://" + ln.Addr().String()
	return func() { srv.Close() }, nil
}

func closedURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr, nil
}

var versionRE = regexp.MustCompile(`(?m)^\s*"version"\s*:\s*"([^"]+)"`)

func pluginVersion(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, ".claude-plugin", "plugin.json"))
	if err != nil {
		return "", err
	}
	m := versionRE.FindSubmatch(b)
	if m == nil {
		return "", errors.New("no version in .claude-plugin/plugin.json")
	}
	return string(m[1]), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func report(w io.Writer, all []Run) {
	fmt.Fprintln(w, "| mode | runs | initialize answered: median (min–max) | first tools/call by privscan: median (min–max) |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	var order []string
	for _, r := range all {
		if !slices.Contains(order, r.Mode) {
			order = append(order, r.Mode)
		}
	}
	for _, mode := range order {
		var init, ready []float64
		for _, r := range all {
			if r.Mode == mode {
				init = append(init, r.InitMS)
				ready = append(ready, r.ReadyMS)
			}
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s |\n", mode, len(init), summary(init), summary(ready))
	}
}

func summary(v []float64) string {
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return fmt.Sprintf("%s (%s–%s)", human(med), human(v[0]), human(v[len(v)-1]))
}

func human(msec float64) string {
	if msec >= 10000 {
		return fmt.Sprintf("%.1f s", msec/1000)
	}
	return fmt.Sprintf("%.0f ms", msec)
}
