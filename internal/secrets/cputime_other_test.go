//go:build !unix

package secrets

import "time"

// cpuTime is unavailable here; benchmarks then report no CPU figure.
func cpuTime() time.Duration { return 0 }
