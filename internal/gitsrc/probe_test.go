package gitsrc

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/privscan/privscan/scanner"
)

func TestProbeHistory(t *testing.T) {
	dir := os.Getenv("PROBE_DIR")
	if dir == "" {
		t.Skip()
	}
	w, _ := strconv.Atoi(os.Getenv("PROBE_WORKERS"))
	for i := 0; i < 3; i++ {
		start := time.Now()
		r := open(t, dir)
		r.SetWorkers(w)
		src, _ := r.History("", nil)
		if err := src.Fragments(context.Background(), func(*scanner.Fragment) error { return nil }); err != nil {
			t.Fatal(err)
		}
		t.Logf("workers %d: %v", w, time.Since(start))
	}
}
