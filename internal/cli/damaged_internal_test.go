package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/broker"
	"github.com/privscan/privscan/catalog"
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
	var md strings.Builder
	md.WriteString("## PER\n- category: person\n\n```values\nJane Doe\n")
	for i := range 20000 {
		fmt.Fprintf(&md, "Person Number%d\n", i)
	}
	md.WriteString("```\n")
	key := bytes.Repeat([]byte{9}, catalog.SealKeySize)
	data := sealtest.Seal(t, md.String(), key)
	e := data[binary.LittleEndian.Uint64(data[152:])+3*24:]
	off, n := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])*8
	for at := off; at+4096 < off+n; at += 512 {
		data[at] ^= 0x40
	}
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
