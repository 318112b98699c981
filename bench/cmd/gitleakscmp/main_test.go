package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	gl := `[
 {"Commit":"c1","File":"a.go","StartLine":3,"RuleID":"github-pat","Match":"x","Secret":"x","Tags":[]},
 {"Commit":"c1","File":"run.sh","StartLine":10,"RuleID":"curl-auth-header","Match":"curl -H\n 'Authorization: Bearer s3cr3tvalue'","Secret":"s3cr3tvalue","Tags":[]},
 {"Commit":"c2","File":"b.txt","StartLine":7,"RuleID":"aws-access-token","Match":"k\nAKIA","Secret":"AKIA","Tags":["decoded:base64","decode-depth:2"]},
 {"Commit":"c3","File":"c.go","StartLine":1,"RuleID":"generic-api-key","Match":"y","Secret":"y","Tags":[]}
]`
	ps := `{"version":1,"findings":[
 {"ruleId":"secret/github-pat","source":"secret","kind":"diff","path":"a.go","commit":"c1","line":3},
 {"ruleId":"secret/curl-auth-header","source":"secret","kind":"diff","path":"run.sh","commit":"c1","line":11},
 {"ruleId":"secret/aws-access-token","source":"secret","kind":"diff","path":"b.txt","commit":"c2","line":7},
 {"ruleId":"secret/github-pat","source":"secret","kind":"commit-message","path":"","commit":"c1","line":1},
 {"ruleId":"pii/email","source":"pii","kind":"diff","path":"a.go","commit":"c1","line":5},
 {"ruleId":"secret/slack-bot-token","source":"secret","kind":"diff","path":"d.go","commit":"c4","line":2}
],"summary":{}}`
	glPath, psPath := filepath.Join(dir, "gl.json"), filepath.Join(dir, "ps.json")
	if err := os.WriteFile(glPath, []byte(gl), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(psPath, []byte(ps), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(&out, glPath, psPath, -1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"gitleaks: 4 keys (1 of decoded text)",
		"privscan: 4 keys",
		"both: 3 (1 of decoded text)",
		"only gitleaks: 1 (0 of decoded text)",
		"only privscan: 1",
		"c3 c.go:1 generic-api-key",
		"c4 d.go:2 slack-bot-token",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, secret := range []string{"s3cr3tvalue", "AKIA"} {
		if strings.Contains(out.String(), secret) {
			t.Errorf("output holds a secret")
		}
	}
}
