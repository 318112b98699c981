package broker

import (
	"strings"
	"testing"
)

func TestGuard(t *testing.T) {
	const canary = "CANARY-Gd42"
	def := DefaultGuard()
	tests := []struct {
		name, toml string
		want       Guard
		errWant    string // substring of a config_invalid message; "" for success
	}{
		{"no table", "[catalogs]\ndefault = \"c.md\"\n", def, ""},
		{"all set", "[guard]\nread = \"warn\"\nprompt = \"off\"\noutbound = \"warn\"\nlevel = \"warning\"\nprobe-budget = 50\n",
			Guard{Read: GuardWarn, Prompt: GuardOff, Outbound: GuardWarn, Level: "warning", ProbeBudget: 50}, ""},
		{"partial", "[guard]\nlevel = \"note\"\n", Guard{Read: GuardBlock, Prompt: GuardBlock, Outbound: GuardBlock, Level: "note", ProbeBudget: DefaultProbeBudget}, ""},
		{"bad mode", "[guard]\nread = \"" + canary + "\"\n", def, "read must be"},
		{"mode not string", "[guard]\nprompt = 1\n", def, "prompt must be"},
		{"bad level", "[guard]\nlevel = \"" + canary + "\"\n", def, "level must be"},
		{"zero budget", "[guard]\nprobe-budget = 0\n", def, "probe-budget must be"},
		{"string budget", "[guard]\nprobe-budget = \"" + canary + "\"\n", def, "probe-budget must be"},
		{"huge budget", "[guard]\nprobe-budget = 9999999999999\n", def, "probe-budget must be"},
		{"unknown", "[guard]\n" + canary + " = \"block\"\n", def, "unknown setting"},
		{"not a table", "guard = \"" + canary + "\"\n", def, "[guard] must be a table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.writeMap(t, tc.toml)
			g, err := f.broker(t).Guard()
			if tc.errWant == "" {
				if err != nil {
					t.Fatal(err)
				}
				if g != tc.want {
					t.Fatalf("got %+v, want %+v", g, tc.want)
				}
				return
			}
			if codeOf(err) != CodeConfigInvalid {
				t.Fatalf("got %v, want config_invalid", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.errWant) || strings.Contains(msg, canary) {
				t.Fatalf("message %q: want %q and no canary", msg, tc.errWant)
			}
			if h := err.(*Error).Hint(); !strings.Contains(h, "[guard]") {
				t.Fatalf("hint %q does not explain [guard]", h)
			}
		})
	}
}

func TestGuardWithoutMap(t *testing.T) {
	f := newFixture(t)
	g, err := f.broker(t).Guard()
	if err != nil || g != DefaultGuard() {
		t.Fatalf("got %+v, %v; want the defaults", g, err)
	}
}
