package catalog_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/synth"
)

// findBoth returns the matches of line with the assembly scan loop and
// with the Go loop. Where there is no assembly both are the Go loop's.
func findBoth(m *catalog.Matcher, line []byte) (asm, gol []catalog.Match) {
	catalog.SetScanASM(m, true)
	asm = m.Find(line, nil)
	catalog.SetScanASM(m, false)
	gol = m.Find(line, nil)
	catalog.SetScanASM(m, true)
	return asm, gol
}

// identSoup returns a line of random code-like tokens: identifiers in
// every case style (some spelling catalog values), digits, hex, '_',
// punctuation, runs of spaces, and now and then non-ASCII.
func identSoup(r *rand.Rand, vals []string) []byte {
	words := []string{"get", "User", "HTTP", "Server", "id", "x", "v2", "0x1f3a", "_", "__", "json", "ID", "max", "SIZE", "a", "Z9", "ß", "é", "Ärger", "日本"}
	var b strings.Builder
	n := 1 + r.IntN(40)
	for range n {
		switch r.IntN(10) {
		case 0, 1:
			v := vals[r.IntN(len(vals))]
			switch r.IntN(5) {
			case 0:
				v = strings.ReplaceAll(v, " ", "")
			case 1:
				v = strings.ToUpper(strings.ReplaceAll(v, " ", "_"))
			case 2:
				v = strings.ReplaceAll(strings.ToLower(v), " ", "_")
			case 3:
				v = strings.ReplaceAll(v, " ", "-")
			}
			b.WriteString(v)
		case 2:
			b.WriteString(strings.Repeat(" ", 1+r.IntN(3)))
		case 3:
			const punct = "(){}[].,;:=+-*/\"'`@#!?<>|&%$\t"
			b.WriteByte(punct[r.IntN(len(punct))])
		default:
			for range 1 + r.IntN(4) {
				b.WriteString(words[r.IntN(len(words))])
			}
		}
		if r.IntN(3) == 0 {
			b.WriteByte(" .(,_-"[r.IntN(6)])
		}
	}
	return []byte(b.String())
}

// TestScanASMAgrees compares the assembly scan loop with the Go loop on
// synthetic source, random identifier soup with catalog values in every
// identifier spelling, and lines of every length up to 200 bytes.
func TestScanASMAgrees(t *testing.T) {
	c := synth.Catalog(3, 20_000)
	m, err := catalog.Compile(c, &catalog.CompileOptions{HashKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if !catalog.SetScanASM(m, true) {
		t.Log("no assembly scan loop on this machine: the test compares the Go loop with itself")
	}
	std := compile(t, stdRules...)
	vals := synth.Values(3, 20_000)
	var plant []string
	for i := 0; i < len(vals); i += 50 {
		plant = append(plant, vals[i])
	}
	var lines [][]byte
	for l := range bytes.Lines(synth.Text(4, 1<<19, plant)) {
		lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
	}
	r := rand.New(rand.NewPCG(5, 6))
	stdVals := []string{"Jane Doe", "Acme Corp", "Zephyr", "X Ray", "ACCT-0042", "secretproj", "EMP-123456", "db-01.internal.corp", "jane.doe@corp.example"}
	for range 20_000 {
		lines = append(lines, identSoup(r, plant), identSoup(r, stdVals))
	}
	// Every length, so words end at and cross every block position.
	long := identSoup(r, stdVals)
	for len(long) < 200 {
		long = append(long, identSoup(r, stdVals)...)
	}
	for n := 1; n <= 200; n++ {
		lines = append(lines, long[:n], long[len(long)-n:])
	}
	matches := 0
	for _, mm := range []*catalog.Matcher{m, std} {
		for _, line := range lines {
			a, g := findBoth(mm, line)
			if !slices.Equal(a, g) {
				t.Fatalf("assembly %v, Go %v for line %q", a, g, line)
			}
			matches += len(a)
		}
	}
	if matches < 1000 {
		t.Fatalf("only %d matches: the lines exercise too little", matches)
	}
	t.Logf("%d lines, %d matches, both loops agree", 2*len(lines), matches)
}

func FuzzScanASM(f *testing.F) {
	m, err := catalog.Compile(buildCatalog(stdRules...), &catalog.CompileOptions{HashKey: testKey})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"NewAcmeCorpClient", "ACME_CORP_x acme_corp", "HTTPServerAcmeCorp9", "x.AcmeCorp(jane doe)",
		strings.Repeat("a", 63) + "AcmeCorp", strings.Repeat("Zephyr_", 12), "0xZephyr99 v2Zephyr", "\tjane\u00a0doe é Zephyr"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if a, g := findBoth(m, line); !slices.Equal(a, g) {
			t.Fatalf("assembly %v, Go %v", a, g)
		}
	})
}
