package finding

import (
	"encoding/json"
	"testing"
)

func TestSeverityText(t *testing.T) {
	for _, s := range []Severity{SeverityNote, SeverityWarning, SeverityError} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%v: round trip gave %v, %v", s, back, err)
		}
		if p, ok := ParseSeverity(s.String()); !ok || p != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s, p, ok)
		}
	}
	var s Severity
	if err := s.UnmarshalText([]byte("fatal")); err == nil {
		t.Error("unknown severity accepted")
	}
	if _, ok := ParseSeverity("never"); ok {
		t.Error(`"never" is a fail-on level, not a severity`)
	}
}

func TestFails(t *testing.T) {
	tests := []struct {
		sev        Severity
		suppressed string
		level      Severity
		allowNew   bool
		want       bool
	}{
		{SeverityError, "", SeverityWarning, false, true},
		{SeverityWarning, "", SeverityWarning, false, true},
		{SeverityNote, "", SeverityWarning, false, false},
		{SeverityError, "", 0, false, false}, // --fail-on never
		{SeverityError, SuppressInlineAdded, SeverityWarning, false, true},
		{SeverityError, SuppressInlineAdded, SeverityWarning, true, false},
		{SeverityError, "baseline", SeverityWarning, false, false},
	}
	for _, tt := range tests {
		f := &Finding{Severity: tt.sev, Suppressed: tt.suppressed}
		if got := f.Fails(tt.level, tt.allowNew); got != tt.want {
			t.Errorf("%+v: Fails = %v, want %v", tt, got, tt.want)
		}
	}
}

// The JSON field names are a contract (docs/findings.md).
func TestFindingJSON(t *testing.T) {
	b, err := json.Marshal(&Finding{RuleID: "catalog/PER-001", Source: SourceCatalog, Category: "person",
		Severity: SeverityError, Kind: KindDiff, Path: "a.go", Line: 3, Column: 5, EndColumn: 9,
		Fingerprint: "ab", Description: "never serialised", Column16: 5, EndColumn16: 9})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ruleId":"catalog/PER-001","source":"catalog","category":"person","severity":"error","kind":"diff","path":"a.go","commit":"","line":3,"column":5,"endColumn":9,"fingerprint":"ab"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
