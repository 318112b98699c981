package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseCommands(t *testing.T) {
	tests := []struct {
		args []string
		want []Command
		err  bool
	}{
		{args: []string{"a", "true"}, want: []Command{{"a", []string{"true"}}}},
		{args: []string{"a", "echo", "x", "---", "b", "echo", "--", "y"},
			want: []Command{{"a", []string{"echo", "x"}}, {"b", []string{"echo", "--", "y"}}}},
		{args: []string{"a", "echo", "x---"}, want: []Command{{"a", []string{"echo", "x---"}}}},
		{args: nil, err: true},
		{args: []string{"a"}, err: true},
		{args: []string{"a", "true", "---"}, err: true},
		{args: []string{"---", "a", "true"}, err: true},
	}
	for _, tt := range tests {
		got, err := ParseCommands(tt.args)
		if (err != nil) != tt.err {
			t.Errorf("%q: err %v", tt.args, err)
			continue
		}
		if !tt.err && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestQuantile(t *testing.T) {
	tests := []struct {
		v    []float64
		q    float64
		want float64
	}{
		{nil, 0.5, 0},
		{[]float64{3}, 0.5, 3},
		{[]float64{1, 2, 3}, 0.5, 2},
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9.1},
		{[]float64{1, 2}, 1, 2},
	}
	for _, tt := range tests {
		if got := Quantile(tt.v, tt.q); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tt.v, tt.q, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	ss := []Sample{{Wall: 30 * time.Millisecond, MaxRSS: 1 << 20}, {Wall: 10 * time.Millisecond, MaxRSS: 3 << 20}, {Wall: 20 * time.Millisecond}}
	r := Summarize("g", Command{Label: "x", Argv: []string{"x"}}, ss)
	if r.MinMS != 10 || r.MedianMS != 20 || r.MaxMS != 30 || r.PeakRSSMB != 3 || r.Runs != 3 {
		t.Errorf("%+v", r)
	}
}

func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.jsonl")
	var stdout bytes.Buffer
	err := run([]string{"-runs", "2", "-warmup", "0", "-group", "g", "-out", out, "--", "t", "true", "---", "e", "echo", "hi"}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 2 || !strings.Contains(string(b), `"stdoutBytes":3`) {
		t.Errorf("results:\n%s", b)
	}
	if err := run([]string{"-runs", "1", "--", "f", "false"}, &stdout); err == nil {
		t.Error("failing command: no error")
	}
}
