package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestBar(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := New(&out, "history", "commits")
	b.Now = c.now
	b.SetTotal(100)

	b.Add(1) // the first step draws at once
	if got := out.String(); !strings.HasPrefix(got, "\rprivscan history [") || !strings.HasSuffix(got, "] 1/100 commits\x1b[K") {
		t.Fatalf("first draw %q", got)
	}
	out.Reset()
	c.t = c.t.Add(50 * time.Millisecond)
	b.Add(1) // throttled
	if out.Len() != 0 {
		t.Fatalf("drew again within Every: %q", out.String())
	}
	c.t = c.t.Add(950 * time.Millisecond) // 1 s in, 50 done
	b.Add(48)
	if got := out.String(); !strings.Contains(got, "] 50/100 commits  50.0/s  ETA 1s\x1b[K") || !strings.Contains(got, "[==============               ]") {
		t.Fatalf("draw at half way %q", got)
	}
	out.Reset()
	err := b.Locked(func() error {
		out.WriteString("finding\n")
		return nil
	})
	if err != nil || out.String() != "\r\x1b[Kfinding\n" {
		t.Fatalf("Locked wrote %q, want the erasure, then the finding", out.String())
	}
	out.Reset()
	b.Clear() // nothing drawn: nothing to erase
	if out.Len() != 0 {
		t.Fatalf("Clear of an erased bar wrote %q", out.String())
	}
	if got := (&Bar{unit: "files", label: "scan", width: 80, start: c.t, done: 7}).Line(c.t.Add(2 * time.Second)); got != "privscan scan 7 files  3.5/s" {
		t.Errorf("bar without a total: %q", got)
	}
	if got := eta(3725); got != "62m05s" {
		t.Errorf("eta(3725) = %q", got)
	}
}
