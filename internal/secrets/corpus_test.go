package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// sampler generates strings matching a regex, for planting secrets of
// every rule. Secrets are random, so none is a real credential.
type sampler struct {
	rng *rand.Rand
	// nl is the chance of picking a newline where a class allows one.
	nl float64
}

func (g *sampler) generate(re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && g.rng.IntN(2) == 0 {
				r = unicode.SimpleFold(r)
				if r > unicode.MaxASCII {
					r = unicode.SimpleFold(r)
				}
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(g.classRune(re.Rune))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteRune(rune(' ' + g.rng.IntN(95)))
	case syntax.OpCapture:
		g.generate(re.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			g.generate(s, b)
		}
	case syntax.OpAlternate:
		g.generate(re.Sub[g.rng.IntN(len(re.Sub))], b)
	case syntax.OpQuest:
		if g.rng.IntN(2) == 0 {
			g.generate(re.Sub[0], b)
		}
	case syntax.OpStar, syntax.OpPlus:
		n := g.rng.IntN(4)
		if re.Op == syntax.OpPlus {
			n++
		}
		for range n {
			g.generate(re.Sub[0], b)
		}
	case syntax.OpRepeat:
		hi := re.Max
		if hi < 0 {
			hi = re.Min + 8
		}
		// Mostly short, sometimes long repetitions.
		n := re.Min
		if hi > re.Min {
			if g.rng.IntN(3) == 0 {
				n += g.rng.IntN(hi - re.Min + 1)
			} else {
				n += g.rng.IntN(min(hi-re.Min, 4) + 1)
			}
		}
		for range n {
			g.generate(re.Sub[0], b)
		}
	}
}

// classRune picks a rune of a class, preferring printable ASCII and
// newline with probability g.nl when allowed.
func (g *sampler) classRune(ranges []rune) rune {
	in := func(r rune) bool {
		for k := 0; k+1 < len(ranges); k += 2 {
			if ranges[k] <= r && r <= ranges[k+1] {
				return true
			}
		}
		return false
	}
	if in('\n') && g.rng.Float64() < g.nl {
		return '\n'
	}
	var ascii []rune
	for r := rune(' '); r < 0x7f; r++ {
		if in(r) {
			ascii = append(ascii, r)
		}
	}
	if in('\t') {
		ascii = append(ascii, '\t')
	}
	if len(ascii) > 0 {
		return ascii[g.rng.IntN(len(ascii))]
	}
	k := 2 * g.rng.IntN(len(ranges)/2)
	return ranges[k] + rune(g.rng.IntN(int(ranges[k+1]-ranges[k])+1))
}

// pathFor returns a plausible path that a rule's path condition accepts.
func pathFor(r *tableRule) string {
	if r.path == nil {
		return "internal/app/config.go"
	}
	for _, p := range []string{"deploy/secrets.yaml", "infra/main.tf", "web/config.php", "nuget.config", "certs/client.p12"} {
		if r.path.MatchString(p) {
			return p
		}
	}
	return "internal/app/config.go"
}

// sampleFor returns a string holding a secret the reference finds with
// rule r in a fragment at path, or "" if none was found in a few tries.
func sampleFor(t testing.TB, ref *reference, g *sampler, r *tableRule, path string) string {
	vr := ref.vc.Rules[r.vcIndex]
	re, err := syntax.Parse(vr.Regex, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	contexts := [][2]string{
		{"", ""}, {"const value = \"", "\""}, {"  ", ""}, {"export X=", ""}, {"x := '", "'"},
		{"config[\"", "\"] = 1"}, {"# ", " # legacy"},
	}
	for try := range 40 {
		var b strings.Builder
		g.generate(re, &b)
		c := contexts[(try+g.rng.IntN(len(contexts)))%len(contexts)]
		s := c[0] + b.String() + c[1]
		f := fragment(path, strings.Split(s, "\n")...)
		for _, m := range ref.detect(f) {
			if m.RuleID == RulePrefix+r.id {
				return s
			}
		}
	}
	return ""
}

// Handwritten samples, shaped after gitleaks' own true-positive tests, for
// rules whose secrets span lines or depend on layout.
func handSamples() []string {
	pemBody := strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n", 6)
	return []string{
		"-----BEGIN " + "PRIVATE KEY-----\n" + pemBody + "-----END " + "PRIVATE KEY-----",
		"key = \"\"\"-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" + pemBody + "-----END " + "OPENSSH PRIVATE KEY-----\"\"\"",
		"sh-5.0$ curl -k -X POST https://infinispan:11222/rest/v2/caches/default/hello \\\n  -H 'Content-Type: text/plain' \\\n  -d 'world' \\\n  -u developer:yqDVtkqPECriaLRi",
		"curl -s --user 'api:d2LkV78zLx!t' \\\n    https://api.mailgun.net/v2/sandbox/messages",
		"curl -X GET https://api.example.com/v1/items \\\n  -H \"Authorization: Bearer 8f2Kq0ZxW1mB7nTy4LpR\"",
		"apiKey:\n  Zq8Lm2Xv9Tb4Rn7Wk1Pc",
		"client_secret =\n    \"pV7xQ2mZ9kL4tR8wN1bC6yH3\"",
		"auth_token\n  = \"Tk4mW9xQ2pL7zR1vN8bC5yH\"",
		"password: \"xK8#mQ2$vL9pZ4wR\" # gitleaks:allow",
		"db_password = \"Vq3Lm8Xz1Tb6Rn2Wk9Pc\"",
	}
}

// encodeSample encodes s in one of the ways gitleaks decodes.
func encodeSample(rng *rand.Rand, s string) string {
	switch rng.IntN(6) {
	case 0:
		return b64(b64(s))
	case 1:
		return percentAll(s)
	case 2:
		return hex.EncodeToString([]byte(s))
	case 3:
		return unicodeEscapes(s)
	case 4:
		return base64.RawURLEncoding.EncodeToString([]byte(s))
	}
	return b64(s)
}

// corpus builds fragments of realistic code with secrets of every rule
// the sampler can produce planted in them, about size bytes in all. It
// reports the rules planted.
func corpus(t testing.TB, d *Detector, ref *reference, size int, seed uint64) ([]*scanner.Fragment, []string) {
	g := &sampler{rng: rand.New(rand.NewPCG(seed, 0x5ec7e7)), nl: 0.15}
	perRule := 2
	if testing.Short() || raceEnabled {
		perRule = 1
	}
	type planted struct{ path, text string }
	var samples []planted
	var ids []string
	for _, r := range d.t.rules {
		r.getPlan(d.t)
		path := pathFor(r)
		for range perRule {
			if s := sampleFor(t, ref, g, r, path); s != "" {
				samples = append(samples, planted{path, s})
				if !slices.Contains(ids, r.id) {
					ids = append(ids, r.id)
				}
			}
		}
	}
	for _, s := range handSamples() {
		samples = append(samples, planted{"scripts/deploy.sh", s}, planted{"deploy/secrets.yaml", s})
	}
	g.rng.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })

	var frags []*scanner.Fragment
	n, cursor := 0, 0
	for k := 0; n < size; k++ {
		// Each fragment holds a few samples of one path between code lines.
		path := samples[k%len(samples)].path
		f := &scanner.Fragment{Kind: finding.KindFile, Path: path}
		if k%3 == 0 {
			f.Kind = finding.KindDiff
		}
		num := 1
		addLine := func(s string) {
			f.Lines = append(f.Lines, scanner.Line{Number: num, Text: []byte(s)})
			num++
			n += len(s) + 1
		}
		lines := 100 + g.rng.IntN(300)
		for i := 0; i < lines; i++ {
			switch x := g.rng.IntN(100); {
			case x < 3:
				// Samples in turn, so that all are planted in a large
				// enough corpus, some in files of another type.
				s := samples[cursor%len(samples)]
				cursor++
				if g.rng.IntN(4) == 0 {
					// Encoded, as gitleaks decodes it.
					addLine("blob := \"" + encodeSample(g.rng, s.text) + "\"")
					break
				}
				for _, l := range strings.Split(s.text, "\n") {
					addLine(l)
				}
			case x < 5 && f.Kind == finding.KindDiff:
				num += 1 + g.rng.IntN(20) // next hunk
			case x < 6:
				// Two code lines joined, as minified code would be.
				addLine(codePool[g.rng.IntN(len(codePool))] + " " + codePool[g.rng.IntN(len(codePool))])
			case x < 7:
				addLine("name := \"\u212aey İD\" // Kelvin sign and dotted I lowercase to ASCII")
			default:
				addLine(codePool[g.rng.IntN(len(codePool))])
			}
		}
		frags = append(frags, f)
	}
	return frags, ids
}

// TestDetectMatchesReference is the differential test: on realistic code
// with planted secrets of every rule, the Detector reports exactly what
// scanning each run whole with gitleaks reports.
func TestDetectMatchesReference(t *testing.T) {
	size := 2 << 20
	if testing.Short() || raceEnabled {
		size = 128 << 10
	}
	d := newDetector(t)
	ref := newReference(t)
	frags, ids := corpus(t, d, ref, size, 1)
	if len(ids) < 180 {
		t.Errorf("samples for only %d of %d rules", len(ids), len(d.t.rules))
	}
	found := map[string]int{}
	total, decoded := 0, 0
	for _, f := range frags {
		for _, m := range compareDetect(t, d, ref, f) {
			found[m.RuleID]++
			total++
			if m.Line < len(f.Lines) && strings.HasPrefix(string(f.Lines[m.Line].Text), "blob := ") {
				decoded++
			}
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("%d fragments, %d rules sampled, %d matches of %d rules, %d in encoded text", len(frags), len(ids), total, len(found), decoded)
	if decoded == 0 {
		t.Error("no match in encoded text")
	}
	if want := min(len(ids)*3/4, size>>11); len(found) < want {
		t.Errorf("only %d rules found in the corpus, want %d", len(found), want)
	}
}

// TestPlansBoundMatches checks each rule's plan against samples of its
// regex directly: wherever the rule matches, a keyword occurrence in the
// match passes the plan's filter and its window holds the match.
func TestPlansBoundMatches(t *testing.T) {
	d := newDetector(t)
	ref := newReference(t)
	g := &sampler{rng: rand.New(rand.NewPCG(2, 2)), nl: 0.2}
	whole := 0
	for _, r := range d.t.rules {
		r.getPlan(d.t)
		if r.plan.wholeRun {
			whole++
			continue
		}
		vr := ref.vc.Rules[r.vcIndex]
		re := regexp.MustCompile(vr.Regex)
		sre, _ := syntax.Parse(vr.Regex, syntax.Perl)
		checked := 0
		for range 30 {
			var b strings.Builder
			g.generate(sre, &b)
			s := "x " + b.String() + " y"
			lines := strings.Split(s, "\n")
			tx := newText(lines2(lines))
			for _, loc := range re.FindAllStringIndex(tx.s, -1) {
				if !planCovers(d, r, tx, loc) {
					t.Errorf("%s: plan misses a match", r.id)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Logf("%s: no sample matched", r.id)
		}
	}
	t.Logf("%d of %d rules planned as whole runs", whole, len(d.t.rules))
}

func lines2(ss []string) []scanner.Line {
	ls := make([]scanner.Line, len(ss))
	for i, s := range ss {
		ls[i] = scanner.Line{Number: i + 1, Text: []byte(s)}
	}
	return ls
}

// planCovers reports whether some keyword occurrence inside match loc of
// rule r gets a window holding the whole match.
func planCovers(d *Detector, r *tableRule, tx text, loc []int) bool {
	last := len(tx.starts) - 1
	for i := range tx.starts {
		line := []byte(tx.s[tx.starts[i]:tx.ends[i]])
		ok := false
		d.t.kw.lineKeywords(line, func(start int, kw int32) {
			if !slices.Contains(d.t.kwRules[kw], ruleIndex(d, r)) {
				return
			}
			q := tx.starts[i] + start
			if start >= 0 && (q < loc[0] || q >= loc[1]) {
				return
			}
			for _, br := range r.plan.branches {
				a := 0
				if br.nlBefore >= 0 {
					a = max(0, i-br.nlBefore)
				}
				b, pass := br.windowEnd(tx, i, start, last)
				if pass && tx.starts[a] <= loc[0] && tx.lineOf(max(loc[1], 1)-1) <= b {
					ok = true
				}
			}
		})
		if ok {
			return true
		}
	}
	return false
}

func ruleIndex(d *Detector, r *tableRule) int32 {
	return int32(slices.Index(d.t.rules, r))
}

// FuzzDetectMatchesReference compares the Detector with the reference on
// arbitrary text.
func FuzzDetectMatchesReference(f *testing.F) {
	for _, s := range handSamples() {
		f.Add(s)
	}
	f.Add("api_key = \"" + apiValue + "\"\n\ntoken: " + ghPAT)
	f.Add("key:\n\n\n  " + apiValue + "\n" + awsKey)
	f.Add(fmt.Sprintf("\u212aEY=%s\nİ %s", apiValue, slackBot))
	d := newDetector(f)
	ref := newReference(f)
	f.Fuzz(func(t *testing.T, s string) {
		compareDetect(t, d, ref, fragment("f.go", strings.Split(s, "\n")...))
	})
}

// newRand returns a deterministic generator for seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5ec7e7)) }
