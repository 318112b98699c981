package readwin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/privscan/privscan/scanner"
)

func collect(t *testing.T, text string, w Window, max int64, batch int) ([]scanner.Line, error) {
	t.Helper()
	var got []scanner.Line
	err := Lines(context.Background(), strings.NewReader(text), w, max, batch, func(ls []scanner.Line) error {
		got = append(got, ls...)
		return nil
	})
	return got, err
}

func TestLines(t *testing.T) {
	tests := []struct {
		name string
		text string
		w    Window
		want []string // "n:text"
	}{
		{"whole", "a\nb\nc\n", Window{}, []string{"1:a", "2:b", "3:c"}},
		{"no final newline", "a\nb", Window{}, []string{"1:a", "2:b"}},
		{"crlf", "a\r\nb\r\n", Window{}, []string{"1:a", "2:b"}},
		{"lone cr stays", "a\rb\n", Window{}, []string{"1:a\rb"}},
		{"empty", "", Window{}, nil},
		{"blank lines", "\n\nx\n", Window{}, []string{"1:", "2:", "3:x"}},
		{"offset", "a\nb\nc\nd\n", Window{Offset: 2}, []string{"2:b", "3:c", "4:d"}},
		{"offset and limit", "a\nb\nc\nd\n", Window{Offset: 2, Limit: 2}, []string{"2:b", "3:c"}},
		{"limit", "a\nb\nc\n", Window{Limit: 1}, []string{"1:a"}},
		{"offset past end", "a\nb\n", Window{Offset: 5}, nil},
		{"offset zero", "a\nb\n", Window{Offset: 0, Limit: 1}, []string{"1:a"}},
	}
	for _, tc := range tests {
		for _, batch := range []int{1, 3, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, batch), func(t *testing.T) {
				got, err := collect(t, tc.text, tc.w, 1<<20, batch)
				if err != nil {
					t.Fatal(err)
				}
				var s []string
				for _, l := range got {
					s = append(s, fmt.Sprintf("%d:%s", l.Number, l.Text))
				}
				if fmt.Sprint(s) != fmt.Sprint(tc.want) {
					t.Fatalf("got %q, want %q", s, tc.want)
				}
			})
		}
	}
}

func TestLinesNoDefaultLimit(t *testing.T) {
	text := strings.Repeat("x\n", 5000)
	got, err := collect(t, text, Window{}, 1<<20, 1<<10)
	if err != nil || len(got) != 5000 || got[len(got)-1].Number != 5000 {
		t.Fatalf("got %d lines, %v", len(got), err)
	}
}

func TestLinesLongLine(t *testing.T) {
	// Longer than the reader's buffer, before and inside the window.
	long := strings.Repeat("y", 200<<10)
	text := long + "\nshort\n" + long + "z\n"
	got, err := collect(t, text, Window{Offset: 2}, 1<<20, 1<<10)
	if err != nil || len(got) != 2 || string(got[0].Text) != "short" || string(got[1].Text) != long+"z" || got[1].Number != 3 {
		t.Fatalf("got %d lines, %v", len(got), err)
	}
}

func TestLinesTooLarge(t *testing.T) {
	text := strings.Repeat("abcdefghij\n", 100)
	if _, err := collect(t, text, Window{}, 500, 1<<10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	// A window that ends before the budget does not read past it.
	if got, err := collect(t, text, Window{Limit: 3}, 500, 1<<10); err != nil || len(got) != 3 {
		t.Fatalf("got %d, %v", len(got), err)
	}
}

func TestPrefix(t *testing.T) {
	for n, want := range map[int]string{1: "1\t", 2050: "2050\t", 1234567: "1234567\t"} {
		if got := Prefix(n); got != want {
			t.Errorf("Prefix(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzLines(f *testing.F) {
	f.Add("a\nb\r\nc", 1, 2, 3)
	f.Add("", 0, 0, 1)
	f.Fuzz(func(t *testing.T, text string, offset, limit, batch int) {
		if batch < 1 || batch > 1<<16 || offset > 1<<20 || limit > 1<<20 {
			return
		}
		w := Window{Offset: offset, Limit: limit}
		got, err := collect(t, text, w, 1<<20, batch)
		if err != nil {
			t.Fatal(err)
		}
		// The reference: split at \n, drop the empty tail, trim \r.
		all := strings.SplitAfter(text, "\n")
		if all[len(all)-1] == "" {
			all = all[:len(all)-1]
		}
		var want []string
		for i, l := range all {
			n := i + 1
			if n < w.First() || n > w.Last() {
				continue
			}
			want = append(want, fmt.Sprintf("%d:%s", n, string(trimEOL([]byte(l)))))
		}
		var s []string
		for _, l := range got {
			s = append(s, fmt.Sprintf("%d:%s", l.Number, l.Text))
		}
		if fmt.Sprint(s) != fmt.Sprint(want) {
			t.Fatalf("got %q, want %q", s, want)
		}
	})
}

// trimEOL is the reference's end-of-line rule: a final "\n", and a "\r"
// before it.
func trimEOL(b []byte) []byte {
	if !bytes.HasSuffix(b, []byte("\n")) {
		return b
	}
	return bytes.TrimSuffix(b[:len(b)-1], []byte("\r"))
}
