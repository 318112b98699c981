package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// MaxEventBytes bounds the event payload read from GITHUB_EVENT_PATH. GitHub
// caps webhook payloads at 25 MB.
const MaxEventBytes = 32 << 20

// Event is the part of a GitHub webhook payload the action reads. Fields an
// event does not have are zero.
type Event struct {
	PullRequest *PullRequest `json:"pull_request"`

	// push
	Ref     string `json:"ref"`
	Before  string `json:"before"`
	After   string `json:"after"`
	Created bool   `json:"created"`
	Deleted bool   `json:"deleted"`
	Forced  bool   `json:"forced"`

	MergeGroup *MergeGroup `json:"merge_group"`

	Repository struct {
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

// PullRequest is the pull_request object of a pull_request event.
type PullRequest struct {
	Number int     `json:"number"`
	Title  string  `json:"title"`
	Body   *string `json:"body"` // null when the description is empty
	Base   Branch  `json:"base"`
	Head   Branch  `json:"head"`
}

// Branch is one side of a pull request.
type Branch struct {
	SHA  string `json:"sha"`
	Ref  string `json:"ref"`
	Repo *struct {
		FullName string `json:"full_name"`
	} `json:"repo"` // null when the head repository was deleted
}

// MergeGroup is the merge_group object of a merge_group event.
type MergeGroup struct {
	BaseSHA string `json:"base_sha"`
	HeadSHA string `json:"head_sha"`
	BaseRef string `json:"base_ref"`
	HeadRef string `json:"head_ref"`
}

// ParseEvent decodes a webhook payload. Its errors never quote the payload
// (a pull request's title and body are in it): they give the byte offset
// or the JSON field, and the SHAs it checks are reported only as malformed.
func ParseEvent(data []byte) (*Event, error) {
	var ev Event
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&ev); err != nil {
		return nil, payloadError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("event payload: unexpected data after the JSON object")
	}
	for _, c := range []struct{ name, sha string }{
		{"before", ev.Before}, {"after", ev.After},
	} {
		if c.sha != "" && !isSHA(c.sha) {
			return nil, fmt.Errorf("event payload: %s is not a commit SHA", c.name)
		}
	}
	if pr := ev.PullRequest; pr != nil {
		if pr.Base.SHA != "" && !isSHA(pr.Base.SHA) {
			return nil, errors.New("event payload: pull_request.base.sha is not a commit SHA")
		}
		if pr.Head.SHA != "" && !isSHA(pr.Head.SHA) {
			return nil, errors.New("event payload: pull_request.head.sha is not a commit SHA")
		}
	}
	if mg := ev.MergeGroup; mg != nil {
		if mg.BaseSHA != "" && !isSHA(mg.BaseSHA) {
			return nil, errors.New("event payload: merge_group.base_sha is not a commit SHA")
		}
		if mg.HeadSHA != "" && !isSHA(mg.HeadSHA) {
			return nil, errors.New("event payload: merge_group.head_sha is not a commit SHA")
		}
	}
	return &ev, nil
}

// payloadError rewrites a JSON decoding error without the input it may
// quote (json.SyntaxError names the offending character).
func payloadError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("event payload is not valid JSON (at byte %d)", se.Offset)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the payload"
		}
		return fmt.Errorf("event payload: %s has the wrong JSON type (want %s)", field, te.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("event payload is empty or truncated")
	}
	return errors.New("event payload is not a JSON object")
}

// readEvent reads the payload file named by GITHUB_EVENT_PATH, refusing
// anything but a regular file of at most MaxEventBytes.
func readEvent(path string) (*Event, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("reading the event payload (GITHUB_EVENT_PATH): %w", errors.Unwrap(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("reading the event payload (GITHUB_EVENT_PATH): not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxEventBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	if len(data) > MaxEventBytes {
		return nil, fmt.Errorf("event payload is larger than %d MiB", MaxEventBytes>>20)
	}
	return ParseEvent(data)
}

// isSHA reports whether s is a full hexadecimal SHA-1 or SHA-256 object ID.
func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// isZeroSHA reports whether s is the all-zero SHA of a created or deleted
// ref.
func isZeroSHA(s string) bool {
	return s != "" && strings.Trim(s, "0") == ""
}
