// Package hostile holds privscan's hostile-input tests: inputs chosen to
// hang, crash, exhaust memory or leak through the whole product (huge
// lines and streams, NUL bytes and broken UTF-8, odd line endings, files
// binary past git's probe, huge commits, deep paths, huge catalogs,
// pathological regexes, symlink loops, FIFOs, unusual repositories) and
// MCP clients that misbehave under load. Each case must end in a correct
// result or a clear, value-free error, within a time limit.
//
// The tests run scaled-down versions by default; PRIVSCAN_HOSTILE_BIG=1
// runs the full sizes (a 1 GB stream, 100k files in a commit, a catalog of
// a million values) and logs the figures (time, peak RSS).
package hostile
