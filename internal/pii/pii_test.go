package pii

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// fragmentOf returns a fragment of kind at path whose lines, numbered
// from 1, are text's.
func fragmentOf(kind finding.Kind, path, text string) *scanner.Fragment {
	return fragmentFrom(kind, path, 1, text)
}

// fragmentFrom is fragmentOf with the lines numbered from first.
func fragmentFrom(kind finding.Kind, path string, first int, text string) *scanner.Fragment {
	f := &scanner.Fragment{Kind: kind, Path: path}
	for i, l := range strings.Split(text, "\n") {
		f.Lines = append(f.Lines, scanner.Line{Number: first + i, Text: []byte(l)})
	}
	return f
}

// severityCase is one case of a rule table: the added lines of a file at
// path (or a commit message), and the severity of each email finding d
// reports in them, in order.
type severityCase struct {
	name, path string
	kind       finding.Kind
	text       string
	want       []string // severity of each email finding, in order
}

// runSeverityCases runs each case as a subtest, its lines numbered from
// diffFirst in a file's diff and from messageFirst in a commit message.
func runSeverityCases(t *testing.T, d *Detector, diffFirst, messageFirst int, cases []severityCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			first := diffFirst
			if c.kind == finding.KindCommitMessage {
				first = messageFirst
			}
			got := emailSeverities(t, d, fragmentFrom(c.kind, c.path, first, c.text))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("severities %v, want %v", got, c.want)
			}
		})
	}
}

// emailSeverities returns the severity of each email finding d reports in
// f, in order; a finding without a description fails t.
func emailSeverities(t *testing.T, d *Detector, f *scanner.Fragment) []string {
	t.Helper()
	var got []string
	d.Detect(f, func(m scanner.Match) {
		if m.RuleID == "pii/email" {
			got = append(got, m.Severity.String())
			if m.Description == "" {
				t.Error("no description")
			}
		}
	})
	return got
}

// ruleCase is one case of a single rule's table: the added lines and the
// severity of each finding of the rule in them, in order.
type ruleCase struct {
	name, text string
	want       []string
}

// runRuleCases runs each case as a subtest: the added lines of the file
// at path, numbered from line 1, and the severities of rule's findings.
func runRuleCases(t *testing.T, d *Detector, path, rule string, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			d.Detect(fragmentFrom(finding.KindDiff, path, 1, c.text), func(m scanner.Match) {
				if m.RuleID == rule {
					got = append(got, m.Severity.String())
				}
			})
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// only returns a Detector with just the named detector on.
func only(t testing.TB, name string, skipTest bool) *Detector {
	t.Helper()
	en := map[string]bool{}
	for _, n := range Names() {
		en[n] = n == name
	}
	d, err := New(Config{Enabled: en, SkipTestCards: skipTest})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run returns the matches of d on the single line text.
func run(d *Detector, text string) []scanner.Match {
	var out []scanner.Match
	f := &scanner.Fragment{Kind: finding.KindText, Lines: []scanner.Line{{Number: 1, Text: []byte(text)}}}
	d.Detect(f, func(m scanner.Match) { out = append(out, m) })
	return out
}

func TestSamples(t *testing.T) {
	for k := range specs {
		s := &specs[k]
		t.Run(s.name, func(t *testing.T) {
			d := only(t, s.name, false)
			if len(s.samples.TP) == 0 || len(s.samples.FP) == 0 {
				t.Fatal("detector has no samples")
			}
			for _, tc := range s.samples.TP {
				ms := run(d, tc.Line)
				if len(ms) != 1 {
					t.Errorf("TP %q: got %d matches, want 1", tc.Line, len(ms))
					continue
				}
				m := ms[0]
				if got := tc.Line[m.Start:m.End]; got != tc.Want {
					t.Errorf("TP %q: matched %q, want %q", tc.Line, got, tc.Want)
				}
				if m.RuleID != "pii/"+s.name || m.Source != "pii" || m.Category != s.name ||
					m.Severity != s.severity || m.Description == "" || m.Line != 0 {
					t.Errorf("TP %q: bad match metadata %+v", tc.Line, m)
				}
			}
			for _, line := range s.samples.FP {
				for _, m := range run(d, line) {
					t.Errorf("FP %q: matched %q", line, line[m.Start:m.End])
				}
			}
		})
	}
}

// commonFP are lines from real code that no detector may match.
var commonFP = []string{
	"f47ac10b-58cc-4372-a567-0e02b2c3d479",
	"commit 3f786850e387550fdab836ed7e6dc881de23001b",
	"github.com/go-git/go-git/v5 v5.19.3 h1:U3Hlnbi/rTNAHrBySNewm5YkEmYPh4G1ea8S0HdV8DQ=",
	"golang.org/x/text v0.43.0/go.mod h1:Q7FQgXcp/l5KK8F5mKDk5Pla1VHDuMYc8rlwp1bzbcU=",
	"version = \"1.22.0\"",
	"\"react\": \"^18.2.0 || >=17.0.2 <18.0.0\",",
	"created_at: 2024-01-15T10:20:30.123+01:00",
	"ts := 1700000000000 // unix ms",
	"id: 9007199254740991",
	"color: #ff00aa; background: #FFF;",
	"x := 3.141592653589793",
	"const big = 12345678901234567890",
	"listen: 0.0.0.0:8080",
	"proxy_pass http://127.0.0.1:3000;",
	"See RFC 5737: 192.0.2.1, 198.51.100.1, 203.0.113.1",
	"oid := asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}",
	"<version>2.17.1</version> org.apache.logging.log4j:log4j-core:2.17.1",
	"@Override",
	"import \"@scope/pkg\";",
	"dGhpcyBpcyBhIHRlc3Qgb2YgYmFzZTY0IGVuY29kaW5nIDEyMzQ1Njc4OTA=",
	"0x7fffffffffffffff 0xDEADBEEF",
	"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"time.Date(2024, 1, 15, 10, 20, 30, 0, time.UTC)",
	"port := 65535; timeout := 30 * time.Second",
	"}, []int{4111, 1111, 1111, 1111}",
	"var x = a@b.c",
	"mailto:${email}",
	"--max-old-space-size=4096 --stack-size=65500",
	"10.0.0.0/8 172.16.0.0/12 192.168.0.0/16",
	"::ffff:127.0.0.1",
	// Lockfiles: integrity hashes, tarball URLs, scoped names with versions.
	`      "integrity": "sha512-hX3CSrkwfA46Vd9Z3q4cpEpHB1rL5NG04+/rbqW9d3+CSvtB1tYe8UTpAlixa1vj0m/ULglfEK2UKxMGxCxv5A==",`,
	`      "resolved": "https://pkgs.mirror.test/@scope/http-client/-/http-client-2.0.1.tgz",`,
	`"@babel/code-frame@^7.0.0", "@babel/code-frame@^7.22.13":`,
	`  resolved "https://pkgs.mirror.test/@babel/code-frame/-/code-frame-7.22.13.tgz#22a49c8a28e6bb4ac5c6f4e5a6b3b4e3bf9e1e17"`,
	"  /@babel/core@7.22.1(supports-color@8.1.1):",
	`    "node_modules/@apollo/server/node_modules/@graphql-tools/merge": {`,
	"  integrity sha512-PIXiMVtz6VvyaRsGY268qvj57hXQEpsYogYOu2nrQhlf+XCGmZstmuZBbAybUl1nQGnvS1k1eEsQ69ZoD7xlSw==",
}

func TestCommonFalsePositives(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range commonFP {
		for _, m := range run(d, line) {
			t.Errorf("%q: %s matched %q", line, m.RuleID, line[m.Start:m.End])
		}
	}
}

func TestSkipTestCards(t *testing.T) {
	for _, tc := range testCards {
		num := []byte(tc)
		if len(tc) > maxContiguousCard {
			tc = tc[:4] + " " + tc[4:8] + " " + tc[8:12] + " " + tc[12:16] + " " + tc[16:]
		}
		if !luhn(num) || !cardBrand(num) {
			t.Errorf("test card %s fails Luhn or brand", tc)
		}
		if got := len(run(only(t, "credit-card", false), "card "+tc)); got != 1 && !cardPlaceholder(num) {
			t.Errorf("test card %s not reported without SkipTestCards (%d matches)", tc, got)
		}
		if got := len(run(only(t, "credit-card", true), "card "+tc)); got != 0 {
			t.Errorf("test card %s reported with SkipTestCards", tc)
		}
	}
	// A real-looking number is still reported with SkipTestCards.
	if got := len(run(only(t, "credit-card", true), "4539148803436467")); got != 1 {
		t.Errorf("got %d matches, want 1", got)
	}
}

func TestLuhn(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"79927398713", true}, {"79927398710", false}, {"4539148803436467", true},
		{"4539148803436468", false}, {"378282246310005", true}, {"0", false},
		{"00", true}, {"18", true}, {"4x", false}, {"", false},
	} {
		if got := luhn([]byte(tc.in)); got != tc.want {
			t.Errorf("luhn(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestMod97(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"GB82WEST12345698765432", true}, {"GB82WEST12345698765433", false},
		{"DE89370400440532013000", true}, {"DE88370400440532013000", false},
		{"SC18SSCB11010000000000001497USD", true}, {"MT84MALT011000012345MTLCAST001S", true},
		{"NO9386011117947", true}, {"NO9386011117948", false},
		{"GB82west12345698765432", false}, {"GB82", false}, {"", false},
	} {
		if got := mod97([]byte(tc.in)); got != tc.want {
			t.Errorf("mod97(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestIBANTableComplete(t *testing.T) {
	if len(ibanLengths) < 80 {
		t.Errorf("IBAN table has %d countries, want the SWIFT registry's (≥ 80)", len(ibanLengths))
	}
	for cc, n := range ibanLengths {
		if n < 15 || n > maxIBAN || !isUpper(cc[0]) || !isUpper(cc[1]) {
			t.Errorf("bad IBAN entry %c%c=%d", cc[0], cc[1], n)
		}
	}
}

func TestCallingCodesPrefixFree(t *testing.T) {
	for a := range callingCodes {
		for b := range callingCodes {
			if a == b {
				continue
			}
			as, bs := itoa(a), itoa(b)
			if strings.HasPrefix(bs, as) {
				t.Errorf("calling code %s is a prefix of %s", as, bs)
			}
		}
		if lim := callingCodes[a]; lim[0] > lim[1] || int(lim[1])+len(itoa(a)) > maxPhoneDigits {
			t.Errorf("calling code %d: bad lengths %v", a, lim)
		}
	}
}

func itoa(n int) string {
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func TestSSNValid(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"536221784", true}, {"000221784", false}, {"666221784", false}, {"900221784", false},
		{"536001784", false}, {"536220000", false}, {"078051120", false}, {"899991784", true},
		{"001010001", true},
	} {
		var d [9]byte
		copy(d[:], tc.in)
		if got := ssnValid(d); got != tc.want {
			t.Errorf("ssnValid(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestConfig(t *testing.T) {
	if _, err := New(Config{Enabled: map[string]bool{"passport": true}}); err == nil {
		t.Error("unknown detector name accepted")
	}
	d, err := New(Config{Enabled: map[string]bool{"email": false}})
	if err != nil {
		t.Fatal(err)
	}
	ms := run(d, "maria.silva@acme-corp.com 4539148803436467")
	if len(ms) != 1 || ms[0].RuleID != "pii/credit-card" {
		t.Errorf("email disabled: got %+v", ms)
	}
	if d.Name() != "pii" {
		t.Errorf("Name() = %q", d.Name())
	}
	want := []string{"email", "phone", "credit-card", "iban", "us-ssn", "ip-address"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	sev := map[string]finding.Severity{
		"email": finding.SeverityWarning, "phone": finding.SeverityWarning,
		"credit-card": finding.SeverityError, "iban": finding.SeverityError,
		"us-ssn": finding.SeverityError, "ip-address": finding.SeverityNote, "nope": 0,
	}
	for name, s := range sev {
		if got := DefaultSeverity(name); got != s {
			t.Errorf("DefaultSeverity(%q) = %v, want %v", name, got, s)
		}
	}
}

func TestMultipleLinesAndMatches(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := &scanner.Fragment{Lines: []scanner.Line{
		{Number: 10, Text: []byte("nothing here")},
		{Number: 11, Text: []byte("ann@corp.io, bob@corp.io; ip 52.14.200.7 and 81.2.69.160")},
	}}
	var got []string
	d.Detect(f, func(m scanner.Match) {
		got = append(got, m.RuleID+" "+string(f.Lines[m.Line].Text[m.Start:m.End]))
		if m.Line != 1 {
			t.Errorf("match on line index %d", m.Line)
		}
	})
	want := []string{"pii/email ann@corp.io", "pii/email bob@corp.io", "pii/ip-address 52.14.200.7", "pii/ip-address 81.2.69.160"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNoAllocsWithoutCandidates(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := &scanner.Fragment{Lines: []scanner.Line{
		{Text: []byte(`	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {`)},
		{Text: []byte(`	return fmt.Errorf("decode request %d: %w", 42, err)`)},
		{Text: []byte(`github.com/go-git/go-git/v5 v5.19.3 h1:U3Hlnbi/rTNAHrBySNewm5YkEmYPh4G1ea8S0HdV8DQ=`)},
		{Text: []byte(`	ts := 1700000000000; addr := "127.0.0.1:8080"; var x = a.b::c`)},
		// Rejected candidates should not allocate either.
		{Text: []byte(`@Override icon@2x.png foo@bar.com noreply@github.com git@github.com:o/r.git 4539148803436468`)},
		{Text: []byte(`v1.2.3.4 ::1 fe80::1 +1 (415) 555-0123 123-45-6789 DE89370400440532013001 2001:db8::1`)},
	}}
	n := 0
	emit := func(scanner.Match) { n++ }
	allocs := testing.AllocsPerRun(100, func() { d.Detect(f, emit) })
	if allocs != 0 || n != 0 {
		t.Errorf("allocs = %v, matches = %d; want 0 and 0", allocs, n)
	}
}
