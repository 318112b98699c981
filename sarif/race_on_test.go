//go:build race

package sarif

// raceEnabled lets tests skip single-goroutine bulk work that the race
// detector slows down tenfold.
const raceEnabled = true
