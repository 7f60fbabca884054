// Package core is a simulated Apache Kafka cluster: brokers, replication,
// the controller (ZooKeeper or KRaft), and simulated producers and
// consumers, as one deterministic state machine. It does no I/O, reads no
// clock, starts no goroutine and draws every random choice from one PRNG
// seeded by Options.Seed (scripts/purity.sh checks this), so the same
// options and the same commands at the same virtual times always give the
// same run, natively and in WebAssembly.
//
// # The contract the layers use
//
// The browser engine, the server, the scenario runner and lessons all drive
// a cluster through these, and read it only through them:
//
//   - New(Options) creates a cluster at virtual time 0.
//   - Apply(Command) validates and executes one command at the current
//     instant. Commands are plain data (command.go); DecodeCommand and
//     EncodeCommand are their JSON form (one object with a "type" tag). A
//     command that fails changes nothing and says why; no input panics.
//   - Advance(d) runs virtual time forward (below).
//   - Events() drains what happened since the last call, in order: typed
//     events (event.go) with wire messages carrying sentAt and deliverAt,
//     JSON-encodable; Event.Text is the trace line.
//   - Snapshot() is the whole visible state at the current instant, a
//     JSON-encodable copy: what a renderer draws between events.
//   - History() is what the clients observed (sends, acks, failures,
//     deliveries, commits): what the checker and expectations judge.
//   - Describe(target) and DescribeRead(replica, offset) render readable
//     views of a partition, replica, group, broker or the znodes.
//   - CommandLog() and Replay rebuild the cluster at any earlier time
//     (below).
//   - Accepted() is the catalog of what is valid: versions and the
//     metadata modes each supports, every config key with its default and
//     allowed values, assignors, partitioners, limits (LookupConfig and
//     LookupVersion for one). Layers above validate and build forms from
//     it instead of keeping tables of their own.
//
// # The driver owns time
//
// Apply never advances virtual time and never fires a timer: what it
// starts (a produce request, a crash, a split) travels the simulated
// network as the driver advances time. Four commands block in virtual
// time, as the Java client calls they model do: Wait (time passing),
// Settle (until nothing is in flight), Poll (KafkaConsumer.poll until it
// has records or times out) and Commit (commitSync until the coordinator
// answers). Apply starts such an operation; Pending describes it (its
// command, start and deadline); the driver calls Advance until Advance
// returns its Done (when and with what error it ended). Advance stops at
// the exact instant the operation completes (after the timers of the
// millisecond at which its condition first holds, or at its deadline),
// so advancing in one go, in 1 ms frames or with the wall clock gives the
// same run. One blocking operation is in progress at a time; other
// commands may be applied meanwhile. Exec is Apply plus advancing to
// completion: a whole script step.
//
//	if err := c.Apply(core.Poll{Consumer: "c1"}); err != nil { ... }
//	for c.Pending() != nil {
//		done, err := c.Advance(16) // one animation frame
//		...                        // draw c.Snapshot(), c.Events()
//		if done != nil { ... }     // done.Err: how the poll ended
//	}
//
// The scenario package builds on this: scenario.Player plays a script step
// by step under an outside clock with exactly the trace `kafkasim run`
// prints.
//
// # Rewind
//
// Every command Apply receives is logged with its position in the run
// (Logged: virtual time, and its place among that millisecond's timers and
// completed operations). Because the cluster is a function of its Options
// and that log, Replay(Options, log, T) rebuilds it as it was at any time
// T: seeking backwards is replaying from the seed. Logged entries encode
// to JSON with the command codec, so a log can be saved and shared.
//
// # Layout
//
// core is one flat package; files are grouped by prefix as Kafka's own
// code is: broker_* (the broker's request handlers), replica_* (a
// partition replica: leader, follower fetcher, ISR, producer state),
// coordinator_* (the group coordinator), controller_* (elections, ISR
// changes, registration, ZooKeeper and KRaft metadata), consumer_*,
// producer_* and client_* (the simulated clients), external_* (requests
// of clients the core does not simulate, by connection), zk* (the
// ZooKeeper model), plus the driver's side: apply.go and clientcmd.go
// (commands), advance.go (time and blocking operations), cmdlog.go (the
// command log and Replay), command*.go and cmdjson.go (commands and their
// JSON), catalog.go, knobs.go, conf.go, preset.go and options.go
// (configuration and versions). A flat package lets the state machine's
// parts call each other without exporting anything; the prefixes do the
// grouping sub-packages would. Sub-packages hold what stands alone: log
// (segments and indexes), assign (assignors), hash (partitioner hashes),
// check (the invariant checker), scenario (the scenario language), simtest
// (simulation testing), internal/strictjson (strict JSON decoding),
// internal/xrand (the PRNG).
package core
