// Package pii holds privscan's built-in personal-data detectors: email,
// phone, credit-card, iban, us-ssn and ip-address (rule IDs pii/<name>,
// source "pii", category <name>).
//
// Each detector is a small hand-written recogniser with a validator, not a
// bare regular expression: card numbers need a brand prefix, a brand length
// and a Luhn digit; IBANs need a registry length and mod-97; SSNs follow
// the SSA's issuance rules; phone numbers need a known calling code and a
// national length; IP addresses must be publicly routable; emails need a
// real-looking domain and skip the many code constructs that contain '@'.
// Every detector carries a table of true- and false-positive sample lines
// (emailSamples, cardSamples, …) that the tests check.
//
// Detect scans each line once per enabled detector with cheap byte tests
// first, and allocates nothing on lines without a candidate.
//
// # Precision on real code
//
// TestCorpusPrecision scans a directory tree of text files with all
// detectors and prints, per detector and severity, the findings per MB and
// a sample of the hits (to the terminal only). It is skipped unless the
// corpus is named:
//
//	PRIVSCAN_PII_CORPUS=/root/go/pkg/mod go test -run TestCorpusPrecision -v ./internal/pii/
//
// or, equivalently, go test ./internal/pii/ -run TestCorpusPrecision -v -args -corpus=/root/go/pkg/mod.
// The module cache's cache/download tree (zips) is skipped, as are binary
// files (a NUL byte in the first 8000 bytes) and files over 2 MB.
package pii
