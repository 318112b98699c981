// Package leaktest holds privscan's canary leak matrix: a test suite (see
// the _test.go files) that proves the product's invariant end to end. It
// generates a catalog of random canary values, a git repository, pull
// request payloads and hook payloads that contain them, runs every command,
// output format, error path, the GitHub Action logic, the Claude Code hook
// and every MCP tool over stdio and HTTP, and asserts that no canary appears
// in anything privscan writes (stdout, stderr, reports, step outputs, audit
// log, any file under the test's HOME) in plain form or in any common
// encoding: case-folded, NFC/NFD, URL-encoded, JSON-escaped, base64 or hex.
//
// The package has no API: it exists for `go test`. A self-test runs a
// deliberately leaking renderer through the same assertion code and checks
// that every encoding is caught, so the matrix can fail.
package leaktest
