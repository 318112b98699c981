package catalog_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
)

// memPart is an in-memory catalog.PartFile.
type memPart struct{ b []byte }

func (m *memPart) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }

func (m *memPart) WriteAt(p []byte, off int64) (int, error) {
	if int(off)+len(p) > len(m.b) {
		return 0, errors.New("write past the end")
	}
	return copy(m.b[off:], p), nil
}

func (m *memPart) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// partsSchema is recordSchema without a fingerprint key (so that the key
// comes from the table's digest, known only once every part is written).
var partsSchema = strings.Replace(recordSchema, "fingerprint-key = \""+tableFPKey+"\"\n", "", 1)

// partsTable has 20 synthetic rows; a name, an email and an account repeat
// far apart (rows 2, 11 and 20), so that with small parts a value is in
// several parts and its rows in different ones.
func partsTable() string {
	var b strings.Builder
	b.WriteString("name,email,account\n")
	for i := 1; i <= 20; i++ {
		name := fmt.Sprintf("Velma Orrick%c", 'a'+i)
		email := fmt.Sprintf("user%02d@example.invalid", i)
		acct := fmt.Sprintf("ACCT-8%05d", i)
		switch i {
		case 2, 11, 20:
			name = "Tobin Quarrel"
		case 18:
			name = "Tobin Quarrel Junior" // holds a value of other parts
		case 5, 16:
			email = "shared.box@example.invalid"
		case 7, 13:
			acct = "ACCT-899999"
		}
		if i == 9 {
			email = "" // a blank cell
		}
		fmt.Fprintf(&b, "%s,%s,%s\n", name, email, acct)
	}
	return b.String()
}

func sealParts(t *testing.T, table, schema string, partRows int, key []byte) []*memPart {
	t.Helper()
	s, err := catalog.ParseSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	var parts []*memPart
	res, _, err := catalog.SealTable(strings.NewReader(table), s, key, &catalog.SealTableOptions{PartRows: partRows}, func(i int) (catalog.PartFile, error) {
		if i != len(parts)+1 {
			t.Fatalf("part %d created after %d", i, len(parts))
		}
		parts = append(parts, &memPart{})
		return parts[i-1], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Parts != len(parts) || len(res.Sizes) != len(parts) {
		t.Fatalf("result says %d parts, %d written", res.Parts, len(parts))
	}
	rows := 0
	for i, p := range parts {
		if int64(len(p.b)) != res.Sizes[i] {
			t.Fatalf("part %d: %d bytes, result says %d", i+1, len(p.b), res.Sizes[i])
		}
		rows += res.PartRows[i]
	}
	if rows != strings.Count(table, "\n")-1 {
		t.Fatalf("parts hold %d rows", rows)
	}
	return parts
}

func joinParts(parts []*memPart, key []byte) (*catalog.Matcher, *catalog.Sealed, error) {
	var ms []*catalog.Matcher
	var ss []*catalog.Sealed
	for _, p := range parts {
		m, s, err := catalog.LoadSealedPart(p.b, key)
		if err != nil {
			return nil, nil, err
		}
		ms, ss = append(ms, m), append(ss, s)
	}
	return catalog.JoinSealed(ms, ss)
}

// partsProbe is what a catalog finds in lines of the table and variants:
// the matches, then for each pair of matches of record rules whether
// they share a row.
func partsProbe(t *testing.T, m *catalog.Matcher, table string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "fp %x\nrules %v\n", m.FingerprintKey(), m.Rules())
	for i := range m.Rules() {
		fmt.Fprintf(&b, "record %d %+v\n", i, m.RecordInfo(i))
	}
	lines := strings.Split(table, "\n")
	lines = append(lines, "tobin_quarrel wrote to SHARED.BOX@example.invalid about ACCT-899999 and Tobin Quarrel, tobin quarrel junior")
	for _, line := range lines {
		line = strings.ReplaceAll(line, ",", " ; ")
		ms := m.Find([]byte(line), nil)
		fmt.Fprintf(&b, "%q %v\n", line, ms)
		ids := make([][]uint64, len(ms))
		for k, x := range ms {
			ids[k] = m.Records(x.Rule, []byte(line[x.Start:x.End]), nil)
		}
		for k := range ms {
			for j := range ms {
				if j > k {
					fmt.Fprintf(&b, " %d-%d:%v", k, j, intersect(ids[k], ids[j]))
				}
			}
			b.WriteString(fmt.Sprintf(" n%d=%d", k, len(ids[k])))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestSealTableParts: a table sealed in parts finds what it finds sealed
// whole, whatever the part size.
func TestSealTableParts(t *testing.T) {
	key := bytes.Repeat([]byte{7, 1, 9, 3, 5, 11, 13, 2, 4, 6, 8, 10, 12, 14, 15, 16}, 2)
	table := partsTable()
	s, err := catalog.ParseSchema([]byte(partsSchema))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := catalog.ReadTable(strings.NewReader(table), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	if err := catalog.Seal(&whole, c, key, nil); err != nil {
		t.Fatal(err)
	}
	wm, _, err := catalog.LoadSealed(whole.Bytes(), key)
	if err != nil {
		t.Fatal(err)
	}
	want := partsProbe(t, wm, table)
	for _, n := range []int{1, 2, 3, 7, 19, 20, 21, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			parts := sealParts(t, table, partsSchema, n, key)
			wantParts := (20 + n - 1) / n
			if len(parts) != wantParts {
				t.Fatalf("%d parts, want %d", len(parts), wantParts)
			}
			m, sealed, err := joinParts(parts, key)
			if err != nil {
				t.Fatal(err)
			}
			if got := partsProbe(t, m, table); got != want {
				t.Fatalf("in %d parts:\n%s\nwhole:\n%s", len(parts), got, want)
			}
			if len(parts) == 1 {
				if sealed.Parts != 0 || binary.LittleEndian.Uint32(parts[0].b[8:]) != binary.LittleEndian.Uint32(whole.Bytes()[8:]) || len(parts[0].b) != whole.Len() {
					t.Fatal("a table in one part is not sealed as a whole catalog")
				}
			} else if sealed.Parts != len(parts) {
				t.Fatalf("Sealed.Parts %d", sealed.Parts)
			}
			if got, want := sealed.Counts(), c.Counts(); got.Values != want.Values || got.Rules != want.Rules {
				t.Fatalf("counts %+v, want %+v", got, want)
			}
			if err := m.CheckIntegrity(); err != nil {
				t.Fatal(err)
			}
			if len(parts) > 1 {
				if _, _, err := catalog.LoadSealed(parts[0].b, key); !errors.Is(err, catalog.ErrSealedInvalid) {
					t.Fatalf("a part loaded alone: %v", err)
				}
			}
		})
	}
}

// TestSealTablePartsBound: a missing, extra, foreign, damaged or renamed
// part is ErrSealedInvalid, never a partial catalog.
func TestSealTablePartsBound(t *testing.T) {
	key := bytes.Repeat([]byte{7, 1, 9, 3, 5, 11, 13, 2, 4, 6, 8, 10, 12, 14, 15, 16}, 2)
	other := bytes.Repeat([]byte{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 33}, 2)
	table := partsTable()
	a := sealParts(t, table, partsSchema, 7, key)   // 3 parts
	b := sealParts(t, table, partsSchema, 7, key)   // another set, same key
	o := sealParts(t, table, partsSchema, 7, other) // another key
	if len(a) != 3 {
		t.Fatalf("%d parts", len(a))
	}
	damaged := &memPart{b: slices.Clone(a[1].b)}
	damaged.b[binary.LittleEndian.Uint64(damaged.b[168:])+10] ^= 1 // a table page
	truncated := &memPart{b: a[2].b[:len(a[2].b)-100]}
	headerBit := &memPart{b: slices.Clone(a[1].b)}
	headerBit.b[166] ^= 1 // the part count
	for _, tc := range []struct {
		name  string
		parts []*memPart
	}{
		{"missing last", a[:2]},
		{"missing middle", []*memPart{a[0], a[2]}},
		{"extra", []*memPart{a[0], a[1], a[2], b[2]}},
		{"swapped", []*memPart{a[0], a[2], a[1]}},
		{"first is not first", []*memPart{a[1], a[0], a[2]}},
		{"another set", []*memPart{a[0], b[1], a[2]}},
		{"another key", []*memPart{a[0], o[1], a[2]}},
		{"truncated", []*memPart{a[0], a[1], truncated}},
		{"header changed", []*memPart{a[0], headerBit, a[2]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := joinParts(tc.parts, key); !errors.Is(err, catalog.ErrSealedInvalid) && !errors.Is(err, catalog.ErrSealKeyWrong) {
				t.Fatalf("err %v, want invalid", err)
			}
		})
	}
	// A damaged table page: the join refuses it (a page checked at load)
	// or the integrity check reports it.
	m, _, err := joinParts([]*memPart{a[0], damaged, a[2]}, key)
	if err == nil {
		err = m.CheckIntegrity()
	}
	if !errors.Is(err, catalog.ErrSealedInvalid) {
		t.Fatalf("a damaged page of a part: %v", err)
	}
}

func TestPartName(t *testing.T) {
	for _, tc := range [][3]string{
		{"people.sealed", "1", "people.sealed"},
		{"people.sealed", "2", "people.part2.sealed"},
		{"/x/y.SEALED", "12", "/x/y.part12.SEALED"},
		{"noext", "3", "noext.part3"},
	} {
		var i int
		fmt.Sscan(tc[1], &i)
		if got := catalog.PartName(tc[0], i); got != tc[2] {
			t.Errorf("PartName(%q, %d) = %q, want %q", tc[0], i, got, tc[2])
		}
	}
}

// BenchmarkFindParts compares Find on a table sealed whole and in 1, 4
// and 10 parts (each part scans the line: the cost grows with the parts).
func BenchmarkFindParts(b *testing.B) {
	key := bytes.Repeat([]byte{7, 1, 9, 3, 5, 11, 13, 2, 4, 6, 8, 10, 12, 14, 15, 16}, 2)
	const rows = 100000
	var tb strings.Builder
	tb.WriteString("name,email,account\n")
	for i := range rows {
		fmt.Fprintf(&tb, "Velma Orrick%d,user%d@example.invalid,ACCT-%07d\n", i, i, i)
	}
	var text bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&text, "line %d of ordinary text with words like config value user%d and Velma\n", i, i*7)
	}
	lines := bytes.Split(text.Bytes(), []byte("\n"))
	for _, n := range []int{rows, rows / 4, rows / 10} {
		b.Run(fmt.Sprintf("parts=%d", (rows+n-1)/n), func(b *testing.B) {
			s, err := catalog.ParseSchema([]byte(partsSchema))
			if err != nil {
				b.Fatal(err)
			}
			var parts []*memPart
			if _, _, err := catalog.SealTable(strings.NewReader(tb.String()), s, key, &catalog.SealTableOptions{PartRows: n}, func(int) (catalog.PartFile, error) {
				parts = append(parts, &memPart{})
				return parts[len(parts)-1], nil
			}); err != nil {
				b.Fatal(err)
			}
			m, _, err := joinParts(parts, key)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(text.Len()))
			var dst []catalog.Match
			for b.Loop() {
				for _, l := range lines {
					dst = m.Find(l, dst[:0])
				}
			}
		})
	}
}
