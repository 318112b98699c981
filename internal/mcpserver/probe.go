package mcpserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"sync"
	"time"
)

// The guess budget (docs/mcp.md, SPEC §6.1). scan_text, redact_text and
// read_redacted tell whether a text holds a catalogued value: a caller
// with no limit could test guesses one by one (a membership oracle). Each
// server process therefore answers at most a budget of distinct probes
// per agent_id and window; past it those tools fail with rate_limited
// until the window moves on. A probe is identified by a keyed hash (under
// a random key of the process, never written anywhere) of the catalog key
// and the content checked, whichever tool checks it: asking again about a
// text already answered in the window is free.
const (
	// probeWindow is how long a budget lasts: a fixed window that starts
	// at an agent's first probe.
	probeWindow = time.Hour
	// maxRememberedProbes bounds the probe hashes kept per agent. Past it
	// a new probe is counted but not remembered, so repeating it counts
	// again (conservative).
	maxRememberedProbes = 1 << 16
	// maxProbeAgents bounds the agents tracked at once. Past it, agents
	// whose window has not ended share one overflow budget (conservative:
	// a flood of agent IDs cannot buy a fresh budget each).
	maxProbeAgents = 1024
	// overflowAgent names the shared budget; agent IDs cannot hold a space.
	overflowAgent = "overflow agents"
	// AlertProbeBudget is the audit record's alert when an agent's budget
	// is spent (once per agent and window).
	AlertProbeBudget = "probe_budget"
)

// probeID identifies a probe: a truncated HMAC-SHA256.
type probeID [16]byte

// probeBudget counts distinct probes per agent. It is safe for concurrent
// use.
type probeBudget struct {
	key [32]byte
	now func() time.Time

	mu     sync.Mutex
	agents map[string]*agentProbes
}

type agentProbes struct {
	start   time.Time // the window's start
	seen    map[probeID]struct{}
	spent   int  // distinct probes counted in the window (≥ len(seen))
	alerted bool // the probe_budget alert was recorded in the window
}

func newProbeBudget(now func() time.Time) *probeBudget {
	b := &probeBudget{now: now, agents: map[string]*agentProbes{}}
	rand.Read(b.key[:]) // never fails (Go 1.24+)
	return b
}

// hasher returns a hash that identifies a probe of content against
// catalog key catalogKey: write the content to it and pass it to id.
func (b *probeBudget) hasher(catalogKey string) hash.Hash {
	h := hmac.New(sha256.New, b.key[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(catalogKey)))
	h.Write(n[:])
	h.Write([]byte(catalogKey))
	return h
}

func (b *probeBudget) id(h hash.Hash) probeID {
	var id probeID
	copy(id[:], h.Sum(nil))
	return id
}

// textID identifies a probe of text.
func (b *probeBudget) textID(catalogKey, text string) probeID {
	h := b.hasher(catalogKey)
	h.Write([]byte(text))
	return b.id(h)
}

// probeVerdict is admit's answer.
type probeVerdict struct {
	ok bool
	// alert is set on the first refusal of an agent's window.
	alert bool
	// until is when the refusing window ends.
	until time.Time
}

// admit counts probe id of agent against budget and says whether it may
// be answered.
func (b *probeBudget) admit(agent string, id probeID, budget int) probeVerdict {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.agents[agent]
	if a == nil {
		if len(b.agents) >= maxProbeAgents {
			b.prune(now)
		}
		if len(b.agents) >= maxProbeAgents {
			agent = overflowAgent
			a = b.agents[agent]
		}
		if a == nil {
			a = &agentProbes{start: now, seen: map[probeID]struct{}{}}
			b.agents[agent] = a
		}
	}
	if !now.Before(a.start.Add(probeWindow)) || now.Before(a.start) {
		// The window has moved on (or the clock went back): a new one.
		*a = agentProbes{start: now, seen: map[probeID]struct{}{}}
	}
	if _, ok := a.seen[id]; ok {
		return probeVerdict{ok: true}
	}
	if a.spent >= budget {
		v := probeVerdict{alert: !a.alerted, until: a.start.Add(probeWindow)}
		a.alerted = true
		return v
	}
	a.spent++
	if len(a.seen) < maxRememberedProbes {
		a.seen[id] = struct{}{}
	}
	return probeVerdict{ok: true}
}

// prune forgets agents whose window has ended. Called with mu held.
func (b *probeBudget) prune(now time.Time) {
	for k, a := range b.agents {
		if !now.Before(a.start.Add(probeWindow)) {
			delete(b.agents, k)
		}
	}
}

// rateLimited is the error of a refused probe. It names no agent and no
// content: only the budget and when the window moves on.
func rateLimited(budget int, now, until time.Time) *toolError {
	wait := until.Sub(now).Round(time.Minute)
	in := "in less than a minute"
	switch m := int(wait.Minutes()); {
	case m == 1:
		in = "in about a minute"
	case m > 1:
		in = fmt.Sprintf("in about %d minutes", m)
	}
	return errorf(CodeRateLimited,
		"this agent has checked %d distinct texts this hour, the server's guess budget ([guard] probe-budget in the key map); "+
			"repeating a text already checked is still answered, and new texts are answered again when the window moves on at %s UTC (%s)",
		budget, until.UTC().Format("15:04:05"), in)
}
