package org

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v84/github"
	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// ListOptions selects the repositories a plan lists.
type ListOptions struct {
	// Token authenticates the API calls ("" for none).
	Token string
	// APIURL is the API's base URL ("" for github.com's or gitlab.com's).
	APIURL string
	// Archived and Forks include archived repositories and forks.
	Archived, Forks bool
	// HTTPClient is used for the calls (nil: a default client).
	HTTPClient *http.Client
}

// maxRepos bounds a listing (a runaway pagination).
const maxRepos = 1_000_000

// apiError rewrites a client library's error, which can quote a URL or a
// response body, to its status alone.
func apiError(what string, resp interface{ status() int }, err error) error {
	if resp != nil && resp.status() != 0 {
		return fmt.Errorf("%s: the API answered HTTP %d", what, resp.status())
	}
	return fmt.Errorf("%s: the API could not be reached", what)
}

type ghResp struct{ r *github.Response }

func (g ghResp) status() int {
	if g.r == nil || g.r.Response == nil {
		return 0
	}
	return g.r.StatusCode
}

type glResp struct{ r *gitlab.Response }

func (g glResp) status() int {
	if g.r == nil || g.r.Response == nil {
		return 0
	}
	return g.r.StatusCode
}

// ListGitHub lists an organisation's repositories through the GitHub REST
// API (pagination through its Link headers). Sizes are the API's, in KiB.
func ListGitHub(ctx context.Context, org string, o ListOptions) ([]Repo, error) {
	if err := checkName(org); err != nil || strings.Contains(org, "/") {
		return nil, errors.New("--github: not an organisation name")
	}
	c := github.NewClient(o.HTTPClient)
	if o.Token != "" {
		c = c.WithAuthToken(o.Token)
	}
	if o.APIURL != "" {
		// GITHUB_API_URL is the API's root (as in GitHub Actions:
		// https://HOST/api/v3 for Enterprise Server), taken as it is.
		base, err := url.Parse(strings.TrimSuffix(o.APIURL, "/") + "/")
		if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
			return nil, errors.New("GITHUB_API_URL is not an http(s) URL")
		}
		base.User = nil
		c.BaseURL = base
	}
	var repos []Repo
	opt := &github.RepositoryListByOrgOptions{Type: "all", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := c.Repositories.ListByOrg(ctx, org, opt)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, apiError("listing the GitHub organisation", ghResp{resp}, err)
		}
		for _, r := range page {
			if (r.GetArchived() && !o.Archived) || (r.GetFork() && !o.Forks) {
				continue
			}
			clean, err := StripURL(r.GetCloneURL())
			if err != nil {
				return nil, fmt.Errorf("listing the GitHub organisation: a repository's clone URL: %w", err)
			}
			name := r.GetFullName()
			if checkName(name) != nil {
				name = NameFromURL(clean)
			}
			repos = append(repos, Repo{Name: name, URL: clean, Host: "github", Size: int64(r.GetSize())})
		}
		if resp.NextPage == 0 || len(repos) > maxRepos {
			break
		}
		opt.Page = resp.NextPage
	}
	return repos, nil
}

// ListGitLab lists a group's projects, its subgroups' included, through
// the GitLab REST API. GitLab reports no size without admin statistics:
// sizes are 0, and shards balance by count.
func ListGitLab(ctx context.Context, group string, o ListOptions) ([]Repo, error) {
	if err := checkName(group); err != nil {
		return nil, errors.New("--gitlab: not a group path")
	}
	opts := []gitlab.ClientOptionFunc{gitlab.WithCustomLeveledLogger(quietLogger{}), gitlab.WithCustomRetryMax(3)}
	if o.APIURL != "" {
		opts = append(opts, gitlab.WithBaseURL(o.APIURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, gitlab.WithHTTPClient(o.HTTPClient))
	}
	c, err := gitlab.NewClient(o.Token, opts...)
	if err != nil {
		return nil, errors.New("GITLAB_API_URL is not a URL")
	}
	opt := &gitlab.ListGroupProjectsOptions{
		ListOptions:      gitlab.ListOptions{PerPage: 100, Page: 1},
		IncludeSubGroups: gitlab.Ptr(true),
	}
	if !o.Archived {
		opt.Archived = gitlab.Ptr(false)
	}
	var repos []Repo
	for {
		page, resp, err := c.Groups.ListGroupProjects(group, opt, gitlab.WithContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, apiError("listing the GitLab group", glResp{resp}, err)
		}
		for _, p := range page {
			if (p.Archived && !o.Archived) || (p.ForkedFromProject != nil && !o.Forks) {
				continue
			}
			clean, err := StripURL(p.HTTPURLToRepo)
			if err != nil {
				return nil, fmt.Errorf("listing the GitLab group: a project's clone URL: %w", err)
			}
			name := p.PathWithNamespace
			if checkName(name) != nil {
				name = NameFromURL(clean)
			}
			repos = append(repos, Repo{Name: name, URL: clean, Host: "gitlab"})
		}
		if resp.NextPage == 0 || len(repos) > maxRepos {
			break
		}
		opt.Page = resp.NextPage
	}
	return repos, nil
}

// quietLogger drops the retrying HTTP client's log lines (they name URLs).
type quietLogger struct{}

func (quietLogger) Error(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Warn(string, ...any)  {}
