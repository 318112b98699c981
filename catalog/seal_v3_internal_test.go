package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// v3Catalog is a small catalog of every kind of rule, with values chosen
// by vals (same shapes for every vals: the same counts and lengths).
func v3Catalog(vals [4]string) *Catalog {
	return &Catalog{FingerprintKey: bytes.Repeat([]byte{7}, 32), Rules: []Rule{
		{ID: "PER", Category: "person", Severity: SeverityError, Match: MatchLiteral, Values: []Value{NewValue(vals[0] + " Alpha"), NewValue("Shared Name")}},
		{ID: "ORG", Category: "org", Severity: SeverityWarning, Match: MatchIdentifier, Values: []Value{NewValue(vals[1] + " Corp"), NewValue("Shared Name")}},
		{ID: "CS", Category: "code", Severity: SeverityNote, Match: MatchLiteral, CaseSensitive: true, Values: []Value{NewValue(vals[2])}},
		{ID: "NB", Category: "host", Severity: SeverityError, Match: MatchLiteral, NoBoundary: true, Values: []Value{NewValue(vals[3] + ".internal")}},
	}}
}

// fixedRand is the salt and nonce source of a reproducible seal.
func fixedRand() *bytes.Reader { return bytes.NewReader(bytes.Repeat([]byte{0x5a}, 256)) }

func sealV3(t *testing.T, c *Catalog, key []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Seal(&b, c, key, &SealOptions{Rand: fixedRand()}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSealedV3WhiteBox recomputes every byte of a small sealed file that
// depends on a value: the arrays, decrypted with the page key derived from
// the seal key and the salt, are exactly the tables privscan compiles from
// the values with the derived hash key; and every byte outside the arrays
// and their tags is the same for other values of the same shapes, so
// nothing else in the file is computed from a value. What the file shows
// of its values is therefore AES-GCM ciphertext under a key derived from
// the seal key.
func TestSealedV3WhiteBox(t *testing.T) {
	key := bytes.Repeat([]byte{3}, SealKeySize)
	a := v3Catalog([4]string{"Zorblax", "Quintix", "XK-4471", "vault-7"})
	b := v3Catalog([4]string{"Morvena", "Plaxton", "QZ-9012", "silo-3b"})
	fa, fb := sealV3(t, a, key), sealV3(t, b, key)

	arrOff, tagOff := sealedRegions(fa)
	if a2, t2 := sealedRegions(fb); a2 != arrOff || t2 != tagOff || len(fa) != len(fb) {
		t.Fatalf("layouts differ: %d/%d/%d and %d/%d/%d", arrOff, tagOff, len(fa), a2, t2, len(fb))
	}
	if !bytes.Equal(fa[:arrOff], fb[:arrOff]) {
		for i := range fa[:arrOff] {
			if fa[i] != fb[i] {
				t.Fatalf("byte %d before the arrays differs between catalogs of different values", i)
			}
		}
	}

	// Decrypt the arrays and rebuild them from the values.
	keys, plain := decryptArrays(t, fa, key)
	m, err := Compile(a, &CompileOptions{HashKey: keys.hash[:], compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if !m.packTables() {
		t.Fatal("the tables do not pack")
	}
	u64, u32 := sealArraysOf(m)
	want := make([]byte, tagOff-arrOff)
	dirOff := binary.LittleEndian.Uint64(fa[sealHdrDirOff:])
	for id := range sealArraysV3 {
		e := fa[dirOff+uint64(id)*sealDirEntrySize:]
		off := binary.LittleEndian.Uint64(e[8:]) - arrOff
		if sealArrayElem[id] == 8 {
			for i, v := range u64[id] {
				binary.LittleEndian.PutUint64(want[off+uint64(8*i):], v)
			}
		} else {
			for i, v := range u32[id] {
				binary.LittleEndian.PutUint32(want[off+uint64(4*i):], v)
			}
		}
	}
	if !bytes.Equal(plain, want) {
		t.Fatal("the decrypted arrays are not the tables compiled from the values")
	}
	// And the ciphertext itself holds none of the tables' words.
	for i := 0; i+8 <= len(want); i += 8 {
		w := want[i : i+8]
		if !bytes.Equal(w, make([]byte, 8)) && bytes.Contains(fa[arrOff:tagOff], w) {
			t.Fatalf("a word of the tables (at %d) appears in the file in clear", i)
		}
	}
}

// TestSealedV3KnownAnswer pins the format: a fixed catalog, key and
// randomness seal to these bytes. A change here is a format change: bump
// SealVersion, say so in docs/catalog.md, and update the digest.
func TestSealedV3KnownAnswer(t *testing.T) {
	f := sealV3(t, v3Catalog([4]string{"Zorblax", "Quintix", "XK-4471", "vault-7"}), bytes.Repeat([]byte{3}, SealKeySize))
	sum := sha256.Sum256(f)
	const want = "f14a7c97d809e6f057bd05a57183a3a14bb8d4db70ea5d65345eaec93b31cb4d"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("sealed file digest %s (%d bytes), want %s", got, len(f), want)
	}
	m, _, err := LoadSealed(f, bytes.Repeat([]byte{3}, SealKeySize))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(m.Find([]byte("Zorblax Alpha and ZorblaxAlpha; QuintixCorp; XK-4471 in vault-7.internal"), nil)); got == "[]" {
		t.Fatal("the known file finds nothing")
	}
}

// TestSealedFileChangedUnderMapping: a sealed file mapped by a running
// scan and then zeroed in place or truncated ends in an integrity error
// for what was not yet read (never SIGBUS, never silently fewer
// findings), and what was read stays as authenticated.
func TestSealedFileChangedUnderMapping(t *testing.T) {
	var md bytes.Buffer
	md.WriteString("## PER\n- category: person\n\n```values\nJane Doe\n")
	for i := range 20000 {
		fmt.Fprintf(&md, "Person Number%d\n", i)
	}
	md.WriteString("```\n")
	c, err := Parse(md.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{9}, SealKeySize)
	for _, change := range []string{"zeroed", "truncated"} {
		t.Run(change, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.sealed")
			data := sealV3(t, c, key)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			arrOff, _ := sealedRegions(data)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			mapped, release, err := mapSealed(f, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			m, _, err := LoadSealed(mapped, key)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Find([]byte("hi Jane Doe"), nil)) != 1 {
				t.Fatal("the intact file does not find the value")
			}
			switch change {
			case "zeroed":
				w, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.WriteAt(make([]byte, len(data)-int(arrOff)), int64(arrOff)); err != nil {
					t.Fatal(err)
				}
				w.Close()
			case "truncated":
				if err := os.Truncate(path, int64(arrOff)+100); err != nil {
					t.Fatal(err)
				}
			}
			// The page already read stays as it was authenticated.
			if len(m.Find([]byte("hi Jane Doe"), nil)) != 1 {
				t.Fatal("a page read before the change no longer finds its value")
			}
			if err := m.CheckIntegrity(); err == nil {
				t.Fatal("reading every page of the changed file reports no damage")
			}
			// A new load of the changed mapping is refused.
			if _, _, err := LoadSealed(mapped, key); err == nil {
				t.Fatal("the changed file loads")
			}
		})
	}
}

func TestWeakSealKey(t *testing.T) {
	random, _ := hex.DecodeString("6b1f0c9a3e5d2f8817c4a0e95b3d6f21c8e07a4b9d13f5e2a6c0d8b4f1e3a597")
	pass := sha256.Sum256([]byte("correct horse battery staple"))
	for _, tc := range []struct {
		name string
		key  []byte
		weak bool
	}{
		{"zeros", make([]byte, 32), true},
		{"one byte", bytes.Repeat([]byte{0x41}, 32), true},
		{"a pattern", bytes.Repeat([]byte("0123456789abcdef"), 2), true},
		{"few bytes", append(bytes.Repeat([]byte{1, 2, 3, 4, 5}, 6), 6, 7), true},
		{"random", random, false},
		// A hashed passphrase looks random: the warning cannot see it.
		{"hashed passphrase", pass[:], false},
	} {
		if got := WeakSealKey(tc.key); got != tc.weak {
			t.Errorf("%s: weak %v, want %v", tc.name, got, tc.weak)
		}
	}
}

// decryptArrays derives sealed file f's keys from key and decrypts and
// authenticates every page of its arrays, as a loader does: the arrays'
// plaintext, from the first array's offset.
func decryptArrays(t *testing.T, f, key []byte) (sealKeys, []byte) {
	t.Helper()
	keys := deriveSealKeys(key, f[sealHdrSalt:sealHdrSalt+sealSaltSize])
	arrOff, tagOff := sealedRegions(f)
	aead, err := newGCM(keys.page[:])
	if err != nil {
		t.Fatal(err)
	}
	var plain []byte
	for p := uint64(0); arrOff+p*sealPageSize < tagOff; p++ {
		from, to := arrOff+p*sealPageSize, min(arrOff+(p+1)*sealPageSize, tagOff)
		nonce := sealPageNonce(p)
		ct := append(bytes.Clone(f[from:to]), f[tagOff+p*sealTagSize:tagOff+(p+1)*sealTagSize]...)
		if plain, err = aead.Open(plain, nonce[:], ct, nil); err != nil {
			t.Fatalf("page %d: %v", p, err)
		}
	}
	return keys, plain
}
