package pii

// Telephone numbers. Two forms are recognised, because only they are
// unambiguous in code:
//
//   - international E.164 numbers: '+', a country calling code from a table
//     of the most common codes, and a national number whose length that
//     country uses, optionally grouped with spaces, dashes, dots, one
//     parenthesised group and a "(0)" trunk prefix (+44 (0)20 7946 0958);
//   - North American numbers with separators: (212) 479-3810,
//     212-479-3810, 212.479.3810, with NANP area-code and exchange rules.
//
// A bare run of digits is never a phone number here (timestamps, IDs,
// ports). Numbers with an unknown calling code, the 555 exchange (examples
// in code and documentation), and placeholder digit runs (1234567,
// 0000000) are skipped.

// callingCodes maps a country calling code to the shortest and longest
// national significant number that country uses. The codes form a prefix
// code, as the ITU assigns them, so a compact number has one reading.
var callingCodes = map[int][2]uint8{
	1: {10, 10}, 7: {10, 10},
	20: {9, 10}, 27: {9, 9}, 30: {10, 10}, 31: {9, 9}, 32: {8, 9}, 33: {9, 9}, 34: {9, 9},
	36: {8, 9}, 39: {8, 11}, 40: {9, 9}, 41: {9, 9}, 43: {7, 13}, 44: {9, 10}, 45: {8, 8},
	46: {7, 10}, 47: {8, 8}, 48: {9, 9}, 49: {7, 12}, 51: {8, 9}, 52: {10, 10}, 53: {8, 8},
	54: {10, 11}, 55: {10, 11}, 56: {9, 9}, 57: {10, 10}, 58: {10, 10}, 60: {8, 10}, 61: {9, 9},
	62: {9, 12}, 63: {10, 10}, 64: {8, 10}, 65: {8, 8}, 66: {8, 9}, 81: {9, 10}, 82: {8, 10},
	84: {9, 10}, 86: {10, 11}, 90: {10, 10}, 91: {10, 10}, 92: {10, 10}, 93: {9, 9}, 94: {9, 9},
	95: {8, 10}, 98: {10, 10},
	212: {9, 9}, 213: {9, 9}, 216: {8, 8}, 234: {8, 10}, 254: {9, 9}, 351: {9, 9}, 352: {8, 11},
	353: {7, 9}, 354: {7, 7}, 358: {7, 11}, 359: {8, 9}, 370: {8, 8}, 371: {8, 8}, 372: {7, 8},
	380: {9, 9}, 385: {8, 9}, 386: {8, 8}, 420: {9, 9}, 421: {9, 9}, 852: {8, 8}, 853: {8, 8},
	886: {8, 9}, 961: {7, 8}, 962: {8, 9}, 965: {8, 8}, 966: {9, 9}, 971: {8, 9}, 972: {8, 9},
	974: {8, 8},
}

const maxPhoneDigits = 15

func findPhones(b []byte, report func(start, end int)) {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '+':
			if goMonotonicReading(b, i) {
				i++
				continue
			}
			if end, ok := e164At(b, i); ok {
				report(i, end)
				i = end
				continue
			}
			i++
		case c == '(' || isDigit(c):
			if end, ok := nanpAt(b, i); ok {
				report(i, end)
				i = end
				continue
			}
			i++
			for i < len(b) && isDigit(b[i]) {
				i++
			}
		default:
			i++
		}
	}
}

// phoneLeftOK reports whether a number may start at i.
func phoneLeftOK(b []byte, i int) bool {
	p := before(b, i)
	if isWord(p) || p >= 0x80 {
		return false
	}
	switch p {
	case '+', '-', '.', '/', '#', '$', '\\', '@', '&', '%', '^', '~':
		return false
	case ' ', '(':
		// "12 +44…" or "1-(415)…" continue a longer number.
		q := before(b, i-1)
		return !isDigit(q)
	}
	return true
}

// phoneRightOK reports whether a number may end at i.
func phoneRightOK(b []byte, i int) bool {
	c := at(b, i)
	if isWord(c) || c >= 0x80 || numericTail(b, i) || c == '+' {
		return false
	}
	// "+1 415 555 2671 12" or "415-555-2671/2": part of something longer.
	if (c == ' ' || c == '/' || c == ':') && isDigit(at(b, i+1)) {
		return false
	}
	return true
}

// e164At parses an international number at the '+' at index p.
func e164At(b []byte, p int) (int, bool) {
	if !phoneLeftOK(b, p) {
		return 0, false
	}
	var digits [maxPhoneDigits]byte
	n := 0
	groups, oneDigitGroups, firstGroup := 0, 0, 0
	parens := 0
	trunk := false
	i := p + 1
	for {
		// One group of digits.
		g := 0
		for i < len(b) && isDigit(b[i]) {
			if n == maxPhoneDigits {
				return 0, false
			}
			digits[n] = b[i]
			n++
			g++
			i++
		}
		if g == 0 {
			return 0, false
		}
		groups++
		if groups == 1 {
			firstGroup = g
		} else if g == 1 {
			oneDigitGroups++
		}
		// What joins it to the next group?
		c := at(b, i)
		switch {
		case (c == ' ' || c == '-' || c == '.') && isDigit(at(b, i+1)):
			i++
			continue
		case (c == ' ' || c == '-' || c == '.') && at(b, i+1) == '(':
			i++
		case c == '(':
		default:
			if !phoneRightOK(b, i) {
				return 0, false
			}
			return e164Valid(digits[:n], groups, firstGroup, oneDigitGroups, trunk, i)
		}
		// A parenthesised group: "(0)" trunk prefix or an area code.
		if parens > 0 {
			return 0, false
		}
		parens++
		j := i + 1
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j == i+1 || j-i-1 > 4 || at(b, j) != ')' {
			return 0, false
		}
		if j-i-1 == 1 && b[i+1] == '0' && groups == 1 {
			trunk = true // +44 (0)20…: the 0 is dialled only nationally
			i = j + 1
		} else {
			i++ // read the group's digits on the next turn
			// Replace ')' handling: digits up to j, then skip ')'.
			for i < j {
				if n == maxPhoneDigits {
					return 0, false
				}
				digits[n] = b[i]
				n++
				i++
			}
			groups++
			i = j + 1
		}
		if c := at(b, i); c == ' ' || c == '-' || c == '.' {
			i++
		}
		if !isDigit(at(b, i)) {
			return 0, false
		}
	}
}

// e164Valid checks the digits of an international number (without any
// trunk prefix) and returns end.
func e164Valid(d []byte, groups, firstGroup, oneDigitGroups int, trunk bool, end int) (int, bool) {
	if len(d) < 8 || len(d) > maxPhoneDigits || oneDigitGroups > 1 {
		return 0, false
	}
	cc, ccLen := 0, 0
	for k := 1; k <= 3; k++ {
		v := 0
		for _, c := range d[:k] {
			v = v*10 + int(c-'0')
		}
		if _, ok := callingCodes[v]; ok {
			cc, ccLen = v, k
			break
		}
	}
	if ccLen == 0 {
		return 0, false
	}
	// Grouped numbers must set the calling code apart: "+44 20…", not "+4420 …".
	if (groups > 1 || trunk) && firstGroup != ccLen {
		return 0, false
	}
	national := d[ccLen:]
	lim := callingCodes[cc]
	if len(national) < int(lim[0]) || len(national) > int(lim[1]) {
		return 0, false
	}
	if national[0] == '0' && cc != 39 {
		return 0, false // national numbers never start with the trunk 0 in E.164
	}
	if cc == 1 && !nanpValid(national) {
		return 0, false
	}
	if placeholderDigits(national) {
		return 0, false
	}
	return end, true
}

// nanpValid checks a 10-digit North American number: area code and
// exchange start with 2-9, are not N11 service codes, the area code's
// middle digit is not 9 (reserved), and numbers in the 555 exchange are
// examples, nobody's numbers.
func nanpValid(d []byte) bool {
	if len(d) != 10 {
		return false
	}
	if d[0] < '2' || d[3] < '2' || d[1] == '9' {
		return false
	}
	if (d[1] == '1' && d[2] == '1') || (d[4] == '1' && d[5] == '1') {
		return false
	}
	if d[0] == '5' && d[1] == '5' && d[2] == '5' {
		// Area code 555 was never assigned: +1 555 201 4545 is an example.
		return false
	}
	if d[3] == '5' && d[4] == '5' && d[5] == '5' {
		// The 555 exchange: 555-0100 to 555-0199 are reserved for fiction,
		// 555-1212 is directory assistance, and the rest is all but
		// unassigned: in code and documentation a 555 number is an
		// example (every one in the real repositories measured was).
		return false
	}
	return !placeholderDigits(d)
}

// nanpAt parses a national North American number at i: (415) 555-2671,
// (415)555-2671, 415-555-2671 or 415.555.2671.
func nanpAt(b []byte, i int) (int, bool) {
	if !phoneLeftOK(b, i) {
		return 0, false
	}
	var d [10]byte
	j := i
	var sep byte
	if b[j] == '(' {
		if !digitsAt(b, j+1, 3) || at(b, j+4) != ')' {
			return 0, false
		}
		copy(d[:3], b[j+1:j+4])
		j += 5
		if at(b, j) == ' ' {
			j++
		}
		if !digitsAt(b, j, 3) {
			return 0, false
		}
		copy(d[3:6], b[j:j+3])
		j += 3
		sep = at(b, j)
		if sep != '-' && sep != '.' && sep != ' ' {
			return 0, false
		}
	} else {
		if !digitsAt(b, j, 3) {
			return 0, false
		}
		copy(d[:3], b[j:j+3])
		sep = at(b, j+3)
		if sep != '-' && sep != '.' {
			return 0, false
		}
		j += 4
		if !digitsAt(b, j, 3) || at(b, j+3) != sep {
			return 0, false
		}
		copy(d[3:6], b[j:j+3])
		j += 3
	}
	j++ // the separator before the line number
	if !digitsAt(b, j, 4) {
		return 0, false
	}
	copy(d[6:], b[j:j+4])
	j += 4
	if isDigit(at(b, j)) || !phoneRightOK(b, j) {
		return 0, false
	}
	if !nanpValid(d[:]) {
		return 0, false
	}
	return j, true
}

// digitsAt reports whether b has n digits starting at i.
func digitsAt(b []byte, i, n int) bool {
	if i < 0 || i+n > len(b) {
		return false
	}
	for _, c := range b[i : i+n] {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// placeholderDigits reports digit strings nobody is assigned: all one
// digit after the first, or containing an ascending or descending run of
// seven (1234567, 9876543) or seven equal digits.
func placeholderDigits(d []byte) bool {
	if len(d) < 2 {
		return false
	}
	same := true
	for _, c := range d[1:] {
		if c != d[1] {
			same = false
			break
		}
	}
	if same {
		return true
	}
	up, down, eq := 1, 1, 1
	for i := 1; i < len(d); i++ {
		if d[i] == d[i-1]+1 || (d[i-1] == '9' && d[i] == '0') {
			up++
		} else {
			up = 1
		}
		if d[i]+1 == d[i-1] || (d[i-1] == '0' && d[i] == '9') {
			down++
		} else {
			down = 1
		}
		if d[i] == d[i-1] {
			eq++
		} else {
			eq = 1
		}
		if up >= 7 || down >= 7 || eq >= 7 {
			return true
		}
	}
	return false
}

var phoneSamples = samples{
	TP: []sample{
		{"phone: +1 415 867 2671", "+1 415 867 2671"},
		{`"tel": "+14158672671"`, "+14158672671"},
		{"Call +1 (415) 867-2671 today", "+1 (415) 867-2671"},
		{"+44 20 7946 0958", "+44 20 7946 0958"},
		{"UK office: +44 (0)20 7946 0958.", "+44 (0)20 7946 0958"},
		{"mobile=+49 151 2845 6730;", "+49 151 2845 6730"},
		{"+33 6 12 48 56 78", "+33 6 12 48 56 78"},
		{"+91-98450-12378", "+91-98450-12378"},
		{"<a href=\"tel:+81312485679\">", "+81312485679"},
		{"+61 2 9374 4000", "+61 2 9374 4000"},
		{"contact (415) 867-2671 or", "(415) 867-2671"},
		{"fax: 212-479-3810", "212-479-3810"},
		{"212.479.3810", "212.479.3810"},
		{"+353 1 679 2848", "+353 1 679 2848"},
	},
	FP: []string{
		"+1 (415) 555-0123", // fictional 555-01xx
		"415-555-0199",
		"call (415) 555-2671 for support", "+1 415 555 2671", "tel: 312.555.0177",
		`"data": "tel:+1-816-555-1212"`,
		`from_number: "+15552014545"`, "(555) 234-8821", // area code 555 was never assigned
		"+1234567890",
		"+12345678901",
		"+1 234 567 8901",
		"+49 123 4567890",
		"+11111111111",
		"+999 1234 5678 9",       // unknown calling code
		"+44 020 7946 0958",      // trunk 0 inside an E.164 number
		"+4420 7946 0958",        // calling code not set apart
		"x = 1.0e+10",            // exponent
		"ts := 1700000000000",    // epoch ms
		"id: 4158672671",         // bare digit run
		"date: 2024-01-15",       // date
		"v415.867.2671",          // preceded by a letter
		"123-456-7890",           // area code starts with 1
		"212-479-3810-22",        // longer dashed run
		"1.212.479.3810",         // longer dotted run
		"0.212.479.3810",         //
		"listen :8080, +8080",    // ports
		"+01:00 +0530 UTC+05:30", // offsets
		"192.168.100.200",        // an IP address
		"SHA: 5a3f9b2c7d1e",      //
		"+1 415 867 2671 12",     // longer grouping
		"a+14158672671",          // glued to a word
		"version 2.1.3-212.479.3810",
	},
}
