package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/sealtest"
	"github.com/privscan/privscan/scanner"
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
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, sealtest.Seal(t, md, key), 0o644); err != nil {
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

// sealedPeople is sealtest.People; damagedPeople the same file with its
// literal table damaged (sealtest.DamageLiteralTable).
func sealedPeople(t *testing.T) (data, key []byte) { return sealtest.People(t) }

func damagedPeople(t *testing.T) (data, key []byte) {
	data, key = sealtest.People(t)
	sealtest.DamageLiteralTable(data)
	return data, key
}

// TestDetectorSetDamagedFailsClosed: the full detector set (the guard,
// read_redacted, the -v masker, the error-echo screen) fails with
// catalog_invalid after reading a damaged page, both when it scans and
// when it masks: a value on that page must not be treated as absent.
func TestDetectorSetDamagedFailsClosed(t *testing.T) {
	data, key := damagedPeople(t)
	m, _, err := catalog.LoadSealed(data, key)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := newEngine(t).DetectorSet(m)
	if err != nil {
		t.Fatal(err)
	}
	var got collected
	if _, err := ds.RunText(context.Background(), "hi Jane Doe", "", "", &got); !errors.Is(err, broker.ErrCatalogInvalid) {
		t.Fatalf("RunText: %v, want catalog_invalid", err)
	}
	if err := ds.Err(); !errors.Is(err, broker.ErrCatalogInvalid) {
		t.Fatalf("Err after a damaged read: %v", err)
	}
	// A fresh load: the masker's path (Redactor.Mask, then Err).
	m, _, err = catalog.LoadSealed(data, key)
	if err != nil {
		t.Fatal(err)
	}
	ds, err = newEngine(t).DetectorSet(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Err(); err != nil {
		t.Fatalf("Err before any read: %v", err)
	}
	f := &scanner.Fragment{Kind: finding.KindText, Lines: []scanner.Line{{Number: 1, Text: []byte("owner Jane Doe")}}}
	if _, err := ds.Redactor().Mask(f); err != nil {
		t.Fatal(err)
	}
	if err := ds.Err(); !errors.Is(err, broker.ErrCatalogInvalid) {
		t.Fatalf("Err after masking a damaged page: %v", err)
	}
	// The intact catalog finds the value.
	good, key := sealedPeople(t)
	m, _, err = catalog.LoadSealed(good, key)
	if err != nil {
		t.Fatal(err)
	}
	ds, _ = newEngine(t).DetectorSet(m)
	got = collected{}
	if _, err := ds.RunText(context.Background(), "hi Jane Doe", "", "", &got); err != nil || len(got.findings) != 1 {
		t.Fatalf("intact: %v, %d findings", err, len(got.findings))
	}
}

// TestSealedDamagedFailsScan: a sealed catalog whose table pages were
// modified loads (its pages are checked when a lookup reads them), finds
// nothing from the damaged pages, and the scan that read them fails as
// catalog_invalid.
func TestSealedDamagedFailsScan(t *testing.T) {
	data, key := damagedPeople(t)
	m, _, err := catalog.LoadSealed(data, key)
	if err != nil {
		t.Fatalf("a damaged table page is checked when read, not at load: %v", err)
	}
	var got collected
	_, err = newEngine(t).Scan(context.Background(), Request{Matcher: m, Target: Text(strings.NewReader("hi Jane Doe"), "", "")}, &got)
	if !errors.Is(err, broker.ErrCatalogInvalid) || Hint(err) == "" {
		t.Fatalf("err = %v, want catalog_invalid with a hint", err)
	}
	if got.where() != "" {
		t.Fatalf("findings %q from a damaged page", got.where())
	}
}

// TestSealedDamagedRedactor: redaction checks every page of a sealed
// catalog first (a value on a damaged page would pass through
// unredacted): a damaged one is catalog_invalid before any output.
func TestSealedDamagedRedactor(t *testing.T) {
	data, key := sealedPeople(t)
	m, _, err := catalog.LoadSealed(data, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newEngine(t).Redactor(Request{Matcher: m}); err != nil {
		t.Fatalf("intact: %v", err)
	}
	// The first byte of the first array (directory entry 0) is on a
	// page no load reads whole.
	e := data[binary.LittleEndian.Uint64(data[152:]):]
	if binary.LittleEndian.Uint64(e[16:]) == 0 {
		t.Fatal("the first array is empty")
	}
	data[binary.LittleEndian.Uint64(e[8:])] ^= 1
	if m, _, err = catalog.LoadSealed(data, key); err != nil {
		t.Fatalf("a damaged table page is checked when read, not at load: %v", err)
	}
	if _, err := newEngine(t).Redactor(Request{Matcher: m}); !errors.Is(err, broker.ErrCatalogInvalid) {
		t.Fatalf("damaged: %v", err)
	}
}

// TestSealedFileChangedUnderServer: a sealed catalog file the engine (as
// the MCP server runs it) has loaded and that is then truncated or zeroed
// in place makes the next scan fail with catalog_invalid: never a crash,
// never a scan that silently finds less.
func TestSealedFileChangedUnderServer(t *testing.T) {
	data, key := sealedPeople(t)
	for _, change := range []string{"truncated", "zeroed"} {
		t.Run(change, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "people.sealed")
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"PRIVSCAN_CATALOG_FILE": p, "PRIVSCAN_SEAL_KEY": hex.EncodeToString(key), "HOME": dir}
			e := New(Config{Getenv: func(k string) string { return env[k] }, NoSecrets: true})
			scan := func() ([]finding.Finding, error) {
				var got collected
				_, err := e.Scan(context.Background(), Request{Target: Text(strings.NewReader("hi Jane Doe and Person Number123"), "", "")}, &got)
				return got.findings, err
			}
			if f, err := scan(); err != nil || len(f) != 2 {
				t.Fatalf("intact: %d findings, %v", len(f), err)
			}
			switch change {
			case "truncated":
				if err := os.Truncate(p, int64(len(data)/2)); err != nil {
					t.Fatal(err)
				}
			case "zeroed":
				w, err := os.OpenFile(p, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.WriteAt(make([]byte, len(data)), 0); err != nil {
					t.Fatal(err)
				}
				w.Close()
			}
			if f, err := scan(); !errors.Is(err, broker.ErrCatalogInvalid) {
				t.Fatalf("after the file was %s: %d findings, err %v; want catalog_invalid", change, len(f), err)
			}
		})
	}
}
