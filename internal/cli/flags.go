package cli

import (
	"errors"
	"flag"
	"fmt"
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

	// text output
	showFingerprints bool
	verbose          bool
	noProgress       bool

	// text
	caps inputCaps

	// diff and history
	policyFrom      string
	allowNewMarkers bool

	// diff
	staged      bool
	noUntracked bool
	noMessages  bool
}

func (f *scanFlags) register(fs *flag.FlagSet, cmd string) {
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text, json, sarif, github or markdown")
	fs.StringVar(&f.output, "output", "", "write the report to `FILE` instead of stdout")
	fs.StringVar(&f.failOn, "fail-on", "", "exit 1 on findings at or above `LEVEL`: error, warning, note or never\n(default: the repository's fail-on, else warning)")
	fs.StringVar(&f.catalogKey, "catalog-key", "", "use the catalog `KEY` of the key map")
	fs.StringVar(&f.baseline, "baseline", "", "suppress the findings of a previous --format json report `FILE`")
	fs.StringVar(&f.config, "config", "", "repository config `FILE` (default: <repo>/.privscan.toml)")
	fs.StringVar(&f.category, "category", "", "SARIF automationDetails.id `ID`")
	fs.BoolVar(&f.noColor, "no-color", false, "no colour (also NO_COLOR)")
	fs.BoolVar(&f.quiet, "q", false, "quiet: no summary line")
	fs.BoolVar(&f.showFingerprints, "show-fingerprints", false, "text: print each finding's fingerprint (for .privscanignore)")
	fs.BoolVar(&f.verbose, "v", false, "text: print each finding's line with every match masked")
	if cmd == "history" || cmd == "scan" {
		fs.BoolVar(&f.noProgress, "no-progress", false, "no progress bar (drawn only when stderr is a terminal)")
	}
	if cmd == "text" {
		f.caps.register(fs)
	}
	if cmd == "diff" || cmd == "history" {
		fs.StringVar(&f.policyFrom, "policy-from", "", "read .privscan.toml and .privscanignore from `REV` or \"worktree\"\n(default: the base commit when two commits are compared, else the working tree)")
		fs.BoolVar(&f.allowNewMarkers, "allow-new-markers", false, "let privscan:allow markers that the compared change adds suppress findings")
	}
	if cmd == "diff" {
		fs.BoolVar(&f.staged, "staged", false, "compare the index with HEAD")
		fs.BoolVar(&f.staged, "cached", false, "same as --staged")
		fs.BoolVar(&f.noUntracked, "no-untracked", false, "do not scan untracked files")
		fs.BoolVar(&f.noMessages, "no-messages", false, "do not scan commit messages of a range")
	}
}

// parseOrHelp parses args as parseArgs does; on -h or --help it prints
// topic's help, flags included, to stdout and reports help (err nil).
func parseOrHelp(env *Env, fs *flag.FlagSet, topic string, args []string) (positional, paths []string, help bool, err error) {
	positional, paths, err = parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(env.Stdout, helpFor(topic, fs))
		return nil, nil, true, nil
	}
	return positional, paths, false, err
}

// parseArgs parses flags anywhere among args (git style: "diff HEAD~1
// --format json"). Everything after "--" is returned as paths. Errors
// never repeat what the user typed (a flag's name or value can hold a
// catalogued name): they name the flag only when it is one of fs's.
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
			return nil, nil, flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, paths, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// flagError rewrites an error of the flag package, which quotes the
// offending argument, into one that names the flag (after screening, see
// nameError) and never its value.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		if fs.Lookup(name) != nil { // a defined flag: its name is ours
			return usagef("flag --%s needs a value", name)
		}
	}
	var name string
	fs.VisitAll(func(f *flag.Flag) {
		if strings.Contains(msg, " for -"+f.Name+":") || strings.Contains(msg, " for flag -"+f.Name+":") {
			name = f.Name
		}
	})
	help := "run `privscan help " + strings.Fields(fs.Name())[0] + "` for its flags"
	switch {
	case name != "":
		return usagef("invalid value for --%s", name)
	case strings.HasPrefix(msg, "bad flag syntax"):
		return withHint(usagef("bad flag syntax"), help)
	}
	typed, _ := strings.CutPrefix(msg, "flag provided but not defined: -")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return &nameError{what: "unknown flag", raw: typed, prefix: "--", candidates: names,
		tail: "for " + fs.Name(), hint: help}
}
