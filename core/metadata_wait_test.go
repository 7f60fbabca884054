package core_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestSendTimesOutWithoutMetadata: records whose topic the producer's
// metadata never shows (deleted before its first metadata answer, or no
// broker reachable) wait in send() for max.block.ms and then fail with
// KafkaProducer.waitOnMetadata's TimeoutException, worded as the
// version's client words it; before then they are pending.
func TestSendTimesOutWithoutMetadata(t *testing.T) {
	for _, tc := range []struct {
		version, block string
		split          bool // cut the producer off instead of deleting the topic
		wait           int64
		want           string
	}{
		{"4.0", "", false, 60_000, "Topic t not present in metadata after 60000 ms."},
		{"3.9", "5000", false, 5000, "Topic t not present in metadata after 5000 ms."},
		{"2.8", "", true, 60_000, "Topic t not present in metadata after 60000 ms."},
		{"0.11", "", true, 60_000, "Failed to update metadata after 60000 ms."},
	} {
		t.Run(tc.version, func(t *testing.T) {
			c, err := core.New(core.Options{Brokers: 3, Seed: 4, Version: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			apply(t, c, core.Set{Configs: map[string]string{"delete.topic.enable": "true", "auto.create.topics.enable": "false"}})
			apply(t, c, core.CreateTopic{Topic: "t", Partitions: 2, RF: 3})
			advance(t, c, 1000)
			cfg := map[string]string{"acks": "all"}
			if tc.block != "" {
				cfg["max.block.ms"] = tc.block
			}
			apply(t, c, core.NewProducer{Name: "p", Configs: cfg})
			if tc.split {
				apply(t, c, core.NetSplit{Groups: [][]string{{"p"}, {"1", "2", "3"}}})
			}
			apply(t, c, core.Produce{Producer: "p", Topic: "t", Value: "v", Count: 3})
			if !tc.split {
				apply(t, c, core.DeleteTopic{Topic: "t"})
			}
			c.Events()
			advance(t, c, tc.wait-10)
			for _, s := range c.History().Sent {
				if s.Acked || s.Err != "" {
					t.Fatalf("%s settled before max.block.ms: acked %v, error %q", s.Value, s.Acked, s.Err)
				}
			}
			advance(t, c, 20)
			for _, s := range c.History().Sent {
				if s.Err != "TIMEOUT" {
					t.Errorf("%s: error %q, want TIMEOUT", s.Value, s.Err)
				}
			}
			var details []string
			for _, e := range c.Events() {
				if e.Type == core.EvProduceError {
					details = append(details, e.Detail)
					if got := e.Text(); !strings.Contains(got, "before it was sent") {
						t.Errorf("event text %q does not say the records were never sent", got)
					}
				}
			}
			if !slices.Equal(details, []string{tc.want}) {
				t.Errorf("produce errors %q, want one: %q", details, tc.want)
			}
		})
	}
}

// TestConsumerJoinsWithoutItsTopic: a consumer subscribed to a topic that
// does not exist joins its group anyway once the brokers have said so
// (the Java consumer does not wait for it), is assigned nothing, and
// takes the topic's partitions in a rebalance once it is created.
func TestConsumerJoinsWithoutItsTopic(t *testing.T) {
	for _, tc := range []struct{ name, version, other string }{
		{"kraft", "4.0", "topic create other partitions=1 rf=3\n"},
		// No topic at all: the brokers' metadata lists the live brokers
		// all the same, so it is an answer, not an "empty" one (which
		// clients ignore: a broker that has heard nothing yet).
		{"kraft, no topic", "4.0", ""},
		{"zk, no topic", "3.9 metadata=zk", ""},
	} {
		t.Run(tc.name, func(t *testing.T) { consumerJoinsWithoutItsTopic(t, tc.version, tc.other) })
	}
}

func consumerJoinsWithoutItsTopic(t *testing.T, version, other string) {
	c := runScript(t, `cluster brokers=3 seed=3 version=`+version+`
set auto.create.topics.enable=false group.initial.rebalance.delay.ms=0
`+other+`consumer c group=g topics=later offset.reset=earliest
wait 5s
`)
	s := c.Snapshot()
	if len(s.Groups) != 1 || s.Groups[0].State != "Stable" || len(s.Consumers[0].Assigned) != 0 {
		t.Fatalf("before the topic: groups %+v, consumer %+v; want g Stable, nothing assigned", s.Groups, s.Consumers[0])
	}
	gen := s.Groups[0].Generation
	apply(t, c, core.CreateTopic{Topic: "later", Partitions: 2, RF: 3})
	apply(t, c, core.NewProducer{Name: "p", Configs: map[string]string{"acks": "all"}})
	apply(t, c, core.Produce{Producer: "p", Topic: "later", Value: "x", Count: 4})
	advance(t, c, 5000)
	s = c.Snapshot()
	if s.Groups[0].Generation <= gen || !slices.Equal(s.Consumers[0].Assigned, []string{"later-0", "later-1"}) || s.Consumers[0].Polled != 4 {
		t.Fatalf("after the topic: group %+v, consumer %+v; want a new generation, both partitions, 4 records polled", s.Groups[0], s.Consumers[0])
	}
}
