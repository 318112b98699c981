/*
Privscan finds catalogued identifiers, PII and secrets in git changes and
reports them without ever printing a value.

Usage:

	privscan diff [<commit> | <a>..<b> | <a>...<b> | <a> <b>] [--staged] [-- <path>...]
	privscan history [<range>]
	privscan scan [<path>...]
	privscan text [<file>|-]
	privscan redact [<file>|-]
	privscan catalog check
	privscan init [--platform claude-code]
	privscan demo
	privscan version

A user keeps a private catalog (Markdown) of identifiers that must never
appear in code, fixtures, comments or commit messages. The catalog is read
only through the broker, from the key map
$XDG_CONFIG_HOME/privscan/context-map.toml, or from PRIVSCAN_CATALOG /
PRIVSCAN_CATALOG_FILE in CI.

diff reads revisions as git diff does and scans only added lines; comparisons
with the working tree also scan untracked, non-ignored files
(--no-untracked for git's exact file set); a commit range also scans its
commit messages (--no-messages). history scans every non-merge commit's
patch against its first parent and every commit message. scan reads whole
working-tree files, honouring .gitignore. text scans any text.

Output formats (--format): text, json (the report of docs/findings.md), sarif (SARIF
2.1.0 for GitHub code scanning), github (workflow-command annotations) and
markdown (a summary table). Findings carry a rule ID, category, severity,
location and a keyed fingerprint; never the matched text.

Exit codes: 0 no finding at or above --fail-on (default warning), 1
findings at or above it, 2 usage, configuration, catalog or git error.

Suppression: a privscan:allow marker on a line, fingerprints in
.privscanignore, a --baseline JSON report, and .privscan.toml (exclude globs,
detectors, severity overrides, fail-on).
*/
package main
