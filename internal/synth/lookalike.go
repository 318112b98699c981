package synth

import (
	"fmt"
	"strconv"
	"strings"
)

// lookAlikeNames are the stand-in names of LookAlike's persons: the
// placeholder names of legal and technical writing.
var lookAlikeNames = []string{"Jane Doe", "John Roe", "Richard Roe", "Mary Major", "John Stiles", "Jane Public"}

// LookAlike returns the n-th (1-based) synthetic stand-in for a value of
// category, for replacing a found value with text of the same kind: a
// placeholder person name, an address at example.com, a host under
// example.internal, a 555-01xx telephone number, an address of the
// 192.0.2.0/24 documentation range, and numbers that cannot be issued
// (a card number without an issuer prefix, an IBAN of the unassigned
// country code XX, an SSN with area 000). None of them is found by
// privscan's PII or secret detectors, including processor test card
// numbers and valid documentation IBANs, which the Read guard reports. A
// category without a stand-in gets "<category>-<n>" (letters, digits and
// dashes kept). Distinct n give distinct stand-ins, except for the
// telephone and IP ranges, which repeat after 100 and 254 values.
func LookAlike(category string, n int) string {
	if n < 1 {
		n = 1
	}
	switch strings.ToLower(category) {
	case "person", "name", "customer", "colleague", "employee":
		s := lookAlikeNames[(n-1)%len(lookAlikeNames)]
		if k := (n-1)/len(lookAlikeNames) + 1; k > 1 {
			s += " " + strconv.Itoa(k)
		}
		return s
	case "email":
		return fmt.Sprintf("user%d@example.com", n)
	case "internal-host", "hostname", "host":
		return fmt.Sprintf("host%d.example.internal", n)
	case "phone":
		return fmt.Sprintf("555-01%02d", (n-1)%100)
	case "ip-address", "ip":
		return fmt.Sprintf("192.0.2.%d", (n-1)%254+1)
	case "credit-card":
		return fmt.Sprintf("0000 0000 0000 %04d", n%10000)
	case "iban":
		return fmt.Sprintf("XX00 0000 0000 0000 %04d", n%10000)
	case "us-ssn", "ssn":
		return fmt.Sprintf("000-00-%04d", n%10000)
	case "secret":
		return "REDACTED-SECRET-" + strconv.Itoa(n)
	}
	var b strings.Builder
	for _, r := range strings.ToLower(category) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	s := strings.TrimSuffix(b.String(), "-")
	if s == "" {
		s = "redacted"
	}
	return s + "-" + strconv.Itoa(n)
}
