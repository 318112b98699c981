// Command precision measures how often privscan's built-in detectors fire
// on real history, where (with a catalog that never matches) every finding
// is a candidate false positive to review:
//
//	go run ./bench/cmd/precision [-range A..B] [-last N] [-sample 20] REPO...
//
// For each repository it runs `privscan history` (JSON), measures the
// added text of the same range with `git log -p`, and prints per detector
// and severity the number of findings and findings per 10 MB of added
// text, then a reproducible sample of finding locations (commit, path,
// line, rule) to review by hand. It never prints matched text.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "precision:", err)
		os.Exit(2)
	}
}

type report struct {
	Findings []struct {
		RuleID, Severity, Kind, Path, Commit string
		Line                                 int
	}
	Summary struct {
		CommitsScanned int
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("precision", flag.ContinueOnError)
	rng := fs.String("range", "", "history range (default: the last -last commits of HEAD)")
	last := fs.Int("last", 1000, "commits to scan when -range is not given")
	sample := fs.Int("sample", 20, "finding locations to sample per repository")
	bin := fs.String("privscan", "privscan", "the privscan binary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("usage: precision [-range A..B] [-last N] [-sample N] REPO…")
	}
	home, err := os.MkdirTemp("", "privscan-precision")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	// A catalog that never matches: every finding comes from the built-in
	// detectors (PII and secrets).
	catalog := "## NEVER\n- category: never\n\n```values\nQzxwvut Plmoknij Ubygv\n```\n"
	for _, repo := range fs.Args() {
		r := *rng
		if r == "" {
			base, err := git(repo, "rev-list", "-n1", fmt.Sprintf("--skip=%d", *last), "HEAD")
			if err != nil || strings.TrimSpace(base) == "" {
				r = "HEAD"
			} else {
				r = strings.TrimSpace(base) + "..HEAD"
			}
		}
		rep, err := history(*bin, repo, r, home, catalog)
		if err != nil {
			return fmt.Errorf("%s: %w", repo, err)
		}
		added, err := addedBytes(repo, r)
		if err != nil {
			return fmt.Errorf("%s: %w", repo, err)
		}
		print(out, repo, r, rep, added, *sample)
	}
	return nil
}

func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	b, err := cmd.Output()
	return string(b), err
}

func history(bin, repo, rng, home, catalog string) (*report, error) {
	cmd := exec.Command(bin, "history", rng, "--format", "json", "--fail-on", "never", "--no-progress")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "cfg"), "PRIVSCAN_CATALOG="+catalog)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("privscan history: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("privscan history: %w", err)
	}
	return &rep, nil
}

// addedBytes counts the bytes of added lines (and commit messages are not
// counted) in the range, as `git log -p` shows them.
func addedBytes(repo, rng string) (int64, error) {
	cmd := exec.Command("git", "-C", repo, "log", "-p", "--no-color", "--no-ext-diff", "--format=", rng)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	var n int64
	sc := bufio.NewScanner(pipe)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		l := sc.Bytes()
		if len(l) > 0 && l[0] == '+' && !bytes.HasPrefix(l, []byte("+++ ")) {
			n += int64(len(l))
		}
	}
	if err := sc.Err(); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, err
	}
	return n, cmd.Wait()
}

func print(out io.Writer, repo, rng string, rep *report, added int64, sample int) {
	mb := float64(added) / 1e6
	fmt.Fprintf(out, "## %s (%s)\n\n%d commits, %.1f MB of added text, %d findings\n\n", filepath.Base(repo), rng, rep.Summary.CommitsScanned, mb, len(rep.Findings))
	type key struct{ rule, sev, kind string }
	counts := map[key]int{}
	warnUp := 0
	for _, f := range rep.Findings {
		kind := "file"
		if f.Kind == "commit-message" {
			kind = "message"
		}
		counts[key{f.RuleID, f.Severity, kind}]++
		if f.Severity == "error" || f.Severity == "warning" {
			warnUp++
		}
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return counts[keys[i]] > counts[keys[j]] })
	fmt.Fprintf(out, "| rule | severity | in | findings | per 10 MB |\n| --- | --- | --- | ---: | ---: |\n")
	for _, k := range keys {
		fmt.Fprintf(out, "| %s | %s | %s | %d | %.1f |\n", k.rule, k.sev, k.kind, counts[k], per10(counts[k], mb))
	}
	fmt.Fprintf(out, "\nWarning and above: %d findings, %.1f per 10 MB.\n\n", warnUp, per10(warnUp, mb))
	if sample > 0 && len(rep.Findings) > 0 {
		h := fnv.New64a()
		h.Write([]byte(repo + rng))
		r := rand.New(rand.NewPCG(h.Sum64(), 1))
		idx := r.Perm(len(rep.Findings))
		if len(idx) > sample {
			idx = idx[:sample]
		}
		sort.Ints(idx)
		fmt.Fprintf(out, "Sample to review (commit, path:line, rule):\n\n")
		for _, i := range idx {
			f := rep.Findings[i]
			c := f.Commit
			if len(c) > 12 {
				c = c[:12]
			}
			fmt.Fprintf(out, "- %s %s:%d %s\n", c, f.Path, f.Line, f.RuleID)
		}
		fmt.Fprintln(out)
	}
}

func per10(n int, mb float64) float64 {
	if mb == 0 {
		return 0
	}
	return float64(n) / mb * 10
}
