package kafka

import (
	"sync/atomic"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// brokerClock maps the simulated brokers' clock (virtual ms since the
// cluster started) to the Unix milliseconds real clients stamp and read.
// The offset is fixed when the cluster starts (and again when it is
// replaced), so a client's timestamp goes into the log as ts-offset and
// comes back as exactly ts, while a LogAppendTime or a core producer's
// timestamp reads as a date near the wall clock. When the simulation is
// paused or sped up the brokers' clock drifts from the wall clock, as a
// simulated clock should.
type brokerClock struct{ offset atomic.Int64 }

// noTimestamp is RecordBatch.NO_TIMESTAMP: it passes through unchanged.
const noTimestamp = -1

// reset ties virtual time now to the wall clock's present, or to what
// offset (if set) says.
func (k *brokerClock) reset(c *core.Cluster, offset func(*core.Cluster) int64) {
	if offset != nil {
		k.offset.Store(offset(c))
		return
	}
	k.offset.Store(time.Now().UnixMilli() - c.Now())
}

// toCore converts a client timestamp to the brokers' clock.
func (k *brokerClock) toCore(ts int64) int64 {
	if ts == noTimestamp {
		return ts
	}
	return ts - k.offset.Load()
}

// toClient converts a timestamp of the brokers' clock for a client.
func (k *brokerClock) toClient(ts int64) int64 {
	if ts == noTimestamp {
		return ts
	}
	return ts + k.offset.Load()
}
