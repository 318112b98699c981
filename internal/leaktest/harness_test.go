package leaktest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A needle is one spelling of a canary that must not appear in an output.
type needle struct {
	text   []byte
	canary int    // index into detector.canaries
	form   string // how the canary was spelled: "plain", "base64-std@1", ...
	fold   bool   // compared against the lower-cased, blank-collapsed output
}

// leak is one needle found in one output.
type leak struct {
	Output string // what was captured: "stdout", a file name, ...
	Canary string
	Form   string
	Offset int
}

func (l leak) String() string {
	return fmt.Sprintf("%s: canary %q as %s at byte %d", l.Output, l.Canary, l.Form, l.Offset)
}

// detector finds every encoding of a set of canaries in a byte string. Its
// needles are indexed by their first two and four bytes, so one pass over
// an output checks all of them.
type detector struct {
	canaries []string
	needles  []needle
	first2   [2][1 << 16]bool           // [fold] first two bytes of some needle
	by4      [2]map[uint32][]int        // [fold] first four bytes -> needle indexes
	forms    map[string]map[string]bool // canary -> forms generated (for the self-test)
	minLen   int
}

// minNeedle is the shortest needle kept: a base64 core shorter than this
// could occur by chance in the hex fingerprints and base64 in outputs.
const minNeedle = 6

// newDetector builds the needles of every canary:
//
//   - case variants: as given, lower case, upper case;
//   - each in NFC and NFD;
//   - each of those plain, QueryEscape'd, PathEscape'd, JSON-escaped (as
//     json.Marshal writes it, and with every non-ASCII rune as \uXXXX), and
//     hex-encoded: compared case-insensitively against the output with runs
//     of blanks collapsed to one space (so "A  b" and "A\tb" are found as
//     "a b", and upper-case hex or escapes are found too);
//   - base64 (standard and URL alphabets) at the three byte alignments the
//     value can have inside a longer encoded string: the characters that
//     depend only on the value's bytes, compared exactly.
func newDetector(canaries []string) *detector {
	d := &detector{canaries: canaries, forms: map[string]map[string]bool{}, minLen: minNeedle}
	d.by4[0], d.by4[1] = map[uint32][]int{}, map[uint32][]int{}
	seen := map[string]bool{}
	add := func(ci int, form string, s string, fold bool) {
		if fold {
			s = collapseBlanks(strings.ToLower(s))
		}
		if len(s) < d.minLen {
			return
		}
		key := fmt.Sprintf("%t\x00%s", fold, s)
		if d.forms[canaries[ci]] == nil {
			d.forms[canaries[ci]] = map[string]bool{}
		}
		d.forms[canaries[ci]][baseForm(form)] = true
		if seen[key] {
			return
		}
		seen[key] = true
		d.needles = append(d.needles, needle{text: []byte(s), canary: ci, form: form, fold: fold})
	}
	for ci, c := range canaries {
		variants := map[string]string{}
		for cname, cv := range map[string]string{"": c, "lower+": strings.ToLower(c), "upper+": strings.ToUpper(c)} {
			variants[cname+"nfc"] = norm.NFC.String(cv)
			variants[cname+"nfd"] = norm.NFD.String(cv)
		}
		names := make([]string, 0, len(variants))
		for n := range variants {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, vn := range names {
			v := variants[vn]
			add(ci, "plain/"+vn, v, true)
			add(ci, "query-escape/"+vn, url.QueryEscape(v), true)
			add(ci, "path-escape/"+vn, url.PathEscape(v), true)
			add(ci, "json/"+vn, jsonEscape(v), true)
			add(ci, "json-ascii/"+vn, jsonASCII(v), true)
			add(ci, "hex/"+vn, hex.EncodeToString([]byte(v)), true)
			for align := 0; align < 3; align++ {
				add(ci, fmt.Sprintf("base64-std@%d/%s", align, vn), base64Core(base64.RawStdEncoding, v, align), false)
				add(ci, fmt.Sprintf("base64-url@%d/%s", align, vn), base64Core(base64.RawURLEncoding, v, align), false)
			}
		}
	}
	for i, n := range d.needles {
		f := 0
		if n.fold {
			f = 1
		}
		d.first2[f][binary.LittleEndian.Uint16(n.text)] = true
		k := binary.LittleEndian.Uint32(n.text)
		d.by4[f][k] = append(d.by4[f][k], i)
	}
	return d
}

// baseForm is a needle's form without its variant: "base64-std@1".
func baseForm(form string) string {
	if i := strings.IndexByte(form, '/'); i >= 0 {
		return form[:i]
	}
	return form
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// jsonASCII escapes s as a JSON encoder that writes only ASCII does.
func jsonASCII(s string) string {
	var b strings.Builder
	for _, r := range jsonEscape(s) {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// base64Core returns the characters of the encoding of s, preceded by
// align arbitrary bytes, that depend on s's bytes alone: those characters
// appear in any base64 text that encodes s at that alignment.
func base64Core(enc *base64.Encoding, s string, align int) string {
	full := enc.EncodeToString(append(make([]byte, align), s...))
	start := (8*align + 5) / 6      // first character with no pad bit
	end := 8 * (align + len(s)) / 6 // characters made only of s's bits
	if end > len(full) {
		end = len(full)
	}
	if start >= end {
		return ""
	}
	return full[start:end]
}

// collapseBlanks replaces every run of spaces and tabs with one space.
func collapseBlanks(s string) string {
	if !strings.ContainsAny(s, "\t") && !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	blank := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' {
			if !blank {
				b.WriteByte(' ')
			}
			blank = true
			continue
		}
		blank = false
		b.WriteByte(c)
	}
	return b.String()
}

// find returns every needle that occurs in data, at most one leak per
// (canary, form) pair.
func (d *detector) find(name string, data []byte) []leak {
	if len(data) == 0 {
		return nil
	}
	var out []leak
	reported := map[int]bool{}
	scan := func(text []byte, fold int) {
		for i := 0; i+d.minLen <= len(text); i++ {
			if !d.first2[fold][binary.LittleEndian.Uint16(text[i:])] {
				continue
			}
			for _, ni := range d.by4[fold][binary.LittleEndian.Uint32(text[i:])] {
				n := &d.needles[ni]
				if !reported[ni] && bytes.HasPrefix(text[i:], n.text) {
					reported[ni] = true
					out = append(out, leak{Output: name, Canary: d.canaries[n.canary], Form: n.form, Offset: i})
				}
			}
		}
	}
	scan(data, 0)
	scan([]byte(collapseBlanks(strings.ToLower(string(data)))), 1)
	return out
}
