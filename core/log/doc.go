// Package log models one partition replica's log the way Kafka stores it on
// disk: a list of segments (<20-digit base offset>.log with .index and
// .timeindex), each holding whole record batches at byte positions computed
// from Kafka's v2 batch format, plus a sparse offset index and time index
// maintained by the exact LogSegment.append rules, retention by
// UnifiedLog.deletableSegments, compaction by LogCleaner (cleaner.go),
// truncation by LocalLog.truncateTo and a
// page-cache/disk model (recovery point, OS writeback, power loss).
//
// The package is pure and deterministic: time is passed in as int64 virtual
// milliseconds, there is no I/O, no goroutines and no randomness. Batches are
// immutable once appended and are shared by pointer between the leader's
// log, followers' logs and consumers; a clean replaces a log's batches by
// new ones and never changes one in place.
//
// Facts cited in comments refer to docs/kafka-facts.md (section 2) in the repository root and
// to the Kafka class named next to them.
package log
