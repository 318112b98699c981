package pii

import (
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// TestTrailers: the people trailers of a commit message are commit
// metadata; the same lines elsewhere (a diff, a text) and other lines of
// the message are still scanned.
func TestTrailers(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		kind finding.Kind
		msg  string
		want []int // 1-based lines with an email finding
	}{
		{"DCO block", finding.KindCommitMessage, "Fix the parser\n\nBody text.\n\nSigned-off-by: Ana Example <ana.example@mailhost.io>\nCo-authored-by: Bo Sample <bo.sample@mailhost.io>\n", nil},
		{"every people key", finding.KindCommitMessage, "S\n\nReviewed-by: A <a1.rev@mailhost.io>\nAcked-by: A <a2.ack@mailhost.io>\nTested-by: A <a3.t@mailhost.io>\nReported-by: A <a4.r@mailhost.io>\nSuggested-by: A <a5.s@mailhost.io>\nHelped-by: A <a6.h@mailhost.io>\nCc: A <a7.cc@mailhost.io>\n", nil},
		{"squash body", finding.KindCommitMessage, "Feature (#12)\n\n* first step\n\nSigned-off-by: Ana Example <ana.example@mailhost.io>\n\n* second step\n\n  Co-authored-by: Bo Sample <bo.sample@mailhost.io>\n- Co-Authored-By: Cy Person <cy.person@mailhost.io>\n\nMore text.\n", nil},
		{"continuation in the block", finding.KindCommitMessage, "S\n\nCc: Ana Example <ana.example@mailhost.io>,\n Bo Sample <bo.sample@mailhost.io>\n", nil},
		{"an address in the body is reported", finding.KindCommitMessage, "S\n\nContact ana.example@mailhost.io for access.\n\nSigned-off-by: Ana Example <ana.example@mailhost.io>\n", []int{3}},
		{"other trailers are scanned", finding.KindCommitMessage, "S\n\nReply-To: ana.example@mailhost.io\nSigned-off-by: Ana Example <ana.example@mailhost.io>\n", []int{3}},
		{"the subject is not a trailer", finding.KindCommitMessage, "Cc: ana.example@mailhost.io\n\nBody.\n", []int{1}},
		{"a trailer key inside a word", finding.KindCommitMessage, "S\n\nXSigned-off-by: ana.example@mailhost.io\n", []int{3}},
		{"a trailer inside the subject", finding.KindCommitMessage, "Read S.M.A.R.T data, Signed-off-by: Ana Example <ana.example@mailhost.io> (#12)\n\nBody.\n", nil},
		{"a trailer inside a body line", finding.KindCommitMessage, "S\n\nfix typo Co-authored-by: Bo Sample <bo.sample@mailhost.io>\n", nil},
		{"a trailer without a name inside a line", finding.KindCommitMessage, "S\n\nask Cc: bo.sample@mailhost.io\n", []int{3}},
		{"git log pasted into the body", finding.KindCommitMessage, "Merge fixes\n\ncommit 0123abcd\nAuthor: Ana Example <ana.example@mailhost.io>\nDate:   Mon Jan 1 10:00:00 2024 +0100\n\n    fix\n", nil},
		{"key words written apart", finding.KindCommitMessage, "S\n\nBody.\n\nCo-authored by: bo.sample@mailhost.io;\nSigned off by: Ana Example <ana.example@mailhost.io>\n", nil},
		{"key words apart inside a line", finding.KindCommitMessage, "Fix x, Co-Authored By: Ana Example <ana.example@mailhost.io> (#3)\n", nil},
		{"a sentence with a colon is not a key", finding.KindCommitMessage, "S\n\nPlease write to me: bo.sample@mailhost.io\n", []int{3}},
		// Trailers by git's grammar: any key that names a person.
		{"a prefixed DCO key", finding.KindCommitMessage, "S\n\nDocker-DCO-1.1-Signed-off-by: Ana Example <ana.example@mailhost.io> (github: anaexample)\n", nil},
		{"a prefixed key in the body", finding.KindCommitMessage, "S\n\nUpstream-Reviewed-by: bo.sample@mailhost.io\n\nMore.\n", nil},
		{"invented by keys", finding.KindCommitMessage, "S\n\nCo-developed-by: Ana Example <ana.example@mailhost.io>\nRefactored-by: Bo Sample <bo.sample@mailhost.io> (github: bosample)\nBisected-By : Cy Person <cy.person@mailhost.io>\n", nil},
		{"an invented key in a squash body", finding.KindCommitMessage, "Feature (#12)\n\n* step\n  Refactored-by: Bo Sample <bo.sample@mailhost.io>\n\nText.\n", nil},
		{"a cc variant", finding.KindCommitMessage, "S\n\nStable-Cc: Bo Sample <bo.sample@mailhost.io>\n", nil},
		{"continuation of an invented key", finding.KindCommitMessage, "S\n\nPaired-with-by: Ana Example <ana.example@mailhost.io>,\n\tBo Sample <bo.sample@mailhost.io>\n", nil},
		{"an invented key inside the subject", finding.KindCommitMessage, "Fix x, Co-developed-by: Ana Example <ana.example@mailhost.io> (#3)\n", nil},
		{"an invented key with a bare address is scanned", finding.KindCommitMessage, "S\n\nPaid-by: bo.sample@mailhost.io\n", []int{3}},
		{"a key that is not a person's", finding.KindCommitMessage, "S\n\nX-Mailer: Bo Sample <bo.sample@mailhost.io>\n", []int{3}},
		// "…-with" keys name the act's other person (round 21).
		{"a with key", finding.KindCommitMessage, "S\n\nBody.\n\nPaired-with: Bo Sample <bo.sample@mailhost.io>\nSigned-off-by: Ana Example <ana.example@mailhost.io>\n", nil},
		{"a with key with its words apart", finding.KindCommitMessage, "S\n\nPair programmed with: Bo Sample <bo.sample@mailhost.io>\n", nil},
		{"a with key in a squash body", finding.KindCommitMessage, "Feature (#12)\n\n* step\n  Paired-with: Bo Sample <bo.sample@mailhost.io>\n\nText.\n", nil},
		{"a with key with a bare address is scanned", finding.KindCommitMessage, "S\n\nPaired-with: bo.sample@mailhost.io\n", []int{3}},
		{"a word ending in with is not a with key", finding.KindCommitMessage, "S\n\nForthwith: Bo Sample <bo.sample@mailhost.io>\n", []int{3}},
		{"a with key in a diff", finding.KindDiff, "Paired-with: Bo Sample <bo.sample@mailhost.io>\n", []int{1}},
		// A "-by" key typed without its "-by" in the trailer block.
		{"a key without its by", finding.KindCommitMessage, "S\n\nBody.\n\nCo-authored: Bo Sample <bo.sample@mailhost.io>\n", nil},
		{"keys without their by beside others", finding.KindCommitMessage, "S\n\nFixes: #12\nSigned-off: Ana Example <ana.example@mailhost.io> (github: anaexample)\nCo-developed: Bo Sample <bo.sample@mailhost.io>\n", nil},
		{"a key without its by and a bare address", finding.KindCommitMessage, "S\n\nCo-authored: bo.sample@mailhost.io\nContact: <ana.example@mailhost.io>\n", []int{3, 4}},
		{"a key without its by in the body", finding.KindCommitMessage, "S\n\nCo-authored: Bo Sample <bo.sample@mailhost.io>\n\nMore text.\n", []int{3}},
		{"a key without its by in a prose paragraph", finding.KindCommitMessage, "S\n\nThis was hard.\nWe asked around.\nReviewed: Bo Sample <bo.sample@mailhost.io>\n", []int{5}},
		{"a key without its by with spaces", finding.KindCommitMessage, "S\n\nCo authored: Bo Sample <bo.sample@mailhost.io>\n", []int{3}},
		{"a key naming no act in the block", finding.KindCommitMessage, "S\n\nContact: Bo Sample <bo.sample@mailhost.io>\nSigned-off-by: Ana Example <ana.example@mailhost.io>\n", []int{3}},
		{"a key without its by in a diff", finding.KindDiff, "Co-authored: Bo Sample <bo.sample@mailhost.io>\n", []int{1}},
		{"an invented key in a diff", finding.KindDiff, "Co-developed-by: Ana Example <ana.example@mailhost.io>\n", []int{1}},
		{"an inline trailer in a diff", finding.KindDiff, "x, Signed-off-by: Ana Example <ana.example@mailhost.io>\n", []int{1}},
		{"a fixture in a diff", finding.KindDiff, "Signed-off-by: Ana Example <ana.example@mailhost.io>\n", []int{1}},
		{"a text", finding.KindText, "x\n\nSigned-off-by: Ana Example <ana.example@mailhost.io>\n", []int{3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &scanner.Fragment{Kind: c.kind}
			for i, l := range strings.Split(strings.TrimSuffix(c.msg, "\n"), "\n") {
				f.Lines = append(f.Lines, scanner.Line{Number: i + 1, Text: []byte(l)})
			}
			var got []int
			d.Detect(f, func(m scanner.Match) {
				if m.RuleID == "pii/email" {
					got = append(got, f.Lines[m.Line].Number)
				}
			})
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("email findings on lines %v, want %v", got, c.want)
			}
		})
	}
}

func FuzzTrailerLines(f *testing.F) {
	f.Add("S\n\nSigned-off-by: A <a@b.io>\n c\n")
	f.Add("Cc: x\n\n* Co-authored-by: y\n\n\n")
	f.Add("S\n\nFixes: #1\nCo-authored: A <a@b.io>\n\tB <b@c.io>\nX-ed: <c@d.io>\ned:\n")
	f.Add("S\n\nDocker-DCO-1.1-Signed-off-by: A <a@b.io> (github: a)\nX_y.z-By : B <b@c.io>\n\tC <c@d.io>\n")
	f.Add("S\n\nPaired-with: A <a@b.io>\n\tB <b@c.io>\nPair programmed with : C <c@d.io>\nForthwith: <d@e.io>\n")
	f.Fuzz(func(t *testing.T, msg string) {
		var lines []scanner.Line
		for i, l := range strings.Split(msg, "\n") {
			lines = append(lines, scanner.Line{Number: i + 1, Text: []byte(l)})
		}
		for i := range trailerLines(lines) {
			if i < 0 || i >= len(lines) {
				t.Fatalf("line index %d of %d", i, len(lines))
			}
			// The subject is a trailer only when it is a sign-off typed
			// as the subject, with the last paragraph's block after it
			// (round 23's subjectTrailer).
			if i == 0 {
				start, end := lastParagraph(lines)
				if !subjectTrailer(lines, start, end) {
					t.Fatalf("the subject marked a trailer, but it is not a sign-off typed as the subject")
				}
			}
		}
	})
}

// TestMessageCredits: in a commit message, "Name <address>" after an
// attribution word (a backport's original author, a patch's author, a
// thanked reporter) is a credit (note); a bare address, or one in the
// ident form with no attribution word before it, keeps the warning, and
// so does the same text in a diff. Synthetic names and hosts only.
func TestMessageCredits(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		kind finding.Kind
		msg  string
		want []string // severity of each email finding, in order
	}{
		{"backport from a handle", finding.KindCommitMessage, "Use matchers (#12)\n\n* Backport of commit 0123abcd\n  from anaex7 <ana.example@mailhost.io>\n", []string{"note"}},
		{"original patch by", finding.KindCommitMessage, "S\n\nOriginal patch by Bo van Example <bo.example@mailhost.io>.\n", []string{"note"}},
		{"thanks to", finding.KindCommitMessage, "S\n\nThanks to Cy O'Example <cy.example@mailhost.io> for the report.\n", []string{"note"}},
		{"author colon", finding.KindCommitMessage, "S\n\n(original author: Dee Example <dee.example@mailhost.io>)\n", nil}, // an Author: line after the subject is skipped, as git log writes it
		{"reported by in prose", finding.KindCommitMessage, "S\n\nThe bug was reported by Eve Example <eve.example@mailhost.io> last week.\n", []string{"note"}},
		{"attribution word at the end of the line before", finding.KindCommitMessage, "S\n\nCherry-picked from\nFay Example <fay.example@mailhost.io>\n", []string{"note"}},
		{"non-ASCII name", finding.KindCommitMessage, "S\n\nfrom Gül Exämple <gul.example@mailhost.io>\n", []string{"note"}},
		{"a bare address after from", finding.KindCommitMessage, "S\n\nforwarded from gus.example@mailhost.io\n", []string{"warning"}},
		{"a contact in prose", finding.KindCommitMessage, "S\n\nAsk hal.example@mailhost.io for more information.\n", []string{"warning"}},
		{"ident form without an attribution word", finding.KindCommitMessage, "S\n\nPlease ask Ida Example <ida.example@mailhost.io> for access.\n", []string{"warning"}},
		{"too many words between", finding.KindCommitMessage, "S\n\nfrom the old server to the admin team Jo <jo.example@mailhost.io>\n", []string{"warning"}},
		{"by inside a word", finding.KindCommitMessage, "S\n\nnearby Kim Example <kim.example@mailhost.io>\n", []string{"warning"}},
		{"the same text in a diff", finding.KindDiff, "original patch by Lu Example <lu.example@mailhost.io>", []string{"note"}}, // "patch by": a credit anywhere, by the existing rule
		{"from in a diff", finding.KindDiff, "msg := \"from Mo Example <mo.example@mailhost.io>\"", []string{"warning"}},
		// The ident form wrapped after the name (held-out round 11).
		{"wrapped after by and the name", finding.KindCommitMessage, "S\n\nIncorporates some changes from #14, by Nia Example\n<nia.example@mailhost.io>.\n", []string{"note"}},
		{"wrapped after thanks to and the name", finding.KindCommitMessage, "S\n\nThanks to Oz van Example\n  <oz.example@mailhost.io> for the report.\n", []string{"note"}},
		{"wrapped: an address alone without a credit", finding.KindCommitMessage, "S\n\nThe export now goes to\n<pia.example@mailhost.io>.\n", []string{"warning"}},
		{"wrapped: a name with no attribution word", finding.KindCommitMessage, "S\n\nPlease ask Quin Example\n<quin.example@mailhost.io> for access.\n", []string{"warning"}},
		{"wrapped: the attribution word alone", finding.KindCommitMessage, "S\n\nThanks to\n<ray.example@mailhost.io>\n", []string{"warning"}},
		{"wrapped: a gap before the address", finding.KindCommitMessage, "S\n\nChanges by Sol Example\n\n<sol.example@mailhost.io>\n", []string{"warning"}},
		{"wrapped: bare address after the name", finding.KindCommitMessage, "S\n\nChanges by Tam Example\ntam.example@mailhost.io\n", []string{"warning"}},
		{"wrapped in a diff", finding.KindDiff, "// changes by Uma Example\n// <uma.example@mailhost.io>", []string{"warning"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := ""
			if c.kind == finding.KindDiff {
				path = "src/x.go"
			}
			got := emailSeverities(t, d, fragmentOf(c.kind, path, c.msg))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("severities %v, want %v", got, c.want)
			}
		})
	}
}
