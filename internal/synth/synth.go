// Package synth generates seeded synthetic catalogs and source text for
// tests and benchmarks: realistic person names (some non-ASCII), emails,
// internal host names, project codenames and account IDs, and Go, YAML and
// JSON lines to scan. The same seed always gives the same output.
package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
)

// Shares of the n values of a catalog, in percent.
const (
	sharePersons   = 50
	shareEmails    = 20
	shareHosts     = 12
	shareCodenames = 8
	// the rest are account IDs
)

// Values returns the n literal values of Catalog(seed, n), in rule order:
// persons, emails, hosts, codenames, account IDs. All are distinct.
func Values(seed int64, n int) []string {
	var out []string
	for _, g := range groups(seed, n) {
		out = append(out, g.values...)
	}
	return out
}

// Catalog returns a catalog of n literal values spread over five rules
// (PER-001 persons, EMAIL-001, HOST-001, CODE-001 codenames as an
// identifier rule, ACCT-001 case-sensitive account IDs) plus two regex rules
// (EMP-ID, TICKET).
func Catalog(seed int64, n int) *catalog.Catalog {
	c := &catalog.Catalog{}
	h := sha256.New()
	fmt.Fprintf(h, "synth/%d/%d", seed, n)
	h.Sum(c.Digest[:0])
	line := 1
	add := func(r catalog.Rule, vals []string) {
		r.Line = line
		r.Severity = finding.SeverityError
		for _, v := range vals {
			r.Values = append(r.Values, catalog.NewValue(v))
		}
		line += len(vals) + 6
		c.Rules = append(c.Rules, r)
	}
	for _, g := range groups(seed, n) {
		add(g.rule, g.values)
	}
	add(catalog.Rule{ID: "EMP-ID", Category: "employee-id", Match: catalog.MatchRegex},
		[]string{`EMP-\d{6}`})
	add(catalog.Rule{ID: "TICKET", Category: "ticket", Match: catalog.MatchRegex, CaseSensitive: true},
		[]string{`(?:INC|TKT)-[0-9]{5,7}`, `CASE#[0-9]{8}`})
	return c
}

type group struct {
	rule   catalog.Rule
	values []string
}

func groups(seed int64, n int) []group {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	nP := n * sharePersons / 100
	nE := n * shareEmails / 100
	nH := n * shareHosts / 100
	nC := n * shareCodenames / 100
	nA := n - nP - nE - nH - nC
	seen := make(map[string]struct{}, n)
	gen := func(count int, f func(*rand.Rand) string) []string {
		out := make([]string, 0, count)
		for misses := 0; len(out) < count; {
			v := f(r)
			if _, dup := seen[v]; dup {
				if misses++; misses > 1000+10*count {
					panic("synth: too few distinct values for this catalog size")
				}
				continue
			}
			seen[v] = struct{}{}
			out = append(out, v)
		}
		return out
	}
	return []group{
		{catalog.Rule{ID: "PER-001", Category: "person", Description: "Customer and colleague names"}, gen(nP, Person)},
		{catalog.Rule{ID: "EMAIL-001", Category: "email", Description: "Personal email addresses"}, gen(nE, Email)},
		{catalog.Rule{ID: "HOST-001", Category: "hostname", Description: "Internal host names"}, gen(nH, Host)},
		{catalog.Rule{ID: "CODE-001", Category: "codename", Match: catalog.MatchIdentifier, Description: "Project codenames"}, gen(nC, Codename)},
		{catalog.Rule{ID: "ACCT-001", Category: "account", CaseSensitive: true, Description: "Customer account numbers"}, gen(nA, Account)},
	}
}

var firstNames = strings.Fields(`James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth
William Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Daniel Lisa Matthew Nancy
Anthony Betty Mark Sandra Donald Ashley Steven Emily Andrew Kimberly Paul Donna Joshua Michelle
Kenneth Carol Kevin Amanda Brian Melissa George Deborah Timothy Stephanie Ronald Rebecca Jason Laura
Edward Helen Jeffrey Sharon Ryan Cynthia Jacob Kathleen Gary Amy Nicholas Angela Eric Shirley Jonathan
Anna Stephen Brenda Larry Pamela Justin Emma Scott Nicole Brandon Samantha Benjamin Katherine Samuel
Christine Gregory Debra Alexander Rachel Patrick Carolyn Frank Janet Raymond Maria Jack Olivia Dennis
Heather Jerry Diane Tyler Julie Aaron Joyce Henrik Ingrid Lars Astrid Pieter Femke Luca Giulia Mateo
Lucía Hugo Chloé Noah Léa Jürgen Björn Zoë François Søren Åsa Łukasz Małgorzata José Renée Siobhán
Dvořák Ömer Çağla Nuño Ana Mei Hiroshi Yuki Arjun Priya Oluwaseun Chiamaka Tomás Inês Đorđe Ewa`)

var lastNames = strings.Fields(`Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez
Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White
Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill
Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Müller Schmidt Schneider
Fischer Weber Meyer Wagner Becker Schulz Hoffmann Dubois Lefèvre Moreau Fournier Girard Rossi Russo
Ferrari Esposito Bianchi Jansen Visser Bakker Nowak Kowalski Wiśniewski Novák Svoboda Horváth Nagy
Öztürk Yılmaz Kaya Ødegaard Sørensen Nielsen Andersson Johansson Ó'Brien O'Connor MacDonald Fitzgerald
Tanaka Suzuki Watanabe Kim Park Chen Wang Zhang Liu Singh Patel Sharma Okafor Adeyemi Silva Santos
Pereira Costa Peña Núñez Ibáñez`)

var syllables = strings.Fields(`an ber cal dor el fin gar hal is jor kel lan mar nor ol per quin ros
sal tor ul ven wil xan yor zel bran dell fost grim holt ives jenk lor mott nash orr pratt rudd stroh
trell vance wex`)

var emailDomains = strings.Fields(`corp.example mail.corp.example eu.corp.example acme-intl.example
partners.example.org contoso.example staff.initech.example`)

var hostServices = strings.Fields(`db api cache auth billing search queue ledger payroll crm etl ml
vault ldap mail jenkins grafana kafka redis pg mysql es`)

var hostEnvs = strings.Fields(`prod staging dev qa dr`)

var hostRegions = strings.Fields(`eu-west-1 eu-central-1 us-east-1 us-west-2 ap-south-1 fra1 ams2 lon3`)

var adjectives = strings.Fields(`Blue Iron Silent Crimson Amber Hidden Swift Golden Silver Northern
Quiet Bright Frozen Burning Hollow Velvet Copper Jade Midnight Scarlet Obsidian Emerald Lunar Solar
Stormy Rapid Ancient Wild Gentle Bold Arctic Desert Coral Onyx Ivory Cobalt Granite Misty Shadow
Thunder`)

var nouns = strings.Fields(`Falcon Heron Otter Badger Lynx Raven Tiger Panda Cobra Bison Condor
Marlin Orca Puma Viper Wolf Hawk Kestrel Mantis Gecko Ibex Jackal Koala Lemur Moose Narwhal Ocelot
Pelican Quail Salmon Tapir Urchin Walrus Yak Zebra Harbor Summit Canyon Glacier Meadow Beacon Anvil
Compass Lantern Prism Quarry Rocket Sextant Trident`)

var greek = strings.Fields(`Alpha Beta Gamma Delta Epsilon Zeta Theta Kappa Lambda Sigma Omega Nova
Prime Zero One Two Three Four Five Six Seven Eight Nine`)

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

func lastName(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return pick(r, lastNames)
	}
	var b strings.Builder
	for i := 0; i < 2+r.IntN(2); i++ {
		b.WriteString(pick(r, syllables))
	}
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// Person returns a random person name such as "Jürgen Hoffmann".
func Person(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		return pick(r, firstNames) + " " + pick(r, firstNames) + " " + lastName(r)
	}
	return pick(r, firstNames) + " " + lastName(r)
}

// asciiName maps the non-ASCII letters of the name lists to ASCII.
var asciiName = strings.NewReplacer("ü", "ue", "ö", "oe", "ä", "ae", "é", "e", "è", "e", "ë", "e",
	"ç", "c", "ø", "o", "Ø", "O", "å", "a", "Å", "A", "ł", "l", "Ł", "L", "ó", "o", "Ó", "O", "í", "i",
	"ñ", "n", "ř", "r", "ş", "s", "ğ", "g", "ı", "i", "Ö", "O", "Ç", "C", "á", "a", "ú", "u", "ś", "s",
	"Đ", "D", "đ", "d", "ê", "e", "'", "")

// Email returns a random personal email address.
func Email(r *rand.Rand) string {
	f := strings.ToLower(asciiName.Replace(pick(r, firstNames)))
	l := strings.ToLower(asciiName.Replace(lastName(r)))
	d := pick(r, emailDomains)
	switch r.IntN(4) {
	case 0:
		return f[:1] + l + "@" + d
	case 1:
		return fmt.Sprintf("%s_%s%d@%s", f, l, r.IntN(100), d)
	}
	return f + "." + l + "@" + d
}

// Host returns a random internal host name such as
// "billing-db-07.prod.eu-west-1.internal.corp".
func Host(r *rand.Rand) string {
	svc := pick(r, hostServices)
	if r.IntN(2) == 0 {
		svc += "-" + pick(r, hostServices)
	}
	return fmt.Sprintf("%s-%02d.%s.%s.internal.corp", svc, r.IntN(100), pick(r, hostEnvs), pick(r, hostRegions))
}

// Codename returns a random project codename such as "Silent Heron" or
// "Copper Lantern Sigma".
func Codename(r *rand.Rand) string {
	s := pick(r, adjectives) + " " + pick(r, nouns)
	switch r.IntN(4) {
	case 1:
		s += " " + pick(r, greek)
	case 2:
		s += " " + pick(r, nouns)
	case 3:
		s += fmt.Sprintf(" %d", 2+r.IntN(98))
	}
	return s
}

// Account returns a random account or customer ID such as "ACCT-0012345678".
func Account(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("ACCT-%010d", r.Int64N(1e10))
	case 1:
		return fmt.Sprintf("CUST-%04d-%04d", r.IntN(10000), r.IntN(10000))
	}
	return fmt.Sprintf("%s-PRJ-%05d", pick(r, []string{"DE", "FR", "NL", "US", "GB", "JP"}), r.IntN(100000))
}

var codeWords = strings.Fields(`user id name config client server db http err ctx request response
value count index item list map key token session cache handler service store repo query result
status code message payload buffer reader writer timeout retry limit offset page order account
event metric log level path file dir url host port addr conn pool worker job task queue batch`)

func ident(r *rand.Rand, upperFirst bool) string {
	var b strings.Builder
	for i := 0; i < 1+r.IntN(3); i++ {
		w := pick(r, codeWords)
		if i > 0 || upperFirst {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

func snake(r *rand.Rand) string {
	parts := make([]string, 1+r.IntN(3))
	for i := range parts {
		parts[i] = pick(r, codeWords)
	}
	return strings.Join(parts, "_")
}

// Text returns about size bytes of source-like lines (Go, YAML, JSON,
// Python, shell comments), each ending in '\n'. About one line in 40 holds a
// value of plant, used in turn, in a string, a comment, a URL or a key.
func Text(seed int64, size int, plant []string) []byte {
	r := rand.New(rand.NewPCG(uint64(seed), 0x7e47))
	var b bytes.Buffer
	b.Grow(size + 256)
	next := 0
	for b.Len() < size {
		if len(plant) > 0 && r.IntN(40) == 0 {
			v := plant[next%len(plant)]
			next++
			fmt.Fprintf(&b, plantTemplates[r.IntN(len(plantTemplates))], v)
			b.WriteByte('\n')
			continue
		}
		b.WriteString(codeLine(r))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

var plantTemplates = []string{
	"\towner := %q",
	"\t// Reviewed by %s last quarter.",
	`    "contact": "%s",`,
	"  maintainer: %s",
	"# TODO(%s): remove after migration",
	"\tresp, err := http.Get(\"https://%s/api/v2/users?limit=50\")",
	"%s,2024-01-17,approved,42.50",
	"| %s | active | 2023 |",
	"\tlog.Printf(\"sync for %s failed: %%v\", err)",
}

func codeLine(r *rand.Rand) string {
	ind := strings.Repeat("\t", r.IntN(4))
	switch r.IntN(16) {
	case 0:
		return fmt.Sprintf("%sif err := %s.%s(ctx, %s); err != nil {", ind, ident(r, false), ident(r, true), ident(r, false))
	case 1:
		return fmt.Sprintf("%sreturn fmt.Errorf(\"%s %%s: %%w\", %s, err)", ind, pick(r, codeWords), ident(r, false))
	case 2:
		return fmt.Sprintf("func (s *%s) %s(ctx context.Context, %s %s) (*%s, error) {", ident(r, true), ident(r, true), ident(r, false), ident(r, true), ident(r, true))
	case 3:
		return fmt.Sprintf("%s%s := %s.%s[%d]", ind, ident(r, false), ident(r, false), ident(r, true), r.IntN(64))
	case 4:
		return fmt.Sprintf("%s  %s: %d", strings.Repeat("  ", r.IntN(3)), snake(r), r.IntN(5000))
	case 5:
		return fmt.Sprintf(`%s{"%s": %d, "%s": "%s", "enabled": %v},`, ind, snake(r), r.IntN(100000), pick(r, codeWords), ident(r, false), r.IntN(2) == 0)
	case 6:
		return fmt.Sprintf("%s// %s returns the %s for the given %s, or an error.", ind, ident(r, true), pick(r, codeWords), pick(r, codeWords))
	case 7:
		return fmt.Sprintf("%sdef %s(self, %s, %s=None):", strings.Repeat("    ", r.IntN(2)), snake(r), snake(r), snake(r))
	case 8:
		return fmt.Sprintf("%s%s = self.%s.get(%q, %d)", strings.Repeat("    ", 1+r.IntN(2)), snake(r), snake(r), pick(r, codeWords), r.IntN(10))
	case 9:
		return ind + "}"
	case 10:
		return ""
	case 11:
		return fmt.Sprintf("%s%s, err := %s.%s(%s, &%s{%s: %s})", ind, ident(r, false), ident(r, false), ident(r, true), ident(r, false), ident(r, true), ident(r, true), ident(r, false))
	case 12:
		return fmt.Sprintf("- name: %s\n  image: registry.example.com/%s/%s:v%d.%d.%d", snake(r), pick(r, codeWords), pick(r, codeWords), r.IntN(3), r.IntN(20), r.IntN(10))
	case 13:
		if r.IntN(4) != 0 {
			return fmt.Sprintf("%s// %s is safe for concurrent use.", ind, ident(r, true))
		}
		return fmt.Sprintf("%s// Größe der Übertragung für %s prüfen (délai: %dms)", ind, ident(r, false), r.IntN(900))
	case 14:
		return fmt.Sprintf("%scase %s.%s, %s.%s:", ind, ident(r, false), ident(r, true), ident(r, false), ident(r, true))
	}
	var x [8]byte
	binary.LittleEndian.PutUint64(x[:], r.Uint64())
	return fmt.Sprintf("%sconst %s = 0x%x // %s", ind, ident(r, true), x, pick(r, codeWords))
}
