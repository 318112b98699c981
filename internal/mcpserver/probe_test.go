package mcpserver

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is an injectable clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestProbeBudgetAdmit(t *testing.T) {
	type step struct {
		agent   string
		probe   string
		advance time.Duration // before the probe
		ok      bool
		alert   bool
	}
	const budget = 3
	tests := []struct {
		name  string
		steps []step
	}{
		{"distinct probes up to the budget, then refused, one alert", []step{
			{agent: "a", probe: "1", ok: true},
			{agent: "a", probe: "2", ok: true},
			{agent: "a", probe: "3", ok: true},
			{agent: "a", probe: "4", alert: true},
			{agent: "a", probe: "5"},
			{agent: "a", probe: "4"},
		}},
		{"a repeat is free, before and after the budget is spent", []step{
			{agent: "a", probe: "1", ok: true},
			{agent: "a", probe: "1", ok: true},
			{agent: "a", probe: "2", ok: true},
			{agent: "a", probe: "3", ok: true},
			{agent: "a", probe: "4", alert: true},
			{agent: "a", probe: "1", ok: true},
			{agent: "a", probe: "3", ok: true},
		}},
		{"agents have their own budgets", []step{
			{agent: "a", probe: "1", ok: true},
			{agent: "a", probe: "2", ok: true},
			{agent: "a", probe: "3", ok: true},
			{agent: "b", probe: "4", ok: true},
			{agent: "a", probe: "4", alert: true},
			{agent: "b", probe: "5", ok: true},
		}},
		{"the window moves on after an hour: a new budget and a new alert", []step{
			{agent: "a", probe: "1", ok: true},
			{agent: "a", probe: "2", ok: true},
			{agent: "a", probe: "3", ok: true},
			{agent: "a", probe: "4", alert: true},
			{agent: "a", probe: "5", advance: probeWindow - time.Second},
			{agent: "a", probe: "5", advance: time.Second, ok: true},
			{agent: "a", probe: "6", ok: true},
			{agent: "a", probe: "7", ok: true},
			{agent: "a", probe: "8", alert: true},
		}},
		{"a clock that goes back starts a new window", []step{
			{agent: "a", probe: "1", ok: true},
			{agent: "a", probe: "2", ok: true},
			{agent: "a", probe: "3", ok: true},
			{agent: "a", probe: "4", advance: -time.Minute, ok: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			b := newProbeBudget(clock.now)
			for i, s := range tt.steps {
				clock.advance(s.advance)
				v := b.admit(s.agent, b.textID("default", s.probe), budget)
				if v.ok != s.ok || v.alert != s.alert {
					t.Fatalf("step %d (%s, probe %s): ok=%v alert=%v, want ok=%v alert=%v", i, s.agent, s.probe, v.ok, v.alert, s.ok, s.alert)
				}
				if !v.ok && !v.until.After(clock.now()) {
					t.Fatalf("step %d: the window ends at %v, not after now %v", i, v.until, clock.now())
				}
			}
		})
	}
}

func TestProbeIDDependsOnCatalogKeyAndContent(t *testing.T) {
	b := newProbeBudget(time.Now)
	ids := map[probeID]string{}
	for _, c := range []struct{ key, text string }{
		{"default", "abc"}, {"other", "abc"}, {"default", "abd"}, {"defaul", "tabc"}, {"", "defaultabc"},
	} {
		id := b.textID(c.key, c.text)
		if prev, dup := ids[id]; dup {
			t.Fatalf("%q/%q has the id of %s", c.key, c.text, prev)
		}
		ids[id] = c.key + "/" + c.text
	}
	first, again := b.textID("default", "abc"), b.textID("default", "abc")
	if first != again {
		t.Fatal("the same probe gets two ids")
	}
	if newProbeBudget(time.Now).textID("default", "abc") == b.textID("default", "abc") {
		t.Fatal("two processes share a probe key")
	}
}

func TestProbeBudgetBoundedMemory(t *testing.T) {
	clock := newFakeClock()
	b := newProbeBudget(clock.now)
	// Past the remembered cap, new probes are counted but not kept: a
	// repeat of one of them counts again.
	budget := maxRememberedProbes + 10
	for i := range maxRememberedProbes + 5 {
		if !b.admit("a", b.textID("", "p"+strconv.Itoa(i)), budget).ok {
			t.Fatalf("probe %d refused", i)
		}
	}
	if n := len(b.agents["a"].seen); n != maxRememberedProbes {
		t.Fatalf("%d probes remembered, want the cap %d", n, maxRememberedProbes)
	}
	last := b.textID("", "p"+strconv.Itoa(maxRememberedProbes+4))
	for range 5 {
		b.admit("a", last, budget)
	}
	if v := b.admit("a", last, budget); v.ok {
		t.Fatal("repeats of a forgotten probe were free past the cap")
	}
	// Past the agent cap, new agents share one budget.
	b2 := newProbeBudget(clock.now)
	for i := range maxProbeAgents {
		b2.admit("agent-"+strconv.Itoa(i), b2.textID("", "x"), 1)
	}
	if !b2.admit("late-1", b2.textID("", "y"), 1).ok {
		t.Fatal("the first agent past the cap was refused")
	}
	if b2.admit("late-2", b2.textID("", "z"), 1).ok {
		t.Fatal("agents past the cap got a budget each")
	}
	if len(b2.agents) != maxProbeAgents+1 {
		t.Fatalf("%d agents tracked", len(b2.agents))
	}
	// Once their windows end, agents are forgotten to make room.
	clock.advance(probeWindow)
	if !b2.admit("later", b2.textID("", "z"), 1).ok {
		t.Fatal("a new agent was refused after the windows ended")
	}
	if len(b2.agents) != 1 {
		t.Fatalf("%d agents tracked after pruning, want 1", len(b2.agents))
	}
}

// TestGuessBudgetThroughTools runs the budget through the MCP tools: a
// key map's probe-budget, distinct probes across scan_text, redact_text
// and read_redacted, repeats, the rate_limited error, the single alert,
// and the window moving on.
func TestGuessBudgetThroughTools(t *testing.T) {
	f := newFixture(t)
	f.writeMap(t, "[guard]\nprobe-budget = 3\n[catalogs]\ndefault = \"catalog.md\"\n")
	clock := newFakeClock()
	h := f.startWith(t, Options{Now: clock.now})
	writeFile(t, f.work+"/probe.txt", "owner: "+canaryName+"\n")

	type step struct {
		tool  string
		args  map[string]any
		code  string // "" for success
		later time.Duration
	}
	steps := []step{
		{tool: ToolScanText, args: map[string]any{"text": "alpha one", "agent_id": "bot"}},
		{tool: ToolRedactText, args: map[string]any{"text": "alpha two", "agent_id": "bot"}},
		// The same text through another tool is the same probe.
		{tool: ToolRedactText, args: map[string]any{"text": "alpha one", "agent_id": "bot"}},
		{tool: ToolReadRedacted, args: map[string]any{"path": "probe.txt", "agent_id": "bot"}},
		{tool: ToolScanText, args: map[string]any{"text": "alpha four", "agent_id": "bot"}, code: CodeRateLimited},
		{tool: ToolReadRedacted, args: map[string]any{"path": "probe.txt", "offset": 2, "agent_id": "bot"}, code: CodeRateLimited},
		// redact_file spends the budget on the file's content.
		{tool: ToolRedactFile, args: map[string]any{"path": "probe.txt", "agent_id": "bot"}, code: CodeRateLimited},
		// The window read_redacted read is a text like any other.
		{tool: ToolScanText, args: map[string]any{"text": "owner: " + canaryName, "agent_id": "bot"}},
		{tool: ToolScanText, args: map[string]any{"text": "alpha two", "agent_id": "bot"}},
		// Another catalog key is another probe.
		{tool: ToolScanText, args: map[string]any{"text": "alpha two", "catalog_key": "default", "agent_id": "bot"}},
		// Another agent has its own budget.
		{tool: ToolScanText, args: map[string]any{"text": "alpha four", "agent_id": "other"}},
		{tool: ToolScanText, args: map[string]any{"text": "alpha five", "agent_id": "bot"}, code: CodeRateLimited},
		{tool: ToolScanText, args: map[string]any{"text": "alpha five", "agent_id": "bot"}, code: CodeRateLimited, later: probeWindow - time.Minute},
		{tool: ToolScanText, args: map[string]any{"text": "alpha five", "agent_id": "bot"}, later: time.Minute},
	}
	for i, s := range steps {
		clock.advance(s.later)
		res := h.call(t, s.tool, s.args)
		if s.code == "" {
			if res.IsError {
				t.Fatalf("step %d (%s): %s", i, s.tool, text(t, res))
			}
			continue
		}
		msg := wantError(t, res, s.code)
		if !strings.Contains(msg, "UTC") || !strings.Contains(msg, "probe-budget") || strings.Contains(msg, "alpha") || strings.Contains(msg, "bot") {
			t.Fatalf("step %d: message %q: want when the window moves on, and nothing of the call", i, msg)
		}
	}

	alerts := 0
	for _, rec := range auditRecords(t, f.auditPath()) {
		if rec["alert"] != nil {
			alerts++
			if rec["alert"] != AlertProbeBudget || rec["agent_id"] != "bot" || rec["code"] != CodeRateLimited {
				t.Errorf("alert record %v", rec)
			}
		}
	}
	if alerts != 1 {
		t.Fatalf("%d alert records, want 1", alerts)
	}
}

func auditRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []map[string]any
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit line is not JSON: %v", err)
		}
		out = append(out, m)
	}
	return out
}
