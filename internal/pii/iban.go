package pii

// International Bank Account Numbers: a two-letter country code, two check
// digits and the country's BBAN, with the exact length the SWIFT IBAN
// registry gives for that country and an ISO 7064 mod-97-10 checksum of 1.
// Written either compactly (DE89370400440532013000) or in the printed form
// with a single space after every four characters
// (DE89 3704 0044 0532 0130 00), or with dashes between the groups
// (DE89-3704-0044-0532-0130-00). Only uppercase is recognised: IBANs in
// code and data are practically always uppercase, and accepting lowercase
// would let identifiers and base32/base64 text through.

// ibanLengths is the total IBAN length per country, from the SWIFT IBAN
// registry (including the countries that joined it through 2024).
var ibanLengths = map[[2]byte]uint8{
	{'A', 'D'}: 24, {'A', 'E'}: 23, {'A', 'L'}: 28, {'A', 'T'}: 20, {'A', 'Z'}: 28,
	{'B', 'A'}: 20, {'B', 'E'}: 16, {'B', 'G'}: 22, {'B', 'H'}: 22, {'B', 'I'}: 27,
	{'B', 'R'}: 29, {'B', 'Y'}: 28, {'C', 'H'}: 21, {'C', 'R'}: 22, {'C', 'Y'}: 28,
	{'C', 'Z'}: 24, {'D', 'E'}: 22, {'D', 'J'}: 27, {'D', 'K'}: 18, {'D', 'O'}: 28,
	{'E', 'E'}: 20, {'E', 'G'}: 29, {'E', 'S'}: 24, {'F', 'I'}: 18, {'F', 'K'}: 18,
	{'F', 'O'}: 18, {'F', 'R'}: 27, {'G', 'B'}: 22, {'G', 'E'}: 22, {'G', 'I'}: 23,
	{'G', 'L'}: 18, {'G', 'R'}: 27, {'G', 'T'}: 28, {'H', 'N'}: 28, {'H', 'R'}: 21,
	{'H', 'U'}: 28, {'I', 'E'}: 22, {'I', 'L'}: 23, {'I', 'Q'}: 23, {'I', 'S'}: 26,
	{'I', 'T'}: 27, {'J', 'O'}: 30, {'K', 'W'}: 30, {'K', 'Z'}: 20, {'L', 'B'}: 28,
	{'L', 'C'}: 32, {'L', 'I'}: 21, {'L', 'T'}: 20, {'L', 'U'}: 20, {'L', 'V'}: 21,
	{'L', 'Y'}: 25, {'M', 'C'}: 27, {'M', 'D'}: 24, {'M', 'E'}: 22, {'M', 'K'}: 19,
	{'M', 'N'}: 20, {'M', 'R'}: 27, {'M', 'T'}: 31, {'M', 'U'}: 30, {'N', 'I'}: 28,
	{'N', 'L'}: 18, {'N', 'O'}: 15, {'O', 'M'}: 23, {'P', 'K'}: 24, {'P', 'L'}: 28,
	{'P', 'S'}: 29, {'P', 'T'}: 25, {'Q', 'A'}: 29, {'R', 'O'}: 24, {'R', 'S'}: 22,
	{'R', 'U'}: 33, {'S', 'A'}: 24, {'S', 'C'}: 31, {'S', 'D'}: 18, {'S', 'E'}: 24,
	{'S', 'I'}: 19, {'S', 'K'}: 24, {'S', 'M'}: 27, {'S', 'O'}: 23, {'S', 'T'}: 25,
	{'S', 'V'}: 28, {'T', 'L'}: 23, {'T', 'N'}: 24, {'T', 'R'}: 26, {'U', 'A'}: 29,
	{'V', 'A'}: 22, {'V', 'G'}: 24, {'X', 'K'}: 20, {'Y', 'E'}: 30,
}

const maxIBAN = 34

func isIBANByte(c byte) bool { return isUpper(c) || isDigit(c) }

func findIBANs(b []byte, report func(start, end int)) {
	for i := 0; i+4 <= len(b); i++ {
		if !isUpper(b[i]) || !isUpper(b[i+1]) || !isDigit(b[i+2]) || !isDigit(b[i+3]) {
			continue
		}
		if end, ok := ibanAt(b, i); ok {
			report(i, end)
			i = end - 1
		}
	}
}

// ibanAt parses an IBAN starting at i, where b[i:i+4] is two uppercase
// letters and two digits.
func ibanAt(b []byte, i int) (int, bool) {
	if p := before(b, i); isWord(p) || p >= 0x80 {
		return 0, false
	}
	n, ok := ibanLengths[[2]byte{b[i], b[i+1]}]
	if !ok {
		return 0, false
	}
	want := int(n)
	var buf [maxIBAN]byte
	copy(buf[:4], b[i:i+4])
	got := 4
	j := i + 4
	if sep := at(b, j); sep == ' ' || sep == '-' {
		// Printed form: groups of four, single spaces (or dashes, as forms
		// and some banks write it), a shorter last group.
		for got < want {
			if at(b, j) != sep {
				return 0, false
			}
			j++
			k := min(4, want-got)
			for m := 0; m < k; m++ {
				c := at(b, j)
				if !isIBANByte(c) {
					return 0, false
				}
				buf[got] = c
				got++
				j++
			}
		}
	} else {
		for got < want {
			c := at(b, j)
			if !isIBANByte(c) {
				return 0, false
			}
			buf[got] = c
			got++
			j++
		}
	}
	if c := at(b, j); isWord(c) || c >= 0x80 || (c == '-' && isIBANByte(at(b, j+1))) {
		return 0, false
	}
	if !mod97(buf[:got]) {
		return 0, false
	}
	return j, true
}

// mod97 reports whether the IBAN s (uppercase, no spaces) passes the ISO
// 7064 mod-97-10 check: moved to the end, its first four characters and
// letters read as 10-35, the number leaves remainder 1 modulo 97.
func mod97(s []byte) bool {
	if len(s) < 5 {
		return false
	}
	r := 0
	for k := 0; k < len(s); k++ {
		c := s[(k+4)%len(s)]
		switch {
		case isDigit(c):
			r = (r*10 + int(c-'0')) % 97
		case isUpper(c):
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return r == 1
}

var ibanSamples = samples{
	TP: []sample{
		{"iban: DE89370400440532013000", "DE89370400440532013000"},
		{`"iban": "GB29 NWBK 6016 1331 9268 19",`, "GB29 NWBK 6016 1331 9268 19"},
		{"Pay to FR1420041010050500013M02606.", "FR1420041010050500013M02606"},
		{"NL91 ABNA 0417 1643 00 EUR", "NL91 ABNA 0417 1643 00"},
		{"(BE68539007547034)", "BE68539007547034"},
		{"IBAN=CH9300762011623852957;", "CH9300762011623852957"},
		{"NO9386011117947", "NO9386011117947"},
		{"LC55HEMM000100010012001200023015", "LC55HEMM000100010012001200023015"},
		// Dashes between the groups (Presidio's recognizer tests).
		{"iban: DE89-3704-0044-0532-0130-00", "DE89-3704-0044-0532-0130-00"},
		{"(GB29-NWBK-6016-1331-9268-19)", "GB29-NWBK-6016-1331-9268-19"},
	},
	FP: []string{
		"DE89370400440532013001",     // checksum
		"DE8937040044053201300",      // too short for DE
		"DE893704004405320130001",    // too long for DE
		"de89370400440532013000",     // lowercase
		"XDE89370400440532013000",    // glued on the left
		"DE89370400440532013000X",    // glued on the right
		"DE89370400440532013000abc",  //
		"ZZ89370400440532013000",     // no such country
		"GB29 NWBK 6016 1331 926819", // inconsistent grouping
		"GB29 NWBK  6016 1331 9268 19",
		"US12 3456 7890 1234",
		"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE",
		"BASE32: JBSWY3DPEHPK3PXPAB12CD34EF56",
		"DE12 rest of a sentence",
		"GB29-NWBK 6016-1331-9268-19",    // mixed separators
		"DE89-3704-0044-0532-0130-00-17", // a longer dashed run
		"GB29-NWBK-6016-1331-926819",     // inconsistent grouping
	},
}
