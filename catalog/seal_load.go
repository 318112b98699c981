package catalog

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// sealedErr wraps ErrSealedInvalid with a value-free reason.
func sealedErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrSealedInvalid}, args...)...)
}

// IsSealed reports whether data starts like a sealed catalog.
func IsSealed(data []byte) bool {
	return len(data) >= len(sealMagic) && string(data[:len(sealMagic)]) == string(sealMagic[:])
}

// LoadSealed checks the sealed catalog data with sealKey and returns its
// Matcher and description. Nothing is parsed or compiled, and the load
// reads none of the tables (in version 3, only their page tags): the
// header is checked (magic, version, sizes), then the key (a wrong key is
// ErrSealKeyWrong), then the integrity (HMAC-SHA256) of everything but the
// tables (header, metadata, directory; in version 3 the page tags too),
// then the fingerprint key is decrypted and the directory's offsets and
// sizes are checked. The tables' pages are decrypted into memory and
// checked against their tags the first time a lookup reads them: a
// damaged page reads as absent, so no finding comes from it, and
// Matcher.IntegrityErr reports it. data is read for the Matcher's life
// (page by page, as lookups need them): it must stay unmodified (a
// mapping of a file that is replaced, not rewritten in place). A damaged
// or foreign file is ErrSealedInvalid with a value-free reason.
func LoadSealed(data, sealKey []byte) (*Matcher, *Sealed, error) {
	m, s, err := LoadSealedPart(data, sealKey)
	if err != nil {
		return nil, nil, err
	}
	if s.part != nil {
		return nil, nil, partAloneErr(s.part)
	}
	return m, s, nil
}

// partAloneErr is the error of a part loaded as a whole catalog.
func partAloneErr(p *partHeader) error {
	return sealedErr("the file is part %d of a sealed catalog in %d parts, which this use cannot load (name the first part in the key map, with every part beside it)", p.index, p.count)
}

// LoadSealedPart is LoadSealed for a file that may be a part of a catalog
// sealed in parts (SealTable): such a part is loaded alone, and
// Sealed.Parts tells how many parts to join with JoinSealed.
func LoadSealedPart(data, sealKey []byte) (*Matcher, *Sealed, error) {
	if len(sealKey) != SealKeySize {
		return nil, nil, fmt.Errorf("sealed catalog: the seal key must be %d bytes", SealKeySize)
	}
	var err error
	if !noFault(func() { err = checkSealedHeader(data) }) {
		return nil, nil, sealedErr("the file was truncated while it was read")
	}
	if err != nil {
		return nil, nil, err
	}
	arrOff, tagOff := sealedRegions(data)
	macTags := sealMACsTags(binary.LittleEndian.Uint32(data[sealHdrVersion:]))
	// What the mac covers is copied to memory first and read only from
	// there: a file changed under its mapping cannot change it after the
	// check. The arrays are decrypted page by page, also into memory. In
	// version 5 the page tags are not under the mac (each is checked
	// with its page) and are read from data, a tag at a time.
	macEnd := uint64(len(data)) - sealMACSize
	head, ok1 := copyMapped(make([]byte, 0, arrOff), data[:arrOff])
	from := macEnd
	if macTags {
		from = tagOff
	}
	tail, ok2 := copyMapped(make([]byte, 0, uint64(len(data))-from), data[from:])
	if !ok1 || !ok2 {
		return nil, nil, sealedErr("the file was truncated while it was read")
	}
	if a, t := sealedRegions(head); a != arrOff || t != tagOff || binary.LittleEndian.Uint32(head[sealHdrVersion:]) != binary.LittleEndian.Uint32(data[sealHdrVersion:]) {
		return nil, nil, sealedErr("the file changed while it was read")
	}
	keys := deriveSealKeys(sealKey, head[sealHdrSalt:sealHdrSalt+sealSaltSize])
	if subtle.ConstantTimeCompare(keys.check[:], head[sealHdrKeyCheck:sealHdrKeyCheck+32]) != 1 {
		return nil, nil, ErrSealKeyWrong
	}
	tags, sum := tail[:len(tail)-sealMACSize], tail[len(tail)-sealMACSize:]
	if !macTags {
		tags = data[tagOff:macEnd]
	}
	mac := hmac.New(sha256.New, keys.mac[:])
	mac.Write(head)
	if macTags {
		mac.Write(tags)
	}
	if !hmac.Equal(mac.Sum(nil), sum) {
		return nil, nil, sealedErr("integrity check failed: the file is damaged or was modified")
	}
	aead, err := newSealAEAD(&keys)
	if err != nil {
		return nil, nil, err
	}
	var fp [32]byte
	if _, err := aead.Open(fp[:0], head[sealHdrNonce:sealHdrNonce+12], head[sealHdrFPKey:sealHdrFPKey+48], sealAAD(head[:sealHeaderSize])); err != nil {
		return nil, nil, sealedErr("the fingerprint key cannot be decrypted")
	}
	pageAEAD, err := newGCM(keys.page[:])
	if err != nil {
		return nil, nil, err
	}
	chk := newSealChecker(data, arrOff, tagOff, tags, pageAEAD, false)
	m, s, err := parseSealed(head, len(data), keys.hash[:], chk)
	if err != nil {
		chk.release()
		return nil, nil, err
	}
	if err := m.openRegexRules(s, &keys, head[sealHdrSalt:sealHdrSalt+sealSaltSize]); err != nil {
		chk.release()
		return nil, nil, err
	}
	// The tables are read through m (Find and Records keep it alive while
	// they do): they are freed once m is unreachable.
	runtime.AddCleanup(m, func(rel func()) { rel() }, chk.release)
	m.fpKey = fp
	if m.recIdx != nil {
		m.recIdx.fieldKey = keys.rec.field
	}
	return m, s, nil
}

// openRegexRules decrypts and compiles the regex rules of a file sealed
// with SealOptions.Regex (sealRegexRules): every regex rule of the
// metadata must be there exactly once, and nothing else.
func (m *Matcher) openRegexRules(s *Sealed, keys *sealKeys, salt []byte) error {
	blob := s.regex
	s.regex = nil
	want := 0
	for i := range m.modes {
		if m.modes[i].match == MatchRegex {
			want++
		}
	}
	if want == 0 {
		if blob != nil {
			return sealedErr("regex patterns without a regex rule")
		}
		return nil
	}
	if len(blob) < 12 {
		return sealedErr("regex rules without their patterns")
	}
	aead, err := newGCM(keys.regex[:])
	if err != nil {
		return err
	}
	plain, err := aead.Open(nil, blob[:12], blob[12:], salt)
	if err != nil {
		return sealedErr("the regex patterns cannot be decrypted")
	}
	defer clear(plain)
	r := &metaReader{b: plain}
	seen := make(map[int]bool, want)
	for range want {
		ri, n := int(r.u32()), r.u32()
		if r.bad || ri >= len(m.modes) || m.modes[ri].match != MatchRegex || seen[ri] || n == 0 || n > MaxRegexValues {
			return sealedErr("regex rule table is inconsistent")
		}
		seen[ri] = true
		rule := Rule{ID: m.rules[ri].ID, Match: MatchRegex, CaseSensitive: m.modes[ri].cs, NoBoundary: s.Rules[ri].NoBoundary}
		for range n {
			p, ok := r.str(len(r.b))
			if !ok {
				return sealedErr("regex rule table is inconsistent")
			}
			rule.Values = append(rule.Values, NewValue(string(p)))
		}
		if err := m.compileRegexRule(ri, &rule); err != nil {
			return sealedErr("a regex pattern does not compile")
		}
	}
	if len(r.b) != 0 {
		return sealedErr("regex rule table is inconsistent")
	}
	m.setAnchorBits()
	return nil
}

// checkSealedHeader checks the fixed header of data: magic, version, sizes.
func checkSealedHeader(data []byte) error {
	if !IsSealed(data) {
		return sealedErr("not a sealed catalog (no sealed catalog header)")
	}
	if len(data) < sealHeaderSize+sealMACSize {
		return sealedErr("file is truncated")
	}
	if v := binary.LittleEndian.Uint32(data[sealHdrVersion:]); v != SealVersion && v != sealVersionNoRecords {
		if v == sealVersionRecordsV4 {
			return sealedErr("format version 4 (record rules, as a development build of privscan sealed them) is no longer read (this privscan reads versions %d and %d): seal the table again with this version", sealVersionNoRecords, SealVersion)
		}
		return sealedErr("format version %d is not supported (this privscan reads versions %d and %d): seal the catalog again with this version", v, sealVersionNoRecords, SealVersion)
	}
	if binary.LittleEndian.Uint32(data[sealHdrSize:]) != sealHeaderSize {
		return sealedErr("header size mismatch")
	}
	if len(data) > MaxSealedSize {
		return sealedErr("file is larger than 2 GiB")
	}
	if n := binary.LittleEndian.Uint64(data[sealHdrFileSize:]); n != uint64(len(data)) {
		return sealedErr("file is %d bytes but its header says %d: it is truncated or has extra bytes", len(data), n)
	}
	arrOff, tagOff := sealedRegions(data)
	end := uint64(len(data) - sealMACSize)
	if arrOff < sealHeaderSize || arrOff%sealAlign != 0 || tagOff < arrOff || tagOff > end ||
		(tagOff-arrOff+sealPageSize-1)/sealPageSize*sealTagSize != end-tagOff {
		return sealedErr("table region or page tags out of bounds")
	}
	return nil
}

// sealedRegions returns the header's arrays start and page tags start
// (checked by checkSealedHeader).
func sealedRegions(data []byte) (arrOff, tagOff uint64) {
	return binary.LittleEndian.Uint64(data[sealHdrArrOff:]), binary.LittleEndian.Uint64(data[sealHdrTagOff:])
}

// parseSealed builds the Matcher of data, whose header (checkSealedHeader)
// and integrity but for the tables' pages are checked, with the tables'
// hash key hashKey; chk checks the pages. It checks every offset and size
// and checks whole the small arrays it uses whole (prefilter, rule sets),
// and the lookups check what they read of the others (bitset.has,
// table.getSealed), so that no content makes it or the Matcher's Find
// panic, loop or read out of bounds. Its cost does not grow with the
// tables.
func parseSealed(data []byte, size int, hashKey []byte, chk *sealChecker) (*Matcher, *Sealed, error) {
	arrOff, end := sealedRegions(data)
	metaOff := binary.LittleEndian.Uint64(data[sealHdrMetaOff:])
	metaLen := binary.LittleEndian.Uint64(data[sealHdrMetaLen:])
	dirOff := binary.LittleEndian.Uint64(data[sealHdrDirOff:])
	version := int(binary.LittleEndian.Uint32(data[sealHdrVersion:]))
	nArr := uint64(sealArraysV3)
	if version == SealVersion {
		nArr = sealArrays
	}
	if uint64(binary.LittleEndian.Uint32(data[sealHdrDirCount:])) != nArr {
		return nil, nil, sealedErr("unexpected table count")
	}
	part, err := readPartHeader(data)
	if err != nil {
		return nil, nil, err
	}
	if metaOff < sealHeaderSize || metaOff > end || metaLen > end-metaOff {
		return nil, nil, sealedErr("rule metadata out of bounds")
	}
	if dirOff < metaOff+metaLen || dirOff > arrOff || arrOff-dirOff < nArr*sealDirEntrySize {
		return nil, nil, sealedErr("table directory out of bounds")
	}
	m := &Matcher{k: deriveKeys(hashKey)}
	s := &Sealed{Version: version, Size: int64(size), part: part}
	if part != nil {
		s.Parts, s.Part = part.count, part.index
	}
	r := &metaReader{b: data[metaOff : metaOff+metaLen]}
	vbits, err := m.readSealedMeta(r, s, version)
	if err != nil {
		return nil, nil, err
	}
	var u64 [sealArrays][]uint64
	var u32 [sealArrays][]uint32
	var aoff [sealArrays]uint64
	dir := data[dirOff : dirOff+nArr*sealDirEntrySize]
	for id := range int(nArr) {
		e := dir[id*sealDirEntrySize:]
		if binary.LittleEndian.Uint32(e) != uint32(id) || binary.LittleEndian.Uint32(e[4:]) != sealArrayElem[id] {
			return nil, nil, sealedErr("table directory entry %d is not the expected table", id)
		}
		off, n := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		sz := uint64(sealArrayElem[id])
		if off%sealAlign != 0 || off < arrOff || off > end || n > (end-off)/sz {
			return nil, nil, sealedErr("table %d out of bounds", id)
		}
		aoff[id] = off
		b := chk.plain[off-arrOff : off-arrOff+n*sz]
		if id == arrPre || id == arrMultiOff || id == arrMultiRules || id == arrScalars {
			// Used whole: checked now (the prefilter is at most 32 KiB).
			if !chk.okRange(off, n*sz) {
				return nil, nil, sealedErr("integrity check failed: the file is damaged or was modified")
			}
		}
		if sz == 8 {
			u64[id] = viewU64(b)
		} else {
			u32[id] = viewU32(b)
		}
	}
	// The scalars that come from values (arrScalars).
	sc := u64[arrScalars]
	if len(sc) != sealScalars {
		return nil, nil, sealedErr("matcher scalars have the wrong size")
	}
	const maxTokens = 1 << 16
	if sc[0] > maxTokens || sc[1] > maxTokens || sc[2] > maxTokens {
		return nil, nil, sealedErr("value length out of range")
	}
	m.lit.maxLen, m.id.maxLen = int(sc[0]), int(sc[1])
	if m.sub != nil {
		m.sub.maxLen = int(sc[2])
	}
	for c := range 128 {
		if sc[3+c/64]>>(c%64)&1 != 0 {
			m.sepTab[c] = sepFirst
		}
	}
	nMulti := len(u32[arrMultiOff]) - 1
	if nMulti < 0 {
		return nil, nil, sealedErr("rule set table is empty")
	}
	m.multi = make([][]uint32, nMulti)
	offs, flat := u32[arrMultiOff], u32[arrMultiRules]
	if offs[0] != 0 || int(offs[nMulti]) != len(flat) {
		return nil, nil, sealedErr("rule set table is inconsistent")
	}
	for i := range nMulti {
		a, b := offs[i], offs[i+1]
		if b < a || int(b) > len(flat) {
			return nil, nil, sealedErr("rule set table is inconsistent")
		}
		m.multi[i] = flat[a:b:b]
		for _, x := range m.multi[i] {
			if int(x) >= len(m.rules) {
				return nil, nil, sealedErr("rule set names a rule that does not exist")
			}
		}
	}
	bs := func(id int) bitset {
		w := u64[id]
		if len(w) == 0 {
			return bitset{w: make([]uint64, 1), n: 64} // an empty filter: nothing is in it
		}
		return bitset{w: w, n: uint64(len(w)) * 64, chk: chk, off: aoff[id] - arrOff}
	}
	nt := 0
	tab := func(k, v int) table {
		vb := vbits[nt]
		nt++
		t, e := m.sealedTable(u64[k], u32[v], vb)
		if e != nil && err == nil {
			err = e
		}
		if len(t.keys) > 0 {
			t.chk, t.koff, t.voff = chk, aoff[k]-arrOff, aoff[v]-arrOff
		}
		return t
	}
	m.lit = spanIndex{first: bs(arrLitFirst), prefix: bs(arrLitPrefix), full: bs(arrLitFull), tab: tab(arrLitKeys, arrLitVals), maxLen: m.lit.maxLen}
	m.cs = tab(arrCSKeys, arrCSVals)
	m.id = spanIndex{first: bs(arrIDFirst), prefix: bs(arrIDPrefix), full: bs(arrIDFull), tab: tab(arrIDKeys, arrIDVals), maxLen: m.id.maxLen}
	if m.sub != nil {
		m.sub.prefix, m.sub.full = bs(arrSubPrefix), bs(arrSubFull)
		m.sub.fold, m.sub.exact = tab(arrSubFoldKeys, arrSubFoldVals), tab(arrSubExactKeys, arrSubExactVals)
	}
	if err != nil {
		return nil, nil, err
	}
	if w := u64[arrPre]; len(w) > 0 {
		lg := 64 - int(m.pre.shift)
		if m.pre.shift < 5 || m.pre.shift >= 64 || lg > 40 || len(w) != 1<<lg>>5 {
			return nil, nil, sealedErr("prefilter size does not match its shift")
		}
		m.pre.w = w
	} else {
		m.pre = newPrefilter(0) // an empty prefilter: no word is looked at
	}
	m.pool.New = func() any { return new(scratch) }
	for c := range m.sepHash {
		m.sepHash[c] = fmix64(feed(m.k.tokF, uint64(asciiTab[c].fold)) ^ m.k.tokFfin)
	}
	if m.rec != nil {
		keys, ids := u64[arrRecKeys], u64[arrRecIDs]
		if len(keys) != len(ids) {
			return nil, nil, sealedErr("record arrays differ in length")
		}
		m.recIdx = &recordIndex{keys: keys, ids: ids}
		if len(keys) > 0 {
			m.recIdx.chk, m.recIdx.koff, m.recIdx.ioff = chk, aoff[arrRecKeys]-arrOff, aoff[arrRecIDs]-arrOff
		}
	}
	m.setAnchorBits()
	m.sealChk = chk
	return m, s, nil
}

// sealedTable checks a hash table's shape: packed (no values, at most
// maxPackedBits value bits) or keys and values of the same length. What a
// slot holds is checked where it is read (table.getSealed).
func (m *Matcher) sealedTable(keys []uint64, vals []uint32, vbits uint8) (table, error) {
	t := table{keys: keys, vals: vals, nRules: uint32(len(m.rules)), nMulti: uint32(len(m.multi))}
	switch {
	case len(keys) == 0:
		if len(vals) != 0 || vbits != 0 {
			return table{}, sealedErr("hash table arrays differ in length")
		}
		return table{}, nil
	case vbits == 0:
		if len(keys) != len(vals) {
			return table{}, sealedErr("hash table arrays differ in length")
		}
	case len(vals) != 0 || vbits > maxPackedBits:
		return table{}, sealedErr("hash table is not packed")
	default:
		t.vbits, t.vmask = vbits, 1<<vbits-1
	}
	return t, nil
}

// metaReader reads the meta block, bounds-checked.
type metaReader struct {
	b   []byte
	bad bool
}

func (r *metaReader) u32() uint32 {
	if len(r.b) < 4 {
		r.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *metaReader) u64() uint64 {
	if len(r.b) < 8 {
		r.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *metaReader) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.bad = true
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *metaReader) str(limit int) ([]byte, bool) {
	n := r.u32()
	if r.bad || n > uint32(limit) {
		return nil, false
	}
	b := r.bytes(uint64(n))
	return b, !r.bad
}

// readSealedMeta reads the rules and scalars of the meta block into m and s.
func (m *Matcher) readSealedMeta(r *metaReader, s *Sealed, version int) (vbits [5]uint8, err error) {
	n := r.u32()
	// A rule takes at least 23 bytes: a bound before allocating.
	if r.bad || n == 0 || uint64(n) > uint64(len(r.b))/23 {
		return vbits, sealedErr("rule count does not fit the metadata")
	}
	s.Rules = make([]SealedRule, 0, n)
	m.rules = make([]RuleInfo, 0, n)
	m.modes = make([]ruleMode, 0, n)
	ids := make(map[string]struct{}, n)
	for i := range int(n) {
		id, ok1 := r.str(64)
		cat, ok2 := r.str(32)
		desc, ok3 := r.str(MaxDescriptionBytes)
		hb := r.bytes(3)
		vals := r.u64()
		if !ok1 || !ok2 || !ok3 || r.bad {
			return vbits, sealedErr("rule %d: metadata is truncated", i+1)
		}
		if !validRuleID(id) {
			return vbits, sealedErr("rule %d: invalid rule ID", i+1)
		}
		if _, dup := ids[string(id)]; dup {
			return vbits, sealedErr("rule %s is defined twice", id)
		}
		ids[string(id)] = struct{}{}
		sev, kind, flags := Severity(hb[0]), MatchKind(hb[1]), hb[2]
		switch {
		case !validCategory(cat):
			return vbits, sealedErr("rule %s: invalid category", id)
		case !validDescription(desc):
			return vbits, sealedErr("rule %s: invalid description", id)
		case sev < SeverityNote || sev > SeverityError:
			return vbits, sealedErr("rule %s: invalid severity", id)
		case kind != MatchLiteral && kind != MatchIdentifier && kind != MatchRegex:
			return vbits, sealedErr("rule %s: invalid match kind", id)
		case flags&^(sealRuleCS|sealRuleNoBoundary) != 0:
			return vbits, sealedErr("rule %s: invalid settings", id)
		case vals > 1<<40:
			return vbits, sealedErr("rule %s: invalid value count", id)
		}
		info := RuleInfo{ID: string(id), Category: string(cat), Severity: sev, Description: string(desc)}
		m.rules = append(m.rules, info)
		m.modes = append(m.modes, ruleMode{match: kind, cs: flags&sealRuleCS != 0})
		s.Rules = append(s.Rules, SealedRule{RuleInfo: info, Match: kind, CaseSensitive: flags&sealRuleCS != 0,
			NoBoundary: flags&sealRuleNoBoundary != 0, Values: int(vals)})
	}
	flags := r.u32()
	shift := r.u32()
	copy(vbits[:], r.bytes(uint64(len(vbits))))
	if version == SealVersion && !r.bad {
		if m.rec, err = readRecordMeta(r, len(m.rules)); err != nil {
			return vbits, err
		}
		for i, info := range m.rec {
			if info == nil {
				continue
			}
			if m.modes[i].match == MatchRegex {
				return vbits, sealedErr("rule %s: a regex rule in a record rule", m.rules[i].ID)
			}
			rr := &RecordRule{Within: info.Within, Uncorroborated: info.Uncorroborated, Hidden: info.Hidden}
			for _, j := range info.By {
				rr.By = append(rr.By, m.rules[j].ID)
			}
			s.Rules[i].Record = rr
		}
	}
	if !r.bad && len(r.b) != 0 {
		// The encrypted patterns of regex rules (SealOptions.Regex).
		var ok bool
		if s.regex, ok = r.str(len(r.b)); !ok {
			return vbits, sealedErr("metadata has the wrong size")
		}
	}
	if r.bad || len(r.b) != 0 {
		return vbits, sealedErr("metadata has the wrong size")
	}
	if flags&^(sealHasLit|sealHasCS|sealHasID|sealHasSub|sealSubHasCS) != 0 {
		return vbits, sealedErr("unknown matcher flags")
	}
	m.hasLit, m.hasCS, m.hasID = flags&sealHasLit != 0, flags&sealHasCS != 0, flags&sealHasID != 0
	if flags&sealHasSub != 0 {
		m.sub = &subIndex{hasCS: flags&sealSubHasCS != 0}
	}
	m.pre.shift = uint(shift)
	return vbits, nil
}

// validDescription reports whether d is a description Parse accepts: UTF-8
// without control characters.
func validDescription(d []byte) bool {
	if !utf8.Valid(d) {
		return false
	}
	for _, r := range string(d) {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// viewU64 returns b (little-endian uint64s) as a []uint64: in place when
// the host is little-endian and b is 8-byte aligned, else a copy.
func viewU64(b []byte) []uint64 {
	n := len(b) / 8
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0 {
		return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

// viewU32 is viewU64 for uint32s.
func viewU32(b []byte) []uint32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// OpenSealed loads the sealed catalog in f, of size bytes (from the
// caller's fstat), with sealKey. On unix the file is mapped read-only and
// the Matcher uses the mapping in place (it is unmapped when the Matcher
// is no longer reachable); elsewhere it is read into memory. A file over
// MaxSealedSize is refused before it is mapped. Replace a sealed file by
// renaming a new one over it (as privscan catalog seal does), never by
// rewriting it in place while a process has it open.
func OpenSealed(f *os.File, size int64, sealKey []byte) (*Matcher, *Sealed, error) {
	if size > MaxSealedSize {
		return nil, nil, sealedErr("file is larger than 2 GiB")
	}
	if size < sealHeaderSize+sealMACSize {
		return nil, nil, sealedErr("file is truncated")
	}
	m, s, err := OpenSealedPart(f, size, sealKey)
	if err != nil {
		return nil, nil, err
	}
	if s.part != nil {
		return nil, nil, partAloneErr(s.part)
	}
	return m, s, nil
}

// OpenSealedPart is OpenSealed for a file that may be a part of a catalog
// sealed in parts (see LoadSealedPart).
func OpenSealedPart(f *os.File, size int64, sealKey []byte) (*Matcher, *Sealed, error) {
	if size > MaxSealedSize {
		return nil, nil, sealedErr("file is larger than 2 GiB")
	}
	if size < sealHeaderSize+sealMACSize {
		return nil, nil, sealedErr("file is truncated")
	}
	data, release, err := mapSealed(f, size)
	if err != nil {
		return nil, nil, err
	}
	m, s, err := LoadSealedPart(data, sealKey)
	if err != nil {
		release()
		return nil, nil, err
	}
	// Find keeps m alive while it reads the tables (runtime.KeepAlive).
	runtime.AddCleanup(m, func(rel func()) { rel() }, release)
	return m, s, nil
}
