package catalog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// FuzzParseSealed fuzzes the loader behind the integrity check (which a
// fuzzer cannot forge): any bytes either fail to parse or give a Matcher
// whose Find neither panics nor loops nor reports a match out of range.
func FuzzParseSealed(f *testing.F) {
	c := &Catalog{Rules: []Rule{
		{ID: "A", Category: "x", Severity: SeverityError, Values: []Value{NewValue("Jane Doe"), NewValue("jane.doe@corp.example")}},
		{ID: "B", Category: "y", Severity: SeverityNote, Match: MatchIdentifier, Values: []Value{NewValue("Acme Corp")}},
		{ID: "C", Category: "z", Severity: SeverityWarning, CaseSensitive: true, Values: []Value{NewValue("ACCT-0042")}},
		{ID: "D", Category: "z", Severity: SeverityWarning, NoBoundary: true, Values: []Value{NewValue("secretproj")}},
		{ID: "E", Category: "z", Severity: SeverityWarning, NoBoundary: true, CaseSensitive: true, Values: []Value{NewValue("Jane Doe")}},
	}}
	key := bytes.Repeat([]byte{1}, SealKeySize)
	var buf bytes.Buffer
	if err := Seal(&buf, c, key, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	// A part of a catalog sealed in parts: part 2 of 3 of a set.
	part := bytes.Clone(buf.Bytes())
	(&partHeader{setID: [8]byte{9, 8, 7, 6, 5, 4, 3, 2}, index: 2, count: 3}).put(part)
	f.Add(part)
	lines := [][]byte{[]byte("Jane Doe, AcmeCorp acme_corp ACCT-0042 xsecretprojx"), []byte("é\u0301 Jane\xffDoe jane.doe@corp.example")}
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkSealedHeader(data) != nil {
			return
		}
		m, _, err := parseSealed(data, len(data), key, trustedChecker(data))
		if err != nil {
			if !errors.Is(err, ErrSealedInvalid) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		for _, line := range lines {
			for _, x := range m.Find(line, nil) {
				if x.Start < 0 || x.End > len(line) || x.Start > x.End || x.Rule < 0 || x.Rule >= len(m.rules) {
					t.Fatalf("bad match %v", x)
				}
			}
		}
	})
}

// trustedChecker is a sealChecker for data (whose header is checked) that
// takes the arrays as they are (unencrypted) and counts every page as
// good.
func trustedChecker(data []byte) *sealChecker {
	arrOff, tagOff := sealedRegions(data)
	return newSealChecker(data, arrOff, tagOff, data[tagOff:len(data)-sealMACSize], nil, true)
}

// keyedChecker is the sealChecker LoadSealed makes for data sealed with
// keys: it decrypts pages as lookups read them.
func keyedChecker(t *testing.T, data []byte, keys *sealKeys) *sealChecker {
	t.Helper()
	aead, err := newGCM(keys.page[:])
	if err != nil {
		t.Fatal(err)
	}
	arrOff, tagOff := sealedRegions(data)
	return newSealChecker(data, arrOff, tagOff, data[tagOff:len(data)-sealMACSize], aead, false)
}

func TestTablePack(t *testing.T) {
	var multi [][]uint32
	src := newTable(100)
	for i := range uint64(100) {
		src.insert(i*0x9e3779b97f4a7c15+7, uint32(i%3), &multi)
	}
	src.insert(7, 2, &multi) // key 7 (i == 0) now has rules 0 and 2: a rule set
	p, ok := src.pack(3, len(multi))
	if !ok || len(p.vals) != 0 || p.count != src.count {
		t.Fatalf("pack: ok %v, %d vals, count %d/%d", ok, len(p.vals), p.count, src.count)
	}
	for i := range uint64(100) {
		k := i*0x9e3779b97f4a7c15 + 7
		want, _ := src.get(k)
		if got, ok := p.get(k); !ok || got != want {
			t.Fatalf("key %d: got %d %v, want %d", i, got, ok, want)
		}
	}
	if _, ok := p.get(12345); ok {
		t.Fatal("an absent key was found")
	}
	// Two keys that differ only in the bits the values take collide.
	c := newTable(4)
	c.insert(0x1000, 0, &multi)
	c.insert(0x1001, 1, &multi)
	if _, ok := c.pack(2, 0); ok {
		t.Fatal("colliding keys were packed")
	}
}

// TestSealManyRuleSets: a catalog whose values are shared by many rules
// (more rule sets than a packed table's value bits hold) keeps its tables
// unpacked, and still loads and finds.
func TestSealManyRuleSets(t *testing.T) {
	c := &Catalog{}
	const n = 50
	for i := range n {
		r := Rule{ID: fmt.Sprintf("R%d", i), Category: "x", Severity: SeverityError}
		for j := range n {
			if j != i {
				// Each pair of rules shares a value: n*(n-1)/2 rule sets.
				r.Values = append(r.Values, NewValue(fmt.Sprintf("shared value %d %d", min(i, j), max(i, j))))
			}
		}
		c.Rules = append(c.Rules, r)
	}
	md, err := Compile(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bits.Len(uint(len(md.rules)+len(md.multi)-1)) <= maxPackedBits {
		t.Fatalf("only %d rule sets: the test needs more than %d value bits", len(md.multi), maxPackedBits)
	}
	key := bytes.Repeat([]byte{3}, SealKeySize)
	m := sealAndLoad(t, c, key)
	if m.lit.tab.vbits != 0 {
		t.Fatal("the table was packed")
	}
	line := []byte("x shared value 3 17 y")
	if got, want := m.Find(line, nil), md.Find(line, nil); len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("sealed %v, Markdown %v", got, want)
	}
}

// TestOpenRegexRulesRejects: the encrypted regex table of a file sealed
// with SealOptions.Regex is checked after decryption: a damaged blob, a
// rule that is not a regex rule, a rule twice or missing, an empty rule,
// trailing bytes and a pattern that does not compile are all
// ErrSealedInvalid, never a panic.
func TestOpenRegexRulesRejects(t *testing.T) {
	c := &Catalog{Rules: []Rule{
		{ID: "LIT", Category: "x", Severity: SeverityError, Values: []Value{NewValue("Jane Doe")}},
		{ID: "RX", Category: "y", Severity: SeverityError, Match: MatchRegex, Values: []Value{NewValue(`EMP-\d{6}`)}},
		{ID: "RY", Category: "y", Severity: SeverityError, Match: MatchRegex, CaseSensitive: true, Values: []Value{NewValue(`TKT-\d{4}`)}},
	}}
	key := bytes.Repeat([]byte{3}, SealKeySize)
	var buf bytes.Buffer
	if err := Seal(&buf, c, key, &SealOptions{Regex: true}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	salt := data[sealHdrSalt : sealHdrSalt+sealSaltSize]
	keys := deriveSealKeys(key, salt)
	type entry struct {
		rule int
		pats []string
	}
	plainOf := func(es ...entry) []byte {
		var plain []byte
		for _, e := range es {
			plain = binary.LittleEndian.AppendUint32(plain, uint32(e.rule))
			plain = binary.LittleEndian.AppendUint32(plain, uint32(len(e.pats)))
			for _, p := range e.pats {
				plain = binary.LittleEndian.AppendUint32(plain, uint32(len(p)))
				plain = append(plain, p...)
			}
		}
		return plain
	}
	enc := func(plain []byte) []byte {
		aead, err := newGCM(keys.regex[:])
		if err != nil {
			t.Fatal(err)
		}
		return aead.Seal(make([]byte, 12), make([]byte, 12), plain, salt)
	}
	blob := func(es ...entry) []byte { return enc(plainOf(es...)) }
	good := blob(entry{1, []string{`EMP-\d{6}`}}, entry{2, []string{`TKT-\d{4}`}})
	flipped := slices.Clone(good)
	flipped[20] ^= 1
	for _, tc := range []struct {
		name string
		blob []byte
		ok   bool
	}{
		{"good", good, true},
		{"missing", nil, false},
		{"short", good[:8], false},
		{"damaged", flipped, false},
		{"literal rule", blob(entry{0, []string{`x+`}}, entry{2, []string{`TKT-\d{4}`}}), false},
		{"twice", blob(entry{1, []string{`a+b`}}, entry{1, []string{`a+b`}}), false},
		{"one missing", blob(entry{1, []string{`EMP-\d{6}`}}), false},
		{"out of range", blob(entry{1, []string{`EMP-\d{6}`}}, entry{9, []string{`a+b`}}), false},
		{"no pattern", blob(entry{1, nil}, entry{2, []string{`a+b`}}), false},
		{"bad pattern", blob(entry{1, []string{`(`}}, entry{2, []string{`a+b`}}), false},
		{"empty match", blob(entry{1, []string{`a*`}}, entry{2, []string{`a+b`}}), false},
		{"other patterns", blob(entry{2, []string{`a+b`}}, entry{1, []string{`EMP-\d{6}`, `x+y`}}), true},
		{"trailing", enc(append(plainOf(entry{1, []string{`EMP-\d{6}`}}, entry{2, []string{`TKT-\d{4}`}}), 0, 0)), false},
	} {
		m, s, err := parseSealed(data, len(data), keys.hash[:], keyedChecker(t, data, &keys))
		if err != nil {
			t.Fatal(err)
		}
		s.regex = tc.blob
		err = m.openRegexRules(s, &keys, salt)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrSealedInvalid) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if err == nil && len(m.Find([]byte("EMP-123456 a TKT-1234"), nil)) == 0 {
			t.Errorf("%s: no match after loading", tc.name)
		}
	}
	// Patterns without any regex rule.
	c2 := &Catalog{Rules: c.Rules[:1]}
	buf.Reset()
	if err := Seal(&buf, c2, key, &SealOptions{Regex: true}); err != nil {
		t.Fatal(err)
	}
	k2 := deriveSealKeys(key, buf.Bytes()[sealHdrSalt:sealHdrSalt+sealSaltSize])
	m, s, err := parseSealed(buf.Bytes(), len(buf.Bytes()), k2.hash[:], keyedChecker(t, buf.Bytes(), &k2))
	if err != nil {
		t.Fatal(err)
	}
	s.regex = good
	if err := m.openRegexRules(s, &k2, nil); !errors.Is(err, ErrSealedInvalid) {
		t.Errorf("patterns without a regex rule: %v", err)
	}
}

// TestSealedRegionsDamaged flips a byte in every region of a sealed file
// (header, meta, directory, each array, page tags, mac), of version 3 and
// of version 5 (with record rules): a flip outside the arrays (and, in
// version 5, the page tags) is refused at load; a flip in an array (or in
// a version 5 page tag) loads (the page is checked with its tag when read)
// but gives no finding the intact file does not, and once its page is read
// the Matcher's IntegrityErr reports it. Nothing panics.
func TestSealedRegionsDamaged(t *testing.T) {
	for _, records := range []bool{false, true} {
		t.Run(fmt.Sprintf("records=%v", records), func(t *testing.T) { testSealedRegionsDamaged(t, records) })
	}
}

func testSealedRegionsDamaged(t *testing.T, records bool) {
	c := &Catalog{}
	var lines [][]byte
	for i := range 4 {
		r := Rule{ID: fmt.Sprintf("R%d", i), Category: "x", Severity: SeverityError, Match: []MatchKind{MatchLiteral, MatchIdentifier}[i%2],
			CaseSensitive: i == 2, NoBoundary: i == 3}
		for j := range 1500 {
			v := fmt.Sprintf("Value%d Person%d", i, j)
			r.Values = append(r.Values, NewValue(v))
			if j%50 == 0 {
				lines = append(lines, []byte("x := \""+v+"\" // Value"+v))
			}
		}
		c.Rules = append(c.Rules, r)
	}
	// A value in two rules: a rule set.
	c.Rules[0].Values = append(c.Rules[0].Values, NewValue("Value1 Person7"))
	if records {
		c.Rules[0].Record = &RecordRule{By: []string{"R1"}, Within: 3}
		c.Rules[1].Record = &RecordRule{}
		for i := range c.Rules {
			for j := range c.Rules[i].Values {
				c.Rules[i].ValueLines = append(c.Rules[i].ValueLines, int32(j%1500+2))
			}
		}
	}
	key := bytes.Repeat([]byte{9}, SealKeySize)
	var buf bytes.Buffer
	if err := Seal(&buf, c, key, nil); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if v := binary.LittleEndian.Uint32(data[sealHdrVersion:]); v != map[bool]uint32{false: 3, true: 5}[records] {
		t.Fatalf("version %d", v)
	}
	intact, _, err := LoadSealed(data, key)
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]Match, len(lines))
	found := 0
	for i, l := range lines {
		want[i] = intact.Find(l, nil)
		found += len(want[i])
	}
	if found < len(lines) {
		t.Fatalf("only %d findings in %d lines", found, len(lines))
	}
	other, err := Compile(&Catalog{Rules: []Rule{{ID: "OTHER", Category: "x", Severity: SeverityError, Values: []Value{NewValue("Other Value")}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	arrOff, tagOff := sealedRegions(data)
	metaOff := binary.LittleEndian.Uint64(data[sealHdrMetaOff:])
	metaLen := binary.LittleEndian.Uint64(data[sealHdrMetaLen:])
	dirOff := binary.LittleEndian.Uint64(data[sealHdrDirOff:])
	regions := map[string][2]uint64{
		"header":    {0, sealHeaderSize},
		"meta":      {metaOff, metaOff + metaLen},
		"directory": {dirOff, dirOff + sealArrays*sealDirEntrySize},
		"page tags": {tagOff, uint64(len(data) - sealMACSize)},
		"mac":       {uint64(len(data) - sealMACSize), uint64(len(data))},
	}
	for id := range sealArrays {
		e := data[dirOff+uint64(id)*sealDirEntrySize:]
		off, n := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])*uint64(sealArrayElem[id])
		if n > 0 {
			regions[fmt.Sprintf("array %d", id)] = [2]uint64{off, off + n}
		}
	}
	if len(regions) < 5+8 {
		t.Fatalf("only %d regions", len(regions))
	}
	tagsLoaded := 0 // version 5: flipped tags that load (their page fails when read)
	for name, r := range regions {
		for _, at := range []uint64{r[0], (r[0] + r[1]) / 2, r[1] - 1} {
			b := bytes.Clone(data)
			b[at] ^= 0x10
			m, _, err := LoadSealed(b, key)
			inArrays := at >= arrOff && at < tagOff
			page := at // a byte of the page the flip damages
			if records && at >= tagOff && at < uint64(len(data)-sealMACSize) {
				inArrays = true // a version 5 tag is checked with its page
				page = arrOff + (at-tagOff)/sealTagSize*sealPageSize
			}
			if err != nil {
				if !errors.Is(err, ErrSealedInvalid) && !errors.Is(err, ErrSealKeyWrong) {
					t.Fatalf("%s at %d: %v", name, at, err)
				}
				continue
			}
			if !inArrays {
				t.Fatalf("%s: a flipped byte at %d was not detected at load", name, at)
			}
			if page != at {
				tagsLoaded++
			}
			for i, l := range lines {
				for _, x := range m.Find(l, nil) {
					// A match the intact file gives, or one it gives on the
					// matched text alone (the damaged page hid a longer
					// match that overlapped it).
					alone := Match{Rule: x.Rule, Start: 0, End: x.End - x.Start}
					if !slices.Contains(want[i], x) && !slices.Contains(intact.Find(l[x.Start:x.End], nil), alone) {
						t.Fatalf("%s: a flipped byte at %d gave a finding the intact file does not: %v, intact %v, line %q", name, at, x, want[i], l)
					}
				}
			}
			// Checking every page finds it, in a combination too.
			m2, _, _ := LoadSealed(b, key)
			comb, err := Combine(other, m2)
			if err != nil {
				t.Fatal(err)
			}
			if err := comb.CheckIntegrity(); !errors.Is(err, ErrSealedInvalid) {
				t.Fatalf("%s: CheckIntegrity of a flipped byte at %d: %v", name, at, err)
			}
			// Reading the damaged page reports it.
			if m.sealChk.okRange(page, 1) || m.IntegrityErr() == nil || !errors.Is(m.IntegrityErr(), ErrSealedInvalid) {
				t.Fatalf("%s: a flipped byte at %d was not detected when read", name, at)
			}
		}
	}
	if records && tagsLoaded == 0 {
		t.Fatal("version 5: no flipped page tag loaded: the load reads the tags")
	}
	if intact.IntegrityErr() != nil || intact.CheckIntegrity() != nil {
		t.Fatal("the intact file reports damage")
	}
	if !intact.sealChk.okRange(arrOff, tagOff-arrOff) {
		t.Fatal("the intact file's pages fail their check")
	}
}

// TestSealedPageChecksConcurrent: lookups from many goroutines check pages
// at once (run with -race).
func TestSealedPageChecksConcurrent(t *testing.T) {
	c := &Catalog{Rules: []Rule{{ID: "R", Category: "x", Severity: SeverityError}}}
	var lines [][]byte
	for j := range 3000 {
		v := fmt.Sprintf("Someone Number%d", j)
		c.Rules[0].Values = append(c.Rules[0].Values, NewValue(v))
		lines = append(lines, []byte("owner: "+v))
	}
	key := bytes.Repeat([]byte{4}, SealKeySize)
	m := sealAndLoad(t, c, key)
	var wg sync.WaitGroup
	var missed atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, l := range lines {
				if len(m.Find(l, nil)) != 1 {
					missed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if missed.Load() != 0 || m.IntegrityErr() != nil {
		t.Fatalf("%d lines missed, %v", missed.Load(), m.IntegrityErr())
	}
}

// sealAndLoad seals c with key and loads it, failing t on any error.
func sealAndLoad(t *testing.T, c *Catalog, key []byte) *Matcher {
	t.Helper()
	var buf bytes.Buffer
	if err := Seal(&buf, c, key, nil); err != nil {
		t.Fatal(err)
	}
	m, _, err := LoadSealed(buf.Bytes(), key)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
