//go:build !race

package sarifcheck

const raceEnabled = false
