package scanner

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Mask masks as Copy does, keeps only lines with a match, and says where
// each placeholder is.
func TestMask(t *testing.T) {
	dets := []Detector{wordDetector{word: "Zoë Quill"}, wordDetector{word: "Quill"}}
	f := &Fragment{Kind: KindDiff, Path: "a.go", Lines: []Line{
		{Number: 3, Text: []byte("nothing here")},
		{Number: 4, Text: []byte("añb Zoë Quill, then Quill and Zoë Quill")},
		{Number: 9, Text: []byte("\tQuill")},
	}}
	r := NewRedactor(Options{Detectors: dets})
	got, err := r.Mask(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []MaskedLine{
		{Number: 4, Text: "añb [person:1], then [person:2] and [person:1]", Marks: []Mark{{Column: 5, Start: 5}, {Column: 21, Start: 22}, {Column: 31, Start: 37}}},
		{Number: 9, Text: "\t[person:2]", Marks: []Mark{{Column: 2, Start: 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Mask =\n%+v\nwant\n%+v", got, want)
	}
	for _, l := range got {
		for _, mk := range l.Marks {
			if !strings.HasPrefix(l.Text[mk.Start:], "[person:") {
				t.Errorf("line %d: mark %+v does not point at a placeholder", l.Number, mk)
			}
		}
	}

	// The same lines through Copy read the same (a fresh Redactor numbers
	// from 1 again).
	var out bytes.Buffer
	in := "añb Zoë Quill, then Quill and Zoë Quill\n\tQuill\n"
	if err := NewRedactor(Options{Detectors: dets}).Copy(context.Background(), &out, strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if w := want[0].Text + "\n" + want[1].Text + "\n"; out.String() != w {
		t.Errorf("Copy wrote %q, Mask %q", out.String(), w)
	}

	// A panicking detector is reported without its value.
	_, err = NewRedactor(Options{Detectors: []Detector{wordDetector{word: "Zoë", panic: true}}}).Mask(f)
	if !errors.Is(err, ErrDetectorPanic) || strings.Contains(err.Error(), "Zoë") {
		t.Errorf("panic: %v", err)
	}
}
