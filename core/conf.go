package core

import (
	"slices"
	"strings"

	"github.com/kafkasim/kafkasim/core/log"
)

// brokerConf is the typed view of the broker-wide settings, rebuilt on Set.
type brokerConf struct {
	lagTimeMs          int64
	lagMaxMessages     int64
	fetchWaitMs        int64
	fetchMaxBytes      int
	hwCheckpointMs     int64
	retentionCheckMs   int64
	initialTaskDelayMs int64 // LogManager's InitialTaskDelayMs: retention's first check after start (30 s)
	autoRebalance      bool
	imbalanceCheckMs   int64
	uncleanCheckMs     int64 // unclean.leader.election.interval.ms (KRaft)
	imbalancePct       int64
	zkSessionMs        int64
	brokerSessionMs    int64
	brokerHeartbeatMs  int64
	offsetsPartitions  int
	offsetsRF          int
	offsetsSegment     int64
	offsetsCommitMs    int64
	offsetsRetentionMs int64 // offsets.retention.minutes in ms
	offsetsCheckMs     int64 // offsets.retention.check.interval.ms
	offsetMetadataMax  int   // offset.metadata.max.bytes: a commit's metadata, in Java chars
	initialRebalanceMs int64
	minSessionMs       int64
	maxSessionMs       int64
	numPartitions      int
	defaultRF          int
	autoCreate         bool
	deleteTopicEnable  bool
	latency, jitter    int64
	clientLatency      int64 // -1: latency
	dirtyExpireMs      int64
	writebackMs        int64
	cleanerEnable      bool  // log.cleaner.enable
	cleanerBackoffMs   int64 // log.cleaner.backoff.ms
}

func newBrokerConf(s settings) brokerConf {
	return brokerConf{
		lagTimeMs:          s.int("replica.lag.time.max.ms"),
		lagMaxMessages:     s.int("replica.lag.max.messages"),
		fetchWaitMs:        s.int("replica.fetch.wait.max.ms"),
		fetchMaxBytes:      int(s.int("replica.fetch.max.bytes")),
		hwCheckpointMs:     s.int("replica.high.watermark.checkpoint.interval.ms"),
		retentionCheckMs:   s.int("log.retention.check.interval.ms"),
		initialTaskDelayMs: s.int("log.initial.task.delay.ms"),
		autoRebalance:      s.bool("auto.leader.rebalance.enable"),
		imbalanceCheckMs:   s.int("leader.imbalance.check.interval.seconds") * 1000,
		uncleanCheckMs:     s.int("unclean.leader.election.interval.ms"),
		imbalancePct:       s.int("leader.imbalance.per.broker.percentage"),
		zkSessionMs:        s.int("zookeeper.session.timeout.ms"),
		brokerSessionMs:    s.int("broker.session.timeout.ms"),
		brokerHeartbeatMs:  s.int("broker.heartbeat.interval.ms"),
		offsetsPartitions:  int(s.int("offsets.topic.num.partitions")),
		offsetsRF:          int(s.int("offsets.topic.replication.factor")),
		offsetsSegment:     s.int("offsets.topic.segment.bytes"),
		offsetsCommitMs:    s.int("offsets.commit.timeout.ms"),
		offsetsRetentionMs: s.int("offsets.retention.minutes") * 60_000,
		offsetsCheckMs:     s.int("offsets.retention.check.interval.ms"),
		offsetMetadataMax:  int(s.int("offset.metadata.max.bytes")),
		initialRebalanceMs: s.int("group.initial.rebalance.delay.ms"),
		minSessionMs:       s.int("group.min.session.timeout.ms"),
		maxSessionMs:       s.int("group.max.session.timeout.ms"),
		numPartitions:      int(s.int("num.partitions")),
		defaultRF:          int(s.int("default.replication.factor")),
		autoCreate:         s.bool("auto.create.topics.enable"),
		deleteTopicEnable:  s.bool("delete.topic.enable"),
		latency:            s.int("net.latency.ms"),
		clientLatency:      s.int("net.client.latency.ms"),
		jitter:             s.int("net.jitter.ms"),
		dirtyExpireMs:      s.int("os.dirty.expire.ms"),
		writebackMs:        s.int("os.writeback.interval.ms"),
		cleanerEnable:      s.bool("log.cleaner.enable"),
		cleanerBackoffMs:   s.int("log.cleaner.backoff.ms"),
	}
}

// topicConf is the typed view of a topic's settings.
type topicConf struct {
	minISR        int
	unclean       bool
	flushMessages int64
	flushMs       int64
	logAppendTime bool // message.timestamp.type=LogAppendTime
	// deleteRetention: cleanup.policy has delete (LogConfig.delete), so
	// retention.ms and retention.bytes apply (Replica.retention).
	deleteRetention bool
	// compact: cleanup.policy has compact (LogConfig.compact), so the
	// log cleaner compacts the topic's logs (Replica.cleanable).
	compact bool
	log     log.Config
}

func newTopicConf(s settings, p *preset) topicConf {
	return topicConf{
		minISR:          int(s.int("min.insync.replicas")),
		unclean:         s.bool("unclean.leader.election.enable"),
		flushMessages:   s.int("log.flush.interval.messages"),
		flushMs:         s.int("log.flush.interval.ms"),
		logAppendTime:   s["log.message.timestamp.type"] == "LogAppendTime",
		deleteRetention: slices.Contains(strings.Split(s["log.cleanup.policy"], ","), "delete"),
		compact:         slices.Contains(strings.Split(s["log.cleanup.policy"], ","), "compact"),
		log: log.Config{
			SegmentBytes:       s.int("log.segment.bytes"),
			IndexIntervalBytes: int(s.int("log.index.interval.bytes")),
			SegmentMs:          s.int("log.roll.ms"),
			RetentionMs:        s.int("log.retention.ms"),
			RetentionBytes:     s.int("log.retention.bytes"),
			IndexMaxBytes:      10 << 20,
			IndexLastOffset:    p.indexLastOffset,
			MinCleanableRatio:  s.float("log.cleaner.min.cleanable.ratio"),
			DeleteRetentionMs:  s.int("log.cleaner.delete.retention.ms"),
			MinCompactionLagMs: s.int("log.cleaner.min.compaction.lag.ms"),
			MaxCompactionLagMs: s.int("log.cleaner.max.compaction.lag.ms"),
		},
	}
}
