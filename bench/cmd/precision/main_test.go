package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSet(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	if err := os.WriteFile(good, []byte("# comment\n\nowner/name A..B Go library\nother/repo HEAD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := readSet("tuning", good, "/c")
	if err != nil {
		t.Fatal(err)
	}
	want := []corpus{{dir: "/c/tuning/name", rng: "A..B", name: "owner/name", set: "tuning"}, {dir: "/c/tuning/repo", rng: "HEAD", name: "other/repo", set: "tuning"}}
	if len(cs) != len(want) || cs[0] != want[0] || cs[1] != want[1] {
		t.Errorf("readSet = %+v, want %+v", cs, want)
	}
	same := filepath.Join(dir, "same.txt")
	if err := os.WriteFile(same, []byte("urfave/cli A..B\nowner/name HEAD\nhttpie/cli C\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err = readSet("tuning", same, "/c")
	if err != nil {
		t.Fatal(err)
	}
	want = []corpus{
		{dir: "/c/tuning/urfave+cli", rng: "A..B", name: "urfave/cli", set: "tuning"},
		{dir: "/c/tuning/name", rng: "HEAD", name: "owner/name", set: "tuning"},
		{dir: "/c/tuning/httpie+cli", rng: "C", name: "httpie/cli", set: "tuning"},
	}
	if len(cs) != len(want) || cs[0] != want[0] || cs[1] != want[1] || cs[2] != want[2] {
		t.Errorf("readSet (two named cli) = %+v, want %+v", cs, want)
	}
	for _, bad := range []string{"name A..B\n", "owner/name\n", "a/b/c A..B\n", "/name A\n", "# only a comment\n", "owner/name A\nowner/name B\n"} {
		f := filepath.Join(dir, "bad.txt")
		if err := os.WriteFile(f, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readSet("s", f, "/c"); err == nil {
			t.Errorf("readSet(%q) succeeded", bad)
		}
	}
}

func TestFamilyOf(t *testing.T) {
	for shape, want := range map[string]string{
		"trailer": "trailer", "credit": "credit", "credit-changelog-entry": "credit", "attribution": "credit",
		"url-userinfo": "url", "message-id": "url", "mailto": "mailto", "placeholder": "other", "": "other",
	} {
		if got := familyOf(shape); got != want {
			t.Errorf("familyOf(%q) = %q, want %q", shape, got, want)
		}
	}
}

func TestPeopleTrailer(t *testing.T) {
	for line, want := range map[string]bool{
		"Signed-off-by: A <a@b.io>":                true,
		"Docker-DCO-1.1-Signed-off-by: A <a@b.io>": true,
		"x, Co-developed-by: A <a@b.io> (#1)":      true,
		"Stable-Cc: A <a@b.io>":                    true,
		"Paired-with: A <a@b.io>":                  true,
		"Forthwith: A <a@b.io>":                    false,
		"Co-authored by: a@b.io":                   true,
		"Reply-To: a@b.io":                         false,
		"Contact a@b.io":                           false,
	} {
		if got := peopleTrailer.MatchString(line); got != want {
			t.Errorf("peopleTrailer(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestReadLabels(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]label
		wantErr    bool
	}{
		{"plain", "# c\n\nabc a/b.go:3:4 pii/email FP some shape\n", map[string]label{locKey("abc", "a/b.go", 3, 4, "pii/email"): {fp: true, shape: "some shape"}}, false},
		{"space in path", "abc t/Unit tests/x:20:19 secret/jwt TP token\n", map[string]label{locKey("abc", "t/Unit tests/x", 20, 19, "secret/jwt"): {shape: "token"}}, false},
		{"no shape", "abc -:1:2 pii/email TP\n", map[string]label{locKey("abc", "-", 1, 2, "pii/email"): {}}, false},
		{"no verdict", "abc a.go:1:2 pii/email maybe\n", nil, true},
		{"no column", "abc a.go:1 pii/email TP\n", nil, true},
		{"too short", "abc a.go:1:2\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "labels.txt")
			if err := os.WriteFile(name, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readLabels(name)
			if (err != nil) != tt.wantErr {
				t.Fatalf("readLabels err = %v, want error %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("readLabels = %+v, want %+v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("readLabels[%q] = %+v, want %+v", k, got[k], v)
				}
			}
		})
	}
}

func TestKeptPeople(t *testing.T) {
	for shape, want := range map[string]bool{
		"fictional-fixture": true, "fictional-phone-fixture": true, "placeholder": true, "placeholder-punycode": true,
		"credit-changelog-entry": false, "contact-in-docs": false, "trailer-key-paired-with": false, "": false,
		"url-userinfo": false, "role-mailbox": false,
	} {
		if got := keptPeople(shape); got != want {
			t.Errorf("keptPeople(%q) = %v, want %v", shape, got, want)
		}
	}
}

// TestPrintFamiliesKinds checks that the family table counts the two kinds
// of false positive apart: 3 FPs in 10 MB, 2 of them made-up people, leave
// 1 grammatical FP per 10 MB; the total row adds both sets.
func TestPrintFamiliesKinds(t *testing.T) {
	rows := []summary{
		{name: "a", mb: 10, trailers: 1, people: 2, families: map[string]int{"other": 2, "credit": 1},
			groups: map[string]*group{"pii": {warnUp: 4, reviewed: 4, fps: 3}}},
		{name: "b", mb: 10, families: map[string]int{"url": 1},
			groups: map[string]*group{"pii": {warnUp: 1, reviewed: 1, fps: 1}}},
	}
	var b strings.Builder
	printFamilies(&b, rows)
	for _, want := range []string{
		"| FPs | FPs per 10 MB | of them fictional or placeholder | grammatical FPs per 10 MB | trailer findings |",
		"| a | 10.0 | 4 | 4 | 0 | 1 | 0 | 0 | 2 | 3 | 3.00 | 2 | 1.00 | 1 |",
		"| b | 10.0 | 1 | 1 | 0 | 0 | 1 | 0 | 0 | 1 | 1.00 | 0 | 1.00 | 0 |",
		"| all | 20.0 | 5 | 5 | 0 | 1 | 1 | 0 | 2 | 4 | 2.00 | 2 | 1.00 | 1 |",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("family table lacks %q:\n%s", want, b.String())
		}
	}
}
