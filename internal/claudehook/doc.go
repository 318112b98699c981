// Package claudehook is the Claude Code door: the PreToolUse and
// PostToolUse hooks of the plugin. Like the command line, the MCP server
// and the GitHub Action, it turns its input (a hook payload) into
// engine requests and its results into what the caller reads: nothing on
// stdout, a value-free list of rule IDs and locations on stderr, and an
// error (exit status 2) when a gate blocks.
//
// PreToolUse gates, before a Bash command runs, what it would publish or
// record: git commit (with the git adds before it in the same command
// applied), git push (the commits not on the remote's tracking refs) and
// gh pr create|edit|comment|review|merge and gh issue create|edit|comment
// (title and body). The policy is the
// committed one, so a change cannot relax the policy that judges it.
//
// PostToolUse reports what an edit added (Write, Edit, MultiEdit,
// NotebookEdit) and, for Bash, the commits the command made in a way the
// PreToolUse model does not see (a script, an alias, make): the HEAD seen
// before the command, recorded by tool_use_id, is compared with HEAD after.
//
// Problems of privscan's own (no catalog, an unreadable repository, a
// payload that cannot be read) never block a command: they are reported
// on stderr and the command runs. Tests of this package run through the
// command line (internal/cli) and end to end (internal/e2e).
package claudehook
