package broker

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/internal/sealtest"
)

// sealFile seals the Markdown catalog md into path with key.
func sealFile(t *testing.T, path, md string, key []byte) {
	t.Helper()
	write(t, path, string(sealtest.Seal(t, md, key)))
}

func TestSealedCatalogs(t *testing.T) {
	f := newFixture(t)
	key := bytes.Repeat([]byte{0x42}, catalog.SealKeySize)
	other := bytes.Repeat([]byte{0x43}, catalog.SealKeySize)
	hexKey := hex.EncodeToString(key)
	sealed := filepath.Join(f.dir, "people.sealed")
	sealFile(t, sealed, validCatalog, key)
	write(t, filepath.Join(f.dir, "hosts.md"), "## HOST\n- category: host\n\n```values\nbuildbox.corp\n```\n")
	write(t, filepath.Join(f.dir, "seal.key"), hexKey+"\n")
	write(t, filepath.Join(f.dir, "bad.key"), "not a key\n")
	f.writeMap(t, "[catalogs]\n"+
		"default = { files = [\"people.sealed\", \"hosts.md\"], seal-key = \"seal.key\" }\n"+
		"nokey = \"people.sealed\"\n"+
		"badkey = { files = \"people.sealed\", seal-key = \"bad.key\" }\n"+
		"gone = { files = \"people.sealed\", seal-key = \"missing.key\" }\n")

	b := f.broker(t)
	m, info, err := b.OpenCatalog("")
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Parts) != 2 || !info.Parts[0].Sealed || info.Parts[1].Sealed {
		t.Fatalf("parts %+v", info.Parts)
	}
	if got := m.Find([]byte("Jane Doe on buildbox.corp"), nil); len(got) != 2 {
		t.Fatalf("matches: %v", got)
	}
	st, err := b.StatCatalog("")
	if err != nil || !st.Same(info) {
		t.Fatalf("StatCatalog: %v %+v", err, st)
	}
	parts, _, err := b.CheckCatalog("")
	if err != nil || parts[0].Sealed == nil || parts[0].Catalog != nil || parts[1].Catalog == nil {
		t.Fatalf("CheckCatalog: %v %+v", err, parts)
	}
	if c := parts[0].Sealed.Counts(); c.Rules != 1 || c.Values != 1 {
		t.Fatalf("counts %+v", c)
	}
	if _, _, err := b.ReadCatalog("nokey"); codeOf(err) != CodeConfigInvalid {
		t.Fatalf("ReadCatalog of a sealed catalog: %v", err)
	}

	// No key, a bad key file, a missing key file, the wrong key.
	if _, _, err := b.OpenCatalog("nokey"); codeOf(err) != CodeSealKeyMissing {
		t.Fatalf("no key: %v", err)
	}
	if _, _, err := b.OpenCatalog("badkey"); codeOf(err) != CodeConfigInvalid || strings.Contains(err.Error(), "not a key") {
		t.Fatalf("bad key file: %v", err)
	}
	if _, _, err := b.OpenCatalog("gone"); codeOf(err) != CodeSealKeyMissing {
		t.Fatalf("missing key file: %v", err)
	}
	f.env[EnvSealKey] = hex.EncodeToString(other)
	if _, _, err := b.OpenCatalog("nokey"); codeOf(err) != CodeSealKeyWrong || strings.Contains(err.Error(), hex.EncodeToString(other)) {
		t.Fatalf("wrong key: %v", err)
	}
	f.env[EnvSealKey] = "0x" + hexKey
	if _, _, err := b.OpenCatalog("nokey"); codeOf(err) != CodeConfigInvalid || strings.Contains(err.Error(), hexKey) {
		t.Fatalf("malformed PRIVSCAN_SEAL_KEY: %v", err)
	}

	// The environment: PRIVSCAN_CATALOG_FILE with PRIVSCAN_SEAL_KEY, and
	// with PRIVSCAN_CATALOG (regex rules stay in Markdown).
	f.env[EnvSealKey] = hexKey
	f.env[EnvCatalogFile] = sealed
	f.env[EnvCatalog] = "## EMP\n- category: employee-id\n- match: regex\n\n```values\nEMP-\\d{6}\n```\n"
	m, info, err = b.OpenCatalog("")
	if err != nil || len(info.Parts) != 2 || !info.Parts[1].Sealed {
		t.Fatalf("env: %v %+v", err, info)
	}
	if got := m.Find([]byte("Jane Doe EMP-123456"), nil); len(got) != 2 {
		t.Fatalf("env matches: %v", got)
	}

	// A damaged file is catalog_invalid; a file over 2 GiB is too_large
	// before it is opened; another suffix is not_markdown.
	data, _ := os.ReadFile(sealed)
	data[len(data)/2] ^= 1
	write(t, sealed, string(data))
	if _, _, err := b.OpenCatalog(""); codeOf(err) != CodeCatalogInvalid {
		t.Fatalf("damaged: %v", err)
	}
	if err := os.Truncate(sealed, MaxSealedSize+1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.OpenCatalog(""); codeOf(err) != CodeTooLarge || !strings.Contains(err.Error(), "2 GiB") {
		t.Fatalf("over 2 GiB: %v", err)
	}
	f.env[EnvCatalogFile] = filepath.Join(f.dir, "seal.key")
	if _, _, err := b.OpenCatalog(""); codeOf(err) != CodeNotMarkdown {
		t.Fatalf("key file as catalog: %v", err)
	}
}

// TestSealedCheckAllPages: a sealed catalog whose table pages were
// modified opens (a page is checked when a lookup reads it), but
// CheckCatalog checks every page and reports catalog_invalid.
func TestSealedCheckAllPages(t *testing.T) {
	f := newFixture(t)
	key := bytes.Repeat([]byte{0x42}, catalog.SealKeySize)
	var md strings.Builder
	md.WriteString("## PER\n- category: person\n\n```values\n")
	for i := range 20000 {
		fmt.Fprintf(&md, "Person Number%d\n", i)
	}
	md.WriteString("```\n")
	sealed := filepath.Join(f.dir, "people.sealed")
	sealFile(t, sealed, md.String(), key)
	f.env[EnvSealKey] = hex.EncodeToString(key)
	f.env[EnvCatalogFile] = sealed
	b := f.broker(t)
	if _, _, err := b.CheckCatalog(""); err != nil {
		t.Fatalf("intact: %v", err)
	}
	// The first byte of the first array (directory entry 0), on a page
	// no load reads whole.
	data, _ := os.ReadFile(sealed)
	e := data[binary.LittleEndian.Uint64(data[152:]):]
	data[binary.LittleEndian.Uint64(e[8:])] ^= 1
	write(t, sealed, string(data))
	b = f.broker(t)
	if _, _, err := b.OpenCatalog(""); err != nil {
		t.Fatalf("a damaged table page is checked when read, not at load: %v", err)
	}
	if _, _, err := b.CheckCatalog(""); codeOf(err) != CodeCatalogInvalid || !strings.Contains(err.(*Error).Hint(), "seal the catalog again") {
		t.Fatalf("damaged: %v", err)
	}
}
