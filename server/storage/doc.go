// Package storage keeps the served cluster's replica logs on a real disk
// in Kafka's own layout (kafkasim serve --data-dir DIR), so a learner can
// open the files a lesson describes, and brings them back when kafkasim
// starts again.
//
// Layout (docs/storage.md): DIR/cluster-metadata.json is kafkasim's
// stand-in for the metadata store (ZooKeeper or the KRaft quorum): the
// cluster line, topics, assignments, leaders and ISRs. DIR/broker-N is
// broker N's log.dirs: meta.properties, the broker's
// recovery-point-offset-checkpoint, replication-offset-checkpoint,
// log-start-offset-checkpoint and cleaner-offset-checkpoint, and a
// <topic>-<partition> directory per
// replica with partition.metadata, leader-epoch-checkpoint and the
// segments (<20-digit base offset>.log, .index, .timeindex).
//
// The core stays pure: a Store watches the cluster after every step (on
// the room's goroutine) and compares each replica's log with what it
// wrote, using only cheap reads (segment bases and counts, a rewrite
// counter); what changed goes as a list of operations to one writer
// goroutine that encodes and writes, so no I/O runs inside a step.
// Appends are written as they happen (the OS page cache, like Kafka's
// FileChannel writes); the core's flush (its recovery point moving:
// segment roll, flush.messages, flush.ms) fsyncs; the simulated OS
// writeback is the real OS's own; truncations, power-off losses, rolls
// and retention deletes cut, create and delete the files so that they
// always hold exactly the core's log.
package storage
