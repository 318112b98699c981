package org

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
)

func TestStripURL(t *testing.T) {
	tests := []struct {
		name, in, want string
		bad            bool
	}{
		{"https", "https://github.com/acme/app.git", "https://github.com/acme/app.git", false},
		{"https token", "https://x-access-token:s3cr3t-synthetic@github.com/acme/app.git", "https://github.com/acme/app.git", false},
		{"https user only", "https://someone@gitlab.example/acme/app.git", "https://gitlab.example/acme/app.git", false},
		{"query and fragment", "https://h.example/a.git?token=synthetic#frag", "https://h.example/a.git", false},
		{"ssh keeps user, drops password", "ssh://git:synthetic-pw@h.example/acme/app.git", "ssh://git@h.example/acme/app.git", false},
		{"scp-like", "git@github.com:acme/app.git", "git@github.com:acme/app.git", false},
		{"file", "file:///srv/git/app.git", "file:///srv/git/app.git", false},
		{"file with userinfo", "file://u:synthetic-pw@/srv/git/app.git", "file:///srv/git/app.git", false},
		{"file with host", "file://host/srv/app", "", true},
		{"no scheme, no colon", "just-a-name", "", true},
		{"unsupported scheme", "ftp://h.example/a.git", "", true},
		{"space", "https://h.example/a b.git", "", true},
		{"empty", "", "", true},
		{"no host", "https:///a.git", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := StripURL(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("accepted, gave %q", got)
				}
				if strings.Contains(err.Error(), "synthetic") || (tt.in != "" && strings.Contains(err.Error(), tt.in)) {
					t.Errorf("the error quotes the URL: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestNameFromURL(t *testing.T) {
	tests := map[string]string{
		"https://github.com/acme/app.git":   "acme/app",
		"git@github.com:acme/app.git":       "acme/app",
		"file:///srv/git/deep/tree/app.git": "tree/app",
		"https://h.example/a%20b/c.git":     "a_b/c",
		"file:///app":                       "app",
	}
	for in, want := range tests {
		if got := NameFromURL(in); got != want {
			t.Errorf("NameFromURL(%q) = %q, want %q", in, got, want)
		}
	}
	// Long segments are cut and keep a digest: the names stay valid and
	// apart.
	long := strings.Repeat("M", 600)
	a, b := NameFromURL("https://h.example/"+long+"/"+long+"1"), NameFromURL("https://h.example/"+long+"/"+long+"2")
	if a == b || checkName(a) != nil || checkName(b) != nil {
		t.Errorf("long names: %d and %d bytes, equal %v, valid %v %v", len(a), len(b), a == b, checkName(a), checkName(b))
	}
}

func TestNewPlanBalances(t *testing.T) {
	tests := []struct {
		name   string
		sizes  []int64
		shards int
		split  int64
		// wantLoads are the shards' loads, sorted as produced.
		wantMax int64
		units   int
	}{
		{"one shard", []int64{5, 3, 1}, 1, 0, 9, 3},
		{"greedy, largest first", []int64{8, 7, 6, 5, 4}, 2, 0, 17, 5},
		{"unknown sizes spread by count", []int64{0, 0, 0, 0}, 2, 0, 2, 4},
		{"a large history split", []int64{100, 10, 10}, 4, 30, 35, 2 + 4},
		{"more shards than repositories", []int64{3, 2}, 5, 0, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var repos []Repo
			for i, s := range tt.sizes {
				repos = append(repos, Repo{Name: string(rune('a'+i)) + "/r", URL: "https://h.example/" + string(rune('a'+i)) + "/r.git", Size: s})
			}
			p, err := NewPlan("file", repos, tt.shards, tt.split)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Units) != tt.units {
				t.Fatalf("%d units, want %d", len(p.Units), tt.units)
			}
			loads := make([]int64, p.Shards)
			for _, u := range p.Units {
				r, _ := p.Repo(u.Repo)
				w := max(r.Size, 1)
				if u.Parts > 1 {
					w = max(r.Size/int64(u.Parts), 1)
				}
				loads[u.Shard] += w
			}
			var hi int64
			for _, l := range loads {
				hi = max(hi, l)
			}
			if hi != tt.wantMax {
				t.Errorf("heaviest shard %d, want %d (loads %v)", hi, tt.wantMax, loads)
			}
			var buf bytes.Buffer
			if err := p.Write(&buf); err != nil {
				t.Fatal(err)
			}
			back, err := ReadPlan(&buf)
			if err != nil {
				t.Fatalf("the plan does not read back: %v", err)
			}
			if len(back.Units) != len(p.Units) {
				t.Error("units lost in the round trip")
			}
		})
	}
}

func TestNewPlanCapsShards(t *testing.T) {
	p, err := NewPlan("file", []Repo{{Name: "a", URL: "file:///a"}}, 1000, 0)
	if err != nil || p.Shards != MaxShards {
		t.Fatalf("shards %v, %v", p, err)
	}
}

func TestReadPlanRejects(t *testing.T) {
	good := `{"version":1,"source":"file","shards":2,"repos":[{"name":"a/b","url":"file:///x","size":1}],"units":[{"repo":"a/b","shard":1}]}`
	if _, err := ReadPlan(strings.NewReader(good)); err != nil {
		t.Fatalf("good plan: %v", err)
	}
	tests := map[string]string{
		"version":          strings.Replace(good, `"version":1`, `"version":9`, 1),
		"credentials":      strings.Replace(good, `file:///x`, `https://u:synthetic-pw@h.example/x`, 1),
		"shard range":      strings.Replace(good, `"shard":1`, `"shard":2`, 1),
		"unknown repo":     strings.Replace(good, `{"repo":"a/b"`, `{"repo":"c"`, 1),
		"path name":        strings.Replace(good, `"a/b"`, `"../b"`, 2),
		"unknown field":    strings.Replace(good, `"source"`, `"token":"synthetic-pw","source"`, 1),
		"zero shards":      strings.Replace(good, `"shards":2`, `"shards":0`, 1),
		"bad part":         strings.Replace(good, `"shard":1}`, `"shard":1,"part":3,"parts":2}`, 1),
		"not json":         `{"version":1,`,
		"duplicate unit":   strings.Replace(good, `"units":[{"repo":"a/b","shard":1}]`, `"units":[{"repo":"a/b","shard":1},{"repo":"a/b","shard":0}]`, 1),
		"negative size":    strings.Replace(good, `"size":1`, `"size":-1`, 1),
		"trailing garbage": good[:len(good)-1],
	}
	for name, doc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ReadPlan(strings.NewReader(doc))
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "synthetic") {
				t.Errorf("the error quotes the plan: %v", err)
			}
		})
	}
}

func TestParseRepos(t *testing.T) {
	in := "# comment\n\nhttps://u:synthetic-pw@h.example/acme/app.git 120\nfile:///srv/acme/app.git\ngit@h.example:other/tool.git\n"
	repos, err := ParseRepos(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Repo{
		{Name: "acme/app", URL: "https://h.example/acme/app.git", Size: 120},
		{Name: "acme/app-2", URL: "file:///srv/acme/app.git"},
		{Name: "other/tool", URL: "git@h.example:other/tool.git"},
	}
	if len(repos) != len(want) {
		t.Fatalf("%d repositories", len(repos))
	}
	for i := range want {
		if repos[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, repos[i], want[i])
		}
	}
	for name, bad := range map[string]string{
		"size":        "https://h.example/a.git lots\n",
		"three words": "https://h.example/a.git 1 2\n",
		"scheme":      "ftp://u:synthetic-pw@h.example/a.git\n",
	} {
		_, err := ParseRepos(strings.NewReader(bad))
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "synthetic") || strings.Contains(err.Error(), "h.example") {
			t.Errorf("%s: the error quotes the line: %v", name, err)
		}
	}
}

func FuzzReadPlan(f *testing.F) {
	f.Add([]byte(`{"version":1,"source":"file","shards":2,"repos":[{"name":"a/b","url":"file:///x","size":1}],"units":[{"repo":"a/b","shard":1,"part":0,"parts":2},{"repo":"a/b","shard":0,"part":1,"parts":2}]}`))
	f.Add([]byte(`{"version":1,"shards":1,"repos":[],"units":[]}`))
	f.Add([]byte(`{"version":1,"shards":1,"repos":[{"name":"x","url":"https://u:synthetic-pw@h/x"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadPlan(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "synthetic") {
				t.Fatalf("the error quotes the input: %v", err)
			}
			return
		}
		// A plan that reads holds credential-free URLs and names that
		// are safe file paths, and writes back to an equal plan.
		for _, r := range p.Repos {
			if c, err := StripURL(r.URL); err != nil || c != r.URL {
				t.Fatalf("a URL with credentials was accepted")
			}
			if checkName(r.Name) != nil {
				t.Fatalf("a bad name was accepted")
			}
		}
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPlan(&buf); err != nil {
			t.Fatalf("a plan does not read back: %v", err)
		}
	})
}

func FuzzParseRepos(f *testing.F) {
	f.Add("https://u:synthetic-pw@h.example/acme/app.git 120\n# c\nfile:///srv/a\n")
	f.Add("git@h:o/r.git\n\n")
	f.Add("ssh://git:synthetic-pw@h/o/r\n")
	f.Add("https://h.example/" + strings.Repeat("M", 600) + "/" + strings.Repeat("M", 600) + "80\nhttps://h.example/" + strings.Repeat("M", 600) + "/" + strings.Repeat("M", 600) + "81\n")
	f.Fuzz(func(t *testing.T, in string) {
		repos, err := ParseRepos(strings.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "synthetic") {
				t.Fatalf("the error quotes the input: %v", err)
			}
			return
		}
		names := map[string]bool{}
		for _, r := range repos {
			if u, err := url.Parse(r.URL); err == nil && strings.Contains(r.URL, "://") && u.User != nil {
				if _, has := u.User.Password(); has || u.Scheme != "ssh" {
					t.Fatalf("userinfo survived: %q", r.URL)
				}
			}
			if checkName(r.Name) != nil || names[r.Name] {
				t.Fatalf("bad or duplicate name %q", r.Name)
			}
			names[r.Name] = true
		}
		if len(repos) > 0 {
			if _, err := NewPlan("file", repos, 3, 0); err != nil {
				t.Fatalf("parsed repositories do not plan: %v", err)
			}
		}
	})
}

func FuzzManifest(f *testing.F) {
	f.Add([]byte(`{"version":1,"planned":["a/b"],"units":{"a/b":{"repo":"a/b","status":"done","tip":"abc","reports":[{"json":"reports/a/b/p0.0.json","sarif":"reports/a/b/p0.0.sarif","to":"abc"}]}}}`))
	f.Add([]byte(`{"version":1,"units":{"x":{"repo":"x","status":"failed","reason":"clone failed"}}}`))
	f.Add([]byte(`{"version":1,"units":{"x":{"repo":"x","reports":[{"json":"../../etc/passwd","sarif":"a"}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeManifest(b)
		if err != nil {
			return
		}
		for _, d := range m.Units {
			for _, r := range d.Reports {
				if !localPath(r.JSON) || !localPath(r.SARIF) {
					t.Fatalf("a report path outside the folder was accepted")
				}
			}
		}
	})
}
