package simtest

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the package's tests with a lazier garbage collector: a
// simulated run allocates many short-lived messages and little that
// lasts, and collecting four times less often makes the seeds a third
// faster.
func TestMain(m *testing.M) {
	debug.SetGCPercent(400)
	os.Exit(m.Run())
}
