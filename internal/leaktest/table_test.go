package leaktest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/cli"
)

// TestTableSealHoldsNoCanary seals canary tables (CSV, TSV, JSON Lines)
// with `privscan catalog seal --from`, on a terminal so that the progress
// line is drawn, and searches every sealed byte, stdout and stderr (bad
// rows, errors, progress) for every value, word and identifier spelling of
// the canaries, the unlisted column's text and the bad rows' cells, in
// every encoding the matrix searches outputs for. The tables themselves
// are searched as the control.
func TestTableSealHoldsNoCanary(t *testing.T) {
	base := seed(t)
	for i := range uint64(3) {
		c := newCanaries(base + i)
		var key [catalog.SealKeySize]byte
		for k := range key {
			key[k] = byte(c.fpKey[k] ^ 0x3c)
		}
		dir := t.TempDir()
		// Good rows: a person, the host and an account each; the notes
		// column (not in the schema) holds the email and an identifier.
		type row struct{ name, host, account, notes string }
		var rows []row
		for k, p := range c.persons {
			rows = append(rows, row{p, c.host, c.account, c.email + " " + c.idents[k%len(c.idents)]})
		}
		// Many more rows, so that the progress line is likely drawn (it
		// draws only after 100 ms, and a test does not wait for it): when
		// it is, it is searched with the rest of stderr.
		for range 20000 {
			rows = append(rows, rows[0])
		}
		// Bad rows carry canaries in every cell: a two-rune name, an
		// invalid UTF-8 byte inside an identifier value.
		bad := []row{
			{c.short, c.idents[0], c.account + "x", c.persons[0]},
			{c.idents[0] + "\xff" + c.idents[1], c.host, c.account, c.email},
		}
		rows = append(rows, bad...)
		var csvText, tsvText, jsonl strings.Builder
		csvText.WriteString("name,host,account,notes\n")
		tsvText.WriteString("name\thost\taccount\tnotes\n")
		for _, r := range rows {
			csvText.WriteString(`"` + r.name + `",` + r.host + "," + r.account + `,"` + r.notes + "\"\n")
			tsvText.WriteString(r.name + "\t" + r.host + "\t" + r.account + "\t" + r.notes + "\n")
			b, _ := json.Marshal(map[string]string{"name": r.name, "host": r.host, "account": r.account, "notes": r.notes})
			if strings.Contains(r.name, "\xff") {
				b = bytes.Replace(b, []byte(`\ufffd`), []byte{0xff}, 1)
			}
			jsonl.Write(append(b, '\n'))
		}
		// Rows bad by their shape, with canaries.
		csvText.WriteString(c.persons[1] + "," + c.host + "\n")
		csvText.WriteString(`"` + c.persons[2] + "\n" + c.idents[0] + `",` + c.host + "," + c.account + ",x\n")
		tsvText.WriteString(c.persons[1] + "\t" + c.host + "\n")
		jsonl.WriteString(`{"name": ["` + c.persons[1] + `"]}` + "\n" + c.persons[2] + "\n")
		schema := "max-bad-rows = 5\nfingerprint-key = \"" + hex.EncodeToString(c.fpKey[:]) + "\"\n" +
			"[[columns]]\nname = \"name\"\nrule = \"PER\"\ncategory = \"person\"\nmatch = \"identifier\"\n" +
			"[[columns]]\nname = \"host\"\nrule = \"HOST\"\ncategory = \"hostname\"\nboundary = \"none\"\n" +
			"[[columns]]\nname = \"account\"\nrule = \"ACCT\"\ncategory = \"account\"\ncase = \"sensitive\"\n"
		files := map[string]string{"t.csv": csvText.String(), "t.tsv": tsvText.String(), "t.jsonl": jsonl.String(),
			"s.toml": schema, "strict.toml": strings.Replace(schema, "max-bad-rows = 5", "max-bad-rows = 0", 1),
			"bad.toml": schema + "colour = \"" + c.persons[0] + "\"\n"}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		canaries := append([]string{}, c.persons...)
		canaries = append(canaries, c.host, c.account, c.email, c.short, c.account+"x")
		for _, p := range c.persons {
			canaries = append(canaries, strings.Fields(p)...)
		}
		for _, v := range c.idents {
			canaries = append(canaries, v)
			canaries = append(canaries, identSpellings(v)...)
		}
		canaries = append(canaries, hex.EncodeToString(c.fpKey[:]), hex.EncodeToString(key[:]))
		d := newDetector(canaries)
		// The control: the tables show the canaries.
		if len(d.find("csv", []byte(files["t.csv"]))) == 0 {
			t.Fatal("the control search finds nothing in the table")
		}
		for _, tc := range []struct {
			args []string
			code int
		}{
			{[]string{"--from", "t.csv", "--schema", "s.toml", "-o", "csv.sealed"}, 0},
			{[]string{"--from", "t.tsv", "--schema", "s.toml", "-o", "tsv.sealed"}, 0},
			{[]string{"--from", "t.csv", "--schema", "s.toml", "--part-rows", "4000", "-o", "parts.sealed"}, 0},
			{[]string{"--from", "-", "--format", "jsonl", "--schema", "s.toml", "-o", "jsonl.sealed"}, 0},
			{[]string{"--from", "t.csv", "--schema", "strict.toml", "-o", "strict.sealed"}, 2},
			{[]string{"--from", "t.tsv", "--schema", "bad.toml", "-o", "bad.sealed"}, 2},
			{[]string{"--from", "t.csv", "--schema", "t.csv", "-o", "bad.sealed"}, 2},
			{[]string{"--from", "s.toml", "--format", "csv", "--schema", "s.toml", "-o", "bad.sealed"}, 2},
		} {
			var stdout, stderr bytes.Buffer
			env := map[string]string{"PRIVSCAN_SEAL_KEY": hex.EncodeToString(key[:]), "HOME": dir, "TERM": "xterm"}
			e := &cli.Env{Args: append([]string{"catalog", "seal"}, tc.args...), Stdin: strings.NewReader(files["t.jsonl"]),
				Stdout: &stdout, Stderr: &stderr, Dir: dir, StderrTTY: true, Getenv: func(k string) string { return env[k] }}
			code := cli.Report(&stderr, cli.Run(context.Background(), e))
			label := strings.Join(tc.args, " ")
			if os.Getenv("LEAKTEST_SHOW") != "" {
				t.Logf("%s: stdout %q stderr %q", label, stdout.String(), stderr.String())
			}
			if code != tc.code {
				t.Errorf("seed %d: %s: exit %d, want %d; stderr:\n%s", base+i, label, code, tc.code, stderr.String())
			}
			for _, l := range d.find(label+" stdout", stdout.Bytes()) {
				t.Errorf("seed %d: %v", base+i, l)
			}
			for _, l := range d.find(label+" stderr", stderr.Bytes()) {
				t.Errorf("seed %d: %v", base+i, l)
			}
			out := filepath.Join(dir, tc.args[len(tc.args)-1])
			sealed, err := os.ReadFile(out)
			if tc.code != 0 {
				if err == nil {
					t.Errorf("seed %d: %s: a failed seal wrote %s", base+i, label, out)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			// Every part of a catalog sealed in parts is searched.
			var ms []*catalog.Matcher
			var ss []*catalog.Sealed
			for k := 1; ; k++ {
				if k > 1 {
					if sealed, err = os.ReadFile(catalog.PartName(out, k)); err != nil {
						break
					}
				}
				for _, l := range d.find(label+" sealed part "+strconv.Itoa(k), sealed) {
					t.Errorf("seed %d: %v", base+i, l)
				}
				pm, ps, err := catalog.LoadSealedPart(sealed, key[:])
				if err != nil {
					t.Fatal(err)
				}
				ms, ss = append(ms, pm), append(ss, ps)
			}
			if strings.HasPrefix(tc.args[len(tc.args)-1], "parts") != (len(ms) > 1) {
				t.Fatalf("%s: %d parts", label, len(ms))
			}
			m, _, err := catalog.JoinSealed(ms, ss)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range append(append([]string{}, c.persons...), c.host, c.account) {
				if len(m.Find([]byte("x "+v+" y"), nil)) == 0 {
					t.Errorf("seed %d: %s: the sealed table does not find one of its values", base+i, label)
				}
			}
			if len(m.Find([]byte("x "+c.email+" y"), nil)) != 0 {
				t.Errorf("seed %d: %s: the unlisted column's text is in the catalog", base+i, label)
			}
		}
	}
}
