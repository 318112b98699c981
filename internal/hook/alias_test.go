package hook

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mapAliases is a fixed alias table, the same in every directory.
type mapAliases map[string]string

func (m mapAliases) Alias(_, name string) (string, bool) {
	v, ok := m[strings.ToLower(name)]
	return v, ok
}

func TestFindWithAliases(t *testing.T) {
	al := mapAliases{
		"ci":     "commit",
		"cv":     "commit -v --all",
		"cm":     "commit -m",
		"quoted": `commit -m "two words"`,
		"chain":  "cv",
		"loop1":  "loop2",
		"loop2":  "loop1",
		"sh":     "!git commit -m x",
		"shfn":   `!f() { git commit "$@"; }; f`,
		"pu":     "push origin",
		"aa":     "add -A",
		"np":     "--no-pager commit",
		"commit": "!echo shadowed", // a built-in: git ignores the alias
		"bad":    `commit -m "unterminated`,
		"lfs2":   "lfs push",
	}
	type c = Commit
	tests := []struct {
		cmd  string
		want Commands
	}{
		{"git ci -m x", Commands{Commits: []c{{Dir: "/w", Messages: []string{"x"}}}}},
		{"git CI -m x", Commands{Commits: []c{{Dir: "/w", Messages: []string{"x"}}}}},
		{"git cv -m y", Commands{Commits: []c{{Dir: "/w", All: true, Messages: []string{"y"}}}}},
		{"git cm wip", Commands{Commits: []c{{Dir: "/w", Messages: []string{"wip"}}}}},
		{"git quoted", Commands{Commits: []c{{Dir: "/w", Messages: []string{"two words"}}}}},
		{"git chain", Commands{Commits: []c{{Dir: "/w", All: true}}}},
		{"git np -m n", Commands{Commits: []c{{Dir: "/w", Messages: []string{"n"}}}}},
		{"git -C sub ci", Commands{Commits: []c{{Dir: "/w/sub"}}}},
		{"cd r && git aa && git ci -m z", Commands{Commits: []c{{Dir: "/w/r", Messages: []string{"z"}, Adds: []Add{{Dir: "/w/r", All: true}}}}}},
		{"git pu main", Commands{Pushes: []Push{{Dir: "/w", Remote: "origin", Refspecs: []string{"main"}}}}},
		{"bash -c 'git ci -m in'", Commands{Commits: []c{{Dir: "/w", Messages: []string{"in"}}}}},
		{"git commit -m real", Commands{Commits: []c{{Dir: "/w", Messages: []string{"real"}}}}},
		{"git -c alias.zz=commit zz -m cl", Commands{Commits: []c{{Dir: "/w", Messages: []string{"cl"}}}}},
		{"git -c alias.ci=status ci", Commands{}},
		// Not modelled: shell aliases, loops, unsplittable values, unknown
		// names and external commands.
		{"git sh", Commands{}},
		{"git shfn -m x", Commands{}},
		{"git loop1", Commands{}},
		{"git bad", Commands{}},
		{"git nosuch -m x", Commands{}},
		{"git lfs2", Commands{}},
		{"git", Commands{}},
	}
	for _, tc := range tests {
		got := FindWith(tc.cmd, "/w", Options{Aliases: al})
		if !reflect.DeepEqual(got, tc.want) && !(got.Empty() && tc.want.Empty()) {
			t.Errorf("FindWith(%q)\n got %+v\nwant %+v", tc.cmd, got, tc.want)
		}
		// Without aliases only the literal spellings are found.
		if plain := Find(tc.cmd, "/w"); !plain.Empty() && !strings.Contains(tc.cmd, "commit") {
			t.Errorf("Find(%q) without aliases found %+v", tc.cmd, plain)
		}
	}
}

func TestSplitCmdline(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"commit -v", []string{"commit", "-v"}, true},
		{`  commit   -m "a b"  `, []string{"commit", "-m", "a b"}, true},
		{`commit -m 'it''s'`, []string{"commit", "-m", "its"}, true},
		{`commit -m a\ b`, []string{"commit", "-m", "a b"}, true},
		{`commit -m "q\"q"`, []string{"commit", "-m", `q"q`}, true},
		{`commit -m ''`, []string{"commit", "-m", ""}, true},
		{`commit "x`, nil, false},
		{`commit \`, nil, false},
	}
	for _, tc := range tests {
		got, ok := splitCmdline(tc.in)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitCmdline(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// configEnv lays out a synthetic home with global and repository configs.
type configEnv struct {
	home, xdg string
	env       map[string]string
}

func newConfigEnv(t *testing.T) *configEnv {
	t.Helper()
	root := t.TempDir()
	e := &configEnv{home: filepath.Join(root, "home"), xdg: filepath.Join(root, "xdg")}
	e.env = map[string]string{"HOME": e.home, "XDG_CONFIG_HOME": e.xdg, "GIT_CONFIG_NOSYSTEM": "1"}
	return e
}

func (e *configEnv) getenv(k string) string { return e.env[k] }

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mkGitDir makes the files that let git take dir as a git directory.
func mkGitDir(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "HEAD"), "ref: refs/heads/main\n")
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGitConfigAliases(t *testing.T) {
	e := newConfigEnv(t)
	repo := filepath.Join(e.home, "work", "repo")
	other := filepath.Join(e.home, "other")
	wt := filepath.Join(e.home, "wt")
	writeFile(t, filepath.Join(e.home, ".gitconfig"), `
[user]
	name = Test User
[alias]
	ci = commit
	st = status
	g = global-only
[include]
	path = extra.inc
[includeIf "gitdir:~/work/"]
	path = ~/work.inc
[includeIf "onbranch:main"]
	path = never.inc
`)
	writeFile(t, filepath.Join(e.home, "extra.inc"), "[alias]\n\tinc = commit --include\n")
	writeFile(t, filepath.Join(e.home, "work.inc"), "[alias]\n\twk = commit -m work\n")
	writeFile(t, filepath.Join(e.home, "never.inc"), "[alias]\n\tnv = commit\n")
	writeFile(t, filepath.Join(e.xdg, "git", "config"), "[alias]\n\txd = commit -a\n\tg = overridden-by-home\n")
	mkGitDir(t, filepath.Join(repo, ".git"))
	mkGitDir(t, filepath.Join(other, ".git"))
	mkGitDir(t, filepath.Join(other, ".git", "worktrees", "wt"))
	writeFile(t, filepath.Join(other, ".git", "worktrees", "wt", "gitdir"), filepath.Join(wt, ".git")+"\n")
	writeFile(t, filepath.Join(repo, ".git", "config"), "[core]\n\tbare = false\n[alias]\n\tci = push\n\tsh = \"!git commit -m \\\"$1\\\"\"\n")
	writeFile(t, filepath.Join(other, ".git", "config"), "[alias]\n\tsave = commit -am saved\n")
	// A linked worktree of other: its config is other's.
	writeFile(t, filepath.Join(other, ".git", "worktrees", "wt", "commondir"), "../..\n")
	writeFile(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(other, ".git", "worktrees", "wt")+"\n")
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}

	g := NewGitConfig(e.getenv)
	tests := []struct {
		dir, name, want string
		ok              bool
	}{
		{e.home, "ci", "commit", true},
		{e.home, "CI", "commit", true},
		{e.home, "g", "global-only", true}, // ~/.gitconfig is read after the XDG file
		{e.home, "xd", "commit -a", true},  // XDG file
		{e.home, "inc", "commit --include", true},
		{e.home, "wk", "", false},  // includeIf gitdir: not in ~/work
		{e.home, "nv", "", false},  // onbranch: not evaluated
		{repo, "ci", "push", true}, // the repository overrides the global file
		{filepath.Join(repo, "sub"), "ci", "push", true},
		{repo, "wk", "commit -m work", true},
		{repo, "sh", `!git commit -m "$1"`, true},
		{other, "save", "commit -am saved", true},
		{wt, "save", "commit -am saved", true},
		{other, "sh", "", false},
		{e.home, "nosuch", "", false},
	}
	for _, tc := range tests {
		got, ok := g.Alias(tc.dir, tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Alias(%s, %s) = %q, %v; want %q, %v", tc.dir, tc.name, got, ok, tc.want, tc.ok)
		}
	}

	// The alias is read where the git runs.
	cmds := FindWith("git ci -m a; cd ../../other && git save; git -C ../wt save", repo, Options{Aliases: g})
	want := Commands{
		Pushes:  []Push{{Dir: repo, Remote: "a", Refspecs: []string{}}},
		Commits: []Commit{{Dir: other, All: true, Messages: []string{"saved"}}, {Dir: wt, All: true, Messages: []string{"saved"}}},
	}
	if !reflect.DeepEqual(cmds, want) {
		t.Errorf("FindWith across repositories\n got %+v\nwant %+v", cmds, want)
	}

	// Same answers as git itself, when git is installed.
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("git not installed: parity with git config not checked")
		return
	}
	for _, tc := range tests {
		cmd := exec.Command("git", "config", "--get", "alias."+tc.name)
		cmd.Dir = tc.dir
		cmd.Env = []string{"HOME=" + e.home, "XDG_CONFIG_HOME=" + e.xdg, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		gitVal, gitOK := strings.TrimSuffix(string(out), "\n"), err == nil
		if gitVal != tc.want || gitOK != tc.ok {
			t.Errorf("git config --get alias.%s in %s = %q, %v; the test expects %q, %v", tc.name, tc.dir, gitVal, gitOK, tc.want, tc.ok)
		}
	}
}

func TestGitConfigFiles(t *testing.T) {
	e := newConfigEnv(t)
	writeFile(t, filepath.Join(e.home, ".gitconfig"), "[alias]\n\tci = commit\n")
	writeFile(t, filepath.Join(e.home, "custom"), "[alias]\n\tcu = commit\n")
	writeFile(t, filepath.Join(e.home, "broken"), "[alias\n\tbr = commit\n")
	writeFile(t, filepath.Join(e.home, "system"), "[alias]\n\tsy = commit\n")

	if _, ok := NewGitConfig(e.getenv).Alias(e.home, "sy"); ok {
		t.Error("GIT_CONFIG_NOSYSTEM: the system file was read")
	}
	e.env["GIT_CONFIG_GLOBAL"] = filepath.Join(e.home, "custom")
	g := NewGitConfig(e.getenv)
	if _, ok := g.Alias(e.home, "ci"); ok {
		t.Error("GIT_CONFIG_GLOBAL: ~/.gitconfig was read")
	}
	if v, _ := g.Alias(e.home, "cu"); v != "commit" {
		t.Errorf("GIT_CONFIG_GLOBAL: cu = %q", v)
	}
	e.env["GIT_CONFIG_GLOBAL"] = filepath.Join(e.home, "broken")
	if _, ok := NewGitConfig(e.getenv).Alias(e.home, "br"); ok {
		t.Error("an unparsable file contributed an alias")
	}
	delete(e.env, "GIT_CONFIG_NOSYSTEM")
	delete(e.env, "GIT_CONFIG_GLOBAL")
	e.env["GIT_CONFIG_SYSTEM"] = filepath.Join(e.home, "system")
	if v, _ := NewGitConfig(e.getenv).Alias(e.home, "sy"); v != "commit" {
		t.Errorf("GIT_CONFIG_SYSTEM: sy = %q", v)
	}
	// No HOME at all: nothing to read, nothing found.
	if _, ok := NewGitConfig(func(string) string { return "" }).Alias("", "ci"); ok {
		t.Error("alias found with no configuration")
	}
}

func FuzzFindWithAliases(f *testing.F) {
	f.Add("ci", "commit -m 'x y'", "git ci -a")
	f.Add("a", "b", "git a && git b")
	f.Add("p", "--no-pager push origin", "cd x && git -c alias.q=p q")
	f.Add("s", "!sh -c 'git commit'", "git s")
	f.Fuzz(func(t *testing.T, name, value, cmd string) {
		al := mapAliases{strings.ToLower(name): value, "b": "a", "a": value}
		cs := FindWith(cmd, "/w", Options{Aliases: al})
		for _, c := range cs.Commits {
			if c.Dir == "" {
				t.Fatalf("empty Dir for %q with alias %q = %q", cmd, name, value)
			}
		}
	})
}
