package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/progress"
)

// tableRun reads the table in with schema s (catalog.ReadTable or
// catalog.SealTable).
type tableRun func(in io.Reader, s *catalog.Schema, opts *catalog.TableOptions) (*catalog.TableReport, error)

// readTable reads the table export of `catalog seal --from` with its
// schema, with run. Bad rows are listed on stderr by line and reason (never by
// content); a progress line counts rows on a terminal.
func readTable(env *Env, t tableSource, abs func(string) string, run tableRun) (*catalog.TableReport, error) {
	schemaPath := abs(t.schema)
	f, err := os.Open(schemaPath)
	if err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, catalog.MaxSchemaBytes+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	s, err := catalog.ParseSchema(data)
	if err != nil {
		return nil, withHint(err, "docs/catalog.md, \"Catalogs from a table\", describes the schema")
	}
	opts := &catalog.TableOptions{}
	switch {
	case t.format != "":
		ft, ok := catalog.ParseTableFormat(t.format)
		if !ok {
			return nil, usagef("--format must be csv, tsv or jsonl")
		}
		opts.Format = ft
	case s.Format == catalog.TableUnknown:
		opts.Format = formatOfName(t.from)
	}
	var in io.Reader = env.Stdin
	if t.from != "-" {
		tf, err := os.Open(abs(t.from))
		if err != nil {
			return nil, fmt.Errorf("reading the table: %w", err)
		}
		defer tf.Close()
		in = tf
	}
	if in == nil {
		in = strings.NewReader("")
	}
	var bar *progress.Bar
	if t.progress && env.StderrTTY && env.Getenv("TERM") != "dumb" {
		bar = progress.New(env.Stderr, "catalog seal", "rows")
		last := 0
		opts.Progress = func(rows int, _ int64) {
			bar.Add(rows - last)
			last = rows
		}
	}
	rep, err := run(in, s, opts)
	if bar != nil {
		bar.Clear() // before anything else is written to stderr
	}
	if rep != nil && rep.BadRows > 0 {
		fmt.Fprintf(env.Stderr, "privscan: warning: %d bad row%s (max-bad-rows %d)%s\n", rep.BadRows, plural(rep.BadRows), s.MaxBadRows, listedOf(rep))
		for _, b := range rep.Bad {
			fmt.Fprintf(env.Stderr, "  %s\n", b)
		}
	}
	var te *catalog.TableError
	if errors.As(err, &te) && rep != nil && rep.BadRows > s.MaxBadRows {
		return rep, withHint(err, "a bad row is one of the wrong width, with a value that is not UTF-8, holds a control character (an embedded newline) or is under 3 characters; fix the export or raise max-bad-rows in the schema")
	}
	return rep, err
}

func listedOf(rep *catalog.TableReport) string {
	if rep.BadRows > len(rep.Bad) {
		return fmt.Sprintf("; the first %d:", len(rep.Bad))
	}
	return ":"
}

// formatOfName guesses a table's format from its file name.
func formatOfName(name string) catalog.TableFormat {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return catalog.TableCSV
	case ".tsv", ".tab":
		return catalog.TableTSV
	case ".jsonl", ".ndjson":
		return catalog.TableJSONL
	}
	return catalog.TableUnknown
}

// tableName names the table in messages: its base name, or stdin.
func tableName(from string) string {
	if from == "-" {
		return "stdin"
	}
	return filepath.Base(from)
}
