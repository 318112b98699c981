package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/suggest"
)

// A screen decides whether something the user typed (an unknown flag's
// name, a mistyped command, a path that does not exist) may be repeated in
// an error message. Arguments can hold catalogued names, and error messages
// end up in CI logs, so a token is shown only when it is short, has the
// shape of what it names, and no detector finds anything in it: the
// catalog the command would use, the built-in PII detectors and the secret
// rules. When the catalog cannot be read (other than not being set up at
// all) nothing is shown.
type screen struct {
	env  *Env
	key  string // --catalog-key found among the arguments
	done bool
	ds   *engine.DetectorSet // nil: show nothing
}

func newScreen(env *Env, args []string) *screen {
	return &screen{env: env, key: catalogKeyArg(args)}
}

// catalogKeyArg finds the value of --catalog-key among args, as the
// command's flag parser would.
func catalogKeyArg(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "catalog-key" {
			continue
		}
		if hasVal {
			return val
		}
		if i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func (s *screen) load(ctx context.Context) {
	if s.done {
		return
	}
	s.done = true
	eng := engine.New(engine.Config{Getenv: s.env.Getenv})
	m, _, err := eng.Catalog(s.key)
	if err != nil && !errors.Is(err, broker.ErrConfigMissing) {
		return // a catalog exists but cannot be read
	}
	ds, err := eng.DetectorSet(m)
	if err != nil {
		return
	}
	s.ds = ds
}

// clean reports whether no detector finds anything in text (and the
// catalog's pages it read were intact).
func (s *screen) clean(ctx context.Context, text string) bool {
	s.load(ctx)
	if s.ds == nil {
		return false
	}
	var c counter
	sum, err := s.ds.RunText(ctx, text, "", finding.KindText, &c)
	return err == nil && sum.Findings == 0 && sum.Suppressed == 0
}

type counter struct{}

func (counter) Finding(*finding.Finding) error { return nil }
func (counter) Summary(*finding.Summary) error { return nil }

// Token shapes a screen accepts.
const (
	shapeName = iota // a command, flag, format or config key name
	shapePath        // a path
)

func shaped(text string, shape int) bool {
	max := 40
	if shape == shapePath {
		max = 200
	}
	if text == "" || len(text) > max {
		return false
	}
	for i, r := range text {
		switch {
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		case i > 0 && (r == '-' || r == '_' || r == '.'):
		case i > 0 && shape == shapeName && r == '/':
		case shape == shapePath && unicode.IsPrint(r) && r != '`' && r != '"':
		default:
			return false
		}
	}
	return true
}

// show returns text in quotes when it may be shown, or "".
func (s *screen) show(ctx context.Context, text string, shape int) string {
	if s == nil || !shaped(text, shape) || !s.clean(ctx, text) {
		return ""
	}
	return fmt.Sprintf("%q", text)
}

// nameError is a usage error about something the user typed. Its message
// names the thing only after a screen allowed it (see resolveNames); until
// then, and when the screen refuses, the message says what kind of thing
// was wrong and that its name is withheld. A suggestion (the nearest
// known name) is offered only together with the name: it says something
// about the typed text too.
type nameError struct {
	what       string   // "unknown flag", "unknown command", …
	raw        string   // what the user typed; never printed unscreened
	shape      int      // shapeName or shapePath
	prefix     string   // printed before the shown name ("--" for flags)
	candidates []string // known names, for a suggestion
	tail       string   // appended to the message: "(want text, json, …)"
	hint       string   // hint when there is no suggestion
	suggestFmt string   // how a suggestion is phrased, "%s" is the name
	withheld   string   // said instead of the name; default "(name withheld)"

	shown   string
	suggest string
}

func (e *nameError) Error() string {
	msg := e.what
	if e.shown != "" {
		msg += " " + e.shown
	} else if e.withheld != "" {
		msg += " " + e.withheld
	} else {
		msg += " (name withheld)"
	}
	if e.tail != "" {
		msg += " " + e.tail
	}
	return msg
}

func (e *nameError) resolve(ctx context.Context, s *screen) {
	q := s.show(ctx, e.raw, e.shape)
	if q == "" {
		return
	}
	if e.prefix != "" {
		q = fmt.Sprintf("%q", e.prefix+e.raw)
	}
	e.shown = q
	if n := suggest.Nearest(e.raw, e.candidates); n != "" && !strings.EqualFold(n, e.raw) {
		f := e.suggestFmt
		if f == "" {
			f = "did you mean `%s`?"
		}
		e.suggest = fmt.Sprintf(f, e.prefix+n)
	}
}

func (e *nameError) hintText() string {
	if e.suggest != "" {
		return e.suggest
	}
	return e.hint
}

// resolveNames lets the screen name what a nameError in err's chain is
// about.
func resolveNames(ctx context.Context, s *screen, err error) {
	var ne *nameError
	if errors.As(err, &ne) {
		ne.resolve(ctx, s)
	}
}
