// Command gentable writes a synthetic customer table for benchmarks of
// `privscan catalog seal --from` (bench/README.md, "Catalogs from a
// table"): n rows of id, full name, email, account and a free-text note
// column that the schema does not list, in CSV, TSV or JSON Lines, with
// the schema that seals it, and optionally the equivalent Markdown
// catalog. Names are internal/synth.Person (realistic: common first and
// last names repeat across rows, as in a real customer table); emails and
// account numbers carry the row's unique tag (internal/synth's
// UniqueValue scheme), so that every row's email and account are
// distinct. No real person's data: every value is synthetic. The same
// flags always give the same bytes, written in constant memory.
//
// Usage:
//
//	gentable -n 1000000 [-seed 1] [-format csv|tsv|jsonl] [-o table.csv] [-schema schema.toml] [-record N] [-md catalog.md]
//
// With -record N, the schema makes the name a record rule: a name counts
// only with its row's email or account within N lines (0: the same line;
// -1: the same file or commit message).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/privscan/privscan/internal/synth"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gentable:", err)
		os.Exit(1)
	}
}

const schemaText = `format = %q
max-bad-rows = 0
fingerprint-key = "%064x"

[[columns]]
name = "full_name"
rule = "CUST-NAME"
category = "person"
match = "identifier"
description = "Customer names"

[[columns]]
name = "email"
rule = "CUST-EMAIL"
category = "email"

[[columns]]
name = "account"
rule = "CUST-ACCT"
category = "account"
case = "sensitive"
`

type row struct{ id, name, email, account, note string }

func makeRow(seed int64, n, i int) row {
	r := rand.New(rand.NewPCG(uint64(seed), 0x7ab1e<<32|uint64(i)))
	tag := synth.UniqueTag(i, n)
	e := synth.Email(r)
	at := strings.LastIndexByte(e, '@')
	return row{
		id:      fmt.Sprint(i + 1),
		name:    synth.Person(r),
		email:   e[:at] + tag + e[at:],
		account: synth.Account(r) + strings.ToUpper(tag),
		note:    `called about "invoice", twice`,
	}
}

func csvField(s string) string {
	if strings.ContainsAny(s, "\",\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func run(args []string) error {
	fs := flag.NewFlagSet("gentable", flag.ContinueOnError)
	n := fs.Int("n", 1000, "rows")
	seed := fs.Int64("seed", 1, "seed")
	format := fs.String("format", "csv", "csv, tsv or jsonl")
	out := fs.String("o", "", "the table (default stdout)")
	schema := fs.String("schema", "", "also write the schema here")
	md := fs.String("md", "", "also write the equivalent Markdown catalog here")
	record := fs.Int("record", -2, "make the name a record rule corroborated by the row's email or account within N lines (-1: the same file)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *format != "csv" && *format != "tsv" && *format != "jsonl" {
		return fmt.Errorf("unknown format %q", *format)
	}
	if *schema != "" {
		text := fmt.Sprintf(schemaText, *format, *seed)
		if *record >= -1 {
			within := fmt.Sprint(*record)
			if *record == -1 {
				within = `"file"`
			}
			text = strings.Replace(text, `description = "Customer names"`, `description = "Customer names"`+
				"\ncorroborated-by = [\"email\", \"account\"]\nwithin = "+within, 1)
		}
		if err := os.WriteFile(*schema, []byte(text), 0o644); err != nil {
			return err
		}
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	switch *format {
	case "csv":
		bw.WriteString("id,full_name,email,account,note\r\n")
	case "tsv":
		bw.WriteString("id\tfull_name\temail\taccount\tnote\n")
	}
	for i := range *n {
		r := makeRow(*seed, *n, i)
		switch *format {
		case "csv":
			fmt.Fprintf(bw, "%s,%s,%s,%s,%s\r\n", r.id, csvField(r.name), r.email, r.account, csvField(r.note))
		case "tsv":
			fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%s\n", r.id, r.name, r.email, r.account, r.note)
		case "jsonl":
			b, _ := json.Marshal(map[string]string{"id": r.id, "full_name": r.name, "email": r.email, "account": r.account, "note": r.note})
			bw.Write(b)
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if *md != "" {
		return writeMarkdown(*md, *seed, *n)
	}
	return nil
}

// writeMarkdown writes the catalog that the table and its schema seal to,
// one pass over the rows per rule.
func writeMarkdown(path string, seed int64, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(bw, "- fingerprint-key: %064x\n\n", seed)
	rules := []struct {
		head string
		get  func(row) string
	}{
		{"## CUST-NAME\n- category: person\n- match: identifier\n- description: Customer names\n", func(r row) string { return r.name }},
		{"## CUST-EMAIL\n- category: email\n", func(r row) string { return r.email }},
		{"## CUST-ACCT\n- category: account\n- case: sensitive\n", func(r row) string { return r.account }},
	}
	for _, rule := range rules {
		bw.WriteString(rule.head + "\n```values\n")
		for i := range n {
			bw.WriteString(rule.get(makeRow(seed, n, i)) + "\n")
		}
		bw.WriteString("```\n\n")
	}
	return bw.Flush()
}
