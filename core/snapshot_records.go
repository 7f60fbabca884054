package core

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core/log"
)

// MaxRecordWindow bounds one ReplicaRecords call.
const MaxRecordWindow = 10_000

// RecordView is one record of a replica's log, for renderers that draw
// logs as offset cells: where it is, which leader epoch appended it,
// whether it is on disk yet (Flushed) or only in the page cache, and
// which producer batch it came in (ProducerID -1 when not idempotent).
type RecordView struct {
	Offset     int64  `json:"offset"`
	Value      string `json:"value"`
	NullValue  bool   `json:"nullValue,omitempty"` // a null value (a tombstone): Value is ""
	Key        string `json:"key,omitempty"`
	HasKey     bool   `json:"hasKey,omitempty"`
	Epoch      int32  `json:"epoch"`
	Flushed    bool   `json:"flushed"`
	Committed  bool   `json:"committed"` // below this replica's high watermark
	Timestamp  int64  `json:"timestamp"` // the record's own: create time, or the append time (LogAppendTime)
	ProducerID int64  `json:"producerId"`
	Sequence   int32  `json:"sequence"` // the record's sequence number, -1 when not idempotent
	// LogAppendTime: Timestamp is the leader's append time, not the producer's.
	LogAppendTime bool         `json:"logAppendTime,omitempty"`
	Headers       []log.Header `json:"headers,omitempty"` // read-only: the log's own
}

// ValueText is the value as it reads: log.NullText for a null value.
func (v *RecordView) ValueText() string {
	if v.NullValue {
		return log.NullText
	}
	return v.Value
}

// ReplicaRecords returns the records of partition's replica on broker
// with offsets in [from, to), at most MaxRecordWindow of them, in offset
// order. Offsets below the log start or at and above the LEO are simply
// absent. It is a copy: changing it changes nothing.
func (c *Cluster) ReplicaRecords(partition string, broker int, from, to int64) ([]RecordView, error) {
	p, err := c.Partition(partition)
	if err != nil {
		return nil, err
	}
	b := c.Broker(broker)
	if b == nil {
		return nil, fmt.Errorf("no broker %d", broker)
	}
	r := b.replicas[p]
	if r == nil {
		return nil, fmt.Errorf("broker %d has no replica of %s", broker, partition)
	}
	if to-from > MaxRecordWindow {
		to = from + MaxRecordWindow
	}
	from = max(from, r.log.StartOffset())
	to = min(to, r.log.LEO())
	out := []RecordView{}
	if from >= to {
		return out, nil
	}
	for _, bt := range r.log.Batches(from) {
		for i, rec := range bt.RecordList() {
			off := bt.Offset(i)
			if off < from {
				continue
			}
			if off >= to {
				return out, nil
			}
			seq := int32(-1)
			if bt.BaseSequence >= 0 {
				seq = bt.BaseSequence + int32(i)
			}
			out = append(out, RecordView{Offset: off, Value: rec.Value, NullValue: rec.NullValue, Key: rec.Key, HasKey: rec.HasKey,
				Epoch: bt.Epoch, Flushed: r.log.IsFlushed(off), Committed: off < r.hw, Timestamp: bt.RecordTimestamp(i),
				ProducerID: bt.ProducerID, Sequence: seq, LogAppendTime: bt.LogAppendTime, Headers: rec.Headers})
		}
	}
	return out, nil
}

// ReplicaLogView is one replica's log as files: its segments (each a .log
// with its sparse .index and .timeindex), the leader-epoch checkpoint,
// and the offsets that matter (LEO, HW, log start, flushed).
type ReplicaLogView struct {
	Partition string             `json:"partition"`
	Broker    int                `json:"broker"`
	LEO       int64              `json:"leo"`
	HW        int64              `json:"hw"`
	LogStart  int64              `json:"logStart"`
	Flushed   int64              `json:"flushed"`
	Epochs    []log.EpochEntry   `json:"epochs"`
	Segments  []log.SegmentInfo  `json:"segments"`
	Config    ReplicaLogSettings `json:"config"`
}

// ReplicaLogSettings are the topic settings that shape the files.
type ReplicaLogSettings struct {
	SegmentBytes       int64 `json:"segmentBytes"`       // segment.bytes: roll when the .log would pass it
	IndexIntervalBytes int   `json:"indexIntervalBytes"` // index.interval.bytes: one index entry per this many bytes
	SegmentMs          int64 `json:"segmentMs"`          // segment.ms: roll a segment this old
	RetentionMs        int64 `json:"retentionMs"`        // retention.ms (-1: forever)
	RetentionBytes     int64 `json:"retentionBytes"`     // retention.bytes (-1: unlimited)
}

// ReplicaLog describes partition's replica on broker as files.
func (c *Cluster) ReplicaLog(partition string, broker int) (*ReplicaLogView, error) {
	r, err := c.Replica(fmt.Sprintf("%s@%d", partition, broker))
	if err != nil {
		return nil, err
	}
	cfg := r.log.Config()
	return &ReplicaLogView{Partition: partition, Broker: broker, LEO: r.log.LEO(), HW: r.hw,
		LogStart: r.log.StartOffset(), Flushed: r.log.DurableOffset(), Epochs: r.epochs.Entries(),
		Segments: r.log.Segments(), Config: ReplicaLogSettings{SegmentBytes: cfg.SegmentBytes, IndexIntervalBytes: cfg.IndexIntervalBytes,
			SegmentMs: cfg.SegmentMs, RetentionMs: cfg.RetentionMs, RetentionBytes: cfg.RetentionBytes}}, nil
}

// FetchWalkView is how a fetch at Offset finds its data (LocalLog.read):
// the segment whose base offset is the largest <= Offset, the largest
// sparse index entry <= Offset in it, and the bytes scanned from there to
// the first batch holding Offset. Error is set (OFFSET_OUT_OF_RANGE) when
// the log does not hold it.
type FetchWalkView struct {
	Offset        int64      `json:"offset"`
	Error         string     `json:"error,omitempty"`
	AtEnd         bool       `json:"atEnd,omitempty"` // Offset is the LEO: nothing to read yet
	Segment       string     `json:"segment,omitempty"`
	SegmentBase   int64      `json:"segmentBase"`
	IndexFound    bool       `json:"indexFound"`
	IndexOffset   int64      `json:"indexOffset"` // the index entry's absolute offset
	IndexPosition int32      `json:"indexPosition"`
	ScanFrom      int32      `json:"scanFrom"`
	BytesScanned  int        `json:"bytesScanned"`
	Position      int32      `json:"position"`
	Bytes         int        `json:"bytes"`
	BatchOffsets  [][2]int64 `json:"batchOffsets"` // first and last offset of each batch returned
}

// FetchWalk shows how a fetch at offset reads partition's replica on broker.
func (c *Cluster) FetchWalk(partition string, broker int, offset int64) (*FetchWalkView, error) {
	r, err := c.Replica(fmt.Sprintf("%s@%d", partition, broker))
	if err != nil {
		return nil, err
	}
	v := &FetchWalkView{Offset: offset, BatchOffsets: [][2]int64{}}
	rd, err := r.log.Read(offset, 1<<20, r.log.LEO())
	if err != nil {
		v.Error = fmt.Sprintf("OFFSET_OUT_OF_RANGE: the log holds %d..%d", r.log.StartOffset(), r.log.LEO()-1)
		return v, nil
	}
	if rd.Segment == "" {
		v.AtEnd = true
		return v, nil
	}
	v.Segment, v.SegmentBase, v.IndexFound = rd.Segment, rd.SegmentBase, rd.IndexFound
	v.IndexOffset, v.IndexPosition = rd.SegmentBase+int64(rd.IndexRelOffset), rd.IndexPosition
	v.ScanFrom, v.BytesScanned, v.Position, v.Bytes = rd.ScanFrom, rd.BytesScanned, rd.Position, rd.Bytes
	for i, bt := range rd.Batches {
		if i == 20 {
			break
		}
		v.BatchOffsets = append(v.BatchOffsets, [2]int64{bt.BaseOffset, bt.LastOffset()})
	}
	return v, nil
}

// MinInSyncReplicas is topic's min.insync.replicas (0 when there is no
// such topic).
func (c *Cluster) MinInSyncReplicas(topic string) int {
	if t := c.topics[topic]; t != nil {
		return t.conf.minISR
	}
	return 0
}
