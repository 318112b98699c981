package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/privscan/privscan/internal/claudehook"
	"github.com/privscan/privscan/internal/engine"
)

// HookHelp is the help text of "privscan hook".
const HookHelp = `privscan hook claude-pre-tool-use [--fail-on LEVEL] [--catalog-key KEY]

Claude Code PreToolUse hook for the Bash tool. Reads the hook payload on
stdin and gates, before they run:

  git commit   what the commit would record: the staged changes, with the
               git add -A/./<paths>/-u that precede it in the same command
               applied (untracked files too), -a, -i and paths; and its
               -m/-F message
  git push     the commits it would publish (not on the remote's
               tracking refs) and their messages
  gh pr create|edit|comment|review|merge, gh issue create|edit|comment
               the --title/-t, --body/-b and --body-file/-F text (for
               pr merge, the merge commit's --subject and body)

It follows "git -C <dir>", "cd <dir> && …", &&, ||, ;, pipes, subshells,
sh -c, environment assignments, wrappers (env, nice, timeout, sudo…) and
git aliases. The policy is the committed one (HEAD;
for a push, the remote's): privscan:allow markers, .privscan.toml and
.privscanignore edits in the change itself never count. Findings at or
above --fail-on (default: that policy's fail-on, else warning) block the
command: exit 2, with the rule IDs and locations on stderr for Claude, never
the matched text. Any other command, a payload that cannot be read, or a
privscan setup problem lets the command run (exit 0; a note goes to
stderr). Commands that gate nothing return without loading the catalog.`

// PostHookHelp is the help text of "privscan hook claude-post-tool-use".
const PostHookHelp = `privscan hook claude-post-tool-use [--fail-on LEVEL] [--catalog-key KEY]

Claude Code PostToolUse hook. Reads the hook payload on stdin and reports,
after the tool ran:

  Write, Edit, MultiEdit, NotebookEdit
        the lines of the edited file that differ from HEAD (the whole file
        when it is untracked or outside a repository)
  Bash  the commits the command made, whatever its spelling (a script,
        make, an alias): the commits reachable from HEAD and not from the
        HEAD that PreToolUse recorded for the same tool_use_id (in
        $XDG_STATE_HOME/privscan/tool-use; the record is removed here, and
        records a refused command leaves are removed after a day), with
        their messages; and what the command printed (the guard's check
        after the fact, as for Grep below)
  Grep  what it returned: when that holds catalogued data at the guard's
        level, Claude is told not to copy it anywhere (exit 2, rule IDs
        only) and the audit log records it

Findings at or above --fail-on exit 2 with their rule IDs and locations on
stderr, which Claude Code feeds back to Claude so that it fixes them in its
next step (for commits: amend or reset before pushing). Never the matched
text. Problems reading the payload or the repository exit 0 with a note.`

// GuardHookHelp is the help text of "privscan hook claude-guard".
const GuardHookHelp = `privscan hook claude-guard [--catalog-key KEY]

Claude Code guard (SPEC §7.1): keeps catalogued data out of the model's
context, with the catalog, every PII detector and the secret rules, at the
level of the key map's [guard] table (default error: catalog rules and
secrets; level = "warning" adds emails and phone numbers). Reads the hook
payload on stdin:

  PreToolUse Read, NotebookRead
        scans exactly the lines the Read would return (its offset and
        limit; without them the whole file, unless Read itself refuses a
        file over 256 KB) and denies it (exit 2) when
        they hold a finding: rule IDs and line numbers on stderr, never
        text, pointing to the MCP tool read_redacted. Images and PDFs,
        which privscan cannot read, and files it cannot check (over 32 MiB
        to the end of the window, unreadable, not regular) are denied
  PreToolUse WebFetch, WebSearch, mcp__* (privscan's own tools excepted)
        blocks a URL, query or argument that holds a finding
  UserPromptSubmit
        blocks a prompt that holds a finding (the reason is shown to the
        user) and says how to redact it (privscan redact)
  PostToolUse Bash, Grep
        after the fact: tells Claude (exit 2) that the output held such
        data and must not be copied, and records it in the audit log

[guard] read, prompt and outbound are "block" (default), "warn" (let it
through and tell the model not to copy the data) or "off". A repository
cannot change them, and privscan:allow markers in what is read do not
count. What privscan cannot check is denied, never let through.`

// runHook reads the payload and hands it to the Claude Code door
// (internal/claudehook).
func runHook(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			return usagef("usage: privscan hook claude-pre-tool-use")
		}
		fmt.Fprintln(env.Stdout, HookHelp+"\n\n"+PostHookHelp+"\n\n"+GuardHookHelp)
		return nil
	}
	if args[0] != claudehook.PreName && args[0] != claudehook.PostName && args[0] != claudehook.GuardName {
		return usagef("unknown hook (want claude-pre-tool-use, claude-post-tool-use or claude-guard)")
	}
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	failOn := fs.String("fail-on", "", "block on findings at or above `LEVEL`: error, warning or note")
	catalogKey := fs.String("catalog-key", "", "catalog `KEY` in the key map")
	pos, paths, help, err := parseOrHelp(env, fs, "hook", args[1:])
	if help || err != nil {
		return err
	}
	if len(pos)+len(paths) > 0 {
		return usagef("hook %s takes no arguments", args[0])
	}
	if err := checkFailOn(*failOn); err != nil {
		return err
	}
	eng := engine.New(engine.Config{Getenv: env.Getenv})
	henv := claudehook.Env{Stdout: env.Stdout, Stderr: env.Stderr, Getenv: env.Getenv, Dir: env.Dir}
	return claudehook.Run(ctx, eng, henv, env.Stdin, args[0], claudehook.Options{CatalogKey: *catalogKey, FailOn: *failOn})
}
