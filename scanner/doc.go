// Package scanner runs privscan's detectors: it reads fragments of text from a
// Source (the added lines of a diff, whole files, commit messages, free
// text), runs Detectors on them in parallel, and hands one deterministic
// stream of Findings to a Handler (a renderer). Which detectors run and with
// what policy is decided by internal/engine; the stream's types are in package
// finding.
//
//	Source ──fragments──▶ workers (Detectors) ──matches──▶ ordered stage ──Findings──▶ Handler
//
// Detectors report byte spans, never text. The ordered stage turns spans into
// 1-based code-point and UTF-16 columns, applies severity overrides, exclude
// globs and suppression (privscan:allow markers, fingerprints from
// .privscanignore and baselines), and computes each finding's keyed
// fingerprint (see Fingerprinter). Findings hold no matched text, so no
// renderer can print one.
//
// Memory is bounded: at most Options.Buffer fragments are in flight, and
// TextSource and Redactor read their input in bounded batches.
package scanner
