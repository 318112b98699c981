package broker

import (
	"errors"
	"fmt"
	"math"
)

// GuardMode says what a guard does with a finding at or above its level.
type GuardMode string

// Guard modes.
const (
	// GuardBlock denies the Read or tool call, or blocks the prompt.
	GuardBlock GuardMode = "block"
	// GuardWarn lets it through and tells the model (value-free) not to
	// copy the flagged data anywhere.
	GuardWarn GuardMode = "warn"
	// GuardOff does not check.
	GuardOff GuardMode = "off"
)

// Guard is the key map's [guard] table: how the Claude Code plugin keeps
// catalogued data out of the model's context (SPEC §7.1), and the MCP
// server's guess budget (§6.1). It belongs to the user, not to a
// repository: nothing in a scanned repository can change it.
type Guard struct {
	// Read guards what Read and NotebookRead would return.
	Read GuardMode
	// Prompt guards what the user types (UserPromptSubmit).
	Prompt GuardMode
	// Outbound guards what leaves the machine as a tool's input:
	// WebFetch, WebSearch and other MCP servers' tools.
	Outbound GuardMode
	// Level is the lowest severity that counts: "error" (catalog rules
	// and secrets at their default severity), "warning" (adds PII) or
	// "note".
	Level string
	// ProbeBudget is the distinct probes per agent and hour that
	// scan_text, redact_text and read_redacted answer.
	ProbeBudget int
}

// DefaultProbeBudget is the guess budget when [guard] sets none.
const DefaultProbeBudget = 1000

// maxProbeBudget bounds probe-budget (a budget is meant to be small).
const maxProbeBudget = 100_000_000

// DefaultGuard is the guard without a [guard] table.
func DefaultGuard() Guard {
	return Guard{Read: GuardBlock, Prompt: GuardBlock, Outbound: GuardBlock, Level: "error", ProbeBudget: DefaultProbeBudget}
}

const guardHint = `[guard] takes read, prompt and outbound ("block", "warn" or "off"), level ("error", "warning" or "note") and probe-budget (a positive whole number)`

// parseGuard decodes the [guard] table. Errors never repeat a name or a
// value from the file.
func parseGuard(v any) (Guard, *mapIssue) {
	g := DefaultGuard()
	tbl, ok := v.(map[string]any)
	if !ok {
		return g, &mapIssue{msg: "[guard] must be a table", hint: guardHint}
	}
	for k, val := range tbl {
		switch k {
		case "read", "prompt", "outbound":
			s, _ := val.(string)
			m := GuardMode(s)
			if m != GuardBlock && m != GuardWarn && m != GuardOff {
				return g, &mapIssue{msg: fmt.Sprintf("[guard] %s must be \"block\", \"warn\" or \"off\"", k), hint: guardHint}
			}
			switch k {
			case "read":
				g.Read = m
			case "prompt":
				g.Prompt = m
			default:
				g.Outbound = m
			}
		case "level":
			s, _ := val.(string)
			if s != "error" && s != "warning" && s != "note" {
				return g, &mapIssue{msg: "[guard] level must be \"error\", \"warning\" or \"note\"", hint: guardHint}
			}
			g.Level = s
		case "probe-budget":
			n, ok := val.(int64)
			if !ok || n < 1 || n > maxProbeBudget || n > math.MaxInt32 {
				return g, &mapIssue{msg: fmt.Sprintf("[guard] probe-budget must be a whole number from 1 to %d", maxProbeBudget), hint: guardHint}
			}
			g.ProbeBudget = int(n)
		default:
			return g, &mapIssue{msg: "[guard] has an unknown setting", hint: guardHint}
		}
	}
	return g, nil
}

// Guard returns the key map's [guard] settings: the defaults when the map
// has no [guard] table or when there is no key map at all (the guard is on
// before the user sets anything up). An invalid table is config_invalid:
// a guard the user configured is never silently replaced by another.
func (b *Broker) Guard() (Guard, error) {
	km, err := b.loadMap()
	if err != nil {
		if errors.Is(err, ErrConfigMissing) {
			return DefaultGuard(), nil
		}
		return DefaultGuard(), err
	}
	return km.guard, nil
}
