package leaktest

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/cli"
)

// TestRecordRulesHoldNoCanary seals a canary table with record rules (a
// name corroborated by an account of its row, the account column only
// corroborating) and scans a text with corroborated, uncorroborated and
// cross-row matches in JSON, SARIF and text: no sealed byte (record arrays
// included), no output and no error holds a canary in any encoding the
// matrix searches for, while the reports do name the corroborating match.
func TestRecordRulesHoldNoCanary(t *testing.T) {
	base := seed(t)
	for i := range uint64(2) {
		c := newCanaries(base + 100 + i)
		var key [32]byte
		for k := range key {
			key[k] = byte(c.fpKey[k] ^ 0x5a)
		}
		dir := t.TempDir()
		acct := func(k int) string { return c.account + "-" + strconv.Itoa(k) }
		var csv strings.Builder
		csv.WriteString("name,account,host\n")
		for k, p := range c.persons {
			csv.WriteString(`"` + p + `",` + acct(k) + "," + c.host + "\n")
		}
		schema := "fingerprint-key = \"" + hex.EncodeToString(c.fpKey[:]) + "\"\n" +
			"[[columns]]\nname = \"name\"\nrule = \"PER\"\ncategory = \"person\"\nmatch = \"identifier\"\n" +
			"corroborated-by = [\"account\"]\nwithin = 2\nuncorroborated = \"note\"\n" +
			"[[columns]]\nname = \"account\"\nrule = \"ACCT\"\ncategory = \"account\"\ncase = \"sensitive\"\nsearch = false\n" +
			"[[columns]]\nname = \"host\"\nrule = \"HOST\"\ncategory = \"hostname\"\nboundary = \"none\"\n"
		// Corroborated (row 0), alone (row 1, at note), another row's
		// account (row 2 with row 0's: at note).
		text := c.persons[0] + "\n" + "ref " + acct(0) + "\n\n\n\n" + c.persons[1] + "\n\n\n\n" + c.persons[2] + " " + acct(0) + "\n"
		for name, body := range map[string]string{"t.csv": csv.String(), "s.toml": schema, "in.txt": text,
			"bad.toml": schema + "[[columns]]\nname = \"n2\"\nrule = \"X\"\ncategory = \"person\"\ncorroborated-by = [\"" + c.persons[0] + "\"]\nwithin = 1\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		canaries := append([]string{}, c.persons...)
		canaries = append(canaries, c.host, c.account)
		for _, p := range c.persons {
			canaries = append(canaries, strings.Fields(p)...)
		}
		canaries = append(canaries, hex.EncodeToString(c.fpKey[:]), hex.EncodeToString(key[:]))
		d := newDetector(canaries)
		if len(d.find("control", []byte(csv.String()))) == 0 {
			t.Fatal("the control search finds nothing in the table")
		}
		env := map[string]string{"PRIVSCAN_SEAL_KEY": hex.EncodeToString(key[:]), "HOME": dir, "TERM": "xterm",
			"PRIVSCAN_CATALOG_FILE": filepath.Join(dir, "t.sealed")}
		run := func(args []string, want int) []byte {
			var stdout, stderr bytes.Buffer
			e := &cli.Env{Args: args, Stdin: strings.NewReader(text), Stdout: &stdout, Stderr: &stderr, Dir: dir, StderrTTY: true,
				Getenv: func(k string) string { return env[k] }}
			code := cli.Report(&stderr, cli.Run(context.Background(), e))
			label := strings.Join(args, " ")
			if code != want {
				t.Errorf("seed %d: %s: exit %d, want %d; stderr:\n%s", base+i, label, code, want, stderr.String())
			}
			for _, l := range append(d.find(label+" stdout", stdout.Bytes()), d.find(label+" stderr", stderr.Bytes())...) {
				t.Errorf("seed %d: %v", base+i, l)
			}
			return stdout.Bytes()
		}
		run([]string{"catalog", "seal", "--from", "t.csv", "--schema", "bad.toml", "-o", "bad.sealed"}, 2)
		run([]string{"catalog", "seal", "--from", "t.csv", "--schema", "s.toml", "-o", "t.sealed"}, 0)
		sealed, err := os.ReadFile(filepath.Join(dir, "t.sealed"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range d.find("sealed", sealed) {
			t.Errorf("seed %d: %v", base+i, l)
		}
		js := run([]string{"text", "--format", "json", "in.txt"}, 1)
		if !bytes.Contains(js, []byte(`"corroboratedBy":{"ruleId":"catalog/ACCT"`)) || bytes.Count(js, []byte(`"uncorroborated":true`)) != 2 {
			t.Errorf("seed %d: the JSON report does not show the record rules:\n%s", base+i, js)
		}
		sarif := run([]string{"text", "--format", "sarif", "in.txt"}, 1)
		if !bytes.Contains(sarif, []byte(`"relatedLocations"`)) {
			t.Errorf("seed %d: the SARIF report has no related location", base+i)
		}
		run([]string{"text", "in.txt"}, 1)
	}
}
