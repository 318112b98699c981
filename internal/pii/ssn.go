package pii

// United States Social Security numbers in the AAA-GG-SSSS form, with
// dashes or with single spaces (the same separator twice), following the
// SSA's rules: the area is not 000, 666 or 900-999, the group is not 00
// and the serial is not 0000. Nine bare digits are never an SSN here (far
// too many IDs look like that), and the numbers the SSA lists as used in
// advertising, plus the ubiquitous 123-45-6789, are skipped.

// ssnExamples are numbers printed in advertising or documentation, which
// the SSA has invalidated or which everyone uses as a placeholder.
var ssnExamples = [][9]byte{
	{'0', '7', '8', '0', '5', '1', '1', '2', '0'},
	{'2', '1', '9', '0', '9', '9', '9', '9', '9'},
	{'1', '2', '3', '4', '5', '6', '7', '8', '9'},
	{'4', '5', '7', '5', '5', '5', '4', '6', '2'},
}

func findSSNs(b []byte, report func(start, end int)) {
	for i := 0; i+11 <= len(b); i++ {
		sep := b[i+3]
		if (sep != '-' && sep != ' ') || b[i+6] != sep || !isDigit(b[i]) {
			continue
		}
		if ssnAt(b, i) {
			report(i, i+11)
			i += 10
		}
	}
}

// ssnAt reports whether b[i:i+11] is an SSN in AAA-GG-SSSS form (the
// separator at i+3 and i+6 already checked equal).
func ssnAt(b []byte, i int) bool {
	if !digitsAt(b, i, 3) || !digitsAt(b, i+4, 2) || !digitsAt(b, i+7, 4) {
		return false
	}
	if !phoneLeftOK(b, i) || !phoneRightOK(b, i+11) || at(b, i+11) == b[i+3] && isAlnum(at(b, i+12)) {
		return false
	}
	var d [9]byte
	copy(d[:3], b[i:i+3])
	copy(d[3:5], b[i+4:i+6])
	copy(d[5:], b[i+7:i+11])
	return ssnValid(d)
}

// ssnValid applies the SSA's issuance rules to the nine digits of an SSN.
func ssnValid(d [9]byte) bool {
	area := prefix(d[:3], 3)
	if area == 0 || area == 666 || area >= 900 {
		return false
	}
	if d[3] == '0' && d[4] == '0' {
		return false
	}
	if d[5] == '0' && d[6] == '0' && d[7] == '0' && d[8] == '0' {
		return false
	}
	for _, e := range ssnExamples {
		if d == e {
			return false
		}
	}
	return true
}

var ssnSamples = samples{
	TP: []sample{
		{"ssn: 536-22-1784", "536-22-1784"},
		{`{"ssn":"536 22 1784"}`, "536 22 1784"},
		{"SSN (042-68-4425) on file", "042-68-4425"},
		{"taxpayer=772-14-0931;", "772-14-0931"},
		// Spaces after a word (Presidio's recognizer tests).
		{"abc 078 05 1123", "078 05 1123"},
	},
	FP: []string{
		"ssn: 536221784",      // bare digits
		"536-22 1784",         // mixed separators
		"000-12-3456",         // area 000
		"666-12-3456",         // area 666
		"912-34-5678",         // area 9xx (ITIN range)
		"536-00-1784",         // group 00
		"536-22-0000",         // serial 0000
		"078-05-1120",         // the Woolworth wallet card
		"123-45-6789",         // placeholder
		"219-09-9999",         // advertising
		"2024-01-15",          // a date
		"1536-22-1784",        // longer run
		"536-22-17845",        // longer run
		"536-22-1784-1",       // longer dashed run
		"v536-22-1784",        // glued to a letter
		"build 536-22-1784.5", // a version
		"x := []int{100, 20, 3000}",
		"0.536 22 1784",
		"536 22 1784 22", // a list of numbers
	},
}
