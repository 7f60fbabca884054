package log

import "math"

// Config holds the per-log settings that shape segments and retention. Start
// from DefaultConfig. New replaces SegmentBytes, SegmentMs or IndexMaxBytes <= 0
// and IndexIntervalBytes < 0 by the defaults; 0 is a valid index interval.
type Config struct {
	SegmentBytes       int64 // log.segment.bytes (default 1073741824); capped at MaxInt32 like Kafka's int
	IndexIntervalBytes int   // log.index.interval.bytes (default 4096)
	SegmentMs          int64 // log.roll.ms (default 168h); no jitter
	RetentionMs        int64 // log.retention.ms, -1 = unlimited (default 168h)
	RetentionBytes     int64 // log.retention.bytes, -1 = unlimited (default)
	IndexMaxBytes      int   // log.index.size.max.bytes (10 MiB); a full index forces a roll
	IndexLastOffset    bool  // Kafka 2.0+: offset index entry = last offset of the batch; false (<=1.1): first offset
	// Compaction (cleanup.policy=compact; Clean): min.cleanable.dirty.ratio
	// (0.5), delete.retention.ms (24 h), min.compaction.lag.ms (0) and
	// max.compaction.lag.ms (Long.MAX_VALUE; <= 0 is that).
	MinCleanableRatio  float64
	DeleteRetentionMs  int64
	MinCompactionLagMs int64
	MaxCompactionLagMs int64
}

const (
	hourMs   = int64(3600 * 1000)
	maxInt32 = int64(1<<31 - 1)
)

// DefaultConfig returns Kafka's broker defaults (LogConfig, ServerLogConfigs).
func DefaultConfig() Config {
	return Config{
		SegmentBytes:       1073741824,
		IndexIntervalBytes: 4096,
		SegmentMs:          168 * hourMs,
		RetentionMs:        168 * hourMs,
		RetentionBytes:     -1,
		IndexMaxBytes:      10 * 1024 * 1024,
		IndexLastOffset:    true,
		MinCleanableRatio:  0.5,
		DeleteRetentionMs:  24 * hourMs,
		MaxCompactionLagMs: math.MaxInt64,
	}
}

// normalize fills unset fields with defaults and caps SegmentBytes at an int32.
func (c Config) normalize() Config {
	d := DefaultConfig()
	if c.SegmentBytes <= 0 {
		c.SegmentBytes = d.SegmentBytes
	}
	if c.SegmentBytes > maxInt32 {
		c.SegmentBytes = maxInt32
	}
	if c.IndexIntervalBytes < 0 {
		c.IndexIntervalBytes = d.IndexIntervalBytes
	}
	if c.SegmentMs <= 0 {
		c.SegmentMs = d.SegmentMs
	}
	if c.MaxCompactionLagMs <= 0 {
		c.MaxCompactionLagMs = d.MaxCompactionLagMs
	}
	if c.IndexMaxBytes <= 0 {
		c.IndexMaxBytes = d.IndexMaxBytes
	}
	return c
}
