package cli

import (
	"flag"
	"io"
	"strings"
)

// scanFlags are the flags shared by the scanning commands.
type scanFlags struct {
	format     string
	output     string
	failOn     string
	catalogKey string
	baseline   string
	config     string
	category   string
	noColor    bool
	quiet      bool

	// diff
	staged      bool
	noUntracked bool
	noMessages  bool
}

func (f *scanFlags) register(fs *flag.FlagSet, cmd string) {
	fs.StringVar(&f.format, "format", "text", "output format: text, json, sarif, github or markdown")
	fs.StringVar(&f.output, "output", "", "write the report to `FILE`")
	fs.StringVar(&f.failOn, "fail-on", "", "exit 1 on findings at or above `LEVEL`: error, warning, note or never")
	fs.StringVar(&f.catalogKey, "catalog-key", "", "catalog `KEY` in the key map")
	fs.StringVar(&f.baseline, "baseline", "", "suppress findings listed in a previous --format json report `FILE`")
	fs.StringVar(&f.config, "config", "", "repository config `FILE` (default <repo>/.privscan.toml)")
	fs.StringVar(&f.category, "category", "", "SARIF automationDetails.id")
	fs.BoolVar(&f.noColor, "no-color", false, "no colour")
	fs.BoolVar(&f.quiet, "q", false, "quiet: no summary line")
	if cmd == "diff" {
		fs.BoolVar(&f.staged, "staged", false, "compare the index with HEAD")
		fs.BoolVar(&f.staged, "cached", false, "same as --staged")
		fs.BoolVar(&f.noUntracked, "no-untracked", false, "do not scan untracked files")
		fs.BoolVar(&f.noMessages, "no-messages", false, "do not scan commit messages of a range")
	}
}

// parseArgs parses flags anywhere among args (git style: "diff HEAD~1
// --format json"). Everything after "--" is returned as paths.
func parseArgs(fs *flag.FlagSet, args []string) (positional, paths []string, err error) {
	for i, a := range args {
		if a == "--" {
			paths = append([]string{}, args[i+1:]...)
			args = args[:i]
			break
		}
	}
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, nil, err
			}
			msg := err.Error()
			if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				msg = "unknown flag " + rest
			}
			return nil, nil, usagef("%s", msg)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, paths, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}
