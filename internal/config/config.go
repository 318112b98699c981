// Package config reads a repository's .privscan.toml and .privscanignore.
//
//	# .privscan.toml
//	fail-on = "warning"             # default --fail-on for this repo
//	exclude = ["testdata/**", "**/*.golden"]   # doublestar globs, slash paths
//
//	[detectors]                      # built-in detectors on/off (default: all on)
//	phone = false
//	ip-address = false
//	secrets = true                   # the gitleaks rule set
//	credit-card-test-numbers = false # true: also report processor test card numbers (4111…, 4242…)
//
//	[severity]                       # per-rule overrides; "off" disables a rule
//	"catalog/PER-001" = "warning"
//	"pii/email" = "off"
//
// Unknown keys are errors that name the key. Decoder errors are reported
// with a line number only, never the offending text.
package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/pelletier/go-toml/v2"
	"github.com/privscan/privscan/finding"
)

// FileName is the repository config file, at the repository root.
const FileName = ".privscan.toml"

// IgnoreFileName is the repository ignore list, at the repository root.
const IgnoreFileName = ".privscanignore"

// maxFileSize bounds both files.
const maxFileSize = 1 << 20

// Repo is a parsed .privscan.toml.
type Repo struct {
	FailOn    string // "" when unset
	Exclude   []string
	Detectors map[string]bool
	// Severity maps rule IDs to an override; a zero Severity disables the rule.
	Severity map[string]finding.Severity
}

// Detector names accepted under [detectors].
var detectorNames = []string{"email", "phone", "credit-card", "iban", "us-ssn", "ip-address", "secrets", "credit-card-test-numbers"}

type rawRepo struct {
	FailOn    string            `toml:"fail-on"`
	Exclude   []string          `toml:"exclude"`
	Detectors map[string]bool   `toml:"detectors"`
	Severity  map[string]string `toml:"severity"`
}

// Load reads path. A missing file is not an error: it returns an empty
// config.
func Load(path string) (*Repo, error) {
	data, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Repo{}, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

func readSmall(path string) ([]byte, error) {
	// O_NONBLOCK: a FIFO planted as a config file must not hang the scan.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", filepath.Base(path))
	}
	data, err := readAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return data, nil
}

func readAll(f *os.File) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, errors.New("file is larger than 1 MiB")
	}
	return data, nil
}

// errDecoderPanic stands for a panic of the TOML decoder, so that hostile
// input never crashes the process with the decoder's message (go-toml
// v2.2.3 panicked while it reported an unknown quoted key with an escape
// in it, `"a\bb" = 1`, found by FuzzParseRepo; v2.4.3 reports it).
var errDecoderPanic = errors.New("toml decoder panic")

// decodeStrict decodes data into v, refusing unknown keys; a panic of the
// decoder is an error.
func decodeStrict(data []byte, v any) (err error) {
	defer func() {
		if recover() != nil {
			err = errDecoderPanic
		}
	}()
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Parse parses the contents of a .privscan.toml.
func Parse(data []byte) (*Repo, error) {
	var raw rawRepo
	if err := decodeStrict(data, &raw); err != nil {
		// The decoder's messages quote the file: keep positions and key
		// names privscan knows only.
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) && len(sm.Errors) > 0 {
			// Name only sections privscan knows: an unknown table's name
			// is text from the file, reported as the unknown top-level key
			// it is.
			k := sm.Errors[0].Key()
			if len(k) > 1 && slices.Contains(topKeys, k[0]) {
				return nil, &KeyError{Section: k[0], Key: k[len(k)-1], Known: sectionKeys(k[0])}
			}
			return nil, &KeyError{Key: k[0], Known: topKeys}
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, fmt.Errorf("%s line %d: invalid TOML or wrong value type", FileName, line)
		}
		return nil, fmt.Errorf("%s: invalid TOML or wrong value type", FileName)
	}
	r := &Repo{Exclude: raw.Exclude, Detectors: map[string]bool{}, Severity: map[string]finding.Severity{}}
	switch raw.FailOn {
	case "", "error", "warning", "note", "never":
		r.FailOn = raw.FailOn
	default:
		return nil, fmt.Errorf("%s: fail-on must be error, warning, note or never", FileName)
	}
	for i, g := range r.Exclude {
		// The glob is not quoted: a message names only keys, never values.
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("%s: exclude: glob %d of %d is invalid", FileName, i+1, len(r.Exclude))
		}
	}
	for name, on := range raw.Detectors {
		if !known(name) {
			return nil, &KeyError{Section: "detectors", Key: name, Known: detectorNames}
		}
		r.Detectors[name] = on
	}
	for id, sev := range raw.Severity {
		if !strings.Contains(id, "/") {
			return nil, fmt.Errorf("%s: severity: a key is not a rule ID (want catalog/<id>, pii/<name> or secret/<id>)", FileName)
		}
		if sev == "off" {
			r.Severity[id] = 0
			continue
		}
		s, ok := finding.ParseSeverity(sev)
		if !ok {
			return nil, fmt.Errorf("%s: severity: a level must be error, warning, note or off", FileName)
		}
		r.Severity[id] = s
	}
	return r, nil
}

// topKeys are the keys a .privscan.toml may hold at the top level.
var topKeys = []string{"fail-on", "exclude", "detectors", "severity"}

// KeyError is an unknown key in a .privscan.toml. Its message does not
// repeat the key (a name in the file can be a catalogued name spelled as an
// identifier); Key holds it for a front end that screens it first.
type KeyError struct {
	Section string   // "" for the top level, "detectors", …
	Key     string   // the unknown key; not part of the message
	Known   []string // the keys allowed where it is
}

func (e *KeyError) Error() string {
	where := "at the top level"
	if e.Section != "" {
		where = "in [" + e.Section + "]"
	}
	return fmt.Sprintf("%s: unknown key %s (known: %s)", FileName, where, strings.Join(e.Known, ", "))
}

func known(name string) bool {
	for _, n := range detectorNames {
		if n == name {
			return true
		}
	}
	return false
}

// sectionKeys are the keys allowed in a section of .privscan.toml.
func sectionKeys(section string) []string {
	if section == "detectors" {
		return detectorNames
	}
	return nil
}

// Excluded reports whether a slash-separated path matches an exclude glob.
func (r *Repo) Excluded(path string) bool {
	for _, g := range r.Exclude {
		if ok, _ := doublestar.Match(g, path); ok {
			return true
		}
	}
	return false
}

// LoadIgnore reads a .privscanignore: one fingerprint per line, `#`
// comments and blank lines skipped. A missing file is empty.
func LoadIgnore(path string) (map[string]bool, error) {
	data, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseIgnore(data)
}

// ParseIgnore parses the contents of a .privscanignore. Anything after a
// fingerprint on its line (a comment) is ignored.
func ParseIgnore(data []byte) (map[string]bool, error) {
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxFileSize)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		fp := strings.Fields(line)[0]
		if !isHex(fp) {
			return nil, fmt.Errorf("%s line %d: not a fingerprint (want hex digits)", IgnoreFileName, n)
		}
		out[strings.ToLower(fp)] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", IgnoreFileName, err)
	}
	return out, nil
}

func isHex(s string) bool {
	if len(s) < 8 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
