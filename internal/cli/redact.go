package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/privscan/privscan/internal/engine"
)

func runRedact(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("redact", flag.ContinueOnError)
	catalogKey := fs.String("catalog-key", "", "catalog `KEY` in the key map")
	configPath := fs.String("config", "", "repository config `FILE`")
	quiet := fs.Bool("q", false, "no summary on stderr")
	var caps inputCaps
	caps.register(fs)
	pos, paths, help, err := parseOrHelp(env, fs, "redact", args)
	if help || err != nil {
		return err
	}
	if len(pos) > 1 || len(paths) > 0 {
		return usagef("redact takes at most one file")
	}
	if err := checkConfigFile(env, *configPath); err != nil {
		return err
	}
	r, err := engine.New(engine.Config{Getenv: env.Getenv}).Redactor(engine.Request{CatalogKey: *catalogKey, ConfigPath: absPath(env, *configPath)})
	if err != nil {
		return cliError(err)
	}
	ctx, cancel, _ := caps.capInput(ctx, nil)
	defer cancel()
	var in io.Reader
	if len(pos) == 0 || pos[0] == "-" {
		in = stdinReader(ctx, env)
	} else {
		f, err := os.Open(absPath(env, pos[0]))
		if err != nil {
			return fmt.Errorf("reading %s: %w", pos[0], errors.Unwrap(err))
		}
		defer f.Close()
		in = f
	}
	in = caps.reader(in)
	if err := r.Copy(ctx, env.Stdout, in); err != nil {
		if err := inputError(ctx, err); err != nil {
			return err
		}
		return engine.ScanError(err)
	}
	if !*quiet {
		st := r.Stats()
		fmt.Fprintf(env.Stderr, "privscan: redacted %d match%s in %d line%s\n", st.Replacements, pluralES(st.Replacements), st.Lines, plural(st.Lines))
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}
