package pii

import (
	"strings"
)

// The forms held-out round 19 showed (docs/design/pii-precision.md,
// "Round 19's forms"): Composer files under another name, SSH and SFTP
// extension names, a header continuation written "Name, <address>", a
// code of conduct's contact sentence, a commit message adding a person to
// AUTHORS, a triple-quoted __author__, a project template's author
// setting and a Go clock reading. Each reads a grammar or a file format
// and runs only where a cheap test (the file's kind, a byte of the line,
// a candidate address) lets it.

// composerVariant reports a Composer manifest or lock file under another
// name (base in lower case): Composer reads the manifest its COMPOSER
// variable names and writes the lock beside it with the same stem
// (COMPOSER=composer.legacy.json writes composer.legacy.lock), so
// "composer.<stem>.json" is a manifest and "composer.<stem>.lock" a lock
// file, in the formats of composer.json and composer.lock.
func composerVariant(base, ext string) bool {
	return len(base) > len("composer.")+len(ext)+1 && strings.HasPrefix(base, "composer.") && strings.HasSuffix(base, "."+ext)
}
