package org_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/org"
)

// githubAPI is a stand-in for the GitHub REST API on 127.0.0.1: GET
// /orgs/{org}/repos, two repositories a page with Link headers, requiring
// the token. repos are [name, clone URL, archived, fork] rows.
func githubAPI(t *testing.T, orgName, token string, repos []map[string]any) *httptest.Server {
	t.Helper()
	const perPage = 2
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/orgs/"+orgName+"/repos" {
			http.NotFound(w, r)
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		lo, hi := (page-1)*perPage, min(page*perPage, len(repos))
		if lo < len(repos) && hi < len(repos) {
			next := *r.URL
			q := next.Query()
			q.Set("page", fmt.Sprint(page+1))
			next.RawQuery = q.Encode()
			w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, next.RequestURI()))
		}
		w.Header().Set("Content-Type", "application/json")
		body := []map[string]any{}
		if lo < len(repos) {
			body = repos[lo:hi]
		}
		json.NewEncoder(w).Encode(body)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestGitHubPlanAndScan: the plan lists an organisation page by page,
// skips archived repositories and forks unless asked, never writes the
// token, and a shard clones over HTTP with GITHUB_TOKEN.
func TestGitHubPlanAndScan(t *testing.T) {
	f := newOrg(t, 0)
	serve := filepath.Join(f.dir, "served")
	var rows []map[string]any
	for i := range 5 {
		name := fmt.Sprintf("g%d", i)
		work := filepath.Join(f.dir, "work", name)
		makeRepo(t, work, i)
		gitCmd(t, f.dir, "clone", "-q", "--bare", work, filepath.Join(serve, "acme", name+".git"))
		rows = append(rows, map[string]any{
			"full_name": "acme/" + name,
			"clone_url": f.http.URL + "/acme/" + name + ".git",
			"size":      100 * (i + 1),
			"archived":  i == 3,
			"fork":      i == 4,
		})
	}
	api := githubAPI(t, "acme", apiToken, rows)
	env := []string{"GITHUB_TOKEN=" + apiToken, "GITHUB_API_URL=" + api.URL, "PRIVSCAN_GIT_TOKEN="}
	plan := filepath.Join(f.dir, "plan.json")
	_, e, code := f.run(t, f.dir, env, "org", "plan", "--github", "acme", "--shards", "2", "-o", plan)
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, e)
	}
	p, err := org.LoadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range p.Repos {
		names = append(names, r.Name)
		if r.Host != "github" {
			t.Errorf("%s: host %q", r.Name, r.Host)
		}
	}
	if strings.Join(names, " ") != "acme/g0 acme/g1 acme/g2" {
		t.Errorf("listed %v (archived and fork should be skipped)", names)
	}
	_, _, code = f.run(t, f.dir, env, "org", "plan", "--github", "acme", "--include-archived", "--include-forks", "-o", plan+".all")
	if all, err := org.LoadPlan(plan + ".all"); code != 0 || err != nil || len(all.Repos) != 5 {
		t.Errorf("with archived and forks: exit %d, %v", code, err)
	}
	pb, _ := os.ReadFile(plan)
	f.noLeak(t, "plan", string(pb))

	// A wrong token: the error says the status, not the token or body.
	_, e, code = f.run(t, f.dir, []string{"GITHUB_TOKEN=nope", "GITHUB_API_URL=" + api.URL}, "org", "plan", "--github", "acme", "-o", plan+".x")
	if code != 2 || !strings.Contains(e, "HTTP 401") || strings.Contains(e, "Bad credentials") {
		t.Errorf("bad token: exit %d, %q", code, e)
	}

	// Both shards, cloning with GITHUB_TOKEN (PRIVSCAN_GIT_TOKEN unset).
	out := filepath.Join(f.dir, "out")
	for i := range 2 {
		if _, e, code := f.run(t, f.dir, []string{"GITHUB_TOKEN=" + gitToken, "PRIVSCAN_GIT_TOKEN="}, "org", "scan", "--plan", plan, "--shard", fmt.Sprint(i), "--out", out); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, e)
		}
	}
	m, err := org.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if d := m.Units[n]; d == nil || d.Status != org.StatusDone {
			t.Errorf("%s not done: %+v", n, d)
		}
	}
	f.noLeakTree(t, out)
}

// gitlabAPI is a stand-in for the GitLab REST API v4 on 127.0.0.1: GET
// /api/v4/groups/{url-encoded path}/projects, two projects a page with
// X-Next-Page headers, requiring the token in Private-Token and
// include_subgroups=true. projects are the API's project objects.
func gitlabAPI(t *testing.T, group, token string, projects []map[string]any) *httptest.Server {
	t.Helper()
	const perPage = 2
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Private-Token") != token {
			http.Error(w, `{"message":"401 Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		if r.URL.EscapedPath() != "/api/v4/groups/"+url.PathEscape(group)+"/projects" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if q.Get("include_subgroups") != "true" {
			http.Error(w, `{"message":"want include_subgroups"}`, http.StatusBadRequest)
			return
		}
		rows := projects
		if q.Get("archived") == "false" {
			rows = nil
			for _, p := range projects {
				if p["archived"] != true {
					rows = append(rows, p)
				}
			}
		}
		page, _ := strconv.Atoi(q.Get("page"))
		page = max(page, 1)
		lo, hi := (page-1)*perPage, min(page*perPage, len(rows))
		if hi < len(rows) {
			w.Header().Set("X-Next-Page", fmt.Sprint(page+1))
		}
		w.Header().Set("X-Page", fmt.Sprint(page))
		w.Header().Set("X-Per-Page", fmt.Sprint(perPage))
		w.Header().Set("Content-Type", "application/json")
		body := []map[string]any{}
		if lo < len(rows) {
			body = rows[lo:hi]
		}
		json.NewEncoder(w).Encode(body)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestGitLabPlanAndScan: the plan lists a group and its subgroups page by
// page, skips archived projects and forks unless asked, never writes the
// token, and a shard clones over HTTP with GITLAB_TOKEN.
func TestGitLabPlanAndScan(t *testing.T) {
	f := newOrg(t, 0)
	serve := filepath.Join(f.dir, "served")
	var rows []map[string]any
	for i := range 5 {
		ns := "acme/platform"
		if i%2 == 1 {
			ns = "acme/platform/tools" // a subgroup's project
		}
		name := fmt.Sprintf("l%d", i)
		work := filepath.Join(f.dir, "work", name)
		makeRepo(t, work, i)
		gitCmd(t, f.dir, "clone", "-q", "--bare", work, filepath.Join(serve, ns, name+".git"))
		p := map[string]any{
			"id":                  100 + i,
			"path_with_namespace": ns + "/" + name,
			"http_url_to_repo":    f.http.URL + "/" + ns + "/" + name + ".git",
			"archived":            i == 3,
		}
		if i == 4 {
			p["forked_from_project"] = map[string]any{"id": 7}
		}
		rows = append(rows, p)
	}
	api := gitlabAPI(t, "acme/platform", gitToken, rows)
	env := []string{"GITLAB_TOKEN=" + gitToken, "GITLAB_API_URL=" + api.URL + "/api/v4", "PRIVSCAN_GIT_TOKEN="}
	plan := filepath.Join(f.dir, "plan.json")
	_, e, code := f.run(t, f.dir, env, "org", "plan", "--gitlab", "acme/platform", "--shards", "2", "-o", plan)
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, e)
	}
	p, err := org.LoadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range p.Repos {
		names = append(names, r.Name)
		if r.Host != "gitlab" {
			t.Errorf("%s: host %q", r.Name, r.Host)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "acme/platform/l0 acme/platform/l2 acme/platform/tools/l1" {
		t.Errorf("listed %v (archived and fork should be skipped)", names)
	}
	_, _, code = f.run(t, f.dir, env, "org", "plan", "--gitlab", "acme/platform", "--include-archived", "--include-forks", "-o", plan+".all")
	if all, err := org.LoadPlan(plan + ".all"); code != 0 || err != nil || len(all.Repos) != 5 {
		t.Errorf("with archived and forks: exit %d, %v", code, err)
	}
	pb, _ := os.ReadFile(plan)
	f.noLeak(t, "plan", string(pb))

	// A wrong token: the error says the status, not the token or body.
	_, e, code = f.run(t, f.dir, []string{"GITLAB_TOKEN=" + wrongToken, "GITLAB_API_URL=" + api.URL + "/api/v4"}, "org", "plan", "--gitlab", "acme/platform", "-o", plan+".x")
	if code != 2 || !strings.Contains(e, "HTTP 401") || strings.Contains(e, "Unauthorized") || strings.Contains(e, wrongToken) {
		t.Errorf("bad token: exit %d, %q", code, e)
	}

	// Both shards, cloning with GITLAB_TOKEN (PRIVSCAN_GIT_TOKEN unset).
	out := filepath.Join(f.dir, "out")
	for i := range 2 {
		if _, e, code := f.run(t, f.dir, env, "org", "scan", "--plan", plan, "--shard", fmt.Sprint(i), "--out", out); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, e)
		}
	}
	m, err := org.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if d := m.Units[n]; d == nil || d.Status != org.StatusDone {
			t.Errorf("%s not done: %+v", n, d)
		}
	}
	f.noLeakTree(t, out)
}
