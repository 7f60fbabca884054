package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestClientLatency: net.client.latency.ms sets the one-way latency of a
// real client's links only. At -1 (the default) they take
// net.latency.ms like every link; at 0 an acks=all produce takes only
// the replication's hops between brokers (the followers' fetch answered
// and the next one made), and the brokers' own links keep theirs.
func TestClientLatency(t *testing.T) {
	for _, tc := range []struct {
		client string
		want   int64 // produce sent to answered, in virtual ms
	}{
		{"-1", 4 * 3}, // four hops of net.latency.ms=3
		{"0", 2 * 3},  // the two replication hops
		{"1", 2*3 + 2*1},
	} {
		c := extCluster(t)
		apply(t, c, core.Set{Configs: map[string]string{"net.latency.ms": "3", "net.client.latency.ms": tc.client}})
		apply(t, c, core.OpenConn{Conn: "k1", Broker: 1})
		advance(t, c, 100)
		c.Events()
		sent := c.Now()
		apply(t, c, produceReq("k1", 1, -1, "a"))
		advance(t, c, 1000)
		r := ofType(c.Events(), core.EvResponse)
		if len(r) != 1 || r[0].Reply.Produce.Partitions[0].Error != "" {
			t.Fatalf("net.client.latency.ms=%s: responses %+v", tc.client, r)
		}
		if got := r[0].At - sent; got != tc.want {
			t.Errorf("net.client.latency.ms=%s: acks=all answered after %d ms, want %d", tc.client, got, tc.want)
		}
	}
	c := extCluster(t)
	if err := c.Apply(core.Set{Configs: map[string]string{"net.client.latency.ms": "-2"}}); err == nil {
		t.Error("net.client.latency.ms=-2 accepted")
	}
}
