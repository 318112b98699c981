package synth

import (
	"fmt"
	"testing"

	"github.com/privscan/privscan/internal/pii"
	"github.com/privscan/privscan/internal/secrets"
	"github.com/privscan/privscan/scanner"
)

func TestLookAlike(t *testing.T) {
	tests := []struct {
		category string
		n        int
		want     string
	}{
		{"person", 1, "Jane Doe"},
		{"person", 2, "John Roe"},
		{"Person", 7, "Jane Doe 2"},
		{"email", 3, "user3@example.com"},
		{"internal-host", 2, "host2.example.internal"},
		{"hostname", 1, "host1.example.internal"},
		{"phone", 1, "555-0100"},
		{"phone", 100, "555-0199"},
		{"ip-address", 1, "192.0.2.1"},
		{"ip-address", 255, "192.0.2.1"},
		{"credit-card", 1, "0000 0000 0000 0001"},
		{"iban", 2, "XX00 0000 0000 0000 0002"},
		{"us-ssn", 1, "000-00-0001"},
		{"secret", 4, "REDACTED-SECRET-4"},
		{"employee-id", 1, "employee-id-1"},
		{"Project Codename!", 2, "project-codename-2"},
		{"☃", 1, "redacted-1"},
		{"person", 0, "Jane Doe"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.category, tt.n), func(t *testing.T) {
			if got := LookAlike(tt.category, tt.n); got != tt.want {
				t.Fatalf("LookAlike(%q, %d) = %q, want %q", tt.category, tt.n, got, tt.want)
			}
		})
	}
}

// TestLookAlikeFindsNothing: no stand-in is found by the PII detectors
// (test card numbers included, as in the Read guard) or the secret rules,
// alone or in the usual contexts (the generic "<category>-<n>" excepted
// after a key name).
func TestLookAlikeFindsNothing(t *testing.T) {
	p, err := pii.New(pii.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sec, err := secrets.New()
	if err != nil {
		t.Fatal(err)
	}
	contexts := []string{"%s", "owner: %s", `"contact": "%s",`, "api_key = %s", "password=%s", "tel: %s", "card %s exp 12/30", "IBAN %s", "ssn=%s", "https://%s/api", "# TODO(%s)"}
	for _, cat := range []string{"person", "email", "internal-host", "phone", "ip-address", "credit-card", "iban", "us-ssn", "secret", "employee-id"} {
		for _, n := range []int{1, 2, 9, 42, 99, 100, 253, 1234} {
			v := LookAlike(cat, n)
			for _, c := range contexts {
				if cat == "employee-id" && (c == "api_key = %s" || c == "password=%s") {
					// "<category>-<n>" can look like a key there:
					// redact_file checks every stand-in it writes.
					continue
				}
				line := fmt.Sprintf(c, v)
				f := &scanner.Fragment{Kind: scanner.KindFile, Path: "x.txt", Lines: []scanner.Line{{Number: 1, Text: []byte(line)}}}
				for _, d := range []scanner.Detector{p, sec} {
					d.Detect(f, func(m scanner.Match) {
						t.Errorf("%s stand-in %d in %q: %s matches", cat, n, c, m.RuleID)
					})
				}
			}
		}
	}
}
