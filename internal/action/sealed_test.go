package action_test

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/action"
	"github.com/privscan/privscan/internal/sealtest"
)

func sealed(t *testing.T, md string, key []byte) string {
	t.Helper()
	return string(sealtest.Seal(t, md, key))
}

// TestSealedCatalogFromBase: a sealed catalog committed to the repository
// (catalog-file, seal-key) judges pull requests; a pull request that
// empties it, or replaces it with a catalog sealed under the same key that
// finds nothing, is still judged by the base's catalog and reported as a
// policy change.
func TestSealedCatalogFromBase(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{0x77}, catalog.SealKeySize)
	good := sealed(t, testCatalog, key)
	harmless := sealed(t, "## PER-001\n- category: person\n\n```values\nNobody Atall\n```\n", key)
	leak := "a\nb\ncontact: Jane Doe\n"
	attacks := []struct {
		name  string
		files []string
		moved bool // the catalog is unchanged: no policy change
	}{
		{"leak only", []string{"shared.txt", leak}, true},
		{"emptied", []string{"shared.txt", leak, "privacy/catalog.sealed", ""}, false},
		{"swapped", []string{"shared.txt", leak, "privacy/catalog.sealed", harmless}, false},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, t.TempDir())
			base := r.commit("initial", "shared.txt", "a\nb\n", "privacy/catalog.sealed", good)
			r.git("checkout", "-q", "-b", "feature")
			head := r.commit("the change", a.files...)
			j := newJob(t, r.dir, "pull_request", pullRequest(3, base, head, "Tidy", str("Refactoring only."), false))
			j.env[action.EnvCatalog] = ""
			j.env[action.EnvCatalogFile] = "privacy/catalog.sealed"
			j.env[action.EnvSealKey] = hex.EncodeToString(key)
			res := j.run()
			res.checkNoValues(t)
			if res.outputs["exit-code"] != "1" {
				t.Fatalf("outputs %v, want exit-code 1 (the base's catalog finds the leak)\nstderr: %s", res.outputs, res.stderr)
			}
			log := res.checkSARIF(t)
			equalSets(t, "results", log.wheres(), []string{"catalog/PER-001 diff shared.txt:3"})
			changed := strings.Contains(res.summary, "Policy changed")
			if changed == a.moved {
				t.Errorf("policy changed reported: %v, want %v\n%s", changed, !a.moved, res.summary)
			}
			// Without the key, the scan fails naming the code.
			j2 := newJob(t, r.dir, "pull_request", pullRequest(3, base, head, "Tidy", str("Refactoring only."), false))
			j2.env[action.EnvCatalog] = ""
			j2.env[action.EnvCatalogFile] = "privacy/catalog.sealed"
			if again := j2.run(); again.code != 2 || !strings.Contains(again.stderr, "seal_key_missing") {
				t.Errorf("no key: exit %d, stderr %s", again.code, again.stderr)
			}
		})
	}
}
