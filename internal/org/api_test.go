package org_test

import (
	"encoding/json"
	"fmt"
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

// apiPage writes page ("page" query parameter, from 1) of rows, two a
// page, as JSON; when more follow, it calls next with the next page.
func apiPage(w http.ResponseWriter, r *http.Request, rows []map[string]any, next func(page int)) {
	const perPage = 2
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	lo, hi := (page-1)*perPage, min(page*perPage, len(rows))
	if hi < len(rows) {
		next(page + 1)
	}
	w.Header().Set("Content-Type", "application/json")
	body := []map[string]any{}
	if lo < len(rows) {
		body = rows[lo:hi]
	}
	json.NewEncoder(w).Encode(body)
}

// githubAPI is a stand-in for the GitHub REST API on 127.0.0.1: GET
// /orgs/{org}/repos with Link headers, requiring the token.
func githubAPI(t *testing.T, orgName, token string, repos []map[string]any) *httptest.Server {
	t.Helper()
	return serveLocal(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/orgs/"+orgName+"/repos" {
			http.NotFound(w, r)
			return
		}
		apiPage(w, r, repos, func(page int) {
			next := *r.URL
			q := next.Query()
			q.Set("page", fmt.Sprint(page))
			next.RawQuery = q.Encode()
			w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, next.RequestURI()))
		})
	})
}

// gitlabAPI is a stand-in for the GitLab REST API v4 on 127.0.0.1: GET
// /api/v4/groups/{url-encoded path}/projects with X-Next-Page headers,
// requiring the token in Private-Token and include_subgroups=true, and
// honouring archived=false.
func gitlabAPI(t *testing.T, group, token string, projects []map[string]any) *httptest.Server {
	t.Helper()
	return serveLocal(t, func(w http.ResponseWriter, r *http.Request) {
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
		apiPage(w, r, rows, func(page int) { w.Header().Set("X-Next-Page", fmt.Sprint(page)) })
	})
}

// TestAPIPlanAndScan: a plan lists a GitHub organisation or a GitLab group
// (its subgroups' projects included) page by page, skips archived
// repositories and forks unless asked, never writes the token, says only
// the status of a refused token, and a shard clones over HTTP with the
// API's token (PRIVSCAN_GIT_TOKEN unset).
func TestAPIPlanAndScan(t *testing.T) {
	tests := []struct {
		host, flag, owner string
		// subgroup is where odd repositories live (GitLab).
		subgroup string
		refused  string // the refusing body's words, never echoed
		serve    func(t *testing.T, rows []map[string]any) string
		row      func(name, path, cloneURL string, archived, fork bool, size int) map[string]any
		env      func(api, token string) []string
	}{
		{
			host: "github", flag: "--github", owner: "acme", refused: "Bad credentials",
			serve: func(t *testing.T, rows []map[string]any) string { return githubAPI(t, "acme", gitToken, rows).URL },
			row: func(name, path, cloneURL string, archived, fork bool, size int) map[string]any {
				return map[string]any{"full_name": path, "clone_url": cloneURL, "size": size, "archived": archived, "fork": fork}
			},
			env: func(api, token string) []string {
				return []string{"GITHUB_TOKEN=" + token, "GITHUB_API_URL=" + api, "PRIVSCAN_GIT_TOKEN="}
			},
		},
		{
			host: "gitlab", flag: "--gitlab", owner: "acme/platform", subgroup: "tools", refused: "Unauthorized",
			serve: func(t *testing.T, rows []map[string]any) string {
				return gitlabAPI(t, "acme/platform", gitToken, rows).URL + "/api/v4"
			},
			row: func(name, path, cloneURL string, archived, fork bool, size int) map[string]any {
				p := map[string]any{"id": size, "path_with_namespace": path, "http_url_to_repo": cloneURL, "archived": archived}
				if fork {
					p["forked_from_project"] = map[string]any{"id": 7}
				}
				return p
			},
			env: func(api, token string) []string {
				return []string{"GITLAB_TOKEN=" + token, "GITLAB_API_URL=" + api, "PRIVSCAN_GIT_TOKEN="}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			f := newOrg(t, 0)
			serve := filepath.Join(f.dir, "served")
			var rows []map[string]any
			var want []string
			for i := range 5 {
				ns := tc.owner
				if i%2 == 1 && tc.subgroup != "" {
					ns += "/" + tc.subgroup
				}
				name := fmt.Sprintf("x%d", i)
				work := filepath.Join(f.dir, "work", name)
				makeRepo(t, work, i)
				gitCmd(t, f.dir, "clone", "-q", "--bare", work, filepath.Join(serve, ns, name+".git"))
				archived, fork := i == 3, i == 4
				rows = append(rows, tc.row(name, ns+"/"+name, f.http.URL+"/"+ns+"/"+name+".git", archived, fork, 100*(i+1)))
				if !archived && !fork {
					want = append(want, ns+"/"+name)
				}
			}
			api := tc.serve(t, rows)
			env := tc.env(api, gitToken)
			plan := filepath.Join(f.dir, "plan.json")
			_, e, code := f.run(t, f.dir, env, "org", "plan", tc.flag, tc.owner, "--shards", "2", "-o", plan)
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
				if r.Host != tc.host {
					t.Errorf("%s: host %q", r.Name, r.Host)
				}
			}
			sort.Strings(names)
			sort.Strings(want)
			if strings.Join(names, " ") != strings.Join(want, " ") {
				t.Errorf("listed %v, want %v (archived and fork skipped)", names, want)
			}
			_, _, code = f.run(t, f.dir, env, "org", "plan", tc.flag, tc.owner, "--include-archived", "--include-forks", "-o", plan+".all")
			if all, err := org.LoadPlan(plan + ".all"); code != 0 || err != nil || len(all.Repos) != 5 {
				t.Errorf("with archived and forks: exit %d, %v", code, err)
			}
			pb, _ := os.ReadFile(plan)
			f.noLeak(t, "plan", string(pb))

			// A wrong token: the error says the status, not the token or body.
			_, e, code = f.run(t, f.dir, tc.env(api, wrongToken), "org", "plan", tc.flag, tc.owner, "-o", plan+".x")
			if code != 2 || !strings.Contains(e, "HTTP 401") || strings.Contains(e, tc.refused) {
				t.Errorf("bad token: exit %d, %q", code, e)
			}

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
			for _, n := range want {
				if d := m.Units[n]; d == nil || d.Status != org.StatusDone {
					t.Errorf("%s not done: %+v", n, d)
				}
			}
			f.noLeakTree(t, out)
		})
	}
}
