package action

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/privscan/privscan/internal/engine"
	"github.com/privscan/privscan/internal/gitsrc"
)

// plan is what one run scans. Its description names only event names,
// pull request numbers and abbreviated commit IDs: branch names, titles and
// other free text from the payload can hold the very values the catalog
// protects, so they are never printed.
type plan struct {
	desc    string   // human description of the range
	revs    []string // gitsrc.DiffOptions.Revs of the diff to scan
	history string   // when set: scan this commit's whole history (a root commit) instead
	skipMsg string   // the message of this commit is not scanned (a test merge commit)
	pr      *PullRequest
	skip    string // when set: nothing to scan, and why
}

// repoView answers the questions the planner asks of the repository.
type repoView struct{ r *gitsrc.Repo }

// commit resolves a revision to a commit; a failure is a *gitsrc.RevError.
func (v *repoView) commit(rev string) (*object.Commit, error) { return v.r.Commit(rev) }

// ref resolves a full reference name, or returns nil.
func (v *repoView) ref(name string) *object.Commit { return v.r.RefCommit(name) }

// pair resolves base and head to full commit IDs, base first (its
// absence is the usual symptom of a shallow clone).
func (v *repoView) pair(base, head string) (string, string, error) {
	bc, err := v.commit(base)
	if err != nil {
		return "", "", err
	}
	hc, err := v.commit(head)
	if err != nil {
		return "", "", err
	}
	return bc.Hash.String(), hc.Hash.String(), nil
}

// rangePlan scans the merge base of base and head against head: for a base
// that is an ancestor of head, exactly the commits in between.
func (v *repoView) rangePlan(prefix, base, head string) (*plan, error) {
	b, h, err := v.pair(base, head)
	if err != nil {
		return nil, err
	}
	return &plan{desc: prefix + rangeDesc(b, "...", h), revs: []string{b + "..." + h}}, nil
}

// head returns the checked-out commit, or nil.
func (v *repoView) head() *object.Commit { return v.r.HeadCommit() }

// makePlan works out what to scan for an event. githubSHA is GITHUB_SHA.
func makePlan(event string, ev *Event, in Inputs, githubSHA string, v *repoView) (*plan, error) {
	switch event {
	case "pull_request_target":
		return nil, refusePullRequestTarget()
	case "pull_request":
		return planPullRequest(ev, in, v)
	case "merge_group":
		mg := ev.MergeGroup
		if mg == nil {
			return nil, payloadMissing("merge_group")
		}
		base, head := or(in.Base, mg.BaseSHA), or(in.Head, mg.HeadSHA)
		if base == "" || head == "" {
			return nil, payloadMissing("merge_group.base_sha and merge_group.head_sha")
		}
		return v.rangePlan("merge group ", base, head)
	case "push":
		return planPush(ev, in, githubSHA, v)
	case "workflow_dispatch":
		return planManual(in, or(in.Head, githubSHA, "HEAD"), v)
	}
	if in.Base == "" {
		return nil, engine.WithHint(fmt.Errorf("event %s is not supported without the base input", quoteInput(event)),
			"run on pull_request, push, merge_group or workflow_dispatch, or set the base (and head) inputs")
	}
	return planManual(in, or(in.Head, githubSHA, "HEAD"), v)
}

func planPullRequest(ev *Event, in Inputs, v *repoView) (*plan, error) {
	pr := ev.PullRequest
	if pr == nil {
		return nil, payloadMissing("pull_request")
	}
	base, head := or(in.Base, pr.Base.SHA), or(in.Head, pr.Head.SHA)
	if base == "" || head == "" {
		return nil, payloadMissing("pull_request.base.sha and pull_request.head.sha")
	}
	base, head, err := v.pair(base, head)
	if err != nil {
		return nil, err
	}
	p := &plan{pr: pr}
	num := fmt.Sprintf("pull request #%d ", pr.Number)
	// actions/checkout checks out GITHUB_SHA, the test merge commit of
	// refs/pull/N/merge, whose parents are the base branch and the head.
	// Its first-parent diff is exactly the pull request's change, with the
	// line numbers of the merged files, which are the ones code scanning
	// shows for that commit. Its own message ("Merge <head> into <base>")
	// was written by GitHub, not the author, and is not scanned.
	if in.Base == "" && in.Head == "" {
		if hc := v.head(); hc != nil && !strings.EqualFold(hc.Hash.String(), head) &&
			len(hc.ParentHashes) == 2 && strings.EqualFold(hc.ParentHashes[1].String(), head) {
			first := hc.ParentHashes[0].String()
			p.desc = num + rangeDesc(first, "..", hc.Hash.String()) + " (the test merge commit of head " + short(head) + ")"
			p.revs = []string{first + ".." + hc.Hash.String()}
			p.skipMsg = hc.Hash.String()
			return p, nil
		}
	}
	// Otherwise (the head or another commit is checked out, or base and
	// head were given): the merge base of base and head against head, the
	// change GitHub shows under "Files changed".
	p.desc = num + rangeDesc(base, "...", head)
	p.revs = []string{base + "..." + head}
	return p, nil
}

func planPush(ev *Event, in Inputs, githubSHA string, v *repoView) (*plan, error) {
	if in.Base == "" && (ev.Deleted || isZeroSHA(ev.After)) {
		return &plan{skip: "the push deleted a branch or tag; there is nothing to scan"}, nil
	}
	head := or(in.Head, ev.After, githubSHA)
	if head == "" {
		return nil, payloadMissing("after")
	}
	if in.Base != "" {
		return v.rangePlan("push ", in.Base, head)
	}
	if ev.Before != "" && !isZeroSHA(ev.Before) {
		if _, err := v.commit(ev.Before); err == nil || !ev.Forced {
			// A fast-forward: before is an ancestor of after and the
			// range is the pushed commits. After a forced push, the
			// commits that replaced before's history.
			return v.rangePlan("push ", ev.Before, head)
		}
		// A forced push whose old tip was not fetched: scan what the
		// branch has beyond the default branch, as for a new branch.
	}
	return planNewBranch(ev, head, v)
}

// planNewBranch scans the commits of a new (or force-pushed) branch that
// are not on the repository's default branch; when the default branch is
// not in the clone, or the push is to the default branch itself, it scans
// the pushed commit against its first parent.
func planNewBranch(ev *Event, head string, v *repoView) (*plan, error) {
	hc, err := v.commit(head)
	if err != nil {
		return nil, err
	}
	def := ev.Repository.DefaultBranch
	branch, isBranch := strings.CutPrefix(ev.Ref, "refs/heads/")
	if def != "" && (!isBranch || branch != def) {
		for _, name := range []string{"refs/remotes/origin/" + def, "refs/heads/" + def} {
			dc := v.ref(name)
			if dc == nil {
				continue
			}
			bases, err := dc.MergeBase(hc)
			if err != nil || len(bases) == 0 || bases[0].Hash == hc.Hash {
				break
			}
			d := dc.Hash.String()
			return &plan{desc: "new branch: the commits not on the default branch, " + rangeDesc(d, "...", hc.Hash.String()), revs: []string{d + "..." + hc.Hash.String()}}, nil
		}
	}
	return parentPlan("new branch: ", hc), nil
}

// planManual scans base...head, or head against its first parent.
func planManual(in Inputs, head string, v *repoView) (*plan, error) {
	if in.Base != "" {
		return v.rangePlan("", in.Base, head)
	}
	hc, err := v.commit(head)
	if err != nil {
		return nil, err
	}
	return parentPlan("", hc), nil
}

// parentPlan scans a commit against its first parent; a root commit is
// scanned whole.
func parentPlan(prefix string, c *object.Commit) *plan {
	h := c.Hash.String()
	if len(c.ParentHashes) == 0 {
		return &plan{desc: prefix + "root commit " + short(h), history: h}
	}
	p := c.ParentHashes[0].String()
	return &plan{desc: prefix + "commit " + short(h) + " against its parent", revs: []string{p, h}}
}

func refusePullRequestTarget() error {
	return engine.WithHint(ErrPullRequestTarget, "run the action on the `pull_request` event instead: pull requests from forks get no secrets there, so they are skipped with a notice rather than scanned with the catalog in reach of untrusted code")
}

func payloadMissing(what string) error {
	return engine.WithHint(fmt.Errorf("event payload has no %s", what), "set the base and head inputs, or run on an event that carries them")
}

// rangeDesc describes a range of two full commit IDs by their
// abbreviations.
func rangeDesc(a, op, b string) string { return short(a) + op + short(b) }

// short abbreviates a full commit ID. Anything else (which the planner
// never passes) is not shown: a revision could be a branch name.
func short(sha string) string {
	if isSHA(sha) {
		return strings.ToLower(sha[:12])
	}
	return "(revision)"
}

// or returns the first non-empty string.
func or(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
