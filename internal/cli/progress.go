package cli

import (
	"context"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/progress"
	"github.com/privscan/privscan/scanner"
)

// barSource counts a source's progress on a bar: commits (by their
// message fragment, which comes first) for history, files otherwise (a
// large file streamed as consecutive fragments counts once).
type barSource struct {
	src      scanner.Source
	bar      *progress.Bar
	commits  bool
	lastPath string
}

func (s *barSource) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	s.lastPath = ""
	return s.src.Fragments(ctx, func(f *scanner.Fragment) error {
		switch {
		case s.commits && f.Kind == finding.KindCommitMessage:
			s.bar.Add(1)
		case !s.commits && f.Kind != finding.KindCommitMessage && f.Commit+"\x00"+f.Path != s.lastPath:
			s.lastPath = f.Commit + "\x00" + f.Path
			s.bar.Add(1)
		}
		return yield(f)
	})
}

// barHandler erases the bar before every finding and keeps it from being
// drawn until the finding is written (the text renderer flushes each
// finding when a bar is running), and before the summary.
type barHandler struct {
	finding.Handler
	bar *progress.Bar
}

func (h *barHandler) Finding(f *finding.Finding) error {
	return h.bar.Locked(func() error { return h.Handler.Finding(f) })
}

func (h *barHandler) Summary(s *finding.Summary) error {
	return h.bar.Locked(func() error { return h.Handler.Summary(s) })
}

type sourceFunc func(ctx context.Context, yield func(*scanner.Fragment) error) error

func (s sourceFunc) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	return s(ctx, yield)
}
