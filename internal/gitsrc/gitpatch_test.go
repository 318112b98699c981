package gitsrc

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// addedLine is one added line as the tests compare them.
type addedLine struct {
	Commit string
	Path   string
	Line   int
	Text   string
}

func (a addedLine) String() string {
	c := a.Commit
	if len(c) > 7 {
		c = c[:7]
	}
	return fmt.Sprintf("%s %s:%d %q", c, a.Path, a.Line, a.Text)
}

// parseGitPatch reads `git diff` / `git log -p` output (default context,
// core.quotePath=false, a/ and b/ prefixes) and returns its added lines.
// With commitPrefix, a line starting with it names the commit of the
// following patches.
func parseGitPatch(t testing.TB, out []byte, commitPrefix string) []addedLine {
	t.Helper()
	var res []addedLine
	var commit, path string
	newLine := 0
	inHunk := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case commitPrefix != "" && strings.HasPrefix(l, commitPrefix):
			commit = strings.TrimSpace(strings.TrimPrefix(l, commitPrefix))
			inHunk = false
		case strings.HasPrefix(l, "diff --git "):
			inHunk = false
			path = ""
		case !inHunk && strings.HasPrefix(l, "+++ "):
			p := strings.TrimSuffix(strings.TrimPrefix(l, "+++ "), "\t")
			if strings.HasPrefix(p, "\"") {
				t.Fatalf("quoted path in git output: %s", p)
			}
			path = strings.TrimPrefix(p, "b/")
		case strings.HasPrefix(l, "@@ "):
			inHunk = true
			f := strings.Fields(l)
			nw := strings.TrimPrefix(f[2], "+")
			nw, _, _ = strings.Cut(nw, ",")
			n, err := strconv.Atoi(nw)
			if err != nil {
				t.Fatalf("bad hunk header %q", l)
			}
			newLine = n
		case inHunk && strings.HasPrefix(l, "+"):
			res = append(res, addedLine{commit, path, newLine, strings.TrimSuffix(l[1:], "\r")})
			newLine++
		case inHunk && strings.HasPrefix(l, " "):
			newLine++
		case inHunk && (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "\\")):
		default:
			inHunk = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return res
}

func sortAdded(a []addedLine) {
	sort.Slice(a, func(i, j int) bool {
		x, y := a[i], a[j]
		if x.Commit != y.Commit {
			return x.Commit < y.Commit
		}
		if x.Path != y.Path {
			return x.Path < y.Path
		}
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		return x.Text < y.Text
	})
}

// compareAdded fails the test when the two sets differ, listing the first
// differences.
func compareAdded(t testing.TB, what string, got, want []addedLine) {
	t.Helper()
	sortAdded(got)
	sortAdded(want)
	gs := map[addedLine]int{}
	for _, a := range got {
		gs[a]++
	}
	ws := map[addedLine]int{}
	for _, a := range want {
		ws[a]++
	}
	var missing, extra []string
	for a, n := range ws {
		if gs[a] < n {
			missing = append(missing, a.String())
		}
	}
	for a, n := range gs {
		if ws[a] < n {
			extra = append(extra, a.String())
		}
	}
	if len(missing)+len(extra) == 0 {
		return
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 20 {
		missing = missing[:20]
	}
	if len(extra) > 20 {
		extra = extra[:20]
	}
	t.Errorf("%s: added lines differ from git (got %d, git %d)\nmissing (git has, we lack):\n  %s\nextra (we have, git lacks):\n  %s",
		what, len(got), len(want), strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
}
