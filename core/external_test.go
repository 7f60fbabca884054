package core_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// extCluster is three brokers with topic t (one partition, RF 3, leader 1)
// after its leader is elected, and the events so far drained.
func extCluster(t *testing.T) *core.Cluster {
	t.Helper()
	c, err := core.New(core.Options{Brokers: 3, Seed: 5, Version: "3.9", Metadata: "kraft"})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, c, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
	advance(t, c, 1000)
	c.Events()
	return c
}

func apply(t *testing.T, c *core.Cluster, cmd core.Command) {
	t.Helper()
	if err := c.Apply(cmd); err != nil {
		t.Fatalf("%T: %v", cmd, err)
	}
}

func advance(t *testing.T, c *core.Cluster, ms int64) {
	t.Helper()
	if _, err := c.Advance(ms); err != nil {
		t.Fatal(err)
	}
}

func records(vals ...string) []log.Record {
	out := make([]log.Record, len(vals))
	for i, v := range vals {
		out[i] = log.Record{Value: v}
	}
	return out
}

func produceReq(conn string, corr int32, acks int16, vals ...string) core.BrokerRequest {
	return core.BrokerRequest{Conn: conn, Correlation: corr, Produce: &core.ProduceRequest{Acks: acks, TimeoutMs: 30000,
		Partitions: []core.ProducePartition{{Topic: "t", Partition: 0, ProducerID: -1, BaseSequence: -1, Records: records(vals...)}}}}
}

func fetchReq(conn string, corr int32, offset int64, waitMs int32) core.BrokerRequest {
	return core.BrokerRequest{Conn: conn, Correlation: corr, Fetch: &core.FetchRequest{MaxWaitMs: waitMs, MinBytes: 1, MaxBytes: 1 << 20,
		Partitions: []core.FetchPartition{{Topic: "t", Partition: 0, FetchOffset: offset, CurrentLeaderEpoch: -1}}}}
}

// ofType returns the events of one type.
func ofType(evs []core.Event, typ core.EventType) []core.Event {
	var out []core.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// TestExternalProduce: an outside client's acks=all produce is answered
// by an EvResponse with its correlation id and offsets, only once every
// ISR replica has the records in simulated time; replies on a connection
// come in request order; the event is JSON.
func TestExternalProduce(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "k1", Host: "kcat", Broker: 1})
	apply(t, c, produceReq("k1", 7, -1, "a", "b"))
	apply(t, c, produceReq("k1", 8, -1, "c"))
	apply(t, c, fetchReq("k1", 9, 0, 0))
	advance(t, c, 1000)
	evs := c.Events()
	if len(ofType(evs, core.EvConnOpen)) != 1 {
		t.Fatalf("no conn.open: %v", evs)
	}
	resp := ofType(evs, core.EvResponse)
	if len(resp) != 3 {
		t.Fatalf("got %d responses, want 3", len(resp))
	}
	for i, want := range []int32{7, 8, 9} {
		if r := resp[i].Reply; r == nil || r.Correlation != want || r.Conn != "k1" {
			t.Fatalf("response %d: %+v, want correlation %d in order", i, resp[i].Reply, want)
		}
	}
	p0, p1 := resp[0].Reply.Produce.Partitions[0], resp[1].Reply.Produce.Partitions[0]
	if p0.Error != "" || p0.BaseOffset != 0 || p1.Error != "" || p1.BaseOffset != 2 || p0.LogStartOffset != 0 {
		t.Fatalf("produce answers %+v %+v, want base offsets 0 and 2", p0, p1)
	}
	// acks=all: both followers appended a and b before the answer.
	var followers int
	for _, e := range evs {
		if e.Type == core.EvAppend && !e.IsLeader && e.Offset == 0 && e.Seq < resp[0].Seq {
			followers++
		}
	}
	if followers != 2 {
		t.Fatalf("%d follower appends before the acks=all answer, want 2", followers)
	}
	f := resp[2].Reply.Fetch.Partitions[0]
	var got []string
	for _, b := range f.Batches {
		for _, r := range b.Records {
			got = append(got, r.Value)
		}
	}
	if f.Error != "" || f.HighWatermark != 3 || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("fetch after the produces: %+v, values %v", f, got)
	}
	data, err := json.Marshal(resp[0])
	if err != nil || !strings.Contains(string(data), `"correlation":7`) || !strings.Contains(string(data), `"baseOffset":0`) {
		t.Fatalf("JSON %s, %v", data, err)
	}
	if s := c.Snapshot(); len(s.Conns) != 1 || s.Conns[0].State != "open" || s.Conns[0].Pending != 0 {
		t.Fatalf("snapshot conns %+v", s.Conns)
	}
}

// TestExternalFetchLongPoll: a fetch with a max wait is held until the
// high watermark passes the fetch offset, then answered with the record;
// one with nothing to read is answered empty when its wait ends.
func TestExternalFetchLongPoll(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "cons", Broker: 1})
	apply(t, c, core.OpenConn{Conn: "prod", Broker: 1})
	apply(t, c, fetchReq("cons", 1, 0, 5000))
	advance(t, c, 100)
	if r := ofType(c.Events(), core.EvResponse); len(r) != 0 {
		t.Fatalf("fetch answered with nothing to read: %+v", r[0].Reply)
	}
	start := c.Now()
	apply(t, c, produceReq("prod", 1, 1, "x"))
	advance(t, c, 1000)
	evs := c.Events()
	var hwAt int64 = -1
	for _, e := range evs {
		if e.Type == core.EvHW && e.Broker == 1 && e.HW == 1 {
			hwAt = e.At
		}
	}
	var fetch *core.Event
	for i, e := range ofType(evs, core.EvResponse) {
		if e.Conn == "cons" {
			fetch = &ofType(evs, core.EvResponse)[i]
		}
	}
	if fetch == nil || hwAt < 0 {
		t.Fatalf("no fetch answer (hw at %d)", hwAt)
	}
	f := fetch.Reply.Fetch.Partitions[0]
	if fetch.At <= hwAt || fetch.At-start >= 5000 || len(f.Batches) != 1 || f.Batches[0].Records[0].Value != "x" || f.HighWatermark != 1 {
		t.Fatalf("fetch answered at %d (hw moved at %d): %+v", fetch.At, hwAt, f)
	}
	// Nothing more to read: the answer comes empty after the max wait.
	apply(t, c, fetchReq("cons", 2, 1, 300))
	at := c.Now()
	advance(t, c, 1000)
	r := ofType(c.Events(), core.EvResponse)
	if len(r) != 1 || len(r[0].Reply.Fetch.Partitions[0].Batches) != 0 || r[0].At-at < 300 {
		t.Fatalf("empty long poll: %+v", r)
	}
}

// TestExternalCrash: a broker crash resets its connections; the pending
// request is reported unanswered and never answered; a new connection to
// the crashed broker is refused.
func TestExternalCrash(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "k1", Broker: 1})
	advance(t, c, 100)
	apply(t, c, fetchReq("k1", 42, 0, 10000)) // parked: nothing to read
	advance(t, c, 100)
	apply(t, c, core.CrashBroker{Broker: 1})
	advance(t, c, 1000)
	evs := c.Events()
	closed := ofType(evs, core.EvConnClose)
	if len(closed) != 1 || closed[0].Reason != core.ConnReset || !slices.Equal(closed[0].Pending, []int32{42}) {
		t.Fatalf("close events %+v", closed)
	}
	advance(t, c, 20000)
	if r := ofType(c.Events(), core.EvResponse); len(r) != 0 {
		t.Fatalf("answer from a crashed broker: %+v", r)
	}
	if err := c.Apply(fetchReq("k1", 43, 0, 0)); err == nil {
		t.Fatal("request on a closed connection accepted")
	}
	apply(t, c, core.OpenConn{Conn: "k1", Broker: 1}) // the name is free again
	advance(t, c, 100)
	if cl := ofType(c.Events(), core.EvConnClose); len(cl) != 1 || cl[0].Reason != core.ConnRefused {
		t.Fatalf("connect to a crashed broker: %+v", cl)
	}
}

// TestExternalAcksAllWaitsForISR: with a follower cut off, an acks=all
// produce waits in purgatory until the ISR shrinks (replica.lag.time.max.ms)
// and the HW passes it; the fetch sent behind it on the same connection is
// answered after it, as Kafka answers a connection's requests in order.
func TestExternalAcksAllWaitsForISR(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "k1", Broker: 1})
	apply(t, c, core.NetDrop{From: "1", To: "3"})
	apply(t, c, core.NetDrop{From: "3", To: "1"})
	advance(t, c, 100)
	pr := produceReq("k1", 1, -1, "a")
	pr.Produce.TimeoutMs = 60000 // longer than replica.lag.time.max.ms (30 s): the ISR shrinks first
	apply(t, c, pr)
	apply(t, c, fetchReq("k1", 2, 0, 0))
	advance(t, c, 5000)
	if r := ofType(c.Events(), core.EvResponse); len(r) != 0 {
		t.Fatalf("acks=all answered while a follower in the ISR lacks the record: %+v", r[0].Reply)
	}
	advance(t, c, 60000)
	evs := c.Events()
	r := ofType(evs, core.EvResponse)
	if len(r) != 2 || r[0].Reply.Correlation != 1 || r[1].Reply.Correlation != 2 {
		t.Fatalf("responses %+v", r)
	}
	if p := r[0].Reply.Produce.Partitions[0]; p.Error != "" || p.BaseOffset != 0 {
		t.Fatalf("produce answer %+v", p)
	}
	var shrink int64 = -1
	for _, e := range ofType(evs, core.EvISR) {
		shrink = e.At
	}
	if shrink < 0 || r[0].At < shrink {
		t.Fatalf("answered at %d, ISR shrank at %d", r[0].At, shrink)
	}
}

// TestExternalBadInput: malformed commands are errors; Kafka-level
// mistakes are answered as Kafka answers them.
func TestExternalBadInput(t *testing.T) {
	c := extCluster(t)
	for _, cmd := range []core.Command{
		core.OpenConn{Conn: "", Broker: 1},
		core.OpenConn{Conn: "1x", Broker: 1},
		core.OpenConn{Conn: "k", Broker: 9},
		core.OpenConn{Conn: "k", Host: "controller", Broker: 1},
		core.CloseConn{Conn: "nope"},
		core.BrokerRequest{Conn: "nope", Fetch: &core.FetchRequest{}},
	} {
		if err := c.Apply(cmd); err == nil {
			t.Errorf("%+v accepted", cmd)
		}
	}
	apply(t, c, core.OpenConn{Conn: "k", Broker: 1})
	if err := c.Apply(core.OpenConn{Conn: "k", Broker: 2}); err == nil {
		t.Error("connection opened twice")
	}
	both := produceReq("k", 1, 1, "a")
	both.Fetch = &core.FetchRequest{}
	dup := produceReq("k", 1, 1, "a")
	dup.Produce.Partitions = append(dup.Produce.Partitions, dup.Produce.Partitions[0])
	for _, cmd := range []core.BrokerRequest{both, {Conn: "k"}, dup} {
		if err := c.Apply(cmd); err == nil {
			t.Errorf("%+v accepted", cmd)
		}
	}
	unknown := produceReq("k", 3, 1, "a")
	unknown.Produce.Partitions[0].Topic = "nope"
	apply(t, c, unknown)
	badAcks := produceReq("k", 4, 2, "a")
	apply(t, c, badAcks)
	empty := produceReq("k", 5, 1)
	apply(t, c, empty)
	advance(t, c, 100)
	r := ofType(c.Events(), core.EvResponse)
	want := []string{"UNKNOWN_TOPIC_OR_PARTITION", "INVALID_REQUIRED_ACKS", "INVALID_RECORD"}
	if len(r) != len(want) {
		t.Fatalf("responses %+v", r)
	}
	for i, e := range r {
		if got := e.Reply.Produce.Partitions[0].Error; got != want[i] {
			t.Errorf("response %d: %s, want %s", i, got, want[i])
		}
	}
	// acks=0 gets no answer; a failed one closes the connection.
	apply(t, c, produceReq("k", 6, 0, "ok"))
	advance(t, c, 100)
	if evs := c.Events(); len(ofType(evs, core.EvResponse)) != 0 || len(ofType(evs, core.EvConnClose)) != 0 {
		t.Fatalf("acks=0 answered or closed: %v", evs)
	}
	bad := produceReq("k", 7, 0, "x")
	bad.Produce.Partitions[0].Partition = 5
	apply(t, c, bad)
	advance(t, c, 100)
	if cl := ofType(c.Events(), core.EvConnClose); len(cl) != 1 || cl[0].Reason != core.ConnClosedByBroker {
		t.Fatalf("failed acks=0: %+v", cl)
	}
	// Too many requests waiting on one connection.
	apply(t, c, core.OpenConn{Conn: "flood", Broker: 2})
	apply(t, c, core.NetDrop{From: "flood", To: "2"})
	var err error
	for i := 0; i <= core.MaxConnPending && err == nil; i++ {
		err = c.Apply(fetchReq("flood", int32(i), 0, 0))
	}
	if err == nil || !strings.Contains(err.Error(), "unanswered") {
		t.Fatalf("no limit on unanswered requests: %v", err)
	}
}

// TestExternalNetwork: the connection's host is a network node: a split
// loses its request (no answer, the connection stays), and a broker that
// restarted after a power-off resets the connection its previous process
// had accepted when the next request reaches it.
func TestExternalNetwork(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "k1", Host: "app", Broker: 2})
	advance(t, c, 100)
	apply(t, c, core.NetSplit{Groups: [][]string{{"app"}, {"1", "2", "3", "controller"}}})
	apply(t, c, fetchReq("k1", 1, 0, 0))
	advance(t, c, 1000)
	evs := c.Events()
	if len(ofType(evs, core.EvResponse)) != 0 || len(ofType(evs, core.EvConnClose)) != 0 || len(ofType(evs, core.EvMsgDrop)) == 0 {
		t.Fatalf("split: %v", evs)
	}
	apply(t, c, core.NetHeal{})
	apply(t, c, core.PowerOff{Broker: 2})
	advance(t, c, 100)
	apply(t, c, core.Restart{Broker: 2})
	advance(t, c, 100)
	if cl := ofType(c.Events(), core.EvConnClose); len(cl) != 0 {
		t.Fatalf("power-off closed the connection at once: %+v", cl)
	}
	apply(t, c, fetchReq("k1", 2, 0, 0))
	advance(t, c, 100)
	cl := ofType(c.Events(), core.EvConnClose)
	if len(cl) != 1 || cl[0].Reason != core.ConnReset || !slices.Equal(cl[0].Pending, []int32{1, 2}) {
		t.Fatalf("request to the restarted broker: %+v", cl)
	}
	if s := c.Snapshot(); len(s.Conns) != 0 {
		t.Fatalf("closed connection in the snapshot: %+v", s.Conns)
	}
}
