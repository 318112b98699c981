package org_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
