// Package audit appends value-free records to privscan's local audit log,
// $XDG_STATE_HOME/privscan/audit.jsonl (~/.local/state/privscan/ when
// unset): one JSON object per line, written with one O_APPEND write so
// that records of several processes (MCP servers, hooks) never interleave.
// It holds no record type of its own: each door marshals its own, and
// nothing it writes may hold a catalog value, a key or scanned text.
package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Path returns the audit log's location for the environment getenv:
// $XDG_STATE_HOME/privscan/audit.jsonl, else ~/.local/state/privscan/.
// It returns "" when neither an absolute XDG_STATE_HOME nor HOME is set.
func Path(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "privscan", "audit.jsonl")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "privscan", "audit.jsonl")
	}
	return ""
}

// Append writes rec, marshalled as one JSON line, to the log at path
// (created with mode 0600, in a folder created with mode 0700).
func Append(path string, rec any) error {
	if path == "" {
		return fmt.Errorf("neither XDG_STATE_HOME nor HOME is set")
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding a record: %w", err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating the log's directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}
