package catalog

import "unicode/utf8"

// subSym returns the symbol at b[i] for `boundary: none` matching: a run of
// spaces and tabs is one ' ', any other rune is itself (folded in f).
func subSym(b []byte, i int) (f, e rune, next int) {
	c := b[i]
	if c == ' ' || c == '\t' {
		i++
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		return ' ', ' ', i
	}
	if c < utf8.RuneSelf {
		return rune(asciiTab[c].fold), rune(c), i + 1
	}
	r, n := decode(b, i)
	return foldRune(r), r, i + n
}

// scanSub finds `boundary: none` values anywhere in the normalized line b:
// a window of the last three symbols is checked against the prefix filter,
// and only hits are extended symbol by symbol.
func (m *Matcher) scanSub(b []byte, om *offmap, dst []Match) []Match {
	x, k := m.sub, &m.k
	var start [3]int
	var sym [3]rune
	n := 0
	for i := 0; i < len(b); {
		f, _, next := subSym(b, i)
		start[0], start[1], start[2] = start[1], start[2], i
		sym[0], sym[1], sym[2] = sym[1], sym[2], f
		i = next
		if n++; n < MinLiteralRunes {
			continue
		}
		h := polyStep(polyStep(polyStep(0, k.subBase, sym[0]), k.subBase, sym[1]), k.subBase, sym[2])
		if x.prefix.has(k.subKey(h, MinLiteralRunes, false)) {
			dst = m.extendSub(b, start[0], om, dst)
		}
	}
	return dst
}

func (m *Matcher) extendSub(b []byte, start int, om *offmap, dst []Match) []Match {
	x, k := m.sub, &m.k
	var hf, he uint64
	for i, n := start, 0; i < len(b) && n < x.maxLen; {
		f, e, next := subSym(b, i)
		i = next
		hf = polyStep(hf, k.subBase, f)
		he = polyStep(he, k.subBase, e)
		if n++; n < MinLiteralRunes {
			continue
		}
		key := k.subKey(hf, n, false)
		if !x.prefix.has(key) {
			break
		}
		if !x.full.has(key) {
			continue
		}
		if v, ok := x.fold.get(key); ok {
			dst = m.emit(dst, v, om.start(start), om.end(i))
		}
		if x.hasCS {
			if v, ok := x.exact.get(k.subKey(he, n, true)); ok {
				dst = m.emit(dst, v, om.start(start), om.end(i))
			}
		}
	}
	return dst
}
