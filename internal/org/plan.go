// Package org is the organisation-wide history backfill (SPEC §10): a
// plan of repositories split into shards, a shard's scan (clone, history
// scan through internal/engine, one JSON and one SARIF report per
// repository, a manifest for resuming) and the merge of shard outputs into
// one report. It holds no catalog value and never writes a token: plans
// carry names, credential-free URLs, sizes and ranges only.
package org

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// PlanVersion is the version of the plan format (docs/org.md).
const PlanVersion = 1

// MaxShards caps the shards of a plan (a GitHub Actions matrix holds at
// most 256 jobs).
const MaxShards = 256

// Plan is a versioned list of repositories and their assignment to shards.
type Plan struct {
	Version int    `json:"version"`
	Source  string `json:"source"` // "github", "gitlab" or "file"
	Shards  int    `json:"shards"`
	Repos   []Repo `json:"repos"`
	// Units are the pieces of work: a whole repository, or one part of
	// a repository's history split into Parts commit ranges.
	Units []Unit `json:"units"`
}

// Repo is one repository of the plan.
type Repo struct {
	// Name identifies the repository in reports ("org/name"); unique in
	// a plan.
	Name string `json:"name"`
	// URL is the clone URL, without credentials.
	URL string `json:"url"`
	// Host says whose API token may authenticate the clone: "github",
	// "gitlab" or "" (none but PRIVSCAN_GIT_TOKEN).
	Host string `json:"host,omitempty"`
	// Size is the repository's size in KiB as the API reports it (0:
	// unknown).
	Size int64 `json:"size"`
}

// Unit is one piece of work of a shard. Part and Parts split a history
// into Parts ranges at scan time: the first-parent chain of HEAD (oldest
// first) is cut into Parts runs of equal length; with boundaries
// b1..b(Parts-1) (the last commit of each run), part 0 scans the history
// of b1, part i scans b(i)..b(i+1), and the last part b(Parts-1)..HEAD.
// Together they cover HEAD's history exactly once. Parts 0 or 1: the
// whole history.
type Unit struct {
	Repo  string `json:"repo"`
	Shard int    `json:"shard"`
	Part  int    `json:"part,omitempty"`
	Parts int    `json:"parts,omitempty"`
}

// ID names a unit in outputs: the repository name, with "#part" when the
// history is split.
func (u Unit) ID() string {
	if u.Parts > 1 {
		return fmt.Sprintf("%s#%d", u.Repo, u.Part)
	}
	return u.Repo
}

// ErrPlan is wrapped by every plan format error.
var ErrPlan = errors.New("invalid plan")

// maxPlanBytes bounds a plan file.
const maxPlanBytes = 64 << 20

// ReadPlan decodes and checks a plan. Its errors never quote the input.
func ReadPlan(r io.Reader) (*Plan, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxPlanBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	if len(b) > maxPlanBytes {
		return nil, fmt.Errorf("%w: larger than %d MiB", ErrPlan, maxPlanBytes>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		// json's errors can quote the input: say where, not what.
		return nil, fmt.Errorf("%w: not a plan JSON document", ErrPlan)
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// LoadPlan reads a plan file.
func LoadPlan(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the plan: %w", errors.Unwrap(err))
	}
	defer f.Close()
	return ReadPlan(f)
}

// Check verifies a plan's invariants.
func (p *Plan) Check() error {
	if p.Version != PlanVersion {
		return fmt.Errorf("%w: version %d is not supported (want %d)", ErrPlan, p.Version, PlanVersion)
	}
	if p.Shards < 1 || p.Shards > MaxShards {
		return fmt.Errorf("%w: shards must be 1 to %d", ErrPlan, MaxShards)
	}
	names := map[string]bool{}
	for i, r := range p.Repos {
		if err := checkName(r.Name); err != nil {
			return fmt.Errorf("%w: repository %d: %w", ErrPlan, i+1, err)
		}
		if names[r.Name] {
			return fmt.Errorf("%w: repository %d: duplicate name", ErrPlan, i+1)
		}
		names[r.Name] = true
		if clean, err := StripURL(r.URL); err != nil || clean != r.URL {
			return fmt.Errorf("%w: repository %d: the URL is not a credential-free clone URL", ErrPlan, i+1)
		}
		if r.Size < 0 {
			return fmt.Errorf("%w: repository %d: negative size", ErrPlan, i+1)
		}
	}
	seen := map[string]bool{}
	for i, u := range p.Units {
		if !names[u.Repo] {
			return fmt.Errorf("%w: unit %d names no planned repository", ErrPlan, i+1)
		}
		if u.Shard < 0 || u.Shard >= p.Shards {
			return fmt.Errorf("%w: unit %d: shard out of range", ErrPlan, i+1)
		}
		if u.Parts < 0 || u.Parts > 1<<16 || u.Part < 0 || (u.Parts <= 1 && u.Part != 0) || (u.Parts > 1 && u.Part >= u.Parts) {
			return fmt.Errorf("%w: unit %d: bad part", ErrPlan, i+1)
		}
		if seen[u.ID()] {
			return fmt.Errorf("%w: unit %d: duplicate", ErrPlan, i+1)
		}
		seen[u.ID()] = true
	}
	return nil
}

// checkName accepts the names used as report file names: slash-separated
// segments of letters, digits, '.', '-' and '_', not "." or "..".
func checkName(name string) error {
	if name == "" || len(name) > 512 {
		return errors.New("empty or too long name")
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return errors.New("bad name segment")
		}
		for _, c := range seg {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
				return errors.New("name has a character outside [A-Za-z0-9._-/]")
			}
		}
	}
	return nil
}

// ShardUnits returns the units of shard i, in plan order.
func (p *Plan) ShardUnits(i int) []Unit {
	var us []Unit
	for _, u := range p.Units {
		if u.Shard == i {
			us = append(us, u)
		}
	}
	return us
}

// Repo returns the planned repository named name.
func (p *Plan) Repo(name string) (Repo, bool) {
	for _, r := range p.Repos {
		if r.Name == name {
			return r, true
		}
	}
	return Repo{}, false
}

// Write encodes the plan, indented.
func (p *Plan) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// SplitKiB is the size above which a repository's history is split into
// parts, when a plan has more than one shard: a part per SplitKiB, at
// most one per shard.
const SplitKiB = 1 << 20 // 1 GiB

// NewPlan balances repos over shards: largest first, each into the
// lightest shard so far (ties: the lower index). A repository larger than
// splitKiB (0: SplitKiB) is split into parts, each weighing its share.
func NewPlan(source string, repos []Repo, shards int, splitKiB int64) (*Plan, error) {
	if shards < 1 {
		return nil, errors.New("--shards must be at least 1")
	}
	if shards > MaxShards {
		shards = MaxShards
	}
	if splitKiB <= 0 {
		splitKiB = SplitKiB
	}
	p := &Plan{Version: PlanVersion, Source: source, Shards: shards, Repos: append([]Repo(nil), repos...)}
	sort.SliceStable(p.Repos, func(i, j int) bool { return p.Repos[i].Name < p.Repos[j].Name })
	type piece struct {
		u Unit
		w int64
	}
	var pieces []piece
	for _, r := range p.Repos {
		parts := int64(1)
		if shards > 1 && r.Size > splitKiB {
			parts = min((r.Size+splitKiB-1)/splitKiB, int64(shards))
		}
		if parts == 1 {
			// Weigh unknown sizes as 1 KiB, so that they spread by count.
			pieces = append(pieces, piece{Unit{Repo: r.Name}, max(r.Size, 1)})
			continue
		}
		for i := range parts {
			pieces = append(pieces, piece{Unit{Repo: r.Name, Part: int(i), Parts: int(parts)}, max(r.Size/parts, 1)})
		}
	}
	sort.SliceStable(pieces, func(i, j int) bool { return pieces[i].w > pieces[j].w })
	load := make([]int64, shards)
	for _, pc := range pieces {
		best := 0
		for s := 1; s < shards; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += pc.w
		pc.u.Shard = best
		p.Units = append(p.Units, pc.u)
	}
	sort.SliceStable(p.Units, func(i, j int) bool {
		if p.Units[i].Shard != p.Units[j].Shard {
			return p.Units[i].Shard < p.Units[j].Shard
		}
		if p.Units[i].Repo != p.Units[j].Repo {
			return p.Units[i].Repo < p.Units[j].Repo
		}
		return p.Units[i].Part < p.Units[j].Part
	})
	if err := p.Check(); err != nil {
		return nil, err
	}
	return p, nil
}

// StripURL returns a clone URL without credentials: the userinfo of a URL
// with a scheme is removed (the user of an ssh URL, "git@", is kept, as
// it is no secret; a password never is), and so are a query and a
// fragment. scp-like "user@host:path" is kept as it is (it cannot carry a
// password). Errors never quote the URL.
func StripURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("empty URL")
	}
	for _, c := range raw {
		if c < 0x21 || c == 0x7f {
			return "", errors.New("URL has a space or control character")
		}
	}
	if !strings.Contains(raw, "://") {
		// scp-like: [user@]host:path.
		at := strings.LastIndex(raw, "@")
		colon := strings.Index(raw[at+1:], ":")
		if colon <= 0 || strings.ContainsAny(raw[:max(at, 0)], ":/") {
			return "", errors.New("not a clone URL (want https://, ssh://, file:// or user@host:path)")
		}
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("not a parsable URL")
	}
	switch u.Scheme {
	case "https", "http", "ssh", "git", "file":
	default:
		return "", errors.New("unsupported URL scheme (want https, http, ssh, git or file)")
	}
	if u.User != nil {
		if u.Scheme == "ssh" {
			u.User = url.User(u.User.Username())
		} else {
			u.User = nil
		}
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = "", "", "", false
	if u.Scheme == "file" {
		if u.Path == "" || u.Host != "" {
			return "", errors.New("a file URL needs an absolute path and no host")
		}
	} else if u.Host == "" {
		return "", errors.New("the URL has no host")
	}
	return u.String(), nil
}

// maxNameSegment bounds each segment of a derived name: two of them, a
// digest, a separator and a "-N" suffix stay well inside checkName's 512.
const maxNameSegment = 160

// NameFromURL derives a repository name from a clone URL: its last two
// path segments without ".git" ("org/repo"), or the last alone.
func NameFromURL(clean string) string {
	p := clean
	if i := strings.Index(p, "://"); i >= 0 {
		if u, err := url.Parse(p); err == nil {
			p = u.Path
		}
	} else if i := strings.Index(p, ":"); i >= 0 {
		p = p[i+1:]
	}
	p = strings.TrimSuffix(strings.Trim(filepath.ToSlash(p), "/"), ".git")
	segs := strings.Split(p, "/")
	if len(segs) > 2 {
		segs = segs[len(segs)-2:]
	}
	var out []string
	for _, s := range segs {
		var b strings.Builder
		for _, c := range s {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' {
				b.WriteRune(c)
			} else {
				b.WriteByte('_')
			}
		}
		t := b.String()
		if len(t) > maxNameSegment {
			// A long segment is cut and keeps a digest of the whole, so two
			// long names that share a prefix stay apart and the name stays
			// within checkName's limit.
			sum := sha256.Sum256([]byte(s))
			t = t[:maxNameSegment] + "-" + hex.EncodeToString(sum[:4])
		}
		if t != "" && t != "." && t != ".." {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return "repo"
	}
	return strings.Join(out, "/")
}
