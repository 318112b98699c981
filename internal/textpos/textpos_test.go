package textpos

import "testing"

func TestColumns(t *testing.T) {
	tests := []struct {
		name       string
		line       string
		start, end int
		want       Span
	}{
		{"ascii", "hello Jane Doe!", 6, 14, Span{7, 15, 7, 15}},
		{"start", "Jane", 0, 4, Span{1, 5, 1, 5}},
		{"umlaut before", "Müller Jane", 8, 12, Span{8, 12, 8, 12}},
		{"emoji before", "😀 Jane", 5, 9, Span{3, 7, 4, 8}},
		{"cjk before", "名前: Jane", 8, 12, Span{5, 9, 5, 9}},
		{"non-ascii match", "x Jürgen y", 2, 9, Span{3, 9, 3, 9}},
		{"emoji in match", "a 😀😀 b", 2, 10, Span{3, 5, 3, 7}},
		{"empty", "abc", 1, 1, Span{2, 2, 2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Columns([]byte(tt.line), tt.start, tt.end)
			if got != tt.want {
				t.Errorf("Columns(%q, %d, %d) = %+v, want %+v", tt.line, tt.start, tt.end, got, tt.want)
			}
		})
	}
}
