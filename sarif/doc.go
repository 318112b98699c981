// Package sarif renders privscan's findings stream as a SARIF 2.1.0 log
// (docs/findings.md) for GitHub code scanning, using the object model and encoder
// of github.com/owenrumney/go-sarif/v2.
//
// A Handler buffers the findings (which arrive in a deterministic order)
// and writes one log with one run when Summary is called. The log holds no
// matched text and no catalog value: a finding carries none, and every
// string the package writes is built from rule IDs, categories, value-free
// rule descriptions, paths, commit IDs, counts and fixed text. It holds no
// snippet, no contextRegion, no author, e-mail or commit message, and no
// timestamp, so the same findings always give the same bytes.
//
// # Log layout
//
//   - $schema is the OASIS 2.1.0 errata01 schema URI; version "2.1.0";
//     one run; run.columnKind "utf16CodeUnits"; invocations[0] is
//     {"executionSuccessful": true}.
//   - tool.driver: name "privscan", version Options.ToolVersion (and
//     semanticVersion, without a leading "v", when it is a semantic
//     version), informationUri.
//   - automationDetails.id is Options.Category with a "/" appended when it
//     does not end in one (GitHub reads what precedes the last "/" as the
//     analysis category); absent when Category is empty.
//   - tool.driver.rules lists only the rules of reported results, sorted by
//     rule ID, each with name (PascalCase of the ID: "catalog/PER-001" is
//     "CatalogPer001"), shortDescription, fullDescription, help (text and
//     Markdown: what to do — synthetic data, rotation for secrets,
//     "privscan:allow <ruleId>" or a .privscanignore fingerprint for false
//     positives), defaultConfiguration.level and properties (tags,
//     precision, security-severity). All rules are added before any result
//     and every result's ruleIndex is set explicitly.
//   - results, in stream order: ruleId, ruleIndex, level, a message naming
//     the rule and category and saying that the value is withheld, one
//     location, partialFingerprints {"privscanFingerprint/v1":
//     Finding.Fingerprint}, and properties "privscan/kind" (and
//     "privscan/commit" when the finding has one).
//   - run.properties: "privscan/truncated", "privscan/totalFindings",
//     "privscan/reportedFindings", "privscan/suppressedFindings",
//     "privscan/filesScanned", "privscan/linesScanned",
//     "privscan/commitsScanned", and "privscan/skipped" and
//     "privscan/suppressedBy" when non-empty.
//   - "results" and "rules" are always arrays ("[]" when empty), never null.
//
// # Severity
//
//	finding severity | level   | security-severity | GitHub shows | default PR check
//	error            | error   | "8.0"             | High         | fails
//	warning          | warning | "5.0"             | Medium       | passes
//	note             | note    | "2.0"             | Low          | passes
//
// GitHub buckets security-severity as Critical ≥ 9.0, High 7.0–8.9, Medium
// 4.0–6.9, Low 0.1–3.9, and its default pull-request check fails on
// security severity High or higher (and on level error). Every rule is
// tagged "security", so GitHub treats its alerts as security alerts. A
// rule's defaultConfiguration.level and security-severity come from the
// most severe of its reported findings; each result has its own level.
//
// # Precision and tags
//
//	rule                                     | precision
//	catalog/*                                | high (exact catalog entries)
//	secret/*                                 | high (gitleaks rules)
//	pii/credit-card, pii/iban, pii/us-ssn    | high (checksum/range validated)
//	pii/email, pii/phone, other pii/*        | medium
//	pii/ip-address                           | low (versions, OIDs and test addresses look alike)
//
// Tags: "privacy", "security", the source ("catalog", "pii", "secret"),
// the category (lower-cased), and "external/cwe/cwe-359" (exposure of
// private personal information; catalog and PII) or "external/cwe/cwe-798"
// (hard-coded credentials; secrets). Duplicates are dropped; GitHub's limit
// is 20 tags per rule.
//
// # Locations
//
// File and diff findings: artifactLocation.uri is the repository-relative
// path, percent-encoded per RFC 3986 (a space is "%20", "ü" is "%C3%BC",
// ":" and "%" are encoded too), with uriBaseId "%SRCROOT%". The region has
// startLine, and startColumn and endColumn (exclusive) in UTF-16 code units
// from Finding.Column16 and Finding.EndColumn16 (endColumn is omitted when
// it would precede startColumn; both are omitted when Column16 is unset).
//
// Commit messages and free text have no file, but GitHub rejects a result
// without a location, and one with only a logicalLocation ("expected
// artifact location"). They get a physical location under the pseudo
// directory ".git/privscan/", which git never tracks, so it cannot name a
// real file of the repository (GitHub shows the alert without a source
// preview, and no uploader reads a file there to hash it):
//
//	commit-message  .git/privscan/commit/<full commit ID>   "… matched in the message of commit <12-hex>, line N; the value is withheld."
//	text (Path "")  .git/privscan/text                      "… matched in the scanned text, line N; the value is withheld."
//
// The region's line is the line within the message or text. A text finding
// with a non-empty Path is located at that path.
//
// # Limits
//
// GitHub accepts at most 25,000 results per run and 10 MB of
// gzip-compressed SARIF per upload. When the findings exceed
// Options.MaxResults (default and maximum 25,000), the most severe are kept
// (ties in stream order) and reported in stream order. The encoded log is
// then gzip-compressed in memory; while it exceeds 10,000,000 bytes the
// number of kept findings is halved. Truncation is recorded in the run's
// properties and announced through Options.Warn with a value-free message.
//
// # go-sarif behaviours worked around
//
//   - Run.AddResult looks up the rule index when the result is added; a
//     result added before its rule gets ruleIndex 18446744073709551615.
//     Rules are added first and results are appended with ruleIndex set.
//   - A rule without a short description is written as
//     "shortDescription": null; every rule gets one.
//   - Empty messages and arbitrary level strings are written as given;
//     Handler.Finding rejects findings without a rule ID, with an invalid
//     severity, a line below 1 or no fingerprint.
//   - Report.WriteFile opens an existing file without truncating it, which
//     leaves trailing garbage when the new log is shorter. This package only
//     writes to an io.Writer; the CLI creates output files with os.Create.
//   - Report.New with Version210 sets a raw.githubusercontent.com $schema;
//     it is replaced by the OASIS URI.
package sarif
