// Record rules (docs/catalog.md, "Record rules"; docs/design/record-rules.md):
// a rule of a table catalog whose match counts only when a corroborating
// rule matches a value of the same row near it. The Matcher keeps, for
// every (rule, value, row) of the rules that take part, a keyed hash of
// the rule and the normalised value and a keyed identifier of the row:
// "same row" is decided with those keys and nothing else, and no row
// number or value is kept.

package catalog

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"runtime"
	"sort"
)

// WithinFile is RecordRule.Within for a window of the whole file (or
// commit message, or text).
const WithinFile = -1

// MaxWithin is the widest window in lines a record rule may have.
const MaxWithin = 100000

// RecordRule is a rule's part in record rules. A rule with a RecordRule
// takes part: its values are hashed with their rows. It is set only for
// catalogs read from a table (ReadTable); Markdown has no rows.
type RecordRule struct {
	// By lists the IDs of the rules whose match, of a value of the same
	// row, corroborates a match of this rule. Empty: the rule only
	// corroborates others.
	By []string
	// Within is the window in lines (a corroborating match at most
	// Within lines before or after counts), or WithinFile.
	Within int
	// Uncorroborated is the severity at which an uncorroborated match is
	// reported; 0 drops it.
	Uncorroborated Severity
	// Hidden: the rule only corroborates (a column with search = false),
	// its matches are never reported on their own.
	Hidden bool
}

// RecordInfo is what a scan needs of a rule's part in record rules: By as
// indexes into Matcher.Rules.
type RecordInfo struct {
	By             []int
	Within         int
	Uncorroborated Severity
	Hidden         bool
}

// recordKeys are the keys of the record arrays: field keys the value
// hashes, the row key (AES-256) the row identifiers.
type recordKeys struct {
	field, row [32]byte
}

// recordIndex holds the record arrays: keys sorted (one per (value, row)
// pair, a key repeated for each row it is in), ids parallel to keys.
type recordIndex struct {
	fieldKey [32]byte
	keys     []uint64
	ids      []uint64
	chk      *sealChecker // sealed: checks pages on first read
	koff     uint64       // keys' and ids' offsets in the arrays (sealed)
	ioff     uint64
}

// recordFieldKey is PRF_field(rule ID, normalised value): HMAC-SHA256
// truncated to 64 bits.
func recordFieldKey(key *[32]byte, ruleID string, norm []byte) uint64 {
	return fieldHash(hmac.New(sha256.New, key[:]), ruleID, norm)
}

// fieldHash is recordFieldKey with h, an HMAC-SHA256 under the field key
// (reset here: one per seal).
func fieldHash(h hash.Hash, ruleID string, norm []byte) uint64 {
	h.Reset()
	h.Write([]byte(ruleID))
	h.Write([]byte{0})
	h.Write(norm)
	var sum [sha256.Size]byte
	return binary.LittleEndian.Uint64(h.Sum(sum[:0]))
}

// recordPairs sorts keys, with ids alongside, by key then id.
type recordPairs struct{ keys, ids []uint64 }

func (p recordPairs) Len() int { return len(p.keys) }
func (p recordPairs) Less(i, j int) bool {
	return p.keys[i] < p.keys[j] || p.keys[i] == p.keys[j] && p.ids[i] < p.ids[j]
}
func (p recordPairs) Swap(i, j int) {
	p.keys[i], p.keys[j] = p.keys[j], p.keys[i]
	p.ids[i], p.ids[j] = p.ids[j], p.ids[i]
}

// recordRowID is PRF_row(row): AES-256 of the row number on one block,
// truncated to 64 bits.
func recordRowID(b cipher.Block, row int32) uint64 {
	var in, out [16]byte
	copy(in[:], "privscan/row\x00\x00\x00\x00")
	binary.LittleEndian.PutUint32(in[12:], uint32(row))
	b.Encrypt(out[:], in[:])
	return binary.LittleEndian.Uint64(out[:])
}

// deriveRecordKeys derives the record keys from a compile's hash key
// (Compile without a seal: the keys live as long as the Matcher).
func deriveRecordKeys(hashKey []byte) recordKeys {
	one := func(label string) (out [32]byte) {
		h := hmac.New(sha256.New, hashKey)
		h.Write([]byte("privscan/record/v1/" + label + "\x00"))
		h.Sum(out[:0])
		return out
	}
	return recordKeys{field: one("record-field"), row: one("record-id")}
}

// compileRecords sets m's record rules and arrays from c (after m's
// rules and modes are set). Rules without RecordRule take no part.
func (m *Matcher) compileRecords(c *Catalog, keys recordKeys) error {
	byID := make(map[string]int, len(c.Rules))
	has := false
	for i := range c.Rules {
		byID[c.Rules[i].ID] = i
		has = has || c.Rules[i].Record != nil
	}
	if !has {
		return nil
	}
	block, err := aes.NewCipher(keys.row[:])
	if err != nil {
		return err
	}
	m.rec = make([]*RecordInfo, len(c.Rules))
	n := 0
	for ri := range c.Rules {
		if c.Rules[ri].Record != nil {
			n += len(c.Rules[ri].Values)
		}
	}
	p := recordPairs{keys: make([]uint64, 0, n), ids: make([]uint64, 0, n)}
	fh := hmac.New(sha256.New, keys.field[:])
	var buf, vb []byte
	for ri := range c.Rules {
		r := &c.Rules[ri]
		if r.Record == nil {
			continue
		}
		if r.Match == MatchRegex {
			return errors.New("rule " + r.ID + ": a regex rule cannot take part in a record rule")
		}
		if len(r.ValueLines) != len(r.Values) {
			return errors.New("rule " + r.ID + ": a record rule needs the row of every value (a catalog from a table)")
		}
		info := &RecordInfo{Within: r.Record.Within, Uncorroborated: r.Record.Uncorroborated, Hidden: r.Record.Hidden}
		for _, id := range r.Record.By {
			j, ok := byID[id]
			if !ok || c.Rules[j].Record == nil || j == ri {
				return errors.New("rule " + r.ID + ": corroborated by rule " + id + ", which does not take part in record rules")
			}
			info.By = append(info.By, j)
		}
		m.rec[ri] = info
		for vi, v := range r.Values {
			vb = append(vb[:0], v.reveal()...)
			buf = m.Normalize(buf[:0], vb, ri)
			p.keys = append(p.keys, fieldHash(fh, r.ID, buf))
			p.ids = append(p.ids, recordRowID(block, r.ValueLines[vi]))
		}
	}
	clear(buf)
	clear(vb)
	sort.Sort(p)
	// The same value twice in a row (two columns of one rule) is one pair.
	k := 0
	for i := range p.keys {
		if k > 0 && p.keys[i] == p.keys[k-1] && p.ids[i] == p.ids[k-1] {
			continue
		}
		p.keys[k], p.ids[k] = p.keys[i], p.ids[i]
		k++
	}
	m.recIdx = &recordIndex{fieldKey: keys.field, keys: p.keys[:k:k], ids: p.ids[:k:k]}
	return nil
}

// RecordInfo returns rule i's part in record rules, or nil when it takes
// none (every rule of a Markdown catalog). The result is shared: do not
// modify it.
func (m *Matcher) RecordInfo(i int) *RecordInfo {
	if i < 0 || i >= len(m.rules) {
		return nil
	}
	if m.parts != nil {
		j := m.part(i)
		p, base := m.parts[j], m.partBase[j]
		info := p.RecordInfo(i - base)
		if info == nil {
			return nil
		}
		out := *info
		out.By = make([]int, len(info.By))
		for k, b := range info.By {
			out.By[k] = b + base
		}
		return &out
	}
	if m.rec == nil {
		return nil
	}
	return m.rec[i]
}

// HasRecords reports whether any rule of m takes part in a record rule.
func (m *Matcher) HasRecords() bool {
	for _, p := range m.parts {
		if p.HasRecords() {
			return true
		}
	}
	return m.rec != nil
}

// Records appends to dst the keyed identifiers of the rows whose value of
// rule i is text (a match of rule i, normalised as the rule compares), in
// no meaningful order. Two matches are of the same row when their
// identifiers intersect; an identifier tells nothing of the row without
// the seal key. Nothing is appended for a rule that takes no part.
func (m *Matcher) Records(i int, text []byte, dst []uint64) []uint64 {
	if i < 0 || i >= len(m.rules) {
		return dst
	}
	if m.parts != nil {
		j := m.part(i)
		return m.parts[j].Records(i-m.partBase[j], text, dst)
	}
	if m.set != nil {
		return m.recordsSet(i, text, dst)
	}
	if m.rec == nil || m.rec[i] == nil || m.recIdx == nil {
		return dst
	}
	ri := m.recIdx
	norm := m.Normalize(make([]byte, 0, len(text)), text, i)
	k := recordFieldKey(&ri.fieldKey, m.rules[i].ID, norm)
	clear(norm)
	n := len(ri.keys)
	at := sort.Search(n, func(x int) bool { return ri.key(x) >= k })
	for ; at < n && ri.key(at) == k; at++ {
		if id, ok := ri.id(at); ok {
			dst = append(dst, id)
		}
	}
	// m's cleanup frees the tables ri reads (LoadSealedPart).
	runtime.KeepAlive(m)
	return dst
}

// key returns keys[x]; a page that fails its check reads as the largest
// key (absent).
func (ri *recordIndex) key(x int) uint64 {
	if ri.chk != nil && !ri.chk.ok(ri.koff+uint64(x)*8) {
		return ^uint64(0)
	}
	return ri.keys[x]
}

func (ri *recordIndex) id(x int) (uint64, bool) {
	if ri.chk != nil && !ri.chk.ok(ri.ioff+uint64(x)*8) {
		return 0, false
	}
	return ri.ids[x], true
}

// Bits of a rule's record flags in a version 5 file's metadata.
const (
	sealRecPart   = 1 << iota // takes part in record rules
	sealRecHidden             // only corroborates
	sealRecWithinFile
)

// appendRecordMeta encodes the rules' record rules (version 5): per rule a
// flags byte; for a rule that takes part, the window (u32), the severity
// of an uncorroborated match (a byte, 0: dropped) and the indexes of the
// corroborating rules (u32 count, then u32 each).
func appendRecordMeta(b []byte, rec []*RecordInfo) []byte {
	for _, r := range rec {
		if r == nil {
			b = append(b, 0)
			continue
		}
		f := byte(sealRecPart)
		if r.Hidden {
			f |= sealRecHidden
		}
		w := r.Within
		if w == WithinFile {
			f |= sealRecWithinFile
			w = 0
		}
		b = append(b, f)
		b = binary.LittleEndian.AppendUint32(b, uint32(w))
		b = append(b, byte(r.Uncorroborated))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r.By)))
		for _, j := range r.By {
			b = binary.LittleEndian.AppendUint32(b, uint32(j))
		}
	}
	return b
}

// readRecordMeta reads appendRecordMeta's encoding for n rules and checks
// it: windows in range, corroborating rules that exist, take part and
// are not the rule itself, at least one rule with corroborators.
func readRecordMeta(r *metaReader, n int) ([]*RecordInfo, error) {
	rec := make([]*RecordInfo, n)
	for i := range n {
		f := r.bytes(1)
		if r.bad {
			return nil, sealedErr("record rules are truncated")
		}
		if f[0] == 0 {
			continue
		}
		if f[0]&^(sealRecPart|sealRecHidden|sealRecWithinFile) != 0 || f[0]&sealRecPart == 0 {
			return nil, sealedErr("rule %d: invalid record flags", i+1)
		}
		w := r.u32()
		sev := r.bytes(1)
		k := r.u32()
		if r.bad || uint64(k) > uint64(n) {
			return nil, sealedErr("rule %d: record rule is truncated", i+1)
		}
		info := &RecordInfo{Within: int(w), Hidden: f[0]&sealRecHidden != 0}
		if f[0]&sealRecWithinFile != 0 {
			if w != 0 {
				return nil, sealedErr("rule %d: invalid record window", i+1)
			}
			info.Within = WithinFile
		} else if w > MaxWithin {
			return nil, sealedErr("rule %d: invalid record window", i+1)
		}
		switch s := Severity(sev[0]); {
		case s == 0:
		case s >= SeverityNote && s <= SeverityError:
			info.Uncorroborated = s
		default:
			return nil, sealedErr("rule %d: invalid record severity", i+1)
		}
		for range k {
			j := r.u32()
			if r.bad || int(j) >= n || int(j) == i {
				return nil, sealedErr("rule %d: invalid corroborating rule", i+1)
			}
			info.By = append(info.By, int(j))
		}
		if info.Hidden && len(info.By) > 0 {
			return nil, sealedErr("rule %d: a hidden rule with corroborators", i+1)
		}
		rec[i] = info
	}
	primary := false
	for _, info := range rec {
		if info == nil {
			continue
		}
		primary = primary || len(info.By) > 0
		for _, j := range info.By {
			if rec[j] == nil {
				return nil, sealedErr("a record rule is corroborated by a rule that takes no part")
			}
		}
	}
	if !primary {
		return nil, sealedErr("record arrays without a record rule")
	}
	return rec, nil
}
