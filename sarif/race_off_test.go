//go:build !race

package sarif

const raceEnabled = false
