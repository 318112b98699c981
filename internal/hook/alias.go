package hook

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Aliases looks up git aliases. Alias returns the value of alias.<name>
// for a git that runs in dir, as written in the configuration (a value
// starting with "!" is a shell alias), and whether it is set.
type Aliases interface {
	Alias(dir, name string) (string, bool)
}

// Options change what Find models.
type Options struct {
	// Aliases, when set, resolves `git <alias>` to the command it stands
	// for (`git ci -m x` with alias.ci = commit is a commit). Shell
	// aliases ("!…") are not followed: what they run is left to the
	// PostToolUse net.
	Aliases Aliases
}

// maxAliasDepth bounds alias chains (alias.a = b, alias.b = commit).
const maxAliasDepth = 16

// expandAlias returns the words git runs for `git sub rest…` when sub is
// an alias of a git command (not a shell alias), recursively; ok is false
// when sub is a built-in command, not an alias, a shell alias, a loop or
// a value git cannot split.
func expandAlias(a Aliases, dir, sub string, rest []string) ([]string, bool) {
	if sub == "" {
		return nil, false
	}
	seen := map[string]bool{}
	for depth := 0; depth < maxAliasDepth; depth++ {
		key := strings.ToLower(sub)
		if builtins[sub] || seen[key] {
			return nil, false
		}
		seen[key] = true
		v, found := a.Alias(dir, sub)
		if !found || strings.HasPrefix(strings.TrimSpace(v), "!") {
			return nil, false
		}
		exp, ok := splitCmdline(v)
		if !ok || len(exp) == 0 {
			return nil, false
		}
		words := append(exp, rest...)
		// An alias may start with git's global options (--no-pager log).
		next, nextRest, _ := gitSubcommand(words, dir)
		if next == "" {
			return nil, false
		}
		if builtins[next] {
			return words, true
		}
		if _, more := a.Alias(dir, next); !more {
			return words, true // an external command (git-foo) or unknown
		}
		sub, rest = next, nextRest
	}
	return nil, false
}

// splitCmdline splits an alias value as git does (split_cmdline): words
// are separated by whitespace; single and double quotes group, a
// backslash escapes the next character outside single quotes. An
// unterminated quote is an error, as in git.
func splitCmdline(s string) ([]string, bool) {
	var out []string
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			if inWord {
				out = append(out, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\' && quote != '\'':
			i++
			if i >= len(s) {
				return nil, false
			}
			w.WriteByte(s[i])
			inWord = true
		case (c == '"' || c == '\'') && quote == 0:
			quote = c
			inWord = true
		case c == quote:
			quote = 0
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		out = append(out, w.String())
	}
	return out, true
}

// builtins are git's built-in commands (git --list-cmds=builtins): an
// alias with one of these names is ignored by git.
var builtins = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`add am annotate apply archive bisect blame branch
		bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format
		checkout checkout-index cherry cherry-pick clean clone column commit commit-graph
		commit-tree config count-objects credential describe diagnose diff diff-files
		diff-index diff-tree difftool fast-export fast-import fetch fetch-pack
		fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc grep hash-object
		help hook index-pack init interpret-trailers log ls-files ls-remote ls-tree
		mailinfo mailsplit maintenance merge merge-base merge-file merge-tree mktag
		mktree multi-pack-index mv name-rev notes pack-objects pack-refs patch-id
		prune pull push range-diff read-tree rebase receive-pack reflog remote repack
		replace rerere reset restore rev-list rev-parse revert rm send-pack shortlog
		show show-branch show-index show-ref sparse-checkout stage stash status
		stripspace submodule switch symbolic-ref tag unpack-file unpack-objects
		update-index update-ref update-server-info upload-archive upload-pack var
		verify-commit verify-pack verify-tag version whatchanged worktree write-tree`) {
		m[c] = true
	}
	return m
}()

// GitConfig reads aliases from git's configuration files as git would for
// a command run in a directory: the system file, the global files and the
// repository's own config (following include.path and includeIf
// "gitdir:"), the last definition winning. Files that are missing or that
// cannot be parsed contribute nothing. It caches what it reads; it is not
// safe for concurrent use.
type GitConfig struct {
	getenv func(string) string
	files  map[string]*gitconfig.Config // by path; nil: unreadable
	global []string                     // system and global files, in order
}

// NewGitConfig returns a GitConfig that finds the files with getenv
// (os.Getenv in production): HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL,
// GIT_CONFIG_SYSTEM and GIT_CONFIG_NOSYSTEM.
func NewGitConfig(getenv func(string) string) *GitConfig {
	g := &GitConfig{getenv: getenv, files: map[string]*gitconfig.Config{}}
	if getenv("GIT_CONFIG_NOSYSTEM") == "" {
		sys := getenv("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		g.global = append(g.global, sys)
	}
	if f := getenv("GIT_CONFIG_GLOBAL"); f != "" {
		g.global = append(g.global, f)
		return g
	}
	home := getenv("HOME")
	if xdg := getenv("XDG_CONFIG_HOME"); xdg != "" {
		g.global = append(g.global, filepath.Join(xdg, "git", "config"))
	} else if home != "" {
		g.global = append(g.global, filepath.Join(home, ".config", "git", "config"))
	}
	if home != "" {
		g.global = append(g.global, filepath.Join(home, ".gitconfig"))
	}
	return g
}

// Alias implements Aliases.
func (g *GitConfig) Alias(dir, name string) (string, bool) {
	gitDir, commonDir := findGitDir(dir)
	files := append([]string(nil), g.global...)
	if commonDir != "" {
		files = append(files, filepath.Join(commonDir, "config"))
	}
	var val string
	var found bool
	for _, f := range files {
		if v, ok := g.lookup(f, gitDir, name, 0); ok {
			val, found = v, true
		}
	}
	return val, found
}

// maxIncludeDepth is git's limit on nested includes.
const maxIncludeDepth = 10

// lookup returns the last alias.<name> of file f and of the files it
// includes (each include read where it stands, as git does).
func (g *GitConfig) lookup(f, gitDir, name string, depth int) (string, bool) {
	cfg := g.read(f)
	if cfg == nil || depth > maxIncludeDepth {
		return "", false
	}
	var val string
	var found bool
	// The decoder keeps sections in order of first appearance, options in
	// order within each: includes are applied after the section that
	// holds them, which matches git when they come last (the usual case).
	for _, s := range cfg.Sections {
		switch {
		case s.IsName("alias"):
			for _, o := range s.Options {
				if o.IsKey(name) {
					val, found = o.Value, true
				}
			}
		case s.IsName("include"):
			for _, p := range s.OptionAll("path") {
				if v, ok := g.lookup(g.includePath(f, p), gitDir, name, depth+1); ok {
					val, found = v, true
				}
			}
		case s.IsName("includeIf"):
			for _, ss := range s.Subsections {
				if !g.gitdirMatches(f, ss.Name, gitDir) {
					continue
				}
				for _, p := range ss.OptionAll("path") {
					if v, ok := g.lookup(g.includePath(f, p), gitDir, name, depth+1); ok {
						val, found = v, true
					}
				}
			}
		}
	}
	return val, found
}

func (g *GitConfig) read(f string) *gitconfig.Config {
	if cfg, ok := g.files[f]; ok {
		return cfg
	}
	var cfg *gitconfig.Config
	if fh, err := os.Open(f); err == nil {
		c := gitconfig.New()
		if gitconfig.NewDecoder(fh).Decode(c) == nil {
			cfg = c
		}
		_ = fh.Close()
	}
	g.files[f] = cfg
	return cfg
}

// includePath resolves an include path: ~/ is the home directory, a
// relative path is relative to the including file's directory.
func (g *GitConfig) includePath(from, p string) string {
	p = g.expandHome(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	return p
}

func (g *GitConfig) expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home := g.getenv("HOME"); home != "" {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// gitdirMatches evaluates an includeIf condition of the gitdir: or
// gitdir/i: kind (other kinds, such as onbranch:, are taken as false).
func (g *GitConfig) gitdirMatches(from, cond, gitDir string) bool {
	var pat string
	fold := false
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		pat = strings.TrimPrefix(cond, "gitdir:")
	case strings.HasPrefix(cond, "gitdir/i:"):
		pat, fold = strings.TrimPrefix(cond, "gitdir/i:"), true
	default:
		return false
	}
	if gitDir == "" || pat == "" {
		return false
	}
	dirOnly := strings.HasSuffix(pat, "/")
	pat = g.expandHome(pat)
	if dirOnly && !strings.HasSuffix(pat, "/") {
		pat += "/"
	}
	switch {
	case strings.HasPrefix(pat, "./"):
		// Relative to the including file's directory.
		pat = filepath.Dir(from) + pat[1:]
	case !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	dir := filepath.ToSlash(gitDir)
	pat = filepath.ToSlash(pat)
	if fold {
		dir, pat = strings.ToLower(dir), strings.ToLower(pat)
	}
	ok, err := doublestar.Match(pat, dir)
	return err == nil && ok
}

// findGitDir returns the git directory of the repository that contains
// dir and the common directory that holds its config (they differ in a
// linked worktree), or "" when there is none.
func findGitDir(dir string) (gitDir, commonDir string) {
	if dir == "" {
		return "", ""
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", ""
	}
	for {
		dot := filepath.Join(d, ".git")
		if fi, err := os.Stat(dot); err == nil {
			if fi.IsDir() {
				return dot, dot
			}
			if data, err := os.ReadFile(dot); err == nil {
				if p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
					gd := strings.TrimSpace(p)
					if !filepath.IsAbs(gd) {
						gd = filepath.Join(d, gd)
					}
					common := gd
					if c, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
						common = strings.TrimSpace(string(c))
						if !filepath.IsAbs(common) {
							common = filepath.Join(gd, common)
						}
					}
					return gd, filepath.Clean(common)
				}
			}
			return "", ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// cmdlineAliases returns the aliases set with `-c alias.<name>=<value>`
// among git's global options (before the subcommand), by lower-case name.
func cmdlineAliases(args []string) map[string]string {
	var m map[string]string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			break
		}
		if gitValueOpts[a] {
			if a == "-c" && i+1 < len(args) {
				k, v, _ := strings.Cut(args[i+1], "=")
				if name, ok := strings.CutPrefix(strings.ToLower(k), "alias."); ok && name != "" {
					if m == nil {
						m = map[string]string{}
					}
					m[name] = v
				}
			}
			i++
		}
	}
	return m
}

// overlay looks up aliases in its map first (git -c), then in the files.
type overlay struct {
	cmdline map[string]string
	next    Aliases
}

func (o overlay) Alias(dir, name string) (string, bool) {
	if v, ok := o.cmdline[strings.ToLower(name)]; ok {
		return v, true
	}
	return o.next.Alias(dir, name)
}
