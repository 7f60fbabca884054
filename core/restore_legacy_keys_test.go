package core

import (
	"fmt"
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
)

// offsetsTopicOnDisk is a one-partition __consumer_offsets as a data dir
// holds it, in three segments of commits by group g: the first segment's
// to t-0, the others' to t-1 (commitPart(i)); record i is keyed key(i).
func commitPart(i int) int { return min(i/4, 1) }

func offsetsTopicOnDisk(key func(i int) string) RestoredTopic {
	var segs []log.RestoredSegment
	for s := range 3 {
		seg := log.RestoredSegment{Base: int64(s * 4)}
		for i := s * 4; i < s*4+4; i++ {
			seg.Batches = append(seg.Batches, &log.Batch{BaseOffset: int64(i), ProducerID: -1, BaseSequence: -1, Timestamp: int64(i),
				Records: []log.Record{{Key: key(i), HasKey: true, Value: fmt.Sprintf("g/t-%d=%d", commitPart(i), i)}}})
		}
		segs = append(segs, seg)
	}
	return RestoredTopic{Topic: offsetsTopic, Configs: map[string]string{"cleanup.policy": "compact", "segment.bytes": "400"},
		Assign: [][]int{{1}}, Replicas: [][]RestoredReplica{{{Broker: 1, Segments: segs, HW: 12}}}}
}

// TestLegacyOffsetKeysAreNotCompacted: a __consumer_offsets restored
// from a data dir an older kafkasim wrote keys every commit "offset";
// compacting by that key would keep one commit of them all, so the
// cleaner leaves the partition alone and the group keeps both offsets
// when the coordinator loads the log again (a broker restart). The same
// log keyed by group and partition is compacted, with the same result.
func TestLegacyOffsetKeysAreNotCompacted(t *testing.T) {
	for name, key := range map[string]func(int) string{
		"legacy":  func(int) string { return "offset" },
		"current": func(i int) string { return fmt.Sprintf("offset:g/t-%d", commitPart(i)) },
	} {
		c, err := New(Options{Brokers: 1, Seed: 1, Version: "3.9", Metadata: "kraft"})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Apply(CreateTopic{Topic: "t", Partitions: 2, RF: 1}); err != nil {
			t.Fatal(err)
		}
		if err := c.RestoreTopics([]RestoredTopic{offsetsTopicOnDisk(key)}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Advance(60_000); err != nil {
			t.Fatal(err)
		}
		cleaned := len(ofKind(c.Events(), EvClean))
		if name == "legacy" && cleaned != 0 || name == "current" && cleaned == 0 {
			t.Errorf("%s keys: %d cleans", name, cleaned)
		}
		for _, cmd := range []Command{CrashBroker{Broker: 1}, Restart{Broker: 1}} {
			if err := c.Apply(cmd); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Advance(30_000); err != nil { // KRaft: the old session expires first (9 s)
			t.Fatal(err)
		}
		g := c.Broker(1).groups.groups["g"]
		if g == nil {
			t.Fatalf("%s keys: group g not loaded", name)
		}
		for p, want := range map[string]int64{"t-0": 3, "t-1": 11} {
			tp, _ := c.Partition(p)
			if g.offsets[tp] != want {
				t.Errorf("%s keys: g's offset for %s is %d, want %d", name, p, g.offsets[tp], want)
			}
		}
	}
}

func ofKind(es []Event, typ EventType) []Event {
	var out []Event
	for _, e := range es {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}
