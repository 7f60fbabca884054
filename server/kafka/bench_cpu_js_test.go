//go:build js || wasip1

package kafka

import "time"

// cpuTime is 0 where there is no getrusage: the bench's CPU figures
// read 0 there.
func cpuTime() time.Duration { return 0 }
