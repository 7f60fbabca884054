package core_test

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestManualAssignWithGroup: a consumer with a group.id that is assigned
// its partitions (KafkaConsumer.assign) never joins: the group stays
// without members while its auto-commits, without a generation, are
// stored; a second one assigned the partition later starts at the
// committed offset. A consumer that already joined its group, or was
// created with topics, is refused (assign after subscribe is an
// IllegalStateException).
func TestManualAssignWithGroup(t *testing.T) {
	c := runScript(t, `cluster brokers=1 seed=2 version=3.9 metadata=kraft
set offsets.topic.replication.factor=1 offsets.topic.num.partitions=1
topic create t partitions=1 rf=1
producer p acks=all
consumer c1 group=g offset.reset=earliest auto.commit.interval.ms=100
assign c1 t-0
produce p t value=a count=3
wait 2s
expect consumed c1 == a-1,a-2,a-3
expect committed g t-0 == 3
close c1
consumer c2 group=g offset.reset=earliest
assign c2 t-0
produce p t value=b
wait 2s
expect consumed c2 == b
`)
	s := c.Snapshot()
	for _, g := range s.Groups {
		if g.Name == "g" && len(g.Members) != 0 {
			t.Errorf("members of g, whose consumers only assign: %+v", g.Members)
		}
	}

	sc, err := scenario.Parse(`cluster brokers=1 seed=2 version=3.9 metadata=kraft
set offsets.topic.replication.factor=1 offsets.topic.num.partitions=1
topic create t partitions=1 rf=1
consumer c1 group=g
wait 5s
assign c1 t-0
consumer c2 group=g topics=t
assign c2 t-0
`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenario.Run(sc, scenario.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Trace, "IllegalStateException"); n != 2 {
		t.Errorf("assign after the consumer joined its group, and for one created with topics, refused %d times, want 2:\n%s", n, res.Trace)
	}
}
