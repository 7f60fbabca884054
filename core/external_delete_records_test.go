package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

func deleteRecordsReq(corr int32, timeoutMs int32, parts ...core.DeleteRecordsPartition) core.BrokerRequest {
	return core.BrokerRequest{Conn: "k1", Correlation: corr, DeleteRecords: &core.DeleteRecordsRequest{TimeoutMs: timeoutMs, Partitions: parts}}
}

// logStarts is each broker's log start offset of t-0.
func logStarts(t *testing.T, c *core.Cluster) map[int]int64 {
	t.Helper()
	p, err := c.Partition("t-0")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int64{}
	for id := 1; id <= 3; id++ {
		if r := c.Broker(id).Replica(p); r != nil {
			out[id] = r.Log().StartOffset()
		}
	}
	return out
}

// TestDeleteRecordsWaitsForFollowers: DeleteRecords (KIP-107) moves the
// leader's log start offset at once, and the answer, carrying the low
// watermark, waits until both followers took it from their Fetch
// responses and told it back (DelayedDeleteRecords); ListOffsets earliest
// then answers the new start, and -1 deletes up to the high watermark.
func TestDeleteRecordsWaitsForFollowers(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "k1", Host: "kgo", Broker: 1})
	if pr := reply(t, c, produceReq("k1", 1, -1, "a", "b", "c", "d", "e", "f")).Produce; pr.Partitions[0].Error != "" {
		t.Fatalf("produce: %+v", pr)
	}
	req := deleteRecordsReq(2, 30000, core.DeleteRecordsPartition{Topic: "t", Partition: 0, Offset: 4})
	apply(t, c, req)
	var got *core.Reply
	sawLeaderAhead := false
	for waited := 0; waited < 5000 && got == nil; waited += 10 {
		advance(t, c, 10)
		starts := logStarts(t, c)
		for _, e := range ofType(c.Events(), core.EvResponse) {
			if e.Reply.Correlation == 2 {
				got = e.Reply
			}
		}
		if got == nil && starts[1] == 4 && (starts[2] < 4 || starts[3] < 4) {
			sawLeaderAhead = true
		}
		if got != nil && (starts[1] != 4 || starts[2] != 4 || starts[3] != 4) {
			t.Fatalf("answered with log starts %v, want 4 on every replica", starts)
		}
	}
	if got == nil || got.DeleteRecords == nil {
		t.Fatalf("no DeleteRecords answer: %+v", got)
	}
	if dr := got.DeleteRecords.Partitions; len(dr) != 1 || dr[0].Error != "" || dr[0].LowWatermark != 4 {
		t.Fatalf("answer %+v, want low watermark 4", dr)
	}
	if !sawLeaderAhead {
		t.Error("the followers' log starts moved with the leader's: the wait was never seen")
	}
	lo := reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: 3, ListOffsets: &core.ListOffsetsRequest{Partitions: []core.ListOffsetsPartition{{Topic: "t", Partition: 0, Timestamp: -2, CurrentLeaderEpoch: -1}}}}).ListOffsets
	if lo.Partitions[0].Offset != 4 {
		t.Errorf("earliest %+v, want 4", lo.Partitions[0])
	}
	if f := reply(t, c, fetchReq("k1", 4, 2, 0)).Fetch; f.Partitions[0].Error != "OFFSET_OUT_OF_RANGE" {
		t.Errorf("fetch below the new start: %+v, want OFFSET_OUT_OF_RANGE", f.Partitions[0])
	}
	dr := reply(t, c, deleteRecordsReq(5, 30000, core.DeleteRecordsPartition{Topic: "t", Partition: 0, Offset: -1})).DeleteRecords
	if dr.Partitions[0].Error != "" || dr.Partitions[0].LowWatermark != 6 {
		t.Errorf("delete to the high watermark: %+v, want low watermark 6", dr.Partitions)
	}
}

// TestDeleteRecordsErrors: each partition's error as Kafka's
// ReplicaManager.deleteRecords gives it, the others still deleted.
func TestDeleteRecordsErrors(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.CreateTopic{Topic: "compacted", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}, Configs: map[string]string{"cleanup.policy": "compact"}})
	advance(t, c, 1000)
	apply(t, c, core.OpenConn{Conn: "k1", Host: "kgo", Broker: 1})
	apply(t, c, core.OpenConn{Conn: "k2", Host: "kgo", Broker: 2})
	reply(t, c, produceReq("k1", 1, -1, "a", "b", "c"))
	dr := reply(t, c, deleteRecordsReq(2, 30000,
		core.DeleteRecordsPartition{Topic: "t", Partition: 0, Offset: 4},
		core.DeleteRecordsPartition{Topic: "t", Partition: 7, Offset: 1},
		core.DeleteRecordsPartition{Topic: "nope", Partition: 0, Offset: 1},
		core.DeleteRecordsPartition{Topic: "compacted", Partition: 0, Offset: 0},
		core.DeleteRecordsPartition{Topic: "t", Partition: 0, Offset: -2},
	)).DeleteRecords
	want := []core.DeleteRecordsPartitionResponse{
		{Topic: "t", Partition: 0, Error: "OFFSET_OUT_OF_RANGE", LowWatermark: -1}, // -2 came last
		{Topic: "t", Partition: 7, Error: "UNKNOWN_TOPIC_OR_PARTITION", LowWatermark: -1},
		{Topic: "nope", Partition: 0, Error: "UNKNOWN_TOPIC_OR_PARTITION", LowWatermark: -1},
		{Topic: "compacted", Partition: 0, Error: "POLICY_VIOLATION", LowWatermark: -1},
	}
	if len(dr.Partitions) != len(want) {
		t.Fatalf("answer %+v, want %+v", dr.Partitions, want)
	}
	for i := range want {
		if dr.Partitions[i] != want[i] {
			t.Errorf("partition %d: %+v, want %+v", i, dr.Partitions[i], want[i])
		}
	}
	if dr := reply(t, c, deleteRecordsReq(3, 30000, core.DeleteRecordsPartition{Topic: "t", Partition: 0, Offset: 4})).DeleteRecords; dr.Partitions[0].Error != "OFFSET_OUT_OF_RANGE" {
		t.Errorf("above the high watermark: %+v", dr.Partitions)
	}
	req := deleteRecordsReq(4, 30000, core.DeleteRecordsPartition{Topic: "t", Partition: 0, Offset: 1})
	req.Conn = "k2"
	if dr := reply(t, c, req).DeleteRecords; dr.Partitions[0].Error != "NOT_LEADER_OR_FOLLOWER" {
		t.Errorf("at a follower: %+v", dr.Partitions)
	}
	if s := logStarts(t, c); s[1] != 0 || s[2] != 0 || s[3] != 0 {
		t.Errorf("log starts %v after refusals, want 0", s)
	}
}

// TestDeleteRecordsTimesOut: a follower whose process is paused fetches
// nothing, so its log start stays and the answer comes at the request's
// timeout, REQUEST_TIMED_OUT with the low watermark the leader had;
// the leader's log start has moved all the same.
func TestDeleteRecordsTimesOut(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "k1", Host: "kgo", Broker: 1})
	reply(t, c, produceReq("k1", 1, -1, "a", "b", "c"))
	apply(t, c, core.Pause{Broker: 3})
	rep := replyWithin(t, c, 3000, deleteRecordsReq(2, 1500, core.DeleteRecordsPartition{Topic: "t", Partition: 0, Offset: 2}))
	if dr := rep.DeleteRecords.Partitions; dr[0].Error != "REQUEST_TIMED_OUT" || dr[0].LowWatermark != 0 {
		t.Fatalf("answer %+v, want REQUEST_TIMED_OUT with low watermark 0", dr)
	}
	if s := logStarts(t, c); s[1] != 2 || s[3] != 0 {
		t.Errorf("log starts %v, want 2 on the leader and 0 on the paused follower", s)
	}
}
