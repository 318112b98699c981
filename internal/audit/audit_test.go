package audit

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestPath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/privscan/audit.jsonl"},
		{map[string]string{"XDG_STATE_HOME": "rel", "HOME": "/h"}, "/h/.local/state/privscan/audit.jsonl"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/privscan/audit.jsonl"},
		{map[string]string{}, ""},
	} {
		if got := Path(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

// TestAppendConcurrent: records appended by many writers stay whole
// lines, in a file of mode 0600 in a folder of mode 0700.
func TestAppendConcurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", "privscan", "audit.jsonl")
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Append(p, map[string]any{"n": i, "pad": strings.Repeat("x", 3000)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"n":`) || !strings.HasSuffix(l, `"}`) {
			t.Fatalf("a torn line: %.60q", l)
		}
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if fi, _ := os.Stat(filepath.Dir(p)); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", fi.Mode())
	}
	if err := Append("", 1); err == nil {
		t.Error("no error without a location")
	}
}
