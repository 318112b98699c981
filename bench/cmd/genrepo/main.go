// Command genrepo writes a deterministic, realistic git history as a
// git fast-import stream, for benchmarks:
//
//	git init -q -b main repo
//	genrepo -commits 3000 -size-mb 20 | git -C repo fast-import --quiet
//	git -C repo reset -q --hard
//
// The history is one branch of seeded commits that add, edit, rename and
// delete Go, YAML, JSON and Markdown files and add a few binaries. Added
// lines carry planted findings at fixed rates: values of the synthetic
// catalog (internal/synth, -catalog-seed and -catalog-n must match
// gencatalog's), PII (emails, phone numbers, card numbers, IBANs, SSNs, IP
// addresses) and secrets shaped like the gitleaks rules (cloud keys, tokens,
// private keys). Secret-shaped strings are assembled at run time from random
// parts; none appears in this source. The same flags always give the same
// stream, byte for byte.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "genrepo:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("genrepo", flag.ContinueOnError)
	var o Options
	fs.Int64Var(&o.Seed, "seed", 1, "generator seed")
	fs.IntVar(&o.Commits, "commits", 3000, "number of commits")
	fs.Float64Var(&o.SizeMB, "size-mb", 20, "total added text, in MiB")
	fs.Int64Var(&o.CatalogSeed, "catalog-seed", 1, "seed of the synthetic catalog whose values are planted")
	fs.IntVar(&o.CatalogN, "catalog-n", 10000, "size of that catalog")
	fs.IntVar(&o.Plant, "plant", 300, "distinct catalog values to plant")
	fs.StringVar(&o.Branch, "branch", "main", "branch to write")
	out := fs.String("o", "", "write the stream to this file (default stdout)")
	summary := fs.String("summary", "", "write a JSON summary of what was generated to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New("unexpected arguments")
	}
	w := stdout
	var f *os.File
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	st, err := Generate(bw, o)
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if *summary != "" {
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*summary, append(b, '\n'), 0o644)
	}
	return nil
}
