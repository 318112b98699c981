package secrets

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/privscan/privscan/catalog"
	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// Planted secrets are assembled at run time so that this file holds no
// literal a secret scanner (ours included) would report.
var (
	awsKey   = "AK" + "IAZ4QW7R2TXLMN5PKD"                                        // 20 bytes
	awsEx    = "AK" + "IAIOSFODNN7EXAMPLE"                                        // allowlisted by gitleaks
	ghPAT    = "gh" + "p_" + "9sK2mQ7vX4bN1rT8wZ3yL6pD0fH5jC2aE7uG"               // 40 bytes
	slackBot = "xo" + "xb-2938475610-8374659201-Fq8ZtK3mWx9pLr2vBn6YcHd4"         // 51 bytes
	apiValue = "q8Zt3mWx9pLr2vBn6YcH"                                             // 20 bytes
	pemBegin = "-----BEGIN " + "RSA PRIVATE KEY-----"                             // 31 bytes
	pemEnd   = "-----END " + "RSA PRIVATE KEY-----"                               //
	pemBody1 = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun" //
	pemBody2 = "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK" //
)

// fragment builds a file fragment whose lines are numbered from 1.
func fragment(path string, lines ...string) *scanner.Fragment {
	f := &scanner.Fragment{Kind: finding.KindFile, Path: path}
	for i, l := range lines {
		f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: []byte(l)})
	}
	return f
}

// span is the part of a Match the position tests check.
type span struct {
	Line, Start, End int
	Rule             string
}

func detectAll(t testing.TB, d *Detector, f *scanner.Fragment) []scanner.Match {
	t.Helper()
	var ms []scanner.Match
	d.Detect(f, func(m scanner.Match) { ms = append(ms, m) })
	return ms
}

func spans(ms []scanner.Match) []span {
	var out []span
	for _, m := range ms {
		out = append(out, span{m.Line, m.Start, m.End, strings.TrimPrefix(m.RuleID, RulePrefix)})
	}
	return out
}

func newDetector(t testing.TB) *Detector {
	t.Helper()
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type detectCase struct {
	name string
	frag *scanner.Fragment
	want []span // hand-computed byte offsets
}

func detectCases() []detectCase {
	renumber := func(f *scanner.Fragment, nums ...int) *scanner.Fragment {
		for i := range f.Lines {
			f.Lines[i].Number = nums[i]
		}
		return f
	}
	return []detectCase{
		{
			name: "aws key on the first line",
			frag: fragment("cmd/main.go",
				`awsID := "`+awsKey+`"`,
				`fmt.Println(awsID)`),
			want: []span{{0, 10, 30, "aws-access-token"}},
		},
		{
			name: "github pat on line 5",
			frag: fragment("main.go",
				"package main",
				"",
				`import "fmt"`,
				"",
				`var pat = "`+ghPAT+`"`),
			want: []span{{4, 11, 51, "github-pat"}},
		},
		{
			name: "slack token after multibyte characters on line 3",
			frag: fragment("chat.go",
				"// en-tête",
				"",
				`msg := "naïve café ✓"; tok := "`+slackBot+`"`),
			// `msg := "` 8 + "naïve" 6 + " " 1 + "café" 5 + " " 1 + "✓" 3 + `"; tok := "` 11 = 35
			want: []span{{2, 35, 86, "slack-bot-token"}},
		},
		{
			name: "two secrets on one line",
			frag: fragment("ids.go",
				"// ids",
				`x := []string{"`+awsKey+`", "`+ghPAT+`"}`),
			want: []span{{1, 15, 35, "aws-access-token"}, {1, 39, 79, "github-pat"}},
		},
		{
			name: "private key across lines is reported on its first line",
			frag: fragment("keys.go",
				"const pem = `"+pemBegin,
				pemBody1,
				pemBody2,
				pemEnd+"`"),
			want: []span{{0, 13, 44, "private-key"}}, // "const pem = `" is 13 bytes
		},
		{
			name: "generic api key: the value, not the assignment",
			frag: fragment("config.toml",
				"# Konfiguration für den Dienst",
				"",
				"[service]",
				"\tapi_key = \""+apiValue+"\""),
			want: []span{{3, 12, 32, "generic-api-key"}},
		},
		{
			name: "same secret on two lines",
			frag: fragment("a.go",
				`a := "`+awsKey+`"`,
				`b := "`+awsKey+`"`),
			want: []span{{0, 6, 26, "aws-access-token"}, {1, 6, 26, "aws-access-token"}},
		},
		{
			name: "secret in the second run of a diff",
			frag: renumber(fragment("a.go",
				"// first hunk",
				`awsID := "`+awsKey+`"`), 3, 9),
			want: []span{{1, 10, 30, "aws-access-token"}},
		},
		{
			name: "private key split across non-adjacent lines is not joined",
			frag: renumber(fragment("keys.go",
				pemBegin, pemBody1, pemBody2, pemEnd), 1, 2, 10, 11),
			want: nil,
		},
		{
			name: "commit message without path",
			frag: &scanner.Fragment{Kind: finding.KindCommitMessage, Lines: []scanner.Line{
				{Number: 1, Text: []byte("Add deploy token")},
				{Number: 2, Text: nil},
				{Number: 3, Text: []byte("token: " + ghPAT)},
			}},
			want: []span{{2, 7, 47, "github-pat"}},
		},
		{
			name: "line over MaxLineBytes is skipped, later lines keep their index",
			frag: fragment("dist/app.min.js",
				`var k="`+awsKey+`";`+strings.Repeat("x", MaxLineBytes),
				`var pat = "`+ghPAT+`"`),
			want: []span{{1, 11, 51, "github-pat"}},
		},
		{
			name: "gitleaks example key is allowlisted",
			frag: fragment("a.go", `id := "`+awsEx+`"`),
			want: nil,
		},
		{
			name: "gitleaks path allowlist: go.sum",
			frag: fragment("go.sum", `awsID := "`+awsKey+`"`),
			want: nil,
		},
		{
			name: "gitleaks path allowlist: vendored code",
			frag: fragment("vendor/github.com/acme/lib/lib.go", `awsID := "`+awsKey+`"`),
			want: nil,
		},
		{
			name: "gitleaks:allow comment",
			frag: fragment("a.go", `awsID := "`+awsKey+`" // gitleaks:allow`),
			want: nil,
		},
		{
			name: "ordinary code",
			frag: fragment("a.go",
				`id := "123e4567-e89b-12d3-a456-426614174000"`,
				`sum := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`,
				`if key == "" { return nil, errors.New("empty key") }`),
			want: nil,
		},
	}
}

func TestDetectPositions(t *testing.T) {
	d := newDetector(t)
	for _, tc := range detectCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := detectAll(t, d, tc.frag)
			if gs := spans(got); !reflect.DeepEqual(gs, tc.want) {
				t.Fatalf("got %+v, want %+v", gs, tc.want)
			}
			for _, m := range got {
				if m.Source != "secret" || m.Category != "secret" || m.Severity != finding.SeverityError {
					t.Errorf("match %+v: wrong source, category or severity", m)
				}
				if !strings.HasPrefix(m.RuleID, "secret/") || m.Description == "" {
					t.Errorf("match %+v: wrong rule ID or empty description", m)
				}
			}
		})
	}
}

func TestDetectEmpty(t *testing.T) {
	d := newDetector(t)
	for _, f := range []*scanner.Fragment{
		nil,
		{Kind: finding.KindFile, Path: "bin.dat", Skipped: finding.SkipBinary},
		fragment("a.go", ""),
	} {
		if ms := detectAll(t, d, f); len(ms) != 0 {
			t.Errorf("got %d matches, want none", len(ms))
		}
	}
	if d.Name() != "secret" {
		t.Errorf("Name() = %q", d.Name())
	}
}

func TestRules(t *testing.T) {
	d := newDetector(t)
	rules := d.Rules()
	if len(rules) < 100 {
		t.Fatalf("only %d rules", len(rules))
	}
	byID := map[string]catalog.RuleInfo{}
	for i, r := range rules {
		if i > 0 && rules[i-1].ID >= r.ID {
			t.Fatalf("rules not sorted at %q", r.ID)
		}
		if !strings.HasPrefix(r.ID, "secret/") || r.Description == "" ||
			r.Category != "secret" || r.Severity != finding.SeverityError {
			t.Errorf("bad rule %+v", r)
		}
		byID[r.ID] = r
	}
	if _, ok := byID["secret/pkcs12-file"]; ok {
		t.Error("path-only rule listed")
	}
	// Every match names a listed rule with the same description.
	for _, tc := range detectCases() {
		for _, m := range detectAll(t, d, tc.frag) {
			if r, ok := byID[m.RuleID]; !ok || r.Description != m.Description {
				t.Errorf("%s: rule %s not listed or description differs", tc.name, m.RuleID)
			}
		}
	}
}

// allCases joins every case into one fragment, so that one Detect call
// exercises all rules, runs and positions at once.
func allCases() *scanner.Fragment {
	f := &scanner.Fragment{Kind: finding.KindFile, Path: "all.go"}
	n := 0
	for _, tc := range detectCases() {
		if tc.frag.Path != "" && tc.frag.Path != "all.go" && len(tc.want) == 0 {
			continue // path-dependent cases
		}
		n += 10 // a gap: each case is its own run
		for _, l := range tc.frag.Lines {
			f.Lines = append(f.Lines, scanner.Line{Number: n + l.Number, Text: l.Text})
		}
		n += len(tc.frag.Lines) + 100
	}
	return f
}

func TestDetectDeterministic(t *testing.T) {
	f := allCases()
	want := detectAll(t, newDetector(t), f)
	if len(want) < 8 {
		t.Fatalf("only %d matches", len(want))
	}
	for i := range 10 {
		d := newDetector(t)
		if got := detectAll(t, d, f); !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d: got %+v, want %+v", i, spans(got), spans(want))
		}
	}
}

func TestDetectConcurrent(t *testing.T) {
	d := newDetector(t)
	cases := detectCases()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 2 * len(cases) {
				tc := cases[(g+i)%len(cases)]
				var got []scanner.Match
				d.Detect(tc.frag, func(m scanner.Match) { got = append(got, m) })
				if gs := spans(got); !reflect.DeepEqual(gs, tc.want) {
					errs <- fmt.Errorf("goroutine %d, %s: got %+v, want %+v", g, tc.name, gs, tc.want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func FuzzDetect(f *testing.F) {
	f.Add("plain text\nwith lines")
	f.Add(`x := []string{"` + awsKey + `", "` + ghPAT + `"}`)
	f.Add("const pem = `" + pemBegin + "\n" + pemBody1 + "\n" + pemBody2 + "\n" + pemEnd + "`")
	f.Add("\n\n\tapi_key = \"" + apiValue + "\"\n")
	f.Add("\n\n" + pemBegin + "\n\n" + pemBody1 + pemBody2 + "\n" + pemEnd + "\n")
	f.Add("é" + awsKey + "\n" + awsKey + awsKey + "\n" + slackBot)
	d := newDetector(f)
	f.Fuzz(func(t *testing.T, s string) {
		frag := fragment("f.go", strings.Split(s, "\n")...)
		d.Detect(frag, func(m scanner.Match) {
			if m.Line < 0 || m.Line >= len(frag.Lines) {
				t.Fatalf("line %d out of range", m.Line)
			}
			text := frag.Lines[m.Line].Text
			if m.Start < 0 || m.Start >= m.End || m.End > len(text) {
				t.Fatalf("span [%d,%d) invalid for a line of %d bytes", m.Start, m.End, len(text))
			}
			if !strings.HasPrefix(m.RuleID, RulePrefix) {
				t.Fatalf("rule %q", m.RuleID)
			}
		})
	})
}
