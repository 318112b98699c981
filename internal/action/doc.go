// Package action is the logic of privscan's GitHub Action (`privscan
// action`, docs/action.md). action.yml only sets up Go, builds privscan, runs this
// with the inputs in the environment (the Env constants), uploads the SARIF
// log and fails the job on the exit-code output; everything that can be
// tested lives here.
//
// # What is scanned
//
// The event (GITHUB_EVENT_NAME, payload at GITHUB_EVENT_PATH) picks the
// range. Every range is scanned with its commit messages; the base and
// head inputs override the event's commits.
//
//	pull_request         the checked-out test merge commit (GITHUB_SHA of
//	                     refs/pull/N/merge, parents base and head) against its
//	                     first parent: exactly the pull request's change, with
//	                     the line numbers code scanning shows for that commit;
//	                     the merge commit's own message (GitHub's) is skipped.
//	                     When the head (or anything else) is checked out:
//	                     base.sha...head.sha (merge base against head, as in
//	                     "Files changed"). Plus, unless scan-pr-text is false,
//	                     the title and body as one text: title on line 1, body
//	                     from line 3.
//	pull_request_target  refused: see ErrPullRequestTarget.
//	push                 before...after. A new branch (all-zero before): the
//	                     commits not on the default branch (origin/<default>,
//	                     else the local branch) when that is in the clone and
//	                     is not the pushed branch, else after against its first
//	                     parent (a root commit: the whole commit). A forced
//	                     push whose old tip is not in the clone is treated as a
//	                     new branch. A deleted branch: skipped with a notice.
//	merge_group          base_sha...head_sha.
//	workflow_dispatch    base...head from the inputs, else HEAD (GITHUB_SHA)
//	                     against its first parent.
//	other events         only with the base input: base...head.
//
// A commit missing from the clone (the base of a shallow checkout) is an
// error whose hint names `fetch-depth: 0`.
//
// # Catalog
//
// The catalog comes from PRIVSCAN_CATALOG (the catalog input, from a
// secret) or PRIVSCAN_CATALOG_FILE (catalog-file, relative to the
// workspace), else the runner's key map. When there is none at all — pull
// requests from forks and Dependabot get no secrets — Run writes a notice,
// zero findings and exit code 0: nothing was scanned, and no SARIF is
// written (uploading an empty log would close open alerts).
//
// # Outputs
//
// The SARIF log (the sarif-file input, else privscan.sarif in RUNNER_TEMP),
// workflow-command annotations on stdout (most severe first, at most 10 per
// level per step), a value-free Markdown table appended to
// GITHUB_STEP_SUMMARY (under 1 MiB), and the outputs findings, sarif-file
// and exit-code appended to GITHUB_OUTPUT with random heredoc delimiters.
// Nothing printed holds a catalog value or scanned text; descriptions of
// the range use abbreviated commit IDs only, never branch names or titles.
package action
