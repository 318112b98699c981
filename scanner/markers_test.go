package scanner

import (
	"testing"
)

// TestMarkerPolicy: under MarkersReview a privscan:allow marker that the
// change adds does not silence its finding: the finding is reported,
// marked inline-added, and counted as suppressed; a marker already on the
// base side (BaseMarkers) suppresses as before, and so does every marker
// under MarkersHonour and on lines of whole files.
func TestMarkerPolicy(t *testing.T) {
	cases := []struct {
		name       string
		kind       Kind
		line       string
		base       []string // base-side lines of the hunk carrying a marker
		policy     MarkerPolicy
		reported   bool
		suppressed string
	}{
		{"no marker", KindDiff, "Zorb", nil, MarkersReview, true, ""},
		{"honour", KindDiff, "Zorb // privscan:allow", nil, MarkersHonour, false, ""},
		{"added marker", KindDiff, "Zorb // privscan:allow", nil, MarkersReview, true, SuppressInlineAdded},
		{"added rule marker", KindDiff, "Zorb // privscan:allow test/word", nil, MarkersReview, true, SuppressInlineAdded},
		{"marker on base", KindDiff, "Zorb2 // privscan:allow", []string{"Zorb // privscan:allow"}, MarkersReview, false, ""},
		{"base allowed the rule", KindDiff, "Zorb // privscan:allow test/word", []string{"x // privscan:allow test/word,pii/email"}, MarkersReview, false, ""},
		{"base allowed another rule", KindDiff, "Zorb // privscan:allow", []string{"x // privscan:allow pii/email"}, MarkersReview, true, SuppressInlineAdded},
		{"commit message", KindCommitMessage, "Zorb privscan:allow", nil, MarkersReview, true, SuppressInlineAdded},
		{"pull request text", KindText, "Zorb privscan:allow", nil, MarkersReview, true, SuppressInlineAdded},
		{"whole file", KindFile, "Zorb // privscan:allow", nil, MarkersReview, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &Fragment{Kind: c.kind, Path: "a.go", Lines: []Line{{Number: 1, Text: []byte("ok")}, {Number: 7, Text: []byte(c.line)}}}
			if c.base != nil {
				f.BaseMarkers = map[int][][]byte{}
				for _, b := range c.base {
					f.BaseMarkers[1] = append(f.BaseMarkers[1], []byte(b))
				}
			}
			got := run(t, sliceSource{f}, Options{Detectors: []Detector{wordDetector{word: "Zorb"}}, Markers: c.policy})
			if c.reported != (len(got.findings) == 1) {
				t.Fatalf("findings %d, want reported=%v", len(got.findings), c.reported)
			}
			if c.reported {
				if fd := got.findings[0]; fd.Suppressed != c.suppressed || fd.Line != 7 {
					t.Fatalf("suppressed %q line %d, want %q line 7", fd.Suppressed, fd.Line, c.suppressed)
				}
			}
			wantFindings, wantSup := 0, 0
			switch {
			case c.reported && c.suppressed == "":
				wantFindings = 1
			case c.reported:
				wantSup = 1
				if got.summary.SuppressedBy[SuppressInlineAdded] != 1 {
					t.Fatalf("suppressedBy %v", got.summary.SuppressedBy)
				}
			default:
				wantSup = 1
			}
			if got.summary.Findings != wantFindings || got.summary.Suppressed != wantSup {
				t.Fatalf("summary findings %d suppressed %d, want %d and %d", got.summary.Findings, got.summary.Suppressed, wantFindings, wantSup)
			}
		})
	}
}
