package main

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/privscan/privscan/internal/synth"
)

// piiLine returns a line holding one random PII value (not a catalog
// value): an email address, a phone number, a Luhn-valid card number, an
// IBAN with valid check digits, a US SSN or a public IPv4 address.
func (g *gen) piiLine(kind fileKind) string {
	r := g.r
	var label, v string
	switch r.IntN(6) {
	case 0:
		// synth.Email uses reserved .example domains, which PII detectors
		// rightly skip: keep its local part, use a public mail domain.
		local, _, _ := strings.Cut(synth.Email(r), "@")
		label, v = "email", local+"@"+mailDomains[r.IntN(len(mailDomains))]
	case 1:
		label, v = "phone", []string{
			fmt.Sprintf("+1 %03d-%03d-%04d", 201+r.IntN(700), 200+r.IntN(700), r.IntN(10000)),
			fmt.Sprintf("+49 30 %08d", r.IntN(100000000)),
			fmt.Sprintf("+44 20 %04d %04d", r.IntN(10000), r.IntN(10000)),
		}[r.IntN(3)]
	case 2:
		label, v = "card", cardNumber(r)
	case 3:
		label, v = "iban", iban(r)
	case 4:
		label, v = "ssn", fmt.Sprintf("%03d-%02d-%04d", 1+r.IntN(665), 1+r.IntN(98), 1+r.IntN(9998))
	default:
		label, v = "ip", fmt.Sprintf("%d.%d.%d.%d", 23+r.IntN(150), r.IntN(256), r.IntN(256), 1+r.IntN(254))
	}
	switch kind {
	case kindGo:
		return fmt.Sprintf("\t%s := %q", label, v)
	case kindYAML:
		return fmt.Sprintf("  %s: %q", label, v)
	case kindJSON:
		return fmt.Sprintf(`  {"%s": "%s", "verified": true},`, label, v)
	}
	return fmt.Sprintf("Customer %s on file: %s", label, v)
}

var mailDomains = strings.Fields("gmail.com outlook.com posteo.de web.de proton.me yahoo.co.uk")

func digits(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return b
}

// cardNumber returns a Luhn-valid 16-digit Visa-shaped number, grouped by 4.
func cardNumber(r *rand.Rand) string {
	d := append([]byte{'4'}, digits(r, 14)...)
	sum := 0
	for i := range d { // the check digit goes right of d: double from the right
		x := int(d[len(d)-1-i] - '0')
		if i%2 == 0 {
			if x *= 2; x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	d = append(d, byte('0'+(10-sum%10)%10))
	return fmt.Sprintf("%s %s %s %s", d[0:4], d[4:8], d[8:12], d[12:16])
}

// iban returns a German IBAN with valid ISO 13616 check digits.
func iban(r *rand.Rand) string {
	bban := string(digits(r, 18))
	// Move "DE00" to the end, letters as numbers (D=13, E=14).
	n, _ := new(big.Int).SetString(bban+"131400", 10)
	check := 98 - int(new(big.Int).Mod(n, big.NewInt(97)).Int64())
	return fmt.Sprintf("DE%02d%s", check, bban)
}

const (
	upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b64        = alnum + "+/"
	hexDigits  = "0123456789abcdef"
)

func randStr(r *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.IntN(len(set))]
	}
	return string(b)
}

// secretLines returns one planted secret in the shape of a gitleaks rule.
// Prefixes are joined from parts so this source holds no secret-shaped
// literal.
func (g *gen) secretLines(kind fileKind) []string {
	r := g.r
	assign := func(key, v string) []string {
		switch kind {
		case kindGo:
			return []string{fmt.Sprintf("\t%s := %q", key, v)}
		case kindJSON:
			return []string{fmt.Sprintf(`  {"%s": "%s"},`, key, v)}
		case kindMarkdown:
			return []string{fmt.Sprintf("    export %s=%s", strings.ToUpper(key), v)}
		}
		return []string{fmt.Sprintf("  %s: %s", key, v)}
	}
	switch r.IntN(7) {
	case 0:
		return append(assign("aws_access_key_id", "AK"+"IA"+randStr(r, upperAlnum, 16)),
			assign("aws_secret_access_key", randStr(r, b64, 40))...)
	case 1:
		return assign("github_token", "gh"+"p_"+randStr(r, alnum, 36))
	case 2:
		return assign("slack_token", "xo"+"xb-"+string(digits(r, 12))+"-"+string(digits(r, 13))+"-"+randStr(r, alnum, 24))
	case 3:
		return assign("stripe_key", "sk"+"_live_"+randStr(r, alnum, 24))
	case 4:
		return assign("gitlab_token", "gl"+"pat-"+randStr(r, alnum, 20))
	case 5:
		return assign("api_key", randStr(r, hexDigits, 32))
	}
	kw := "PRIVATE" + " KEY"
	out := []string{"-----BEGIN RSA " + kw + "-----"}
	for range 8 {
		out = append(out, randStr(r, b64, 64))
	}
	return append(out, randStr(r, b64, 20)+"==", "-----END RSA "+kw+"-----")
}
