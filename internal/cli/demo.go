package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// demoCatalogText is the built-in example catalog. Its values are made up.
func demoCatalogText() string {
	return "# Demo catalog (made-up values)\n\n" +
		"- fingerprint-key: 0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\n\n" +
		"## CUSTOMERS\n- category: person\n- severity: error\n- description: Customer contact names\n- match: identifier\n\n" +
		"```values\nAda Quillfeather\nJürgen Blaumeise\n```\n\n" +
		"## HOSTS\n- category: internal-host\n- description: Internal hostnames\n\n" +
		"```values\nledger-db-07.corp.internal\n```\n\n" +
		"## CODENAMES\n- category: codename\n- severity: warning\n- description: Unreleased project codenames\n\n" +
		"```values\nBlue Heron\n```\n"
}

func runDemo(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprintln(env.Stdout, helpFor("demo", nil))
			return nil
		}
		return usagef("demo takes no arguments")
	}
	dir, err := os.MkdirTemp("", "privscan-demo-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := buildDemoRepo(dir); err != nil {
		return fmt.Errorf("building the demo repository: %w", err)
	}
	fmt.Fprintf(env.Stdout, "privscan demo: a throw-away repository with two commits; the second adds\n"+
		"a fixture that leaks catalogued names, a host, an email address and a token.\n"+
		"Running: privscan diff HEAD~1 (catalog from PRIVSCAN_CATALOG)\n\n")
	demoEnv := *env
	demoEnv.Dir = dir
	demoEnv.Args = []string{"diff", "HEAD~1"}
	demoEnv.Getenv = func(k string) string {
		if k == "PRIVSCAN_CATALOG" {
			return demoCatalogText()
		}
		if k == "PRIVSCAN_CATALOG_FILE" {
			return ""
		}
		return env.Getenv(k)
	}
	err = Run(ctx, &demoEnv)
	if errors.Is(err, ErrFindings) {
		fmt.Fprintln(env.Stdout, "\n(exit code 1 outside the demo: findings at or above --fail-on warning.)\nTry --format json, sarif or markdown, and see README.md to set up your own catalog.")
		return nil
	}
	return err
}

func buildDemoRepo(dir string) error {
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	sig := &object.Signature{Name: "Demo", Email: "demo@example.com", When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	commit := func(msg string, files map[string]string) error {
		for name, content := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				return err
			}
			if _, err := wt.Add(name); err != nil {
				return err
			}
		}
		_, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
		return err
	}
	if err := commit("Add user service", map[string]string{
		"service/users.go": "package service\n\n// Users lists accounts.\nfunc Users() []string { return nil }\n",
	}); err != nil {
		return err
	}
	// The token is random, so no secret-looking string lives in privscan's
	// own sources.
	token := "ghp_" + randomAlnum(36)
	return commit("Add fixtures for the Blue Heron migration", map[string]string{
		"service/users_test.go": "package service\n\nimport \"testing\"\n\n" +
			"var fixture = map[string]string{\n" +
			"\t\"name\":  \"Ada Quillfeather\",\n" +
			"\t\"email\": \"ada.q@quillfeather-family.net\",\n" +
			"\t\"db\":    \"postgres://ledger-db-07.corp.internal:5432/ledger\",\n" +
			"}\n\n" +
			"const apiToken = \"" + token + "\"\n\n" +
			"func TestJurgenBlaumeiseAccount(t *testing.T) { _ = newJuergenClient() } // not matched: different spelling\n\n" +
			"func newJuergenClient() any { return NewJürgenBlaumeiseClient() }\n\n" +
			"func NewJürgenBlaumeiseClient() any { return nil }\n",
	})
}

func randomAlnum(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = chars[int(b[i])%len(chars)]
	}
	return string(b)
}
