package core

import (
	"fmt"
	"strings"
)

// DefaultVersion is the preset used when a cluster names none.
const DefaultVersion = "4.0"

// preset is a Kafka version's mechanisms and defaults (docs/kafka-facts.md). A
// preset only picks mechanisms and default values; every knob can still be
// set on its own.
type preset struct {
	name        string
	zk, kraft   bool   // metadata modes this version supports
	defaultMeta string // zk or kraft
	// leaderEpochs: KIP-101 (0.11+) epoch-based truncation; otherwise a
	// new follower truncates to its own high watermark (ReplicaManager.makeFollowers@0.10.2).
	leaderEpochs bool
	// lagMessages: 0.8's replica.lag.max.messages ISR rule and its
	// "stuck follower" meaning of replica.lag.time.max.ms (removed 0.9, KAFKA-1546).
	lagMessages bool
	// slowISRCheck: the leader looks for out-of-sync followers every
	// replica.lag.time.max.ms; 0.10.2+ every half of it, so a follower
	// is out for at most 1.5x the lag time (KAFKA-4485).
	slowISRCheck bool
	// minIsrHoldsHW: 3.7+ does not advance the HW while ISR < min.insync (KAFKA-15583).
	minIsrHoldsHW bool
	// alterIsr: 2.7+ leaders ask the controller to change the ISR (AlterIsr);
	// before, they write the partition state znode themselves.
	alterIsr bool
	// hwWaitsAfterAlterIsr: 2.7 to 3.0 (KAFKA-13091, fixed in 3.1): when
	// the controller's AlterIsr answer commits an ISR change, the leader
	// only records the new ISR (Partition.handleAlterIsrResponse@2.8.2) and
	// does not try to advance the HW, so after a shrink the HW and the
	// acks=all requests waiting on it stay put until the next append or
	// follower fetch. Before 2.7 the leader's own synchronous ZooKeeper
	// write was followed by maybeIncrementLeaderHW (Partition.maybeShrinkIsr).
	hwWaitsAfterAlterIsr bool
	// kraftLeaderBalance: 3.2+ KRaft controllers elect preferred leaders
	// automatically (KAFKA-13682; see controller_preferred_election.go);
	// 2.8's QuorumController had no such check.
	kraftLeaderBalance bool
	// kraftUnclean: 3.9+ KRaft controllers elect a live replica outside
	// the ISR when unclean.leader.election.enable is set, as a broker is
	// fenced or returns (KAFKA-12670: ReplicationControlManager
	// .generateLeaderAndIsrUpdates asks ConfigurationControlManager
	// .uncleanLeaderElectionEnabledForTopic, which until 3.8 returned
	// false: "TODO: support configuring unclean leader election"); 2.8's
	// handleNodeDeactivated and handleNodeActivated chose from the ISR only
	// (bestLeader(replicas, isr, false)). No preset between them exists.
	kraftUnclean bool
	// kraftFenceBumpsEpoch: 2.8's ReplicationControlManager
	// .handleNodeDeactivated sets the leader on every PartitionChangeRecord
	// it writes ("Bump the partition leader epoch"), so a fenced follower's
	// removal from the ISR bumps the leader epoch; 3.6+ (metadata version
	// 3.6-IV0, KAFKA-15021: MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink)
	// bumps it only when the leader changes. The leader's own AlterIsr
	// never bumped it.
	kraftFenceBumpsEpoch bool
	// kip841: 3.3+ KRaft controllers refuse an ISR naming a fenced broker
	// with INELIGIBLE_REPLICA (ReplicationControlManager
	// .validateIsrChanges, KIP-841); 2.8 to 3.2 accepted it.
	kip841 bool
	// placeFenced: 3.x KRaft replica placement (StripedReplicaPlacer.place)
	// checks the replication factor against every registered broker,
	// fenced ones included (placed last, never first); 2.8's placer used
	// unfenced brokers only.
	placeFenced bool
	// kip211: 2.1+ offsets expire offsets.retention.minutes after their
	// group became Empty (or, in a Stable group, for topics it no longer
	// subscribes to, and for standalone consumers, after their commit);
	// before, every offset expired that long after its commit, whatever
	// the group's state (GroupMetadata.removeExpiredOffsets, KIP-211).
	kip211 bool
	// kip322: 2.1+ answers DeleteTopics with delete.topic.enable=false
	// TOPIC_DELETION_DISABLED (INVALID_REQUEST below v3) at once (KIP-322,
	// KAFKA-5975); before, AdminManager.deleteTopics marked the topics,
	// the controller dropped the marks ("since delete topic is
	// disabled") and DelayedDeleteTopics answered REQUEST_TIMED_OUT at the
	// request's timeout (AdminManager.deleteTopics: at once for a timeout
	// of 0 or less).
	kip322 bool
	// kip464: 2.4+ CreateTopics takes -1 partitions or replication factor
	// as the broker's num.partitions and default.replication.factor
	// (KIP-464: ZkAdminManager.createTopics' resolvedNumPartitions,
	// ReplicationControlManager.createTopic's defaults); before,
	// AdminUtils.assignReplicasToBrokers refused -1 (INVALID_PARTITIONS,
	// INVALID_REPLICATION_FACTOR).
	kip464 bool
	// asyncJoinCommit: 3.3+ ConsumerCoordinator.onJoinPrepare commits
	// asynchronously and marks an eager member's partitions pending
	// revocation (KAFKA-14196), so a cooperative member keeps consuming
	// while the commit is in flight; before, the commit was synchronous
	// (maybeAutoCommitOffsetsSync) and poll returned nothing meanwhile.
	asyncJoinCommit bool
	// initialDelayAfterEmpty: 4.0's group coordinator (GroupMetadataManager)
	// extends the initial rebalance delay for a member that joins while the
	// group's previous state was Empty; 0.11 to 3.9's GroupCoordinator only
	// in generation 0 (see coordinator_initial_delay.go).
	initialDelayAfterEmpty bool
	// kip13419: 3.2+ consumers keep their member id when a SyncGroup or
	// Heartbeat answers ILLEGAL_GENERATION, resetting only the generation
	// (KAFKA-13419; member.resetOnError); 2.8's took a new one.
	kip13419 bool
	// memberIDRequired: 2.2+ JoinGroup with an empty member id answers MEMBER_ID_REQUIRED (KIP-394).
	memberIDRequired bool
	// offsetsInZK: 0.8.x consumers keep offsets in /consumers/<g>/offsets (offsets.storage=zookeeper).
	offsetsInZK bool
	// idempotence: the producer supports enable.idempotence (0.11+).
	idempotence bool
	// maxInFlightIdem: the largest max.in.flight allowed with idempotence (0.11: 1; 1.0+: 5, KAFKA-5494).
	maxInFlightIdem int
	// indexLastOffset: 2.0+ offset index entries name the batch's last offset.
	indexLastOffset bool
	// kip279: 2.0+ followers look the leader's answer to
	// OffsetsForLeaderEpoch up in their own epoch cache and ask again when
	// they lack that epoch (KIP-279), with 2.1's answer below the earliest
	// epoch (KAFKA-7415); before, they truncate to the leader's end offset.
	kip279 bool
	// truncateEpochsAtLEO: 2.6+ Log.truncateTo trims the epoch cache even
	// when the log is not cut (an epoch entry at the LEO is dropped).
	truncateEpochsAtLEO bool
	// brokerEpochs: the ZooKeeper controller tells a bounced broker's new
	// registration from the old one (KIP-380, 2.2+).
	brokerEpochs bool
	// clientEpochs: clients keep the leader epoch of each partition (KIP-320,
	// 2.1+): metadata with an older epoch than they know is ignored, and a
	// consumer's Fetch names the epoch, so a deposed leader fences it.
	clientEpochs bool
	// kip360: 2.5+ idempotent producers (KIP-360) retry every
	// OUT_OF_ORDER_SEQUENCE_NUMBER, bumping the epoch when the batch was
	// the next in line (a real gap); before, the batch failed. (2.5+
	// brokers also take any sequence from a producer they have no state
	// for; the simulator keeps the older rule, sequence 0, see
	// Replica.checkSequence.)
	kip360 bool
	// stableOffsets: 2.5+ consumers send OffsetFetch with require_stable
	// (KIP-447; ConsumerCoordinator.sendOffsetFetchRequest), and the
	// coordinator answers UNSTABLE_OFFSET_COMMIT for a partition whose
	// commit is still being written (GroupMetadataManager.getOffsets,
	// hasPendingOffsetCommitsForTopicPartition): the consumer retries, so
	// it never starts from an offset a pending commit is replacing.
	stableOffsets bool
	// commitRebalanceInProgress: 2.5+ a commitSync while the member is
	// joining or syncing fails locally with RebalanceInProgressException
	// (KAFKA-8421; ConsumerCoordinator.sendOffsetCommitRequest:
	// rebalanceInProgress), before with CommitFailedException.
	commitRebalanceInProgress bool
	// invalidRecord: 2.4+ a record the log validator refuses (a compacted
	// topic's keyless record) is answered INVALID_RECORD (KIP-467, error
	// 87); before, InvalidRecordException (0.11's, a CorruptRecordException)
	// and 0.8's InvalidMessageException were CORRUPT_MESSAGE.
	invalidRecord bool
	// actionQueue: 2.7+ a Produce wakes the fetches its appends unblock
	// only after every partition of the request is appended (KAFKA-8334:
	// ReplicaManager.appendRecords queues the purgatory checks on an
	// ActionQueue that KafkaApis.handle runs once the request is handled),
	// so a follower's parked fetch is answered with all of the request's
	// partitions it follows. Before, Partition.appendRecordsToLeader
	// completed the delayed fetches after each partition's append: the
	// first partition's append answered the fetch, and the request's other
	// partitions waited for the follower's next one (a produce of two
	// partitions to one leader took two follower fetch cycles).
	actionQueue bool
	// truncateOnFetch: 2.8+ (IBP 2.7-IV1, Fetch v12: KIP-595's
	// LastFetchedEpoch and DivergingEpoch; KAFKA-10554,
	// MetadataVersion.isTruncationOnFetchSupported) a new follower whose
	// log has an epoch skips OffsetsForLeaderEpoch and fetches at once
	// with its latest epoch as lastFetchedEpoch
	// (AbstractFetcherThread.partitionFetchState: Fetching, not
	// Truncating); the leader answers a log that diverged from its own
	// with the end of that epoch in its log as the partition's
	// DivergingEpoch and no records (Partition.readRecords), and the
	// follower truncates there (truncateOnFetchResponse) and fetches on.
	// Before, it asked OffsetsForLeaderEpoch first: the same truncation
	// point, one round trip more.
	truncateOnFetch bool
	// heartbeatsWhileSyncing: 2.7+ the heartbeat thread goes on between
	// the JoinGroup and the SyncGroup answers (KAFKA-10134, member.heartbeating).
	heartbeatsWhileSyncing bool
	// stableFetchWaits: 4.0's group coordinator holds a require_stable
	// OffsetFetch until the writes before it are committed
	// (GroupCoordinatorService.fetchOffsets as a write operation;
	// coordinator_stable_fetch.go) instead of answering
	// UNSTABLE_OFFSET_COMMIT.
	stableFetchWaits bool
	// commitGroupNotFound: 4.0's group coordinator answers an OffsetCommit
	// v9+ (KIP-848) with a generation, for a group it does not have,
	// GROUP_ID_NOT_FOUND (OffsetMetadataManager.validateOffsetCommit);
	// below v9, and 3.9's GroupCoordinator.handleCommitOffsets in every
	// version, ILLEGAL_GENERATION.
	commitGroupNotFound bool
	// runtimeStoreErrors: 4.0's group coordinator (GroupCoordinatorService
	// on the CoordinatorRuntime) answers a failed write to
	// __consumer_offsets as its own table says: a timeout is
	// COORDINATOR_NOT_AVAILABLE for a group's records and offsets alike,
	// where 3.9's GroupMetadataManager answers REBALANCE_IN_PROGRESS
	// (storeGroup) and REQUEST_TIMED_OUT (storeOffsets)
	// (coordinator_store_errors.go).
	runtimeStoreErrors bool
	// runtimeAppend: 4.0's group coordinator writes to __consumer_offsets
	// with acks=1 (CoordinatorPartitionWriter.append) and answers once the
	// high watermark passes the records, or after offsets.commit.timeout.ms
	// (CoordinatorRuntime's write timeout); a write whose answer timed out
	// stays in the log and in the runtime's state and takes effect when the
	// high watermark passes it. 3.9's GroupMetadataManager appends with
	// acks=-1 (offsets.commit.required.acks), so an ISR below
	// min.insync.replicas refuses the write at once (NOT_ENOUGH_REPLICAS),
	// and a timed-out one is forgotten (failPendingOffsetWrite)
	// (coordinator_runtime.go's appendInternalAt).
	runtimeAppend bool
	// batchExpiry: how a batch waiting in the accumulator expires
	// (TimeoutException): "none" (0.8.2: never, KAFKA-1788), "request"
	// (0.9-2.0: request.timeout.ms after it was ready or last retried,
	// RecordAccumulator.expiredBatches/ProducerBatch.maybeExpire@0.11.0),
	// "delivery" (2.1+: delivery.timeout.ms after creation, KIP-91).
	batchExpiry string
	// expBackoff: 3.7+ producers back off exponentially between retries of
	// a batch (KIP-580: retry.backoff.ms doubling up to retry.backoff.max.ms,
	// 20% jitter; RecordAccumulator.shouldBackoff@3.7) and skip the backoff
	// when the partition has a newer leader (KAFKA-15415, 3.7).
	expBackoff bool
	// kip951: 3.7+ brokers name the current leader in a Produce's
	// NOT_LEADER_OR_FOLLOWER and a Fetch's NOT_LEADER_OR_FOLLOWER or
	// FENCED_LEADER_EPOCH, and 3.7+ clients take a newer one at once
	// (KIP-951; broker_current_leader.go).
	kip951 bool
	// topicWaitText: the wording of send()'s TimeoutException when a
	// topic's metadata does not come within max.block.ms: "Topic T not
	// present in metadata after N ms." (2.x clients: ksql's 2019 reports
	// on Kafka 2.3 quote it; KafkaProducer.waitOnMetadata), before that
	// "Failed to update metadata after N ms." (0.8.2's
	// metadata.fetch.timeout.ms, 0.9-1.x's max.block.ms).
	topicWaitText bool
	// partitioner: keyless default: "roundrobin" (<=2.3), "sticky" (2.4-3.2, KIP-480), "uniform" (3.3+, KIP-794).
	partitioner string
	defaults    map[string]string
}

var presets = map[string]*preset{
	"0.8": {
		name: "0.8", zk: true, defaultMeta: "zk", lagMessages: true, slowISRCheck: true, offsetsInZK: true,
		partitioner: "roundrobin", batchExpiry: "none",
		defaults: map[string]string{
			"replica.lag.time.max.ms":          "10000",
			"replica.lag.max.messages":         "4000",
			"unclean.leader.election.enable":   "true",
			"zookeeper.session.timeout.ms":     "6000",
			"acks":                             "1",
			"retries":                          "0",
			"enable.idempotence":               "false",
			"session.timeout.ms":               "30000",
			"group.initial.rebalance.delay.ms": "0",
			"auto.commit.interval.ms":          "60000",
			"delivery.timeout.ms":              "0",
			"offsets.retention.minutes":        "1440",
			"delete.topic.enable":              "false",
		},
	},
	"0.11": {
		name: "0.11", zk: true, defaultMeta: "zk", leaderEpochs: true, idempotence: true,
		maxInFlightIdem: 1, partitioner: "roundrobin", batchExpiry: "request",
		defaults: map[string]string{
			"replica.lag.time.max.ms":        "10000",
			"unclean.leader.election.enable": "false",
			"zookeeper.session.timeout.ms":   "6000",
			"acks":                           "1",
			"retries":                        "0",
			"enable.idempotence":             "false",
			"session.timeout.ms":             "10000",
			"delivery.timeout.ms":            "0",
			"default.api.timeout.ms":         "3600000", // no such config before 2.0: commitSync() waits for ever (member.commitTimeout)
			"offsets.retention.minutes":      "1440",
			"delete.topic.enable":            "false",
		},
	},
	"2.8": {
		name: "2.8", zk: true, kraft: true, defaultMeta: "zk", leaderEpochs: true, alterIsr: true, hwWaitsAfterAlterIsr: true, brokerEpochs: true, clientEpochs: true,
		kip360: true, stableOffsets: true, commitRebalanceInProgress: true, invalidRecord: true, actionQueue: true, truncateOnFetch: true, heartbeatsWhileSyncing: true, kip211: true, kip322: true, kip464: true, memberIDRequired: true, idempotence: true, maxInFlightIdem: 5, indexLastOffset: true, kip279: true, truncateEpochsAtLEO: true,
		partitioner: "sticky", batchExpiry: "delivery", topicWaitText: true, kraftFenceBumpsEpoch: true,
		defaults: map[string]string{
			"acks":               "1",
			"enable.idempotence": "false",
			"session.timeout.ms": "10000",
		},
	},
	"3.9": {
		name: "3.9", kip13419: true, zk: true, kraft: true, defaultMeta: "kraft", leaderEpochs: true, alterIsr: true, brokerEpochs: true, clientEpochs: true,
		kip841: true, placeFenced: true, kraftUnclean: true, expBackoff: true, kip951: true, asyncJoinCommit: true, kraftLeaderBalance: true,
		kip360: true, stableOffsets: true, commitRebalanceInProgress: true, invalidRecord: true, actionQueue: true, truncateOnFetch: true, heartbeatsWhileSyncing: true, minIsrHoldsHW: true, kip211: true, kip322: true, kip464: true, memberIDRequired: true, idempotence: true, maxInFlightIdem: 5,
		indexLastOffset: true, kip279: true, truncateEpochsAtLEO: true, partitioner: "uniform", batchExpiry: "delivery", topicWaitText: true,
		defaults: map[string]string{},
	},
	"4.0": {
		name: "4.0", kip13419: true, kraft: true, defaultMeta: "kraft", leaderEpochs: true, alterIsr: true, brokerEpochs: true, clientEpochs: true,
		kip841: true, placeFenced: true, kraftUnclean: true, expBackoff: true, kip951: true, asyncJoinCommit: true, kraftLeaderBalance: true, initialDelayAfterEmpty: true, stableFetchWaits: true, commitGroupNotFound: true, runtimeStoreErrors: true, runtimeAppend: true,
		kip360: true, stableOffsets: true, commitRebalanceInProgress: true, invalidRecord: true, actionQueue: true, truncateOnFetch: true, heartbeatsWhileSyncing: true, minIsrHoldsHW: true, kip211: true, kip322: true, kip464: true, memberIDRequired: true, idempotence: true, maxInFlightIdem: 5,
		indexLastOffset: true, kip279: true, truncateEpochsAtLEO: true, partitioner: "uniform", batchExpiry: "delivery", topicWaitText: true,
		defaults: map[string]string{"linger.ms": "5"},
	},
}

// versionOrder lists the presets in release order (VersionNames).
var versionOrder = []string{"0.8", "0.11", "2.8", "3.9", "4.0"}

func lookupPreset(version, meta string) (*preset, string, error) {
	if version == "" {
		version = DefaultVersion
	}
	p, ok := presets[version]
	if !ok {
		return nil, "", fmt.Errorf("unknown version %q (valid: %s)", version, strings.Join(versionOrder, ", "))
	}
	if meta == "" {
		meta = p.defaultMeta
	}
	switch {
	case meta == "zk" && !p.zk:
		return nil, "", fmt.Errorf("version %s has no ZooKeeper mode (removed in 4.0): use metadata=kraft", version)
	case meta == "kraft" && !p.kraft:
		return nil, "", fmt.Errorf("version %s has no KRaft mode (early access from 2.8): use metadata=zk", version)
	case meta != "zk" && meta != "kraft":
		return nil, "", fmt.Errorf("unknown metadata mode %q (valid: zk, kraft)", meta)
	}
	return p, meta, nil
}

// kip107 reports whether Fetch responses carry the leader's
// log_start_offset and a follower moves its own log start up to it
// (KIP-107, ReplicaFetcherThread.processPartitionData); before, each
// replica's log start moved only by its own retention. KIP-107 came in
// 0.11 with KIP-101's leader epochs, so it is the same presets.
func (p *preset) kip107() bool { return p.leaderEpochs }
