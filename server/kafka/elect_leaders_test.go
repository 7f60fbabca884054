package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// advance applies cmd and runs the cluster ms of virtual time on, at once.
func (b *wallBackend) advance(t *testing.T, cmd core.Command, ms int64) {
	t.Helper()
	b.Do(context.Background(), func(c *core.Cluster) {
		if err := c.Apply(cmd); err != nil {
			t.Error(err)
		}
		c.Advance(ms)
	})
}

// TestKadmElectLeaders: kadm's ElectLeaders (kafka-leader-election.sh)
// gives el-0 back to its preferred replica once it is in the ISR again
// (auto.leader.rebalance.enable off, so nothing else would), answers
// ELECTION_NOT_NEEDED when it already leads and for an unclean election
// of a led partition, UNKNOWN_TOPIC_OR_PARTITION for a partition of no
// topic, and an unclean election of an offline partition elects its live
// replica outside the ISR. A null topic list elects every partition. The
// API was not served: kadm, sarama and kafka-python failed with "broker
// does not support" (kafka-leader-election.sh with UnsupportedVersion).
func TestKadmElectLeaders(t *testing.T) {
	for _, mode := range []string{"kraft", "zk"} {
		t.Run(mode, func(t *testing.T) {
			b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: mode},
				core.Set{Configs: map[string]string{"auto.leader.rebalance.enable": "false"}},
				core.CreateTopic{Topic: "el", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}},
				core.CreateTopic{Topic: "off", Partitions: 1, RF: 2, Assign: [][]int{{2, 3}}})
			_, addr := startServer(t, b, 3)
			b.advance(t, core.CrashBroker{Broker: 1}, 30_000)
			b.advance(t, core.Restart{Broker: 1}, 30_000)
			if l, _, _ := leaderOf(t, b, "el"); l == 1 {
				t.Fatalf("el-0 is led by its preferred replica before the election")
			}
			adm := kadm.NewClient(versionClient(t, addr, 3, 0, 0))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var ts kadm.TopicsSet
			ts.Add("el", 0)
			ts.Add("nope", 0)
			rs, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, ts)
			if err != nil {
				t.Fatal(err)
			}
			if r := rs["el"][0]; r.Err != nil {
				t.Errorf("preferred el-0: %v %s", r.Err, r.ErrMessage)
			}
			if r := rs["nope"][0]; !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
				t.Errorf("nope-0: %v", r.Err)
			}
			if l, _, _ := leaderOf(t, b, "el"); l != 1 {
				t.Errorf("el-0 leader after the election = %d, want 1", l)
			}
			ts = kadm.TopicsSet{}
			ts.Add("el", 0)
			rs, err = adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, ts)
			if err != nil || !errors.Is(rs["el"][0].Err, kerr.ElectionNotNeeded) {
				t.Errorf("preferred el-0 again: %v %+v", err, rs)
			}
			rs, err = adm.ElectLeaders(ctx, kadm.ElectLiveReplica, ts)
			if err != nil || !errors.Is(rs["el"][0].Err, kerr.ElectionNotNeeded) {
				t.Errorf("unclean el-0 with a leader: %v %+v", err, rs)
			}
			// off-0: 3 falls out of the ISR (a record it cannot fetch),
			// then 2, its last member, dies.
			b.advance(t, core.NewProducer{Name: "p1", Configs: map[string]string{"acks": "1"}}, 0)
			b.advance(t, core.NetSplit{Groups: [][]string{{"3"}, {"1", "2", "p1"}}}, 0)
			b.advance(t, core.Produce{Producer: "p1", Topic: "off", Value: "m"}, 45_000)
			b.advance(t, core.NetHeal{}, 0)
			b.advance(t, core.CrashBroker{Broker: 2}, 30_000)
			if l, _, _ := leaderOf(t, b, "off"); l != -1 {
				t.Fatalf("off-0 led by %d, want offline", l)
			}
			rs, err = adm.ElectLeaders(ctx, kadm.ElectLiveReplica, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := rs["off"][0]; !ok || r.Err != nil {
				t.Errorf("unclean off-0: %+v (all %+v)", r, rs)
			}
			if l, _, _ := leaderOf(t, b, "off"); l != 3 {
				t.Errorf("off-0 leader after the unclean election = %d, want 3", l)
			}
		})
	}
}
