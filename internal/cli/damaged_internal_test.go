package cli

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/internal/sealtest"
	"github.com/privscan/privscan/scanner"
)

// damagedEnv is an environment whose catalog is a sealed file of 20001
// person names, Jane Doe among them, with a byte flipped in every page of
// its literal hash table but the last: a lookup of Jane Doe meets a
// damaged page (a page reads as empty; the catalog's IntegrityErr says
// so).
func damagedEnv(t *testing.T) *Env {
	t.Helper()
	data, key := sealtest.People(t)
	sealtest.DamageLiteralTable(data)
	dir := t.TempDir()
	p := filepath.Join(dir, "people.sealed")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PRIVSCAN_CATALOG_FILE": p, "PRIVSCAN_SEAL_KEY": hex.EncodeToString(key), "HOME": dir}
	return &Env{Getenv: func(k string) string { return env[k] }, Dir: dir}
}

// TestMaskerFailsClosed: -v's masker stops the scan at a damaged page of
// a sealed catalog rather than show a context line whose value the page
// hid.
func TestMaskerFailsClosed(t *testing.T) {
	m, err := newMasker(damagedEnv(t), "")
	if err != nil {
		t.Fatal(err)
	}
	src := sourceFunc(func(ctx context.Context, yield func(*scanner.Fragment) error) error {
		return yield(&scanner.Fragment{Kind: finding.KindFile, Path: "a.txt",
			Lines: []scanner.Line{{Number: 1, Text: []byte("owner Jane Doe <someone.real@gmail.com>")}}})
	})
	yielded := false
	err = m.wrap(src).Fragments(context.Background(), func(*scanner.Fragment) error { yielded = true; return nil })
	if !errors.Is(err, broker.ErrCatalogInvalid) || yielded {
		t.Fatalf("err %v, yielded %v: want catalog_invalid before the fragment is shown", err, yielded)
	}
}

// TestScreenFailsClosed: the error-echo screen does not call a token
// clean when the lookup met a damaged page.
func TestScreenFailsClosed(t *testing.T) {
	s := newScreen(damagedEnv(t), nil)
	if s.clean(context.Background(), "Jane Doe") {
		t.Fatal("a catalogued name on a damaged page was screened as clean (it would be echoed)")
	}
}
