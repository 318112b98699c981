package cli

import (
	"context"
	"fmt"

	"github.com/privscan/privscan/internal/action"
)

// ActionHelp is the help text of "privscan action".
const ActionHelp = `privscan action

The GitHub Action's logic (action.yml runs it). Reads GITHUB_EVENT_NAME,
GITHUB_EVENT_PATH, GITHUB_WORKSPACE, GITHUB_SHA, RUNNER_TEMP and the inputs
from the environment: PRIVSCAN_CATALOG or PRIVSCAN_CATALOG_FILE,
PRIVSCAN_BASE, PRIVSCAN_HEAD, PRIVSCAN_FAIL_ON, PRIVSCAN_SARIF_FILE,
PRIVSCAN_CATEGORY, PRIVSCAN_SCAN_PR_TEXT, PRIVSCAN_ANNOTATIONS.

Scans the change the event describes (pull_request, push, merge_group,
workflow_dispatch; pull_request_target is refused) with its commit messages
and the pull request's title and body; writes the SARIF file, annotations on
stdout, a value-free table to GITHUB_STEP_SUMMARY, and the outputs findings,
sarif-file and exit-code to GITHUB_OUTPUT. Findings do not fail this command
(the Action fails the job after uploading the SARIF): it exits 0, or 1 when
GITHUB_OUTPUT is unset, and 2 on errors. Without any catalog (pull requests
from forks get no secrets) it prints a notice and exits 0.`

func runAction(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			fmt.Fprintln(env.Stdout, ActionHelp)
			return nil
		}
		return usagef("action takes no arguments; its inputs come from the environment")
	}
	res, err := action.Run(ctx, action.Config{
		Getenv:      env.Getenv,
		Dir:         env.Dir,
		Stdout:      env.Stdout,
		Stderr:      env.Stderr,
		ToolVersion: ToolVersion(),
		Secrets:     true,
	})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 && env.Getenv("GITHUB_OUTPUT") == "" {
		// Outside a runner nobody reads the exit-code output.
		return ErrFindings
	}
	return nil
}
