// Package progress draws a one-line progress bar on a terminal: done of
// total (commits, files), rate and time left. It draws only when told to
// (Set and Add, throttled), never from a goroutine of its own, and Clear
// erases it: the caller clears the bar before it prints anything else on
// the terminal, so the bar and the output never share a line.
//
// It is a few dozen lines over golang.org/x/term rather than a bar library:
// the libraries that were considered draw from their own goroutine on a
// timer (vbauerster/mpb) or keep their own idea of what is on the line
// (schollz/progressbar), and privscan's one hard requirement is that a
// finding written to stdout is never preceded by a half-drawn bar on the
// same terminal. Drawing synchronously under the caller's lock makes that
// a property of the code, not of timing.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Bar is a progress bar. Its methods are safe for concurrent use.
type Bar struct {
	w     io.Writer
	label string // "history", "scan"
	unit  string // "commits", "files"
	width int    // terminal columns

	// Now is the clock (tests replace it).
	Now func() time.Time
	// Every is the minimum time between two draws.
	Every time.Duration

	mu      sync.Mutex
	done    int
	total   int // 0: unknown
	start   time.Time
	last    time.Time
	drawn   bool
	started bool
}

// New returns a bar that draws on w, labelled with what is running and the
// unit it counts. The width is the terminal's when w is one, else 80.
func New(w io.Writer, label, unit string) *Bar {
	width := 80
	if f, ok := w.(*os.File); ok {
		if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 20 {
			width = c
		}
	}
	return &Bar{w: w, label: label, unit: unit, width: width, Now: time.Now, Every: 100 * time.Millisecond}
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// SetTotal sets the total (0: unknown).
func (b *Bar) SetTotal(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total = n
}

// Add counts n more done and redraws if the last draw is old enough.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.Now()
	if !b.started {
		b.started, b.start = true, now
	}
	b.done += n
	if b.drawn && now.Sub(b.last) < b.Every || !b.drawn && now.Sub(b.start) < b.Every && now.Sub(b.last) < b.Every {
		return
	}
	b.last = now
	b.draw(now)
}

// Clear erases the bar if it is drawn. It is drawn again on a later Add.
func (b *Bar) Clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
}

// Locked runs fn with the bar erased and no draw possible until fn
// returns: what fn writes to the terminal never shares a line with the bar.
func (b *Bar) Locked(fn func() error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
	return fn()
}

func (b *Bar) clear() {
	if b.drawn {
		io.WriteString(b.w, "\r\x1b[K")
		b.drawn = false
	}
}

// Line returns the text of the bar at now, width columns at most.
func (b *Bar) Line(now time.Time) string {
	elapsed := now.Sub(b.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(b.done) / elapsed
	}
	unit := b.unit
	if b.done == 1 && b.total <= 1 {
		unit = strings.TrimSuffix(unit, "s")
	}
	var right string
	if b.total > 0 {
		right = fmt.Sprintf(" %d/%d %s", b.done, b.total, unit)
	} else {
		right = fmt.Sprintf(" %d %s", b.done, unit)
	}
	if elapsed >= 0.1 { // a rate needs some time behind it
		right += "  " + compact(rate) + "/s"
		if b.total > 0 && rate > 0 && b.done < b.total {
			right += "  ETA " + eta(float64(b.total-b.done)/rate)
		}
	}
	left := "privscan " + b.label + " "
	room := b.width - 1 - len(left) - len(right) - 2
	if b.total <= 0 || room < 10 {
		return strings.TrimRight(left, " ") + right
	}
	room = min(room, 40)
	fill := room * min(b.done, b.total) / b.total
	return left + "[" + strings.Repeat("=", fill) + strings.Repeat(" ", room-fill) + "]" + right
}

func (b *Bar) draw(now time.Time) {
	io.WriteString(b.w, "\r"+b.Line(now)+"\x1b[K")
	b.drawn = true
}

func compact(r float64) string {
	switch {
	case r >= 10000:
		return fmt.Sprintf("%.0fk", r/1000)
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

func eta(sec float64) string {
	d := time.Duration(sec * float64(time.Second)).Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
