//go:build js || wasip1

package kafkabench

import "time"

// cpuTime is 0 where there is no getrusage: the benchmarks' CPU figures
// read 0 there.
func cpuTime() time.Duration { return 0 }
