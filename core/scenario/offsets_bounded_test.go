package scenario

import "testing"

// TestOffsetsTopicStaysBounded: a group auto-committing every 5 s for
// hours writes thousands of records to __consumer_offsets, all under one
// key; the log cleaner keeps the latest, so the partition's log stays a
// few segments (segment.bytes 4 KiB here) however long the group runs.
// Without compaction it held every commit: ~90 bytes each, 1440 an hour.
func TestOffsetsTopicStaysBounded(t *testing.T) {
	res := runText(t, "bounded", `cluster brokers=1 seed=7 version=3.9 metadata=kraft
set offsets.topic.num.partitions=1 offsets.topic.replication.factor=1 offsets.topic.segment.bytes=4096
topic create t partitions=1 rf=1
producer p1 acks=all
produce p1 t value=m count=3
consumer c1 group=g topics=t offset.reset=earliest
wait 180m
expect committed g t-0 == 3
`)
	p, err := res.Cluster.Partition("__consumer_offsets-0")
	if err != nil {
		t.Fatal(err)
	}
	l := res.Cluster.LeaderReplica(p).Log()
	var size int64
	segs := l.Segments()
	for _, sg := range segs {
		size += sg.SizeBytes
	}
	if l.LEO() < 2000 {
		t.Fatalf("only %d records written in 3 h: the test does not commit enough", l.LEO())
	}
	if size > 5*4096 || len(segs) > 8 {
		t.Errorf("__consumer_offsets-0 after %d commits: %d segments, %d bytes; want a few segments", l.LEO(), len(segs), size)
	}
}
