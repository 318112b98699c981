// Rule and preamble settings: names, validation and the near-miss check
// that turns a misspelt key into an error instead of a silent default.

package catalog

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rule settings, indexes into parseRuleState.settingLines.
const (
	settingCategory = iota
	settingSeverity
	settingMatch
	settingCase
	settingBoundary
	settingDescription
	numRuleSettings
)

var settingNames = [numRuleSettings]string{"category", "severity", "match", "case", "boundary", "description"}

const fingerprintKeySetting = "fingerprint-key"

func (p *catParser) preambleSetting(n int, text []byte) {
	key, val, ok := mdSplitSetting(text)
	if !ok || !isKeyShape(key) {
		return // prose
	}
	if string(key) != fingerprintKeySetting {
		reason := "unknown catalog setting before the first rule (the only one is " + fingerprintKeySetting + ")"
		if keyNearMiss(key, fingerprintKeySetting) {
			reason = "unknown catalog setting " + strconv.Quote(string(key)) + " (did you mean " + fingerprintKeySetting + "?)"
		}
		p.errAt(n, reason)
		return
	}
	if p.fpKey != 0 {
		p.errAt(n, "duplicate setting "+fingerprintKeySetting+" (first on line "+strconv.Itoa(p.fpKey)+")")
		return
	}
	p.fpKey = n
	if len(val) != 64 {
		p.errAt(n, fingerprintKeySetting+" must be 64 hexadecimal digits")
		return
	}
	k := make([]byte, 32)
	if _, err := hex.Decode(k, val); err != nil {
		p.errAt(n, fingerprintKeySetting+" must be 64 hexadecimal digits")
		return
	}
	p.cat.FingerprintKey = k
}

func (p *catParser) ruleSetting(n int, text []byte) {
	r := p.r
	key, val, ok := mdSplitSetting(text)
	if !ok {
		p.errAt(n, r.label+": list item is not a \"key: value\" setting")
		return
	}
	idx := slices.Index(settingNames[:], string(key))
	if idx < 0 {
		reason := r.label + ": unknown setting (known: " + strings.Join(settingNames[:], ", ") + ")"
		if isKeyShape(key) {
			for _, known := range settingNames {
				if keyNearMiss(key, known) {
					reason = r.label + ": unknown setting " + strconv.Quote(string(key)) + " (did you mean " + known + "?)"
					break
				}
			}
		}
		p.errAt(n, reason)
		return
	}
	name := settingNames[idx]
	if first := r.settingLines[idx]; first != 0 {
		p.errAt(n, r.label+": duplicate setting "+name+" (first on line "+strconv.Itoa(first)+")")
		return
	}
	r.settingLines[idx] = n
	v := string(val)
	switch idx {
	case settingCategory:
		if !validCategory(val) {
			p.errAt(n, r.label+": category must be a lowercase letter, then up to 31 lowercase letters, digits or '-'")
			return
		}
		r.rule.Category = v
	case settingSeverity:
		s, ok := ParseSeverity(v)
		if !ok {
			p.errAt(n, r.label+": severity must be error, warning or note")
			return
		}
		r.rule.Severity = s
	case settingMatch:
		switch v {
		case "literal":
			r.rule.Match = MatchLiteral
		case "identifier":
			r.rule.Match = MatchIdentifier
		case "regex":
			r.rule.Match = MatchRegex
		default:
			p.errAt(n, r.label+": match must be literal, identifier or regex")
		}
	case settingCase:
		switch v {
		case "insensitive":
			r.rule.CaseSensitive = false
		case "sensitive":
			r.rule.CaseSensitive = true
		default:
			p.errAt(n, r.label+": case must be insensitive or sensitive")
		}
	case settingBoundary:
		switch v {
		case "word":
			r.rule.NoBoundary = false
		case "none":
			r.rule.NoBoundary = true
		default:
			p.errAt(n, r.label+": boundary must be word or none")
		}
	case settingDescription:
		switch {
		case !utf8.Valid(val):
			p.errAt(n, r.label+": description is not valid UTF-8")
		case hasControlChar(val):
			p.errAt(n, r.label+": description contains a control character")
		case len(val) > MaxDescriptionBytes:
			p.errAt(n, r.label+": description is longer than "+strconv.Itoa(MaxDescriptionBytes)+" bytes")
		default:
			r.rule.Description = v
		}
	}
}

// mdSplitSetting splits "key: value" at the first colon; both sides trimmed.
func mdSplitSetting(text []byte) (key, val []byte, ok bool) {
	key, val, ok = bytes.Cut(text, []byte{':'})
	if !ok {
		return nil, nil, false
	}
	ki, kj := trimSpaceIdx(key)
	vi, vj := trimSpaceIdx(val)
	key, val = key[ki:kj], val[vi:vj]
	return key, val, len(key) > 0
}

// validRuleID reports whether id matches ^[A-Za-z][A-Za-z0-9._-]{0,63}$.
func validRuleID(id []byte) bool {
	if len(id) == 0 || len(id) > 64 || !isASCIILetterByte(id[0]) {
		return false
	}
	for _, c := range id[1:] {
		if !isASCIILetterByte(c) && !isASCIIDigitByte(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// validCategory reports whether c matches ^[a-z][a-z0-9-]{0,31}$.
func validCategory(c []byte) bool {
	if len(c) == 0 || len(c) > 32 || c[0] < 'a' || c[0] > 'z' {
		return false
	}
	for _, b := range c[1:] {
		if (b < 'a' || b > 'z') && !isASCIIDigitByte(b) && b != '-' {
			return false
		}
	}
	return true
}

// isKeyShape reports whether k looks like a setting key: one ASCII word
// (letters, digits, '-', '_') of at most 32 bytes, starting with a letter.
func isKeyShape(k []byte) bool {
	if len(k) == 0 || len(k) > 32 || !isASCIILetterByte(k[0]) {
		return false
	}
	for _, c := range k {
		if !isASCIILetterByte(c) && !isASCIIDigitByte(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// keyNearMiss reports whether key is a likely misspelling of known: equal
// ignoring case and '_' vs '-', or within a small edit distance. Only such
// keys are quoted in errors; anything else might be pasted catalog text.
func keyNearMiss(key []byte, known string) bool {
	k := strings.ReplaceAll(strings.ToLower(string(key)), "_", "-")
	if k == known {
		return true
	}
	limit := 1
	if len(known) >= 6 {
		limit = 2
	}
	return len(k) >= 3 && keyEditDistance(k, known) <= limit
}

// keyEditDistance is the Levenshtein distance between two short ASCII strings.
func keyEditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
