// Package hook reads Claude Code's PreToolUse hook payload and finds the
// `git commit` invocations in a Bash command, so that privscan can scan
// what each would commit before it runs.
//
// Finding commits is a pure function of the command text: no file is read
// and no catalog is loaded, so a command that commits nothing is let
// through in microseconds. FindWith can also resolve git aliases
// (`git ci` with alias.ci = commit), reading git's configuration files
// through GitConfig.
package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxPayload bounds the hook payload read from stdin.
const MaxPayload = 4 << 20

// Payload is the part of a hook payload privscan reads (PreToolUse,
// PostToolUse, UserPromptSubmit).
type Payload struct {
	SessionID     string    `json:"session_id"`
	Cwd           string    `json:"cwd"`
	HookEventName string    `json:"hook_event_name"`
	ToolName      string    `json:"tool_name"`
	ToolInput     ToolInput `json:"tool_input"`
	ToolUseID     string    `json:"tool_use_id"`
	// Prompt is what the user typed (UserPromptSubmit).
	Prompt string `json:"prompt"`
	// RawToolInput is the tool's whole input, for guards that read every
	// string in it (another MCP server's arguments).
	RawToolInput json.RawMessage `json:"-"`
	// ToolResponse is the tool's output (PostToolUse), as Claude Code
	// sends it: an object for Bash (stdout, stderr…) and Grep (content,
	// filenames…), a string or an object for others.
	ToolResponse json.RawMessage `json:"tool_response"`
}

// ToolInput is the part of a tool's input privscan reads: the Bash
// command, the file a Read, Write, Edit, MultiEdit or NotebookEdit names
// and a Read's window, a WebFetch's URL and prompt, a WebSearch's query.
type ToolInput struct {
	Command      string `json:"command"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	// Offset and Limit are a Read's window (0: absent); OffsetSet and
	// LimitSet are false when the field held something other than a
	// whole number (the window is then unknown).
	Offset, Limit       int  `json:"-"`
	OffsetOK, LimitOK   bool `json:"-"`
	RawOffset, RawLimit any  `json:"-"`
	// AllowLarge is a Read's allow_large: read past Read's size limit.
	AllowLarge bool   `json:"allow_large"`
	URL        string `json:"url"`
	Query      string `json:"query"`
	WebPrompt  string `json:"prompt"`
}

// ErrMalformed is returned (wrapped) by Parse for a payload that is not a
// JSON object of the expected shape. Its text never quotes the payload.
var ErrMalformed = errors.New("malformed hook payload")

// Parse reads a payload from r (at most MaxPayload bytes).
func Parse(r io.Reader) (*Payload, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("reading the hook payload: %w", err)
	}
	if len(data) > MaxPayload {
		return nil, fmt.Errorf("%w: larger than %d MiB", ErrMalformed, MaxPayload>>20)
	}
	var p Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, malformed(err)
	}
	var raw struct {
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, malformed(err)
	}
	p.RawToolInput = raw.ToolInput
	var win struct {
		Offset any `json:"offset"`
		Limit  any `json:"limit"`
	}
	if len(raw.ToolInput) > 0 && json.Unmarshal(raw.ToolInput, &win) == nil {
		p.ToolInput.Offset, p.ToolInput.OffsetOK = wholeNumber(win.Offset)
		p.ToolInput.Limit, p.ToolInput.LimitOK = wholeNumber(win.Limit)
	}
	return &p, nil
}

// wholeNumber reads a window field: absent (nil) is 0 and known; a JSON
// number or a string of digits that is a whole number is itself; anything
// else is unknown.
func wholeNumber(v any) (int, bool) {
	switch x := v.(type) {
	case nil:
		return 0, true
	case float64:
		if x == float64(int64(x)) && x >= -1<<52 && x <= 1<<52 {
			return int(x), true
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
			return n, true
		}
	}
	return 0, false
}

func malformed(err error) error {
	// json's messages quote bytes of the input: report the kind only.
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%w: invalid JSON at byte %d", ErrMalformed, se.Offset)
	case errors.As(err, &te):
		return fmt.Errorf("%w: field %s has the wrong type", ErrMalformed, te.Field)
	}
	return fmt.Errorf("%w: not a JSON object", ErrMalformed)
}

// Commit is one `git commit` found in a command.
type Commit struct {
	// Dir is the directory git runs in, after `cd` and `git -C`; relative
	// to the payload's cwd when that was not absolute.
	Dir string
	// All is set by -a/--all: modified tracked files are committed too.
	All bool
	// Include is set by -i/--include: Paths are added to the staged changes
	// rather than committed alone.
	Include bool
	// Paths are the pathspecs after the options: `git commit <paths>`
	// commits those files' working-tree content.
	Paths []string
	// Messages are the -m values, in order (one paragraph each).
	Messages []string
	// MessageFile is the -F/--file argument ("-" for stdin), relative to
	// Dir unless absolute.
	MessageFile string
	// Stdin is the body of a here-document given to the command, used
	// when MessageFile is "-".
	Stdin string
	// DirUnknown is set when the directory could not be followed (cd to a
	// variable or `cd -`): Dir is then the last known directory.
	DirUnknown bool
	// Adds are the `git add` commands that run before this commit in the
	// same command line (`git add -A && git commit …`): what they stage is
	// part of what the commit records.
	Adds []Add
}

// Add is one `git add` found in a command.
type Add struct {
	// Dir is the directory git runs in (as Commit.Dir).
	Dir string
	// All is set by -A/--all/--no-ignore-removal: every change under the
	// paths (the whole tree when there are none), untracked files too.
	All bool
	// Update is set by -u/--update: changes of tracked files only.
	Update bool
	// Paths are the pathspecs, relative to Dir.
	Paths []string
	// DirUnknown: the directory could not be followed.
	DirUnknown bool
}

// Commits returns the `git commit` invocations in a shell command, in
// order, with the directory each runs in, starting from cwd. It follows
// `cd`, `git -C`, environment prefixes (`FOO=1 git commit`), `env`,
// `command`, `sudo`-style wrappers, `sh -c '…'` and every list operator
// (&&, ||, ;, |, &, newlines, subshells). Commands inside $(...) and
// backquotes are not looked into.
func Commits(command, cwd string) []Commit {
	return Find(command, cwd).Commits
}

// Push is one `git push` found in a command.
type Push struct {
	Dir        string
	Remote     string   // "" when not given (git's default remote)
	Refspecs   []string // as given; empty means the current branch
	DirUnknown bool
}

// GHText is the text a `gh pr create|edit|comment|review|merge` or `gh
// issue create|edit|comment` publishes (for `gh pr merge`, the merge
// commit's subject and body).
type GHText struct {
	Dir      string
	Title    string
	Body     string
	BodyFile string // --body-file/-F; "-" is stdin
	Stdin    string // a here-document given to the command
}

// Commands are the gated commands found in a shell command line.
type Commands struct {
	Commits []Commit
	Pushes  []Push
	GH      []GHText
}

// Empty reports whether nothing needs gating.
func (c Commands) Empty() bool { return len(c.Commits)+len(c.Pushes)+len(c.GH) == 0 }

// Find returns the gated commands of a shell command line: git commit
// (with the git adds before it), git push, and the gh commands that
// publish text.
//
// Find does not resolve git aliases; FindWith does, given Options.Aliases.
func Find(command, cwd string) Commands {
	return FindWith(command, cwd, Options{})
}

// FindWith is Find with options: with Options.Aliases, `git <alias>` is
// modelled as the git command the alias stands for, looked up for the
// directory the git runs in (so `cd other && git ci` reads other's
// repository config), and `git -c alias.<name>=<value>` on the command
// line takes precedence.
func FindWith(command, cwd string, opt Options) Commands {
	var out Commands
	var adds []Add
	dir, unknown := cwd, false
	for _, sc := range splitCommands(command) {
		words := sc.words
		cmdDir := gitEnvDir(words, dir)
		words = skipPrefix(words)
		if len(words) == 0 {
			continue
		}
		switch base := path.Base(filepath.ToSlash(words[0])); base {
		case "cd", "pushd":
			if len(words) < 2 || words[1] == "-" || strings.ContainsAny(words[1], "$`~") {
				unknown = true
				continue
			}
			dir = joinDir(dir, words[1])
		case "sh", "bash", "zsh", "dash", "ksh":
			// sh -c '…': the script runs in the same directory.
			for i := 1; i+1 < len(words); i++ {
				if strings.HasPrefix(words[i], "-") && strings.Contains(words[i], "c") && !strings.HasPrefix(words[i], "--") {
					inner := FindWith(words[i+1], dir, opt)
					for _, c := range inner.Commits {
						c.DirUnknown = c.DirUnknown || unknown
						out.Commits = append(out.Commits, c)
					}
					out.Pushes = append(out.Pushes, inner.Pushes...)
					out.GH = append(out.GH, inner.GH...)
					break
				}
			}
		case "gh":
			if t, ok := parseGH(words[1:], dir); ok {
				t.Stdin = sc.stdin
				out.GH = append(out.GH, t)
			}
		case "git":
			sub, rest, gdir := gitSubcommand(words[1:], cmdDir)
			if opt.Aliases != nil {
				aliases := opt.Aliases
				if cl := cmdlineAliases(words[1:]); len(cl) > 0 {
					aliases = overlay{cl, aliases}
				}
				if exp, ok := expandAlias(aliases, gdir, sub, rest); ok {
					sub, rest, gdir = gitSubcommand(exp, gdir)
				}
			}
			switch sub {
			case "add", "stage":
				a := parseAdd(rest, gdir)
				a.DirUnknown = unknown
				adds = append(adds, a)
			case "commit":
				c := parseCommit(rest, gdir)
				c.DirUnknown = unknown
				c.Stdin = sc.stdin
				c.Adds = append([]Add(nil), adds...)
				adds = nil // committed: a later commit records only later adds
				out.Commits = append(out.Commits, c)
			case "push":
				p := parsePush(rest, gdir)
				p.DirUnknown = unknown
				out.Pushes = append(out.Pushes, p)
			}
		}
	}
	return out
}

func joinDir(dir, p string) string {
	if filepath.IsAbs(p) || dir == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// skipPrefix drops variable assignments and wrapper commands in front of
// the command proper.
func skipPrefix(w []string) []string {
	for len(w) > 0 {
		switch {
		case isAssignment(w[0]):
			w = w[1:]
		case w[0] == "env":
			w = w[1:]
			for len(w) > 0 && (strings.HasPrefix(w[0], "-") || isAssignment(w[0])) {
				if w[0] == "-u" || w[0] == "--unset" || w[0] == "-C" || w[0] == "--chdir" {
					w = w[min(2, len(w)):]
					continue
				}
				w = w[1:]
			}
		case shellKeywords[w[0]]:
			w = w[1:]
		case wrapperValueOpts[w[0]] != nil:
			opts := wrapperValueOpts[w[0]]
			timeout := w[0] == "timeout"
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") && w[0] != "-" {
				if w[0] == "--" {
					w = w[1:]
					break
				}
				if opts[w[0]] {
					w = w[min(2, len(w)):]
					continue
				}
				w = w[1:]
			}
			if timeout && len(w) > 0 {
				w = w[1:] // the duration
			}
		default:
			return w
		}
	}
	return w
}

// wrapperValueOpts are the commands that run the rest of their words as
// a command, with their options that take a separate value (nice -n 10,
// sudo -u user, timeout -k 5 10: timeout's duration is skipped too).
var wrapperValueOpts = map[string]map[string]bool{
	"command": {}, "builtin": {}, "exec": {"-a": true}, "nohup": {}, "time": {"-f": true, "-o": true},
	"nice":    {"-n": true, "--adjustment": true},
	"sudo":    {"-u": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-r": true, "-t": true, "-U": true, "-T": true},
	"doas":    {"-u": true, "-C": true},
	"timeout": {"-s": true, "--signal": true, "-k": true, "--kill-after": true},
	"stdbuf":  {"-i": true, "-o": true, "-e": true},
	"ionice":  {"-c": true, "-n": true, "-p": true, "-P": true, "-u": true},
	"chronic": {}, "caffeinate": {},
}

// shellKeywords may precede a command in a list: `if git commit …; then`.
var shellKeywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "while": true, "until": true,
	"do": true, "!": true, "{": true, "coproc": true,
}

func isAssignment(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for j, r := range s[:i] {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// gitDirParent returns the directory git works in for --git-dir=p or
// GIT_DIR=p when p names a repository's .git directory: its parent. Any
// other git directory (bare, separate) leaves dir as it was.
func gitDirParent(dir, p string) string {
	if filepath.Base(filepath.Clean(p)) != ".git" {
		return dir
	}
	return filepath.Dir(joinDir(dir, p))
}

// gitEnvDir applies the GIT_DIR and GIT_WORK_TREE assignments in front of
// a command (FOO=1 GIT_DIR=x/.git git commit, env GIT_WORK_TREE=y git …)
// to dir; GIT_WORK_TREE wins.
func gitEnvDir(words []string, dir string) string {
	gitDir, workTree := "", ""
	for i, w := range words {
		if i == 0 && w == "env" {
			continue
		}
		if !isAssignment(w) {
			if i > 0 && words[0] == "env" && strings.HasPrefix(w, "-") {
				continue
			}
			break
		}
		k, v, _ := strings.Cut(w, "=")
		switch k {
		case "GIT_DIR":
			gitDir = v
		case "GIT_WORK_TREE":
			workTree = v
		}
	}
	switch {
	case workTree != "":
		return joinDir(dir, workTree)
	case gitDir != "":
		return gitDirParent(dir, gitDir)
	}
	return dir
}

// gitValueOpts are git's global options that take a separate value.
var gitValueOpts = map[string]bool{
	"-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true,
}

// gitSubcommand reads git's global options: it returns the subcommand, its
// arguments and the directory git runs in ("" when there is none).
func gitSubcommand(args []string, dir string) (sub string, rest []string, gdir string) {
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-C" && len(args) > 1:
			dir = joinDir(dir, args[1])
			args = args[2:]
		case strings.HasPrefix(a, "--work-tree="):
			dir = joinDir(dir, strings.TrimPrefix(a, "--work-tree="))
			args = args[1:]
		case a == "--work-tree" && len(args) > 1:
			dir = joinDir(dir, args[1])
			args = args[2:]
		case strings.HasPrefix(a, "--git-dir="):
			dir = gitDirParent(dir, strings.TrimPrefix(a, "--git-dir="))
			args = args[1:]
		case a == "--git-dir" && len(args) > 1:
			dir = gitDirParent(dir, args[1])
			args = args[2:]
		case gitValueOpts[a]:
			args = args[min(2, len(args)):]
		case strings.HasPrefix(a, "-"):
			args = args[1:]
		default:
			return a, args[1:], dir
		}
	}
	return "", nil, dir
}

// pushValueOpts are git push's options that take a separate value.
var pushValueOpts = map[string]bool{"--repo": true, "--receive-pack": true, "--exec": true, "-o": true, "--push-option": true}

// parsePush reads `git push` arguments: the remote and the refspecs.
func parsePush(args []string, dir string) Push {
	p := Push{Dir: dir}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case pushValueOpts[a] && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 {
		p.Remote, p.Refspecs = pos[0], pos[1:]
	}
	return p
}

// parseGH reads a gh command that publishes text.
func parseGH(args []string, dir string) (GHText, bool) {
	if len(args) < 2 {
		return GHText{}, false
	}
	switch args[0] + " " + args[1] {
	case "pr create", "pr edit", "pr comment", "issue create", "issue comment", "issue edit", "pr review", "pr merge":
	default:
		return GHText{}, false
	}
	t := GHText{Dir: dir}
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, val, hasVal := strings.Cut(a, "=")
		next := func() string {
			if hasVal {
				return val
			}
			if i+1 < len(rest) {
				i++
				return rest[i]
			}
			return ""
		}
		switch name {
		case "--title", "-t", "--subject": // gh pr merge: -t is --subject
			t.Title = next()
		case "--body", "-b":
			t.Body = next()
		case "--body-file", "-F":
			t.BodyFile = next()
		}
	}
	return t, true
}

// parseAdd reads `git add` arguments.
func parseAdd(args []string, dir string) Add {
	a := Add{Dir: dir}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			a.Paths = append(a.Paths, args[i+1:]...)
			return a
		case arg == "--all" || arg == "--no-ignore-removal":
			a.All = true
		case arg == "--update":
			a.Update = true
		case strings.HasPrefix(arg, "--"):
			// --chmod=+x, --pathspec-from-file=…: nothing more to stage.
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			for _, c := range arg[1:] {
				switch c {
				case 'A':
					a.All = true
				case 'u':
					a.Update = true
				}
			}
		default:
			a.Paths = append(a.Paths, arg)
		}
	}
	return a
}

// commitValueOpts are git commit's long options that take a value (as
// --opt=value or --opt value).
var commitValueOpts = map[string]bool{
	"message": true, "file": true, "author": true, "date": true,
	"reuse-message": true, "reedit-message": true, "fixup": true,
	"squash": true, "template": true, "cleanup": true, "trailer": true,
	"pathspec-from-file": true,
}

func parseCommit(args []string, dir string) Commit {
	c := Commit{Dir: dir}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--":
			c.Paths = append(c.Paths, args[i+1:]...)
			return c
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			if commitValueOpts[name] && !hasVal {
				val = next()
			}
			switch name {
			case "all":
				c.All = true
			case "include":
				c.Include = true
			case "message":
				c.Messages = append(c.Messages, val)
			case "file":
				c.MessageFile = val
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			c.shortCluster(a[1:], next)
		default:
			c.Paths = append(c.Paths, a)
		}
	}
	return c
}

// shortCluster reads a cluster of short options such as -am or -mtext.
func (c *Commit) shortCluster(cl string, next func() string) {
	for j := 0; j < len(cl); j++ {
		switch cl[j] {
		case 'a':
			c.All = true
		case 'i':
			c.Include = true
		case 'm', 'F', 'C', 'c', 't':
			val := cl[j+1:]
			if val == "" {
				val = next()
			}
			switch cl[j] {
			case 'm':
				c.Messages = append(c.Messages, val)
			case 'F':
				c.MessageFile = val
			}
			return
		case 'S', 'u':
			return // optional value, attached only
		}
	}
}

// Message returns the commit message given with -m (paragraphs joined by
// a blank line, as git does), with a `$(cat <<'EOF' … EOF)` wrapper
// removed.
func (c *Commit) Message() string {
	parts := make([]string, len(c.Messages))
	for i, m := range c.Messages {
		parts[i] = unwrapHeredoc(m)
	}
	return strings.Join(parts, "\n\n")
}

// unwrapHeredoc returns the body of `$(cat <<'EOF'\n…\nEOF\n)`, the form
// agents use for multi-line messages, or s unchanged.
func unwrapHeredoc(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "$(") || !strings.HasSuffix(t, ")") {
		return s
	}
	inner := strings.TrimSpace(t[2 : len(t)-1])
	first, body, ok := strings.Cut(inner, "\n")
	if !ok {
		return s
	}
	fs := strings.Fields(first)
	if len(fs) < 2 || fs[0] != "cat" || !strings.HasPrefix(fs[1], "<<") {
		return s
	}
	delim := strings.Trim(strings.TrimLeft(strings.TrimPrefix(fs[1], "<<"), "-"), `'"`)
	if delim == "" && len(fs) > 2 {
		delim = strings.Trim(fs[2], `'"`)
	}
	if delim == "" {
		return s
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if strings.TrimLeft(l, "\t") == delim {
			return strings.Join(lines[:i], "\n")
		}
	}
	return s
}
