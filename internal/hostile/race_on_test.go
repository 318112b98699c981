//go:build race

package hostile

// raceEnabled: the race detector slows matching about twentyfold, so the
// timing cases shrink.
const raceEnabled = true
