package org

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// ManifestName is the file in a shard's output folder that records what
// finished.
const ManifestName = "manifest.json"

// ManifestVersion is the version of the manifest format.
const ManifestVersion = 1

// Manifest records a shard output folder's units: what finished, where
// their reports are and the tip each scan reached.
type Manifest struct {
	Version int `json:"version"`
	// Plan names the planned repositories this output belongs to (merge
	// names the missing ones).
	Planned []string         `json:"planned"`
	Units   map[string]*Done `json:"units"`
}

// Status values of a unit.
const (
	StatusDone   = "done"
	StatusFailed = "failed"
)

// Done is one unit's record.
type Done struct {
	Repo   string `json:"repo"`
	Part   int    `json:"part,omitempty"`
	Parts  int    `json:"parts,omitempty"`
	Status string `json:"status"`
	// Reason says why a unit failed, in fixed words (no value, no URL).
	Reason string `json:"reason,omitempty"`
	// Tip is the last commit scanned (the range's end); "" for an empty
	// repository.
	Tip string `json:"tip,omitempty"`
	// Reports are the unit's reports, one pair per scan that found new
	// commits, oldest first, relative to the folder.
	Reports []Report `json:"reports,omitempty"`
	// OpenSeconds and ScanSeconds time the last run of the unit: the
	// clone (or open) and the history scan.
	OpenSeconds float64 `json:"openSeconds,omitempty"`
	ScanSeconds float64 `json:"scanSeconds,omitempty"`
}

// Report is one scan's pair of reports.
type Report struct {
	JSON  string `json:"json"`
	SARIF string `json:"sarif"`
	// From and To are the scanned range: To's history minus From's ("":
	// all of To's).
	From string `json:"from,omitempty"`
	To   string `json:"to"`
}

// ReadManifest reads dir's manifest; a folder without one has an empty
// manifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{Version: ManifestVersion, Units: map[string]*Done{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", errors.Unwrap(err))
	}
	return decodeManifest(b)
}

func decodeManifest(b []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, errors.New("the manifest is not a privscan org manifest")
	}
	if m.Version != ManifestVersion {
		return nil, fmt.Errorf("manifest version %d is not supported", m.Version)
	}
	if m.Units == nil {
		m.Units = map[string]*Done{}
	}
	for _, d := range m.Units {
		if d == nil || checkName(d.Repo) != nil {
			return nil, errors.New("the manifest names a bad repository")
		}
		for _, r := range d.Reports {
			if !localPath(r.JSON) || !localPath(r.SARIF) {
				return nil, errors.New("the manifest names a report outside its folder")
			}
		}
	}
	return &m, nil
}

// localPath accepts relative slash paths that stay inside the folder.
func localPath(p string) bool {
	return p != "" && filepath.IsLocal(filepath.FromSlash(p))
}

// Write writes the manifest to dir atomically.
func (m *Manifest) Write(dir string) error {
	sort.Strings(m.Planned)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, ManifestName), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// writeAtomic writes path through a temporary file in the same folder,
// synced and renamed over it: a reader sees the old file or the new one.
func writeAtomic(path string, fill func(io.Writer) error) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating the output folder: %w", errors.Unwrap(err))
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("creating a file in the output folder: %w", errors.Unwrap(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := fill(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing the output folder: %w", errors.Unwrap(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the output folder: %w", errors.Unwrap(err))
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing the output folder: %w", errors.Unwrap(err))
	}
	return nil
}
