// explain.js: short explanations of everything on the page, each naming
// the Kafka setting that governs it. The tooltip shows them on hover (DOM
// elements with data-explain, and canvas elements by the hover messages
// the canvas posts).
"use strict";

window.EXPLAIN = {
  kafkasim: ["kafkasim", "A simulated Kafka cluster running in your browser: the same deterministic core as the command line, virtual time, one seed. Everything you see is something the core really did."],
  broker: ["Broker", "A Kafka server. It stores partition replicas and answers produce and fetch requests. Click it to crash it, cut its power, pause it (a GC pause), restart it or isolate it from the network.", "broker.id"],
  "broker.crashed": ["Crashed broker", "Its process was killed: the OS page cache survives, so unflushed records are still there when it restarts.", ""],
  "broker.poweredoff": ["Powered-off broker", "The machine lost power: whatever was only in the page cache (not yet flushed to disk) is gone.", "log.flush.interval.messages, log.flush.interval.ms"],
  "broker.paused": ["Paused broker", "Frozen, like a long GC pause or a disk stall: it handles nothing until resumed, then handles what queued up.", ""],
  "broker.cut": ["Cut off", "On the other side of a network split from the controller (or ZooKeeper): it cannot keep its session or its metadata fresh.", "zookeeper.session.timeout.ms, broker.session.timeout.ms"],
  controller: ["Controller", "The broker that elects partition leaders and tracks the ISR (ZooKeeper mode: it holds /controller). In KRaft mode a quorum of controllers does it.", "controller.quorum.voters"],
  replica: ["Replica", "A copy of a partition's log on one broker. The leader takes writes; followers fetch from it (they pull, the leader never pushes).", "replication.factor"],
  leader: ["Leader (L)", "The replica that takes produce requests and serves fetches. A new leader is elected when it fails.", "unclean.leader.election.enable"],
  follower: ["Follower (F)", "Fetches the leader's log and appends what it gets. It is in sync while it keeps up.", "replica.lag.time.max.ms, replica.fetch.wait.max.ms"],
  epoch: ["Leader epoch (e1)", "Counts the partition's leaders. Each record carries the epoch it was written in; a returning replica asks the leader where its epoch ended and truncates what the leader never had (KIP-101).", ""],
  isr: ["ISR, in-sync replicas", "The replicas caught up with the leader. acks=all waits for all of them; only an ISR member can become leader in a clean election.", "replica.lag.time.max.ms, min.insync.replicas"],
  hw: ["High watermark (HW)", "The offset below which every ISR replica has the records: committed. Consumers read only below it.", "min.insync.replicas"],
  leo: ["Log end offset (LEO)", "The offset the next record will get on this replica.", ""],
  "record.committed": ["Committed record (solid)", "Below the high watermark: every in-sync replica has it, so it survives the leader's death.", "acks"],
  "record.uncommitted": ["Uncommitted record (hatched)", "Above the high watermark: not every ISR replica has it yet. A leader change can truncate it away.", "acks"],
  "record.pagecache": ["Only in the page cache (dot)", "Written to the OS, not yet on disk. A power loss loses it; a process crash does not.", "log.flush.interval.messages, log.flush.interval.ms"],
  "record.lost": ["Lost record (crossed)", "This replica removed it: truncated after a leader change, or lost with the page cache on power-off. Click it for its story.", ""],
  "record.dup": ["Delivered twice (badge)", "A consumer got this record more than once: a retry stored it twice, or a rebalance re-read uncommitted offsets.", "enable.idempotence, enable.auto.commit"],
  "record.reorder": ["Out of order (arrow)", "Stored or delivered in another order than sent: a failed batch retried behind a later one.", "max.in.flight.requests.per.connection, enable.idempotence"],
  record: ["Record", "One message at one offset of a partition. Click it for its whole life: who sent it, where it was written and replicated, when it was acked and committed, who read it.", ""],
  partition: ["Partition", "An ordered, append-only log; the unit of replication and of consumer assignment.", "num.partitions"],
  producer: ["Producer", "Sends records to partition leaders. acks says how many replicas must have a record before the producer is told it is sent: 0 none, 1 the leader, all every ISR replica.", "acks, retries, enable.idempotence, max.in.flight.requests.per.connection"],
  consumer: ["Consumer", "Polls records from partition leaders, below the high watermark, and commits its position to its group.", "group.id, enable.auto.commit, auto.offset.reset, max.poll.interval.ms"],
  group: ["Consumer group", "Consumers sharing the partitions of their topics; its coordinator (a broker) runs rebalances and stores committed offsets in __consumer_offsets. The generation counts rebalances.", "partition.assignment.strategy, session.timeout.ms"],
  message: ["Message on the wire", "A request or response travelling between hosts; it takes the network latency to arrive. Each kind can be hidden.", "net.latency.ms (simulator)"],
  lane: ["Lane", "One host in the space-time view: time flows down, each arrow is a message from its send to its delivery.", ""],
  speed: ["Speed", "How fast virtual time runs: 1x is real time; from 1/100x (slow motion) to 100x. [ and ] change it.", ""],
  clock: ["Virtual clock", "The simulated time since the cluster started. Nothing depends on your wall clock: the same seed and script always give the same run.", ""],
  timeline: ["Timeline", "Drag to any moment: going back replays the session from its seed (exactly, it is deterministic). Acting in the past starts a new branch; the old one is kept (Branches tab) to compare.", ""],
  "class.produce": ["Produce requests", "Producer to partition leader: a batch of records.", "linger.ms, batch.size"],
  "class.ack": ["Produce responses", "Leader to producer: the offsets, or an error.", "acks"],
  "class.fetch": ["Follower fetches", "Followers pull from the leader (the leader never pushes); the response carries records and the leader's HW.", "replica.fetch.wait.max.ms"],
  "class.consume": ["Consumer fetches", "Consumers pull records below the high watermark.", "fetch.max.wait.ms, max.poll.records"],
  "class.metadata": ["Metadata traffic", "LeaderAndIsr, UpdateMetadata, AlterPartition, Metadata, FindCoordinator: who leads what.", "metadata.max.age.ms"],
  "class.zk": ["ZooKeeper traffic", "Sessions, watches and znode writes between brokers and ZooKeeper.", "zookeeper.session.timeout.ms"],
  "class.heartbeat": ["Heartbeats", "Group members to their coordinator; brokers to the KRaft controller.", "heartbeat.interval.ms, session.timeout.ms"],
  "class.join": ["Group protocol", "JoinGroup, SyncGroup, LeaveGroup, OffsetCommit, OffsetFetch.", "partition.assignment.strategy"],
  "class.other": ["Other messages", "Connections and anything else.", ""],
  segment: ["Segment files", "A partition's log on disk is a series of segments: NNN.log holds record batches, NNN.index maps offsets to file positions sparsely (one entry per index.interval.bytes), NNN.timeindex maps timestamps to offsets. NNN is the segment's base offset.", "segment.bytes, index.interval.bytes, segment.ms"],
  fetchwalk: ["How a fetch finds offset N", "Pick the last segment whose base offset is ≤ N, look up the largest index entry ≤ N (binary search in the sparse .index), then scan the .log forward from that position to the batch holding N.", "index.interval.bytes"],
  lag: ["Consumer lag", "The leader's high watermark minus the consumer's position: records it has not read yet.", ""],
  urp: ["Under-replicated partitions", "Partitions whose ISR is smaller than their replica list (UnderReplicatedPartitions). Non-zero means a replica is down or lagging.", "replica.lag.time.max.ms"],
  offline: ["Offline partitions", "No live leader (OfflinePartitionsCount): nobody can write or read them.", "unclean.leader.election.enable"],
  minisr: ["Under min ISR", "ISR smaller than min.insync.replicas: acks=all writes fail with NOT_ENOUGH_REPLICAS.", "min.insync.replicas"],
  fork: ["Branch", "A line of history. Acting in the past makes a new branch that keeps the rest of the script, so two branches differ only by what you did.", ""],
};

// explainRef maps a canvas element (a scene Ref plus what the canvas says
// about it) to an EXPLAIN key.
window.explainKey = function (ref) {
  if (!ref || !ref.kind) return null;
  if (ref.kind === "record") {
    if (ref.lost) return "record.lost";
    if (ref.dup) return "record.dup";
    if (ref.outOfOrder) return "record.reorder";
    return "record";
  }
  if (ref.kind === "broker" && ref.state && window.EXPLAIN["broker." + ref.state]) return "broker." + ref.state;
  return ref.kind;
};

(() => {
  const tip = () => document.getElementById("tip");
  function show(key, x, y, extra) {
    const e = window.EXPLAIN[key];
    const t = tip();
    if (!e || !t) return hide();
    t.innerHTML = "";
    const h = document.createElement("b");
    h.textContent = e[0];
    const p = document.createElement("div");
    p.textContent = e[1];
    t.append(h, p);
    if (extra) {
      const x2 = document.createElement("div");
      x2.className = "tip-extra";
      x2.textContent = extra;
      t.append(x2);
    }
    if (e[2]) {
      const s = document.createElement("div");
      s.className = "tip-setting";
      s.textContent = "Setting: " + e[2];
      t.append(s);
    }
    t.hidden = false;
    const w = t.offsetWidth, hh = t.offsetHeight;
    t.style.left = Math.max(4, Math.min(window.innerWidth - w - 8, x + 14)) + "px";
    t.style.top = Math.max(4, Math.min(window.innerHeight - hh - 8, y + 16)) + "px";
  }
  function hide() { const t = tip(); if (t) t.hidden = true; }
  window.showExplain = show;
  window.hideExplain = hide;
  document.addEventListener("mouseover", (ev) => {
    const el = ev.target.closest && ev.target.closest("[data-explain]");
    if (!el) return;
    show(el.dataset.explain, ev.clientX, ev.clientY, el.dataset.explainExtra);
  });
  document.addEventListener("mouseout", (ev) => {
    const el = ev.target.closest && ev.target.closest("[data-explain]");
    if (el && !el.contains(ev.relatedTarget)) hide();
  });
})();
