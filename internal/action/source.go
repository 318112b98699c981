package action

import (
	"context"
	"strings"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// dropMessage leaves out the message fragment of one commit.
type dropMessage struct {
	src    scanner.Source
	commit string
}

func (d *dropMessage) Fragments(ctx context.Context, yield func(*scanner.Fragment) error) error {
	return d.src.Fragments(ctx, func(f *scanner.Fragment) error {
		if f.Kind == finding.KindCommitMessage && strings.EqualFold(f.Commit, d.commit) {
			return nil
		}
		return yield(f)
	})
}

// prText is the text scanned for a pull request: the title on line 1, a
// blank line, and the body from line 3 (the layout of a commit message).
// It is one text without a path, so the SARIF log locates its findings at
// the pseudo-file .git/privscan/text and the summary at <text>.
func prText(pr *PullRequest) string {
	t := strings.NewReplacer("\r", " ", "\n", " ").Replace(pr.Title)
	if pr.Body == nil || *pr.Body == "" {
		return t + "\n"
	}
	return t + "\n\n" + *pr.Body
}
