package core_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

func runScript(t *testing.T, src string) *core.Cluster {
	t.Helper()
	s, err := scenario.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenario.Run(s, scenario.RunOptions{NoTrace: true})
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("run: %v %v", err, res.Failures)
	}
	return res.Cluster
}

// TestSnapshot: the snapshot agrees with the cluster's own queries after
// a failover, a group rebalance and commits, and survives JSON.
func TestSnapshot(t *testing.T) {
	c := runScript(t, `cluster brokers=3 seed=11 version=3.9 metadata=kraft
set group.initial.rebalance.delay.ms=0 offsets.topic.num.partitions=3
topic create t partitions=2 rf=3
producer p1 acks=all
produce p1 t value=m count=10
consumer c1 group=g topics=t offset.reset=earliest auto.commit.interval.ms=100
consumer c2 group=g topics=t offset.reset=earliest auto.commit.interval.ms=100
wait 10s
crash broker 1
wait 30s
`)
	s := c.Snapshot()
	if s.At != c.Now() || s.Version != "3.9" || s.Metadata != "kraft" || len(s.Brokers) != 3 || s.Brokers[0].State != "crashed" {
		t.Errorf("header/brokers: %+v %+v", s, s.Brokers)
	}
	var tv *core.TopicView
	for i := range s.Topics {
		if s.Topics[i].Name == "t" {
			tv = &s.Topics[i]
		}
	}
	if tv == nil || len(tv.Partitions) != 2 {
		t.Fatalf("topic t: %+v", s.Topics)
	}
	for _, pv := range tv.Partitions {
		p, _ := c.Partition(pv.Name)
		if pv.Leader != p.Leader() || pv.Leader == 1 || !reflect.DeepEqual(pv.ISR, p.ISR()) || len(pv.Replicas) != 3 {
			t.Errorf("%s: %+v", pv.Name, pv)
		}
		for _, rv := range pv.Replicas {
			r := c.Broker(rv.Broker).Replica(p)
			if rv.LEO != r.LEO() || rv.HW != r.HW() || (rv.Role == "leader") != r.IsLeader() {
				t.Errorf("%s@%d: %+v", pv.Name, rv.Broker, rv)
			}
		}
	}
	if len(s.Groups) != 1 {
		t.Fatalf("groups: %+v", s.Groups)
	}
	g := s.Groups[0]
	gen, _ := c.GroupGeneration("g")
	state, _ := c.GroupState("g")
	if g.Name != "g" || g.Generation != gen || g.State != state || state != "Stable" || len(g.Members) != 2 || g.Leader == "" {
		t.Errorf("group: %+v", g)
	}
	total := 0
	for _, cv := range s.Consumers {
		for _, p := range cv.Assigned {
			total += int(cv.Positions[p])
		}
	}
	if total != 10 || g.Committed["t-0"]+g.Committed["t-1"] != 10 {
		t.Errorf("positions sum to %d, committed %v; want 10 records consumed and committed", total, g.Committed)
	}
	if len(s.Producers) != 1 || s.Producers[0].Acks != "all" || !s.Producers[0].Idempotent || s.Producers[0].Pending != 0 {
		t.Errorf("producers: %+v", s.Producers)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back core.Snapshot
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(&back, s) {
		t.Errorf("JSON round trip differs: %v", err)
	}
}

// TestSnapshotZKGroup: in the 0.8 preset groups live in ZooKeeper.
func TestSnapshotZKGroup(t *testing.T) {
	c := runScript(t, `cluster brokers=3 seed=17 version=0.8
topic create t partitions=2 rf=3
producer p1 acks=1 partitioner=roundrobin
consumer c1 group=g topics=t offset.reset=earliest
consumer c2 group=g topics=t offset.reset=earliest
wait 5s
produce p1 t value=m count=4
wait 65s
`)
	s := c.Snapshot()
	if len(s.Groups) != 1 {
		t.Fatalf("groups: %+v", s.Groups)
	}
	g := s.Groups[0]
	if g.State != "zookeeper" || g.Coordinator != -1 || len(g.Members) != 2 || g.Committed["t-0"] != 2 || g.Committed["t-1"] != 2 {
		t.Errorf("group: %+v", g)
	}
}
