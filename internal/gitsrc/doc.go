// Package gitsrc reads a git repository through go-git (no git binary is
// needed) and turns what privscan scans into scanner.Fragments: the added
// lines of a diff (Repo.Diff), every commit's patch and message in a range
// of history (Repo.History), or whole working-tree files (Repo.Files).
//
// Added lines are computed with a port of git's own xdiff algorithm (Myers
// with git's heuristics and the indent heuristic), so the set of added lines
// and their numbers agree with `git diff`. Renames are detected with git's
// default 50% similarity threshold, so a moved and lightly edited file
// yields only its edited lines. Binary files (a NUL byte in the first 8000
// bytes of either side, git's rule), Git LFS pointers and submodules yield
// a fragment with Skipped set and no lines.
package gitsrc
