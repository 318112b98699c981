//go:build race

package sarifcheck

// raceEnabled lets tests skip single-goroutine bulk work that the race
// detector slows down tenfold.
const raceEnabled = true
