package mcpserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/privscan/privscan/internal/audit"
)

// AuditRecord is one line of the audit log. It holds no catalog value, no
// key and no scanned text: keys appear only as KeyDigest.
type AuditRecord struct {
	Time      string `json:"time"` // RFC 3339, UTC
	Tool      string `json:"tool"`
	KeyDigest string `json:"key_digest,omitempty"`
	AgentID   string `json:"agent_id"`
	Outcome   string `json:"outcome"` // "ok" or "error"
	Code      string `json:"code,omitempty"`
	// Alert is "probe_budget" on the first call of an agent refused by
	// the guess budget in a window (once per agent and window).
	Alert      string `json:"alert,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// Catalog says where the catalog came from: map, env or env-file.
	Catalog string `json:"catalog,omitempty"`

	Findings     *int  `json:"findings,omitempty"` // total, before the reply cap
	Returned     *int  `json:"returned,omitempty"` // findings in the reply
	Suppressed   *int  `json:"suppressed,omitempty"`
	Files        *int  `json:"files,omitempty"`
	Lines        *int  `json:"lines,omitempty"`
	Replacements *int  `json:"replacements,omitempty"`
	Bytes        *int  `json:"bytes,omitempty"` // size of the text scanned or of the context returned
	Truncated    bool  `json:"truncated,omitempty"`
	Paths        *int  `json:"paths,omitempty"` // number of path limits given
	Staged       *bool `json:"staged,omitempty"`
}

// auditLog appends records to $XDG_STATE_HOME/privscan/audit.jsonl. Keys
// are recorded as an HMAC-SHA256 under a random per-installation secret
// (audit.key, mode 0600, next to the log): lines about the same key can be
// correlated, but a digest cannot be checked against a guessed key without
// the secret. A failure to write is reported on stderr and never fails the
// call.
type auditLog struct {
	path    string // "" when no location is known
	keyPath string
	stderr  io.Writer

	mu     sync.Mutex
	secret []byte
	warned map[string]bool // stderr notes already given, by kind
}

// AuditPath returns the audit log's location for the environment getenv
// (internal/audit.Path): $XDG_STATE_HOME/privscan/audit.jsonl, else
// ~/.local/state/privscan/, or "" when neither is set.
func AuditPath(getenv func(string) string) string { return audit.Path(getenv) }

func newAuditLog(path string, stderr io.Writer) *auditLog {
	a := &auditLog{path: path, stderr: stderr, warned: map[string]bool{}}
	if path != "" {
		a.keyPath = filepath.Join(filepath.Dir(path), "audit.key")
	}
	return a
}

// note writes a stderr note once per kind.
func (a *auditLog) note(kind, msg string) {
	if a.warned[kind] {
		return
	}
	a.warned[kind] = true
	fmt.Fprintf(a.stderr, "privscan: warning: audit log: %s\n", msg)
}

// loadSecret reads or creates the digest secret. Called with mu held.
func (a *auditLog) loadSecret() error {
	if a.secret != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(a.keyPath), 0o700); err != nil {
		return err
	}
	for range 2 {
		b, err := os.ReadFile(a.keyPath)
		if err == nil {
			s, derr := hex.DecodeString(strings.TrimSpace(string(b)))
			if derr != nil || len(s) < 32 {
				return fmt.Errorf("%s is not a 64-digit hex secret; delete it to create a new one", a.keyPath)
			}
			a.secret = s
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		s := make([]byte, 32)
		rand.Read(s)
		f, err := os.OpenFile(a.keyPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // another server created it first: read theirs
		}
		if err != nil {
			return err
		}
		_, werr := f.WriteString(hex.EncodeToString(s) + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(a.keyPath)
			return werr
		}
		a.secret = s
		return nil
	}
	return errors.New("cannot create the digest secret")
}

// digest returns the keyed digest of a key of the given kind ("context" or
// "catalog"), or "" when the secret is unavailable. Called with mu held.
func (a *auditLog) digest(kind, key string) string {
	if a.secret == nil {
		return ""
	}
	m := hmac.New(sha256.New, a.secret)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(key))
	return kind + ":" + hex.EncodeToString(m.Sum(nil))[:24]
}

// write appends rec; keyKind and key (when key != "") become its digest.
func (a *auditLog) write(rec *AuditRecord, keyKind, key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.path == "" {
		a.note("location", "neither XDG_STATE_HOME nor HOME is set; calls are not logged")
		return
	}
	if key != "" {
		if err := a.loadSecret(); err != nil {
			a.note("secret", "cannot read or create the digest secret ("+err.Error()+"); keys are logged without a digest")
		}
		rec.KeyDigest = a.digest(keyKind, key)
	}
	// One O_APPEND write per record keeps lines whole when several
	// servers and hooks share the log.
	if err := audit.Append(a.path, rec); err != nil {
		a.note("write", err.Error())
		return
	}
	delete(a.warned, "write") // report the next failure again
}

func intp(n int) *int { return &n }
