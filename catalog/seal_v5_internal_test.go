package catalog

import (
	"bytes"
	"crypto/aes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
)

// v4Catalog is a small catalog with a record rule (synthetic values): a
// name corroborated by an email or an account (search = false), within 2
// lines, reported at note when uncorroborated.
func v4Catalog() *Catalog {
	rec := &RecordRule{By: []string{"EMAIL", "ACCT"}, Within: 2, Uncorroborated: SeverityNote}
	return &Catalog{FingerprintKey: bytes.Repeat([]byte{7}, 32), Rules: []Rule{
		{ID: "NAME", Category: "person", Severity: SeverityError, Match: MatchIdentifier, Record: rec,
			Values: []Value{NewValue("Quilla Varnstedt"), NewValue("Maro Castellane"), NewValue("Maro Castellane")}, ValueLines: []int32{2, 3, 4}},
		{ID: "EMAIL", Category: "email", Severity: SeverityWarning, Record: &RecordRule{},
			Values: []Value{NewValue("quilla@example.invalid"), NewValue("maro.one@example.invalid"), NewValue("maro.two@example.invalid")}, ValueLines: []int32{2, 3, 4}},
		{ID: "ACCT", Category: "account", Severity: SeverityError, CaseSensitive: true, Record: &RecordRule{Hidden: true},
			Values: []Value{NewValue("ACCT-700002")}, ValueLines: []int32{3}},
		{ID: "PLAIN", Category: "org", Severity: SeverityError, Values: []Value{NewValue("Vexmoor Holdings")}, ValueLines: []int32{5}},
	}}
}

// TestSealedV5KnownAnswer pins format 5: a fixed catalog with a record
// rule, key and randomness seal to these bytes, whose record arrays are
// the keyed hashes of (rule, normalised value) and the keyed row IDs under
// the keys derived from the seal key and the salt, and nothing else of a
// value or a row; its mac covers the bytes before the arrays and not the
// page tags.
func TestSealedV5KnownAnswer(t *testing.T) {
	key := bytes.Repeat([]byte{3}, SealKeySize)
	var b bytes.Buffer
	if err := Seal(&b, v4Catalog(), key, &SealOptions{Rand: fixedRand()}); err != nil {
		t.Fatal(err)
	}
	f := b.Bytes()
	if v := binary.LittleEndian.Uint32(f[sealHdrVersion:]); v != 5 {
		t.Fatalf("version %d", v)
	}
	sum := sha256.Sum256(f)
	const want = "028d46e8bd21f1ab8fd849d1dd64e4709a4c36a0ec0e00aa5ff59c0d7466d138"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("sealed file digest %s (%d bytes), want %s", got, len(f), want)
	}

	// The record arrays, decrypted, are exactly the expected pairs.
	keys, plain := decryptArrays(t, f, key)
	arrOff, _ := sealedRegions(f)
	mac := hmac.New(sha256.New, keys.mac[:])
	mac.Write(f[:arrOff])
	if !hmac.Equal(mac.Sum(nil), f[len(f)-sealMACSize:]) {
		t.Fatal("the mac is not the HMAC-SHA256 of the bytes before the arrays")
	}
	dirOff := binary.LittleEndian.Uint64(f[sealHdrDirOff:])
	arr := func(id int) []uint64 {
		e := f[dirOff+uint64(id)*sealDirEntrySize:]
		off, n := binary.LittleEndian.Uint64(e[8:])-arrOff, binary.LittleEndian.Uint64(e[16:])
		var out []uint64
		for i := range n {
			out = append(out, binary.LittleEndian.Uint64(plain[off+8*i:]))
		}
		return out
	}
	blk, err := aes.NewCipher(keys.rec.row[:])
	if err != nil {
		t.Fatal(err)
	}
	type pair struct{ k, id uint64 }
	var wantPairs []pair
	for _, p := range []struct {
		rule, norm string
		row        int32
	}{
		{"NAME", "quillavarnstedt", 2}, {"NAME", "marocastellane", 3}, {"NAME", "marocastellane", 4},
		{"EMAIL", "quilla@example.invalid", 2}, {"EMAIL", "maro.one@example.invalid", 3}, {"EMAIL", "maro.two@example.invalid", 4},
		{"ACCT", "ACCT-700002", 3},
	} {
		wantPairs = append(wantPairs, pair{recordFieldKey(&keys.rec.field, p.rule, []byte(p.norm)), recordRowID(blk, p.row)})
	}
	slices.SortFunc(wantPairs, func(a, b pair) int {
		if a.k != b.k {
			if a.k < b.k {
				return -1
			}
			return 1
		}
		if a.id < b.id {
			return -1
		}
		return 1
	})
	ks, ids := arr(arrRecKeys), arr(arrRecIDs)
	if len(ks) != len(wantPairs) || len(ids) != len(wantPairs) {
		t.Fatalf("%d keys, %d ids, want %d pairs", len(ks), len(ids), len(wantPairs))
	}
	for i, p := range wantPairs {
		if ks[i] != p.k || ids[i] != p.id {
			t.Fatalf("pair %d differs", i)
		}
	}
	// No word of the record arrays appears in the file in clear.
	for _, w := range append(ks, ids...) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], w)
		if bytes.Contains(f, b[:]) {
			t.Fatal("a record array word appears in the file in clear")
		}
	}
	m, s, err := LoadSealed(f, key)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 5 || m.RecordInfo(0) == nil || m.RecordInfo(3) != nil || !m.RecordInfo(2).Hidden {
		t.Fatal("record rules lost")
	}
	if got := m.Records(0, []byte("MaroCastellane"), nil); len(got) != 2 {
		t.Fatalf("%d record IDs for a name of two rows", len(got))
	}
	// Format 4 (format 5 with the tags under the mac, as a development
	// build wrote it) is refused with a hint to seal again.
	old := bytes.Clone(f)
	binary.LittleEndian.PutUint32(old[sealHdrVersion:], 4)
	if _, _, err := LoadSealed(old, key); !errors.Is(err, ErrSealedInvalid) || !strings.Contains(err.Error(), "seal the table again") {
		t.Fatalf("a version 4 file: %v", err)
	}
}

// FuzzParseSealedV4 is FuzzParseSealed's check on a version 5 file: any
// content of the metadata and the record arrays makes neither the load
// nor a record lookup panic or read out of bounds.
func FuzzParseSealedV4(f *testing.F) {
	key := bytes.Repeat([]byte{1}, SealKeySize)
	var buf bytes.Buffer
	if err := Seal(&buf, v4Catalog(), key, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkSealedHeader(data) != nil {
			return
		}
		m, _, err := parseSealed(data, len(data), key, trustedChecker(data))
		if err != nil {
			return
		}
		for i := range m.rules {
			if info := m.RecordInfo(i); info != nil {
				for _, j := range info.By {
					if j < 0 || j >= len(m.rules) {
						t.Fatalf("corroborating rule %d out of range", j)
					}
				}
			}
			m.Records(i, []byte("Maro Castellane"), nil)
		}
	})
}
