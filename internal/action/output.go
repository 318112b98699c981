package action

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// MaxSummaryBytes is GitHub's limit for one step's job summary.
const MaxSummaryBytes = 1 << 20

// Output is one name=value pair for GITHUB_OUTPUT.
type Output struct{ Name, Value string }

// FormatOutputs renders outputs in the multi-line-safe form the runner
// reads from GITHUB_OUTPUT:
//
//	name<<DELIMITER
//	value
//	DELIMITER
//
// with a random delimiter that occurs in no name or value.
func FormatOutputs(outs []Output) (string, error) {
	var b strings.Builder
	for _, o := range outs {
		if o.Name == "" || strings.ContainsAny(o.Name, "\r\n=<") {
			return "", fmt.Errorf("invalid output name")
		}
		var delim string
		for {
			var r [16]byte
			if _, err := rand.Read(r[:]); err != nil {
				return "", err
			}
			delim = "ghadelimiter_" + hex.EncodeToString(r[:])
			if !strings.Contains(o.Value, delim) {
				break
			}
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", o.Name, delim, o.Value, delim)
	}
	return b.String(), nil
}

// appendFile appends data to the file the runner named (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY). It must exist and be a regular file: the runner
// creates it for each step.
func appendFile(path, what, data string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", what, errors.Unwrap(err))
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("writing %s: not a regular file", what)
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", what, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", what, err)
	}
	return nil
}
