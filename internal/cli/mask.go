package cli

import (
	"context"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/scanner"
)

// A masker gives -v its context lines: the line of a finding with every
// match on it replaced by the placeholder `privscan redact` would write.
//
// It runs its own detection pass over every fragment the scan reads (the
// findings carry no text, by design) and keeps only the masked lines that
// hold a match, until the finding they belong to has been printed. Its
// detectors are a superset of any scan's: the catalog, every built-in PII
// detector and the secret rules, with no severity override, so a value of
// a rule the repository switched off, a test card number or a secret
// beside the finding is masked too. The cost is a second detection pass,
// only with -v. The detectors are the engine's DetectorSet; a damaged
// page of a sealed catalog fails the scan rather than leave a value
// unmasked.
type masker struct {
	ds *engine.DetectorSet
	r  *scanner.Redactor

	mu      sync.Mutex
	entries []maskEntry // in source order
}

type maskEntry struct {
	kind         finding.Kind
	path, commit string
	lines        map[int]scanner.MaskedLine
}

// maxMaskEntries bounds the fragments with matches kept while no finding
// claims them (all of their matches were suppressed).
const maxMaskEntries = 4096

// contextWidth is the most code points of a context line shown.
const contextWidth = 120

func newMasker(env *Env, key string) (*masker, error) {
	ds, err := engine.New(engine.Config{Getenv: env.Getenv}).CatalogDetectorSet(key)
	if err != nil {
		return nil, err
	}
	return &masker{ds: ds, r: ds.Redactor()}, nil
}

func (m *masker) wrap(src scanner.Source) scanner.Source {
	return sourceFunc(func(ctx context.Context, yield func(*scanner.Fragment) error) error {
		return src.Fragments(ctx, func(f *scanner.Fragment) error {
			if f.Skipped == finding.SkipNone && len(f.Lines) > 0 {
				lines, err := m.r.Mask(f)
				if err != nil {
					return err
				}
				// A match on a damaged page of a sealed catalog went
				// unseen: its line must not be shown unmasked.
				if err := m.ds.Err(); err != nil {
					return err
				}
				if len(lines) > 0 {
					e := maskEntry{kind: f.Kind, path: f.Path, commit: f.Commit, lines: make(map[int]scanner.MaskedLine, len(lines))}
					for _, l := range lines {
						e.lines[l.Number] = l
					}
					m.mu.Lock()
					if len(m.entries) >= maxMaskEntries {
						m.entries = m.entries[1:]
					}
					m.entries = append(m.entries, e)
					m.mu.Unlock()
				}
			}
			return yield(f)
		})
	})
}

// context returns the masked line of f. Findings arrive in source order,
// so the entries before the one that holds f are done with.
func (m *masker) context(f *finding.Finding) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range m.entries {
		if e.kind != f.Kind || e.path != f.Path || e.commit != f.Commit {
			continue
		}
		l, ok := e.lines[f.Line]
		if !ok {
			continue
		}
		m.entries = m.entries[i:]
		return window(l, f.Column), true
	}
	return "", false
}

// window returns the part of a masked line around the placeholder of the
// match at column col, at most contextWidth code points, with control and
// bidirectional formatting characters replaced by '?' (the line is shown
// on a terminal).
func window(l scanner.MaskedLine, col int) string {
	at := 0
	for _, mk := range l.Marks {
		if mk.Column <= col {
			at = mk.Start
		}
	}
	text := l.Text
	// Indentation says nothing.
	trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
	at = max(at-(len(text)-len(trimmed)), 0)
	text = trimmed
	runes := []rune(text)
	atRune := utf8.RuneCountInString(text[:min(at, len(text))])
	start, end := 0, len(runes)
	if len(runes) > contextWidth {
		start = max(atRune-contextWidth/3, 0)
		end = min(start+contextWidth, len(runes))
		start = max(end-contextWidth, 0)
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for _, r := range runes[start:end] {
		switch {
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), r == utf8.RuneError:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	if end < len(runes) {
		b.WriteString("…")
	}
	return b.String()
}
