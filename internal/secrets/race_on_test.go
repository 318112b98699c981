//go:build race

package secrets

// raceEnabled shrinks slow tests under the race detector.
const raceEnabled = true
