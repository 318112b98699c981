package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// percentAll percent-encodes every byte of s.
func percentAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

func unicodeEscapes(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, "\\u%04x", r)
	}
	return b.String()
}

// codePoints spells s as U+XXXX code points separated by spaces.
func codePoints(s string) string {
	var parts []string
	for _, r := range s {
		parts = append(parts, fmt.Sprintf("U+%04X", r))
	}
	return strings.Join(parts, " ")
}

// TestDetectDecoded checks findings in encoded text (synthetic secrets):
// the span is the encoded segment's, as gitleaks reports it, on the line
// where it stands, and the Detector agrees with gitleaks run on whole
// runs with decoding.
func TestDetectDecoded(t *testing.T) {
	d := newDetector(t)
	ref := newReference(t)
	awsLine := `aws_access_key_id = ` + awsKey
	cases := []struct {
		name    string
		lines   []string
		encoded string // the span expected, on line `line`
		line    int
		rule    string
	}{
		{name: "base64", lines: []string{`blob := "` + b64(awsLine) + `"`}, encoded: b64(awsLine), rule: "aws-access-token"},
		{name: "base64 of the secret alone", lines: []string{"x", "y", `data: ` + b64(ghPAT) + ` # cfg`}, encoded: b64(ghPAT), line: 2, rule: "github-pat"},
		{name: "double base64", lines: []string{"// header", `v = '` + b64(b64(awsLine)) + `'`, "// footer"}, encoded: b64(b64(awsLine)), line: 1, rule: "aws-access-token"},
		{name: "triple base64", lines: []string{b64(b64(b64("token: " + slackBot)))}, encoded: b64(b64(b64("token: " + slackBot))), rule: "slack-bot-token"},
		{name: "percent", lines: []string{"a", "b", "c", `url = "https://x.test/?k=` + percentAll(ghPAT) + `&y=1"`}, encoded: percentAll(ghPAT), line: 3, rule: "github-pat"},
		{name: "query escaped", lines: []string{`q=` + url.QueryEscape("key="+ghPAT+"&")}, line: 0, rule: "github-pat"},
		{name: "hex", lines: []string{`const h = "` + hex.EncodeToString([]byte(awsLine)) + `"`}, encoded: hex.EncodeToString([]byte(awsLine)), rule: "aws-access-token"},
		{name: "unicode escapes", lines: []string{`s = "` + unicodeEscapes(ghPAT) + `"`}, encoded: unicodeEscapes(ghPAT), rule: "github-pat"},
		{name: "base64 of percent", lines: []string{"x = 1", `y = "` + b64(percentAll(ghPAT)) + `"`}, encoded: b64(percentAll(ghPAT)), line: 1, rule: "github-pat"},
		{name: "base64 url", lines: []string{`t=` + base64.RawURLEncoding.EncodeToString([]byte("{\"k\":\""+ghPAT+"\"}"))}, encoded: base64.RawURLEncoding.EncodeToString([]byte("{\"k\":\"" + ghPAT + "\"}")), rule: "github-pat"},
		{name: "private key base64", lines: []string{`pem: ` + b64(pemBegin+"\n"+pemBody1+"\n"+pemBody2+"\n"+pemEnd)}, encoded: b64(pemBegin + "\n" + pemBody1 + "\n" + pemBody2 + "\n" + pemEnd), rule: "private-key"},
		{name: "code points across lines", lines: []string{"x", codePoints(ghPAT[:20]), codePoints(ghPAT[20:]), "y"}, line: 1, rule: "github-pat"},
		{name: "five deep", lines: []string{b64(b64(b64(b64(b64(ghPAT)))))}, encoded: b64(b64(b64(b64(b64(ghPAT))))), rule: "github-pat"},
		{name: "too deep", lines: []string{b64(b64(b64(b64(b64(b64(ghPAT))))))}},
		{name: "not printable", lines: []string{b64("\x00\x01" + ghPAT)}},
		{name: "allowlisted example", lines: []string{`x = "` + b64("aws_access_key_id = "+awsEx) + `"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fragment("internal/app/config.go", c.lines...)
			want := compareDetect(t, d, ref, f)
			var got []span
			for _, m := range want {
				if m.RuleID == RulePrefix+c.rule && m.Line == c.line {
					got = append(got, span{m.Line, m.Start, m.End, c.rule})
				}
			}
			switch {
			case c.rule == "":
				if len(want) != 0 {
					t.Errorf("findings %+v, want none", spans(want))
				}
			case c.encoded == "":
				if len(got) == 0 {
					t.Errorf("no %s finding on line %d: %+v", c.rule, c.line, spans(want))
				}
			default:
				at := strings.Index(c.lines[c.line], c.encoded)
				w := span{c.line, at, at + len(c.encoded), c.rule}
				if len(got) != 1 || got[0] != w {
					t.Errorf("got %+v, want %+v (all: %+v)", got, w, spans(want))
				}
			}
		})
	}
}

// TestDetectDecodedRuns checks encoded secrets at every position of a run
// of code lines, in runs split by hunks, against gitleaks.
func TestDetectDecodedRuns(t *testing.T) {
	d := newDetector(t)
	ref := newReference(t)
	encs := []string{
		b64("password = \"" + apiValue + "\""),
		percentAll("auth: " + ghPAT),
		b64(b64(slackBot)),
		`"` + b64(pemBegin+"\n"+pemBody1+"\n"+pemBody2+"\n"+pemEnd) + `"`,
	}
	for k, enc := range encs {
		for at := range 6 {
			var lines []string
			for i := range 6 {
				l := codeLines[(i+k)%len(codeLines)]
				if i == at {
					l = `	v := "` + enc + `" // api key`
				}
				lines = append(lines, l)
			}
			f := fragment("internal/app/config.go", lines...)
			for i := range f.Lines {
				if i >= 3 {
					f.Lines[i].Number += 10 // a second hunk
				}
			}
			if len(compareDetect(t, d, ref, f)) == 0 {
				t.Errorf("encoding %d at line %d: nothing found", k, at)
			}
		}
	}
}

// TestMayDecode checks the cheap pre-check against gitleaks' decoder.
func TestMayDecode(t *testing.T) {
	for _, s := range []string{
		"", "plain text", "func (s *Store) Get(ctx context.Context, key string) (*Session, error) {",
		"internal/store/store_test_helpers", "some_long_identifier_name_1", b64("hello world, this is text"),
		b64("hello world, this is text")[3:], "%41", "50%", "U+0041", "xU+0041", "\\u0041", "\\U00e9",
		strings.Repeat("ab12", 8), strings.Repeat("a", 40), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"QUFBQUFBQUFBQUFBQUFBQQ==", "QUFBQUFBQUFBQUFBQUFBQQ=", "QUFBQUFBQUFBQUFBQUFBQQ===",
		"-" + b64("0123456789abcdef") + "-", "x/" + b64("0123456789abcdef"),
	} {
		checkMayDecode(t, s)
	}
}

func checkMayDecode(t *testing.T, s string) {
	t.Helper()
	_, segs := codec.NewDecoder().Decode(s, nil)
	if len(segs) > 0 && !mayDecode([]byte(s)) {
		t.Errorf("mayDecode(%q) = false, but gitleaks decodes %d segments", s, len(segs))
	}
	if got := decodeLine([]byte(s), nil); got != (len(segs) > 0) {
		t.Errorf("decodeLine(%q) = %v, gitleaks decodes %d segments", s, got, len(segs))
	}
}

// FuzzMayDecode: the pre-check never rejects a line gitleaks' decoder
// finds a segment in.
func FuzzMayDecode(f *testing.F) {
	for _, s := range []string{"%41%42", "U+0041 U+0042", "\\u0041", b64("key = value value"), hex.EncodeToString([]byte("0123456789abcdef")), "a_b_c_d_e_f_g_h_i_j"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "\n") {
			return
		}
		checkMayDecode(t, s)
	})
}

// BenchmarkMayDecode measures the pre-check on keyword-dense code with no
// encoded segment, which every scanned line pays.
func BenchmarkMayDecode(b *testing.B) {
	f, n := codeFragment(1 << 20)
	b.SetBytes(int64(n))
	cpu := cpuTime()
	for b.Loop() {
		for _, l := range f.Lines {
			if mayDecode(l.Text) {
				b.Fatal("no line of the code decodes")
			}
		}
	}
	if used := cpuTime() - cpu; used > 0 && cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/used.Seconds()/1e6, "cpu-MB/s")
	}
}

// TestDetectDecodedChains checks U+ escapes continued on the next lines
// (one segment across lines) with the keyword in or out of the escapes,
// against gitleaks.
func TestDetectDecodedChains(t *testing.T) {
	d := newDetector(t)
	ref := newReference(t)
	for _, lines := range [][]string{
		{"x", `password = "` + codePoints(apiValue[:10]), codePoints(apiValue[10:]) + `"`, "y"},
		{"z", codePoints(ghPAT[:20]), codePoints(ghPAT[20:])},
		{"a", "b", codePoints(ghPAT[:4]), codePoints(ghPAT[4:20]), codePoints(ghPAT[20:])},
		{codePoints(slackBot[:10]), codePoints(slackBot[10:])},
	} {
		if len(compareDetect(t, d, ref, fragment("internal/app/config.go", lines...))) == 0 {
			t.Errorf("nothing found in %d lines", len(lines))
		}
	}
}
