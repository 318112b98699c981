package pii

import (
	"bytes"
	"net/netip"
)

// Public IP addresses. IPv4 in dotted-quad form without leading zeros, and
// IPv6 with either a "::" or all eight groups. Only globally routable
// unicast addresses are reported: private, loopback, link-local, CGNAT,
// documentation, benchmarking, multicast, reserved, broadcast, unspecified,
// unique-local, 6to4, Teredo and the IETF protocol blocks are skipped, and
// IPv6 outside 2000::/3 (which also rules out most things that merely look
// like IPv6: Rust and C++ paths, slices, hex pairs). Well-known public DNS
// resolver addresses (8.8.8.8, 1.1.1.1, …) identify no one and are skipped.
//
// Dotted numbers that are versions are skipped when the line says so: a
// dotted run longer than four parts (OIDs, 1.2.3.4.5), a preceding v, @,
// ==, ~=, >=, <=, !=, ~, ^, >, <, or a "version" key just before, or a product token such as
// Chrome/120.0.0.0.

func findIPs(b []byte, report func(start, end int)) {
	for i := 0; i < len(b); {
		c := b[i]
		if !isHex(c) && c != ':' {
			i++
			continue
		}
		// A maximal run of hex digits, ':' and '.'.
		j := i
		colons, dots := 0, 0
		for j < len(b) && (isHex(b[j]) || b[j] == ':' || b[j] == '.') {
			if b[j] == ':' {
				colons++
			} else if b[j] == '.' {
				dots++
			}
			j++
		}
		if colons >= 2 {
			if s, e, ok := ipv6In(b, i, j); ok {
				report(s, e)
				i = j
				continue
			}
		}
		if dots >= 3 {
			ipv4In(b, i, j, report)
		}
		i = j
	}
}

// ipv6In looks for an IPv6 address filling the run b[i:j].
func ipv6In(b []byte, i, j int) (int, int, bool) {
	// Trailing sentence punctuation or a port-less colon.
	for j > i && (b[j-1] == '.' || (b[j-1] == ':' && (j-2 < i || b[j-2] != ':'))) {
		j--
	}
	if p := before(b, i); isWord(p) || p >= 0x80 || p == '.' || p == '-' {
		return 0, 0, false
	}
	if c := at(b, j); isWord(c) || c >= 0x80 || c == '-' {
		return 0, 0, false
	}
	run := b[i:j]
	if len(run) < 6 || len(run) > 45 {
		return 0, 0, false
	}
	// IPv4-mapped (::ffff:a.b.c.d): judged as the IPv4 address it carries.
	if len(run) > 7 && equalFold(run[:7], "::ffff:") {
		oct, end, ok := parseIPv4(b, i+7)
		if !ok || end != j || !publicIPv4Quad(oct) {
			return 0, 0, false
		}
		return i, j, true
	}
	// The full form (0:0:0:0:0:ffff:a.b.c.d, zeros possibly written
	// 0000) of an IPv4-mapped address: judged as the IPv4 address too.
	if run[0] == '0' && bytes.IndexByte(run, '.') > 0 {
		addr, ok := parseIPv6(run)
		if !ok || !addr.Is4In6() || bytes.Contains(run, []byte("::")) {
			return 0, 0, false
		}
		return i, j, publicIPv4Quad(addr.Unmap().As4())
	}
	// Shape: at least three groups, the first one four hex digits,
	// either a "::" or exactly eight groups.
	groups, first := 0, 0
	double := false
	g := 0
	for k := 0; k <= len(run); k++ {
		if k == len(run) || run[k] == ':' {
			if g > 0 {
				groups++
				if groups == 1 {
					first = g
				}
			}
			if k+1 < len(run) && run[k] == ':' && run[k+1] == ':' {
				if double {
					return 0, 0, false
				}
				double = true
			}
			g = 0
			continue
		}
		if run[k] == '.' {
			g = 0 // an embedded IPv4 tail, checked by the parser
			continue
		}
		g++
	}
	if first != 4 || groups < 3 || (!double && groups != 8) {
		return 0, 0, false
	}
	addr, ok := parseIPv6(run)
	if !ok || addr.Is4In6() {
		return 0, 0, false
	}
	if !publicIPv6(addr) {
		return 0, 0, false
	}
	return i, j, true
}

// parseIPv6 parses an IPv6 address without a zone, as netip.ParseAddr
// does, but without allocating.
func parseIPv6(s []byte) (netip.Addr, bool) {
	var ip [16]byte
	ellipsis := -1 // byte index where "::" expands
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		ellipsis = 0
		s = s[2:]
		if len(s) == 0 {
			return netip.IPv6Unspecified(), true
		}
	}
	i := 0
	for i < 16 {
		n, off := 0, 0
		for off < len(s) && off < 4 && isHex(s[off]) {
			n = n<<4 | int(hexValue(s[off]))
			off++
		}
		if off == 0 {
			return netip.Addr{}, false
		}
		if off < len(s) && s[off] == '.' {
			// An embedded IPv4 address ends the text and fills 4 bytes.
			if (ellipsis < 0 && i != 12) || i+4 > 16 {
				return netip.Addr{}, false
			}
			oct, end, ok := parseIPv4(s, 0)
			if !ok || end != len(s) {
				return netip.Addr{}, false
			}
			copy(ip[i:], oct[:])
			i += 4
			s = nil
			break
		}
		if off < len(s) && isHex(s[off]) {
			return netip.Addr{}, false // more than four hex digits
		}
		ip[i], ip[i+1] = byte(n>>8), byte(n)
		i += 2
		s = s[off:]
		if len(s) == 0 {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return netip.Addr{}, false
		}
		s = s[1:]
		if s[0] == ':' {
			if ellipsis >= 0 {
				return netip.Addr{}, false
			}
			ellipsis = i
			s = s[1:]
			if len(s) == 0 {
				break
			}
		}
	}
	if len(s) != 0 {
		return netip.Addr{}, false
	}
	if i < 16 {
		if ellipsis < 0 {
			return netip.Addr{}, false
		}
		n := 16 - i
		copy(ip[ellipsis+n:], ip[ellipsis:i])
		clear(ip[ellipsis : ellipsis+n])
	} else if ellipsis >= 0 {
		return netip.Addr{}, false // "::" must stand for at least one group
	}
	return netip.AddrFrom16(ip), true
}

func hexValue(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// ipv4In reports every dotted quad in the run b[i:j].
func ipv4In(b []byte, i, j int, report func(start, end int)) {
	for k := i; k < j; {
		if !isDigit(b[k]) {
			k++
			continue
		}
		if end, ok := ipv4At(b, k); ok {
			report(k, end)
			k = end
			continue
		}
		// Skip this dotted-digit run.
		for k < j && (isDigit(b[k]) || b[k] == '.') {
			k++
		}
	}
}

// ipv4At parses a dotted quad starting at the digit at k.
func ipv4At(b []byte, k int) (int, bool) {
	p := before(b, k)
	if isWord(p) || p >= 0x80 {
		return 0, false
	}
	switch p {
	case '.', '-', '@', '~', '^', '>', '<', '+', '_', '$', '#', '\\':
		return 0, false
	case '=':
		// "==", "~=", ">=", "<=", "!=" pin versions; "ip=81.2.69.160" and
		// "HOST=…" assign an address.
		switch before(b, k-1) {
		case '=', '~', '>', '<', '!':
			return 0, false
		}
	case '/':
		if isAlnum(before(b, k-1)) {
			return 0, false // Chrome/120.0.0.0, node/18.0.0.0
		}
	case ':':
		if isHex(before(b, k-1)) || before(b, k-1) == ':' {
			return 0, false // inside a hex run: 64:ff9b::1.2.3.4, ab:1.2.3.4
		}
	}
	oct, j, ok := parseIPv4(b, k)
	if !ok {
		return 0, false
	}
	c := at(b, j)
	if isWord(c) || c >= 0x80 || c == '-' || c == '@' {
		return 0, false
	}
	if c == '.' && (isDigit(at(b, j+1)) || isAlpha(at(b, j+1))) {
		return 0, false // 1.2.3.4.5, 1.2.3.4.RELEASE
	}
	if versionContext(b, k) || !publicIPv4Quad(oct) {
		return 0, false
	}
	return j, true
}

// parseIPv4 reads a dotted quad without leading zeros at k.
func parseIPv4(b []byte, k int) (oct [4]byte, end int, ok bool) {
	j := k
	for n := 0; n < 4; n++ {
		if n > 0 {
			if at(b, j) != '.' {
				return oct, 0, false
			}
			j++
		}
		s := j
		v := 0
		for j < len(b) && isDigit(b[j]) && j-s < 4 {
			v = v*10 + int(b[j]-'0')
			j++
		}
		if j == s || j-s > 3 || v > 255 || (j-s > 1 && b[s] == '0') {
			return oct, 0, false
		}
		oct[n] = byte(v)
	}
	return oct, j, true
}

// publicIPv4Quad reports whether oct is a public address that does not
// look like a version, a section number, an OID or a placeholder.
func publicIPv4Quad(oct [4]byte) bool {
	// Versions and section numbers have small parts (5.2.3.15, 1.0.7.5);
	// a routable address with three parts under 10 is rare.
	big := 0
	for _, o := range oct {
		if o >= 10 {
			big++
		}
	}
	// X.509 and SNMP object identifiers look like 2.5.29.17: an OID's
	// first arc is 0-2 and, under 0 and 1, its second arc is below 40.
	oidLike := oct[0] <= 2 && oct[1] < 40
	if big < 2 || oidLike || sectionLike(oct) || placeholderIPv4(oct) {
		return false
	}
	return publicIPv4(netip.AddrFrom4(oct))
}

// sectionLike reports numbers shaped like a standard's section reference
// (ECMA-262 15.10.4.1, C++ 20.11.4.3, WHATWG 13.2.5.52): every part small,
// the third very small.
func sectionLike(o [4]byte) bool {
	return o[0] <= 40 && o[1] <= 20 && o[2] <= 12 && o[3] <= 60
}

// placeholderIPv4 reports made-up addresses: all parts equal
// (21.21.21.21) or digits counting up (123.45.67.89, 12.34.56.78).
func placeholderIPv4(o [4]byte) bool {
	if o[0] == o[1] && o[1] == o[2] && o[2] == o[3] {
		return true
	}
	var d [12]byte
	n := 0
	for _, v := range o {
		if v >= 100 {
			d[n] = '0' + v/100
			n++
		}
		if v >= 10 {
			d[n] = '0' + v/10%10
			n++
		}
		d[n] = '0' + v%10
		n++
	}
	for i := 1; i < n; i++ {
		if d[i] != d[i-1]+1 {
			return false
		}
	}
	return true
}

// versionContext reports whether the text just before k names a version.
func versionContext(b []byte, k int) bool {
	lo := max(0, k-24)
	w := b[lo:k]
	return containsFold(w, "version") || containsFold(w, "ver ") || containsFold(w, "release") ||
		containsFold(w, "oid") || containsFold(w, "build") || containsFold(w, "section") ||
		containsFold(w, "rfc") || containsFold(w, "\u00a7")
}

var (
	nonPublic4 = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("169.254.0.0/16"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.0.0.0/24"),
		netip.MustParsePrefix("192.0.2.0/24"),
		netip.MustParsePrefix("192.88.99.0/24"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("198.18.0.0/15"),
		netip.MustParsePrefix("198.51.100.0/24"),
		netip.MustParsePrefix("203.0.113.0/24"),
		netip.MustParsePrefix("224.0.0.0/4"),
		netip.MustParsePrefix("240.0.0.0/4"), // includes 255.255.255.255
	}
	nonPublic6 = []netip.Prefix{
		netip.MustParsePrefix("2001::/23"),     // IETF protocol assignments, Teredo, benchmarking, ORCHID
		netip.MustParsePrefix("2001:db8::/32"), // documentation
		netip.MustParsePrefix("2002::/16"),     // 6to4
		netip.MustParsePrefix("3fff::/20"),     // documentation (RFC 9637)
	}
	globalUnicast6 = netip.MustParsePrefix("2000::/3")

	// wellKnownResolvers are public anycast DNS services.
	wellKnownResolvers = []netip.Addr{
		netip.MustParseAddr("1.1.1.1"), netip.MustParseAddr("1.0.0.1"),
		netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("8.8.4.4"),
		netip.MustParseAddr("9.9.9.9"), netip.MustParseAddr("149.112.112.112"),
		netip.MustParseAddr("208.67.222.222"), netip.MustParseAddr("208.67.220.220"),
		netip.MustParseAddr("2606:4700:4700::1111"), netip.MustParseAddr("2606:4700:4700::1001"),
		netip.MustParseAddr("2001:4860:4860::8888"), netip.MustParseAddr("2001:4860:4860::8844"),
		netip.MustParseAddr("2620:fe::fe"), netip.MustParseAddr("2620:fe::9"),
	}
)

func publicIPv4(a netip.Addr) bool {
	for _, p := range nonPublic4 {
		if p.Contains(a) {
			return false
		}
	}
	return !isResolver(a)
}

func publicIPv6(a netip.Addr) bool {
	if !globalUnicast6.Contains(a) {
		return false
	}
	for _, p := range nonPublic6 {
		if p.Contains(a) {
			return false
		}
	}
	return !isResolver(a) && !hexWords6(a)
}

// hexWordGroups are 16-bit groups spelling words, which made-up example
// addresses use (2001:dead:beef::1, 2a00:cafe:babe::face); no allocation
// scheme produces them in a real address by chance often enough to matter.
var hexWordGroups = map[uint16]bool{
	0xdead: true, 0xbeef: true, 0xcafe: true, 0xbabe: true, 0xface: true,
	0xfeed: true, 0xf00d: true, 0xc0de: true, 0xd00d: true, 0xdeaf: true,
	0xfade: true, 0xdeed: true, 0xbead: true, 0xabba: true, 0xc0fe: true,
}

// hexWords6 reports whether an address has a hex-word group after the
// first (the first is the registry's prefix, e.g. 2001).
func hexWords6(a netip.Addr) bool {
	b := a.As16()
	for i := 2; i < 16; i += 2 {
		if hexWordGroups[uint16(b[i])<<8|uint16(b[i+1])] {
			return true
		}
	}
	return false
}

func isResolver(a netip.Addr) bool {
	for _, r := range wellKnownResolvers {
		if a == r {
			return true
		}
	}
	return false
}

var ipSamples = samples{
	TP: []sample{
		{"server: 52.14.200.7", "52.14.200.7"},
		{"curl http://93.184.215.14:8080/path", "93.184.215.14"},
		{`"ip": "81.2.69.160",`, "81.2.69.160"},
		{"ip=81.2.69.160", "81.2.69.160"},
		{"remote_addr=52.14.200.7 port=443", "52.14.200.7"},
		{"export HOST=93.184.215.14", "93.184.215.14"},
		{"allow 151.101.1.69/32;", "151.101.1.69"},
		{"AAAA 2a00:1450:4001:82a::200e", "2a00:1450:4001:82a::200e"},
		{"[2606:2800:220:1:248:1893:25c8:1946]:443", "2606:2800:220:1:248:1893:25c8:1946"},
		{"client 2a02:8108:1140:c00::1 connected.", "2a02:8108:1140:c00::1"},
		{"from 74.125.224.72.", "74.125.224.72"},
		{"peer ::ffff:52.14.200.7 closed", "::ffff:52.14.200.7"},
		// The full form of an IPv4-mapped address (Presidio's recognizer tests).
		{"0:0:0:0:0:FFFF:129.144.52.38", "0:0:0:0:0:FFFF:129.144.52.38"},
		{"from [0000:0000:0000:0000:0000:ffff:52.14.200.7]:80", "0000:0000:0000:0000:0000:ffff:52.14.200.7"},
	},
	FP: []string{
		"0:0:0:0:0:ffff:10.0.0.1", "0:0:0:0:0:0:129.144.52.38", "0:0:0:0:ffff:129.144.52.38",
		"0:0:0:0:0:ffff:129.144.52.38.1",
		"host: 192.168.1.10", "10.0.0.1", "172.16.5.4", "127.0.0.1:8080", "0.0.0.0",
		"169.254.169.254", "100.64.1.1", "192.0.2.1", "198.51.100.23", "203.0.113.5",
		"198.18.0.1", "224.0.0.251", "255.255.255.255", "255.255.255.0", "240.1.2.3",
		"::1", "::", "fe80::1%eth0", "fd00::1", "2001:db8::1", "ff02::1", "::ffff:10.0.0.1",
		"2002:c000:0204::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
		"dns 8.8.8.8 and 1.1.1.1", "2606:4700:4700::1111",
		"version: 1.2.3.4", `"version": "4.2.1.0"`, "v1.2.3.4", "pkg@1.2.3.4", "==1.2.3.4", "pkg~=10.2.3.4", "pkg!=10.2.3.4", "x<=10.2.3.4",
		">=10.2.3.4", "~1.2.3.4", "^1.2.3.4", "go1.21.3.4", "1.2.3.4.5", "OID 1.3.6.1.4.1.311",
		"2.5.4.3.1", "RFC 4880, section 5.2.3.15", "see section 12.4.100.20", "{\"1.0.7.5\", true}",
		"2.5.29.17", "// 20.11.4.3 specialization", "[27.8.1.11] Template", "ECMA-262, 15.10.4.1.",
		"convert (123.45.67.89) to packed", "ParseIP(\"12.12.12.12\")", "12.34.56.78", "Chrome/120.0.0.0 Safari/537.36", "1.2.3.4-beta", "3.10.0.RELEASE",
		"01.02.03.04", "256.1.1.1", "12:34:56", "00:1a:2b:3c:4d:5e", "std::vector<int>",
		"a[2::3]", "Foo::Bar::baz", "dead:beef::cafe", "2000::1", "x = 3.14159",
		"listen [2001:dead:beef::1]:443", "2a00:cafe:babe::face", "2600:1f18:feed:f00d::7",
		"2024-01-15T10:20:30.123Z", "f47ac10b-58cc-4372-a567-0e02b2c3d479",
		"h1:Zv2Y8Q3kC0bLm6n8B7d1JYq3xJ+H1k=",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	},
}
