package engine

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/privscan/privscan/catalog"
)

// TestSealedCatalogCache: the engine's catalog cache (which the MCP server
// uses) keeps a sealed catalog loaded while it is unchanged and loads it
// again when it is replaced (renamed over, as privscan catalog seal does);
// a matcher still in use keeps finding after its file was replaced and
// the garbage collector ran.
func TestSealedCatalogCache(t *testing.T) {
	dir := t.TempDir()
	key := bytes.Repeat([]byte{9}, catalog.SealKeySize)
	p := filepath.Join(dir, "catalog.sealed")
	seal := func(md string) {
		c, err := catalog.Parse([]byte(md))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := catalog.Seal(&b, c, key, nil); err != nil {
			t.Fatal(err)
		}
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
	seal("## PER\n- category: person\n\n```values\nJane Doe\n```\n")
	env := map[string]string{"PRIVSCAN_CATALOG_FILE": p, "PRIVSCAN_SEAL_KEY": hex.EncodeToString(key), "HOME": dir}
	e := New(Config{Getenv: func(k string) string { return env[k] }, NoSecrets: true})
	first, info, err := e.Catalog("")
	if err != nil || !info.Parts[0].Sealed {
		t.Fatalf("%v %+v", err, info)
	}
	if again, _, _ := e.Catalog(""); again != first {
		t.Error("unchanged sealed catalog loaded again")
	}
	// A new file (another size and inode; the modification time may not
	// change within the clock's resolution).
	seal("## PER\n- category: person\n\n```values\nJane Doe\nProject Heron Person\n```\n\n## X\n- category: codename\n\n```values\nBluebird Rising\n```\n")
	second, _, err := e.Catalog("")
	if err != nil || second == first || len(second.Rules()) != 2 {
		t.Fatalf("replaced sealed catalog: same=%v err=%v", second == first, err)
	}
	runtime.GC()
	runtime.GC()
	if len(first.Find([]byte("hello Jane Doe"), nil)) != 1 || len(second.Find([]byte("Bluebird Rising"), nil)) != 1 {
		t.Fatal("a loaded sealed catalog stopped finding")
	}
}
