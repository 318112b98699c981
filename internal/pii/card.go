package pii

// Payment card numbers: 13-19 digits, written contiguously or grouped with
// one consistent separator (4-4-4-4, 4-4-4-4-3, 4-6-5, 4-6-4), with an
// issuer prefix and length that a card brand uses, and a valid Luhn check
// digit. A number inside a longer digit run, glued to letters, or part of a
// float, version, date or path is not a card. Numbers whose digits before
// the check digit are all equal or one running sequence are skipped as
// placeholders; well-known processor test numbers are skipped only when
// Config.SkipTestCards is set.

const (
	minCard           = 13
	maxCard           = 19
	maxContiguousCard = 16
)

func findCards(b []byte, skipTest bool, report func(start, end int)) {
	for i := 0; i < len(b); {
		if !isDigit(b[i]) {
			i++
			continue
		}
		if end, ok := cardAt(b, i, skipTest); ok {
			report(i, end)
			i = end
			continue
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
}

func cardLeftOK(b []byte, i int) bool {
	p := before(b, i)
	if isWord(p) || p >= 0x80 {
		return false
	}
	switch p {
	case '.', '-', '+', '/', '#', '$', '\\', '@', '%', '&', '~', '^':
		return false
	}
	return true
}

func cardRightOK(b []byte, i int) bool {
	c := at(b, i)
	if isWord(c) || c >= 0x80 {
		return false
	}
	switch c {
	case '.', '-', '/', ':', '+':
		return !isDigit(at(b, i+1))
	}
	return true
}

// cardAt parses a card number starting at the digit at index i.
func cardAt(b []byte, i int, skipTest bool) (int, bool) {
	if !cardLeftOK(b, i) {
		return 0, false
	}
	var d [maxCard]byte
	n := 0
	j := i
	for j < len(b) && isDigit(b[j]) {
		if n == maxCard {
			return 0, false
		}
		d[n] = b[j]
		n++
		j++
	}
	if n >= minCard {
		// Contiguous: 13-16 digits. Longer cards (17-19) are practically
		// always printed in groups, while 17-20 digit runs in code are
		// 64-bit integers.
		if n > maxContiguousCard || !cardRightOK(b, j) || inNumberList(b, i, j) || inNumericArgs(b, i, j) || inNumberColumns(b, i, j) || longNumberRow(b, i, j) {
			return 0, false
		}
	} else {
		// Grouped: the first group has four digits.
		if n != 4 {
			return 0, false
		}
		sep := at(b, j)
		if sep != ' ' && sep != '-' {
			return 0, false
		}
		var groups [6]int
		groups[0] = 4
		ng := 1
		for at(b, j) == sep && isDigit(at(b, j+1)) {
			if ng == len(groups) {
				return 0, false
			}
			j++
			g := 0
			for j < len(b) && isDigit(b[j]) {
				if n == maxCard {
					return 0, false
				}
				d[n] = b[j]
				n++
				g++
				j++
			}
			groups[ng] = g
			ng++
		}
		if !cardGrouping(groups[:ng]) || !cardRightOK(b, j) {
			return 0, false
		}
		// Another separator kind continuing with digits: a longer list.
		if c := at(b, j); (c == ' ' || c == '-') && isDigit(at(b, j+1)) {
			return 0, false
		}
	}
	num := d[:n]
	if !cardBrand(num) || !luhn(num) || cardPlaceholder(num) {
		return 0, false
	}
	if skipTest && isTestCard(num) {
		return 0, false
	}
	return j, true
}

// inNumberList reports whether the number b[i:j] sits in a list of long
// unquoted numbers ("123…, 456…"): test vectors and integer tables, not
// card data.
func inNumberList(b []byte, i, j int) bool {
	// Left neighbour.
	k := i
	for k > 0 && b[k-1] == ' ' {
		k--
	}
	if k > 0 && (b[k-1] == ',' || b[k-1] == ';') {
		k--
		for k > 0 && b[k-1] == ' ' {
			k--
		}
		for k > 0 && isAlpha(b[k-1]) && k > i-24 {
			k-- // a type suffix such as 123ULL
		}
		n := 0
		for k > 0 && (isDigit(b[k-1]) || b[k-1] == '.' || b[k-1] == '_') {
			k--
			if isDigit(b[k]) {
				n++
			}
		}
		if n >= 8 {
			return true
		}
	}
	// Right neighbour.
	k = j
	for k < len(b) && isAlpha(b[k]) && k < j+4 {
		k++
	}
	for k < len(b) && b[k] == ' ' {
		k++
	}
	if k < len(b) && (b[k] == ',' || b[k] == ';') {
		k++
		for k < len(b) && b[k] == ' ' {
			k++
		}
		n := 0
		for k < len(b) && (isDigit(b[k]) || b[k] == '.' || b[k] == '_') {
			if isDigit(b[k]) {
				n++
			}
			k++
		}
		if n >= 8 {
			return true
		}
	}
	return false
}

// listWindow bounds how far on each side of a card candidate
// inNumericArgs reads a list, keeping the cost per candidate bounded.
const listWindow = 256

// inNumericArgs reports whether the number b[i:j] is an element of a
// comma-separated list of numeric literals (an argument list, an array)
// that also holds a number no card is written beside: an integer of 8 or
// more digits, a float with an exponent, or a hexadecimal literal of 8 or
// more digits ("check(5503…, 446, 11, 11270725851789228032, 435)", a
// float-parsing test's mantissas and exponents). The list is read by the
// grammar of numeric literals, as far as its elements are numbers, so a
// card passed with an expiry and a CVV ("pay(4539…, 12, 27, 123)") is
// still a card.
func inNumericArgs(b []byte, i, j int) bool {
	// Elements to the left, nearest first.
	for k := i; k > 0 && k > i-listWindow; {
		s := k
		for s > 0 && (b[s-1] == ' ' || b[s-1] == '\t') {
			s--
		}
		if s == 0 || b[s-1] != ',' {
			break
		}
		s--
		for s > 0 && (b[s-1] == ' ' || b[s-1] == '\t') {
			s--
		}
		e := s
		for s > 0 && (isWord(b[s-1]) || b[s-1] == '.' || ((b[s-1] == '-' || b[s-1] == '+') && s > 1 && (b[s-2] == 'e' || b[s-2] == 'E') && s < e)) {
			s--
		}
		if s > 0 && (b[s-1] == '-' || b[s-1] == '+') {
			s--
		}
		wide, ok := numericLiteral(b[s:e])
		if !ok {
			break
		}
		if wide {
			return true
		}
		k = s
	}
	// Elements to the right.
	for k := j; k < len(b) && k < j+listWindow; {
		s := k
		for s < len(b) && (b[s] == ' ' || b[s] == '\t') {
			s++
		}
		if s == len(b) || b[s] != ',' {
			break
		}
		s++
		for s < len(b) && (b[s] == ' ' || b[s] == '\t') {
			s++
		}
		e := s
		if e < len(b) && (b[e] == '-' || b[e] == '+') {
			e++
		}
		for e < len(b) && (isWord(b[e]) || b[e] == '.' || ((b[e] == '-' || b[e] == '+') && (b[e-1] == 'e' || b[e-1] == 'E'))) {
			e++
		}
		wide, ok := numericLiteral(b[s:e])
		if !ok {
			break
		}
		if wide {
			return true
		}
		k = e
	}
	return false
}

// numericLiteral reports whether t is one numeric literal as C, Go, Rust,
// Java, JavaScript and Python write them: an optional sign, then a
// hexadecimal literal (0x…), or digits with '_' or '.' inside and an
// optional exponent, then an optional type suffix of up to five letters
// and digits (u64, ULL, f32, n). wide reports a number no card is written
// beside: 8 or more digits, an exponent, or 8 or more hexadecimal digits.
func numericLiteral(t []byte) (wide, ok bool) {
	k := 0
	if k < len(t) && (t[k] == '-' || t[k] == '+') {
		k++
	}
	if k+2 < len(t) && t[k] == '0' && (t[k+1] == 'x' || t[k+1] == 'X') {
		h := 0
		for k += 2; k < len(t) && (isHex(t[k]) || t[k] == '_'); k++ {
			if t[k] != '_' {
				h++
			}
		}
		return h >= 8, h > 0 && literalSuffix(t[k:])
	}
	digits := 0
	for k < len(t) && (isDigit(t[k]) || ((t[k] == '_' || t[k] == '.') && digits > 0)) {
		if isDigit(t[k]) {
			digits++
		}
		k++
	}
	if digits == 0 {
		return false, false
	}
	exp := false
	if k+1 < len(t) && (t[k] == 'e' || t[k] == 'E') {
		e := k + 1
		if t[e] == '-' || t[e] == '+' {
			e++
		}
		if e < len(t) && isDigit(t[e]) {
			for e < len(t) && isDigit(t[e]) {
				e++
			}
			k, exp = e, true
		}
	}
	return digits >= 8 || exp, literalSuffix(t[k:])
}

// literalSuffix reports a numeric literal's type suffix: empty, or up to
// five letters, digits and underscores starting with a letter or '_'.
func literalSuffix(t []byte) bool {
	if len(t) == 0 {
		return true
	}
	if len(t) > 5 || !(isAlpha(t[0]) || t[0] == '_') {
		return false
	}
	for _, c := range t {
		if !isWord(c) {
			return false
		}
	}
	return true
}

// longNumberRow reports a number b[i:j] with at least three other runs
// of 12 or more digits within rowWindow bytes of it: a dump of
// identifiers, hashes or generated data (a profiler's table, a list of
// IDs), where a card-shaped number is a Luhn coincidence. Card data is
// written with a name, an expiry, a CVV, not beside three other long
// numbers. The window keeps the cost per candidate bounded.
func longNumberRow(b []byte, i, j int) bool {
	lo, hi := max(0, i-rowWindow), min(len(b), j+rowWindow)
	for lo > 0 && isDigit(b[lo-1]) {
		lo-- // start at the beginning of a run
	}
	b = b[:hi]
	runs := 0
	for k := lo; k < len(b); {
		if !isDigit(b[k]) {
			k++
			continue
		}
		s := k
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k-s >= 12 {
			runs++
			if runs >= 4 {
				return true
			}
		}
	}
	return false
}

// rowWindow is how far on each side of a card candidate longNumberRow
// looks for other long numbers.
const rowWindow = 512

// inNumberColumns reports whether the number b[i:j] is one of at least
// three whitespace-separated numbers in a row ("16 3 1 80 7956865043
// 395832279341621"): a row of counters such as a /proc file, a kernel
// statistics dump or a data table, not card data.
func inNumberColumns(b []byte, i, j int) bool {
	run := 1
	// Numbers to the left.
	for k := i; run < 3; {
		s := k
		for s > 0 && (b[s-1] == ' ' || b[s-1] == '\t') {
			s--
		}
		if s == k || s == 0 || !isDigit(b[s-1]) {
			break
		}
		for s > 0 && isDigit(b[s-1]) {
			s--
		}
		if s > 0 && b[s-1] != ' ' && b[s-1] != '\t' {
			break // glued to something: not a column of numbers
		}
		run++
		k = s
	}
	// Numbers to the right.
	for k := j; run < 3; {
		s := k
		for s < len(b) && (b[s] == ' ' || b[s] == '\t') {
			s++
		}
		if s == k || s == len(b) || !isDigit(b[s]) {
			break
		}
		for s < len(b) && isDigit(b[s]) {
			s++
		}
		if s < len(b) && b[s] != ' ' && b[s] != '\t' {
			break
		}
		run++
		k = s
	}
	return run >= 3
}

// cardGrouping accepts 4-4-4-x (x 1-4), 4-4-4-4-x (x 1-3), 4-6-5 and 4-6-4.
func cardGrouping(g []int) bool {
	switch len(g) {
	case 3:
		return g[0] == 4 && g[1] == 6 && (g[2] == 5 || g[2] == 4)
	case 4:
		return g[0] == 4 && g[1] == 4 && g[2] == 4 && g[3] >= 1 && g[3] <= 4
	case 5:
		return g[0] == 4 && g[1] == 4 && g[2] == 4 && g[3] == 4 && g[4] >= 1 && g[4] <= 3
	}
	return false
}

// prefix returns the number formed by the first k digits of d.
func prefix(d []byte, k int) int {
	v := 0
	for _, c := range d[:k] {
		v = v*10 + int(c-'0')
	}
	return v
}

// cardBrand reports whether d's issuer prefix and length belong to a major
// card brand.
func cardBrand(d []byte) bool {
	n := len(d)
	if n < minCard || n > maxCard {
		return false
	}
	p2, p3, p4, p6 := prefix(d, 2), prefix(d, 3), prefix(d, 4), prefix(d, 6)
	long := n >= 16 // 16-19
	switch {
	case d[0] == '4': // Visa (13-digit numbers have not been issued for decades)
		return n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return n == 16
	case p2 == 34 || p2 == 37: // American Express
		return n == 15
	case p4 >= 2200 && p4 <= 2204: // Mir
		return long
	case p4 == 6011, p3 >= 644 && p3 <= 649, p2 == 65, p6 >= 622126 && p6 <= 622925: // Discover
		return long
	case p2 == 62: // UnionPay
		return long
	case p4 >= 3528 && p4 <= 3589: // JCB
		return long
	case p3 >= 300 && p3 <= 305, p4 == 3095, p2 == 36, p2 == 38, p2 == 39: // Diners Club
		return n >= 14
	case p4 == 5018, p4 == 5020, p4 == 5038, p4 == 5893, p4 == 6304,
		p4 == 6759, p4 == 6761, p4 == 6762, p4 == 6763: // Maestro
		return true
	}
	return false
}

// luhn reports whether the digit string d passes the Luhn (mod 10) check.
func luhn(d []byte) bool {
	if len(d) < 2 {
		return false
	}
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if v < 0 || v > 9 {
			return false
		}
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}

// cardPlaceholder reports numbers whose digits before the check digit are
// all equal (4444444444444448) or run up or down without a gap
// (4567890123456784).
func cardPlaceholder(d []byte) bool {
	body := d[:len(d)-1]
	same, up, down := true, true, true
	for i := 1; i < len(body); i++ {
		same = same && body[i] == body[i-1]
		up = up && (body[i] == body[i-1]+1 || (body[i-1] == '9' && body[i] == '0'))
		down = down && (body[i]+1 == body[i-1] || (body[i-1] == '0' && body[i] == '9'))
	}
	return same || up || down
}

// testCards are numbers that payment processors publish for testing
// (Stripe, Braintree, Adyen, PayPal, Worldpay documentation).
var testCards = []string{
	"4111111111111111", "4012888888881881", "4242424242424242",
	"4000056655665556", "4000000000000002", "4000000000003220", "4000002500003155",
	"4000000000009995", "4000000000000077", "4000000000000093", "4000000000000069",
	"4000000000000127", "4000000000000119", "4000000000000101", "4000000000000341",
	"4000000000003063", "4000002760003184", "4917610000000000003", "4462030000000000",
	"4917300800000000", "4484070000000000", "4035501000000008",
	"5555555555554444", "5105105105105100", "2223003122003222", "5200828282828210",
	"2222400070000005", "5454545454545454", "5431111111111111", "5500000000000004",
	"2223000048400011", "5200000000000007", "5425233430109903",
	"378282246310005", "371449635398431", "378734493671000", "340000000000009",
	"370000000000002", "341111111111111",
	"6011111111111117", "6011000990139424", "6011000000000004", "6011981111111113",
	"6445644564456445",
	"30569309025904", "38520000023237", "36227206271667", "3056930009020004", "36259600000004",
	"3530111333300000", "3566002020360505", "3566111111111113", "3569990010095841",
	"6200000000000005", "6205500000000000004", "6200000000000047", "6250941006528599",
	"6759649826438453", "6304000000000000", "5018000000000009",
}

func isTestCard(d []byte) bool {
	for _, t := range testCards {
		if string(d) == t {
			return true
		}
	}
	return false
}

var cardSamples = samples{
	TP: []sample{
		{"card: 4539 1488 0343 6467", "4539 1488 0343 6467"},
		{`"pan":"4539148803436467",`, "4539148803436467"},
		{"number=5425-2334-3010-9903", "5425-2334-3010-9903"},
		{"amex 3714 496353 98431 exp", "3714 496353 98431"},
		{"diners 3056 930902 5904", "3056 930902 5904"},
		{"visa (4111111111111111)", "4111111111111111"},
		{"mc 2223003122003222.", "2223003122003222"},
		{"[6011000990139424, 1]", "6011000990139424"},
		{"4532015112830366 12/27", "4532015112830366"},
		{"unionpay 6212345678901265", "6212345678901265"},
		{"visa19: 4111 1111 1111 1111 003", "4111 1111 1111 1111 003"},
		// One or two numbers beside a card are not a row of counters.
		{"order 1042 card 4539148803436467 cvv 123", "4539148803436467"},
		{"12 4539148803436467", "4539148803436467"},
		{"4539148803436467 1225", "4539148803436467"},
		// Three long numbers on a line are not yet a data row.
		{"card 4539148803436467 ref 100023342101220 order 110202222043022", "4539148803436467"},
		// A card with its expiry and CVV as arguments is card data: no
		// element of the list is a number no card is written beside.
		{"pay(4539148803436467, 12, 2027, 123)", "4539148803436467"},
		{"charge(amount, 4539148803436467, currency)", "4539148803436467"},
		{"[6011000990139424, 1, 2, 3, 4, 5]", "6011000990139424"},
	},
	FP: []string{
		"4539148803436468",                                // Luhn fails
		"1234567812345670",                                // no brand starts with 1
		"4444444444444448",                                // placeholder
		"4567890123456783",                                // placeholder sequence
		"x4539148803436467",                               // glued to letters
		"45391488034364670",                               // longer digit run (17 digits, Visa is 13/16/19)
		"0.4539148803436467",                              // float
		"4539148803436467.5",                              // float
		"1.4539148803436467e10",                           //
		"id-4539148803436467",                             //
		"/orders/4539148803436467",                        // path segment
		"4539 1488 0343 6467 1234",                        // longer grouped list
		"4539 1488-0343 6467",                             // inconsistent separators
		"4539  1488  0343  6467",                          // double spaces
		"ts 1700000000000000",                             // epoch microseconds
		"sha 4539148803436467abcdef",                      // hex
		"4111111111111111003",                             // 19 contiguous digits: a 64-bit integer, not a printed card
		"{12887743598335030915, 4539148803436467, 14954}", // a table of integers
		"x := []uint64{4539148803436467, 6635288001920617779}",
		"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
		"version 4.5.3914880343.6467",
		"37828224631000", // Amex needs 15 digits
		// Rows of counters (a /proc file, kernel statistics): at least
		// three whitespace-separated numbers in a row.
		"cpu0 498412330 2208833190 3853684107 2045936778163039 4539148803436467 4767485306",
		"16 3 0x00 1 80 79568650431241 4539148803436467",
		"4539148803436467\t2208833190\t3853",
		// A line of long numbers: generated data, not card data.
		"302220212000441: [110023342101220,101001421031220,100021004310222]",
		"ids = [4539148803436467,100023342101220,100021004310222,110202222043022]",
		// An argument list of numeric literals with a 64-bit integer, an
		// exponent or a long hexadecimal literal in it: a numeric test
		// vector (a float parser's mantissas), not card data.
		"check_normalize(4539148803436467, 446, 11, 11270725851789228032, 435);",
		"round(11270725851789228032, 435, 4539148803436467, 446);",
		"t(-12, 4539148803436467u64, 1.5e-300)",
		"{4539148803436467, 7, 0xdeadbeefcafe}",
		"[1_000, 4539148803436467, 2.5E+10]",
	},
}
