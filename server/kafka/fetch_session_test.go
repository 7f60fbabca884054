package kafka

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// onBroker1 is a topic of n partitions whose replicas are brokers 1, 2
// and 3, broker 1 the preferred leader of each.
func onBroker1(topic string, n int) core.CreateTopic {
	ct := core.CreateTopic{Topic: topic, Partitions: n, RF: 3}
	for range n {
		ct.Assign = append(ct.Assign, []int{1, 2, 3})
	}
	return ct
}

// tp names a partition of a raw Fetch: topic, partition and the offset
// to fetch from.
type tp struct {
	topic     string
	partition int32
	offset    int64
}

// sessionClient speaks Fetch v (and every other API at franz-go's
// maximum) to brokers 1-3 and knows the topic ids of topics.
type sessionClient struct {
	t     *testing.T
	cl    *kgo.Client
	v     int16
	ids   map[string][16]byte
	names map[[16]byte]string
}

func newSessionClient(t *testing.T, b *wallBackend, addr string, v int16, topics ...string) *sessionClient {
	t.Helper()
	sc := &sessionClient{t: t, cl: fetchClient(t, addr, 3, v), v: v, ids: map[string][16]byte{}, names: map[[16]byte]string{}}
	b.Do(context.Background(), func(c *core.Cluster) {
		for _, topic := range topics {
			id, _ := c.TopicID(topic)
			sc.ids[topic], sc.names[id] = id, topic
		}
	})
	return sc
}

// fetch sends one Fetch with session id and epoch to broker, listing
// parts and forgetting forget, waiting at most 50 ms for one byte.
func (sc *sessionClient) fetch(broker int, id, epoch int32, parts []tp, forget ...tp) *kmsg.FetchResponse {
	sc.t.Helper()
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 50, 1, 1<<20
	req.SessionID, req.SessionEpoch = id, epoch
	byID := sc.v >= 13
	for _, p := range parts {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != p.topic && !byID || byID && req.Topics[n-1].TopicID != sc.ids[p.topic] {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = p.topic
			if byID {
				rt.Topic, rt.TopicID = "", sc.ids[p.topic]
			}
			req.Topics = append(req.Topics, rt)
		}
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = p.partition, p.offset, 1<<20, -1
		rt := &req.Topics[len(req.Topics)-1]
		rt.Partitions = append(rt.Partitions, rp)
	}
	for _, p := range forget {
		ft := kmsg.NewFetchRequestForgottenTopic()
		ft.Topic, ft.Partitions = p.topic, []int32{p.partition}
		if byID {
			ft.Topic, ft.TopicID = "", sc.ids[p.topic]
		}
		req.ForgottenTopics = append(req.ForgottenTopics, ft)
	}
	resp := requestBroker[*kmsg.FetchResponse](sc.t, sc.cl, broker, req)
	if resp.Version != sc.v {
		sc.t.Fatalf("sent Fetch v%d, want v%d", resp.Version, sc.v)
	}
	return resp
}

// answered lists the response's partitions as "topic-partition", with
// "+" after one carrying records and "@HW" after its high watermark,
// and "!code" after one with an error.
func (sc *sessionClient) answered(resp *kmsg.FetchResponse) []string {
	var out []string
	for _, rt := range resp.Topics {
		name := rt.Topic
		if sc.v >= 13 {
			name = sc.names[rt.TopicID]
		}
		for _, p := range rt.Partitions {
			s := fmt.Sprintf("%s-%d@%d", name, p.Partition, p.HighWatermark)
			if len(p.RecordBatches) > 0 {
				s += "+"
			}
			if p.ErrorCode != 0 {
				s += fmt.Sprintf("!%d", p.ErrorCode)
			}
			out = append(out, s)
		}
	}
	return out
}

// expect fails unless resp has top-level error code errCode, session id
// id (-1: any but 0) and exactly the partitions want (answered's form).
func (sc *sessionClient) expect(what string, resp *kmsg.FetchResponse, errCode int16, id int32, want ...string) {
	sc.t.Helper()
	got := sc.answered(resp)
	idOK := resp.SessionID == id || id == -1 && resp.SessionID != 0
	if resp.ErrorCode != errCode || !idOK || !slices.Equal(got, want) {
		sc.t.Errorf("v%d %s: error %d, session %d, partitions %q; want error %d, session %d, partitions %q",
			sc.v, what, resp.ErrorCode, resp.SessionID, got, errCode, id, want)
	}
}

// produceTo appends values to one partition through broker with cl's
// acks (franz-go sets a Produce's acks to its client's), failing unless
// it is acknowledged without error.
func produceTo(t *testing.T, cl *kgo.Client, broker int, topic string, partition int32, values ...string) {
	t.Helper()
	req := kmsg.NewPtrProduceRequest()
	req.TimeoutMillis = 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition = partition
	var recs []log.Record
	for _, v := range values {
		recs = append(recs, log.Record{Value: v})
	}
	rp.Records = recordbatch.Append(nil, &recordbatch.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Timestamp: 1, Records: recs}, nil)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp := requestBroker[*kmsg.ProduceResponse](t, cl, broker, req)
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("produce to %s-%d: %+v", topic, partition, resp.Topics)
	}
}

// TestFetchSessionIncremental walks a session through Kafka's rules
// (FetchManager.newContext, CachedPartition.maybeUpdateResponseData), by
// name (v7, v12) and by topic id (v13, v17): a full fetch (0, 0) opens a
// session; an incremental fetch with nothing new answers no partitions;
// after a produce only that partition comes back, and keeps coming back
// while its fetch offset in the session is behind; a wrong epoch is
// INVALID_FETCH_SESSION_EPOCH and an id the broker never gave
// FETCH_SESSION_ID_NOT_FOUND, both with no partitions and session id 0;
// a forgotten partition is no longer fetched; epoch -1 closes the
// session and answers in full with session id 0.
func TestFetchSessionIncremental(t *testing.T) {
	b, addr := served(t, "3.9", onBroker1("fa", 2), onBroker1("fb", 1))
	for _, v := range []int16{7, 12, 13, 17} {
		sc := newSessionClient(t, b, addr, v, "fa", "fb")
		end := func(topic string, p int32) int64 {
			var hw int64
			b.Do(context.Background(), func(c *core.Cluster) {
				if r, err := c.Replica(fmt.Sprintf("%s-%d@1", topic, p)); err == nil {
					hw = r.HW()
				}
			})
			return hw
		}
		a0, a1, b0 := end("fa", 0), end("fa", 1), end("fb", 0)
		all := []tp{{"fa", 0, a0}, {"fa", 1, a1}, {"fb", 0, b0}}
		resp := sc.fetch(1, 0, 0, all)
		id := resp.SessionID
		sc.expect("full fetch (0, 0)", resp, 0, -1,
			fmt.Sprintf("fa-0@%d", a0), fmt.Sprintf("fa-1@%d", a1), fmt.Sprintf("fb-0@%d", b0))

		sc.expect("incremental, nothing new", sc.fetch(1, id, 1, nil), 0, id)

		produceTo(t, sc.cl, 1, "fa", 1, "x", "y")
		sc.expect("after a produce to fa-1", sc.fetch(1, id, 2, nil), 0, id, fmt.Sprintf("fa-1@%d+", a1+2))
		sc.expect("fa-1's offset still behind", sc.fetch(1, id, 3, nil), 0, id, fmt.Sprintf("fa-1@%d+", a1+2))
		a1 += 2
		sc.expect("fa-1's offset moved on", sc.fetch(1, id, 4, []tp{{"fa", 1, a1}}), 0, id)

		sc.expect("a stale epoch", sc.fetch(1, id, 4, nil), kerr.InvalidFetchSessionEpoch.Code, 0)
		sc.expect("an epoch ahead", sc.fetch(1, id, 9, nil), kerr.InvalidFetchSessionEpoch.Code, 0)
		other := id - 1
		if other == 0 {
			other = id + 1
		}
		sc.expect("an unknown session id", sc.fetch(1, other, 1, nil), kerr.FetchSessionIDNotFound.Code, 0)
		sc.expect("no session id", sc.fetch(1, 0, 3, nil), kerr.FetchSessionIDNotFound.Code, 0)
		// Past the last of 3.9's 8 shards' id ranges, Kafka's
		// FetchSessionCache.getCacheShard throws.
		sc.expect("an id no shard has", sc.fetch(1, math.MaxInt32, 1, nil), kerr.UnknownServerError.Code, 0)

		sc.expect("forgetting fb-0", sc.fetch(1, id, 5, nil, tp{"fb", 0, 0}), 0, id)
		produceTo(t, sc.cl, 1, "fb", 0, "z")
		sc.expect("fb-0 forgotten", sc.fetch(1, id, 6, nil), 0, id)
		produceTo(t, sc.cl, 1, "fa", 0, "w")
		sc.expect("fa-0 still in", sc.fetch(1, id, 7, nil), 0, id, fmt.Sprintf("fa-0@%d+", a0+1))
		a0++

		sc.expect("closing with epoch -1", sc.fetch(1, id, -1, []tp{{"fa", 0, a0}}), 0, 0, fmt.Sprintf("fa-0@%d", a0))
		sc.expect("the closed session", sc.fetch(1, id, 8, nil), kerr.FetchSessionIDNotFound.Code, 0)
		sc.expect("sessionless (0, -1)", sc.fetch(1, 0, -1, []tp{{"fb", 0, b0}}), 0, 0, fmt.Sprintf("fb-0@%d+", b0+1))
	}
}

// TestFetchSessionHighWatermark: a partition whose high watermark moved
// comes back in an incremental response even with no records
// (maybeUpdateResponseData), and one whose did not stays out. The
// followers are paused so that an acks=1 produce leaves the high
// watermark behind the log end, where the client fetches from.
func TestFetchSessionHighWatermark(t *testing.T) {
	b, addr := served(t, "3.9", onBroker1("hw", 2))
	sc := newSessionClient(t, b, addr, 17, "hw")
	ctx := context.Background()
	leaderAck := fetchClient(t, addr, 3, 0, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	produceTo(t, leaderAck, 1, "hw", 1, "a") // both clients connected to broker 1 before the pause
	sc.fetch(1, 0, -1, nil)
	b.Apply(ctx, core.Pause{Broker: 2})
	b.Apply(ctx, core.Pause{Broker: 3})
	produceTo(t, leaderAck, 1, "hw", 0, "b")
	resp := sc.fetch(1, 0, 0, []tp{{"hw", 0, 1}, {"hw", 1, 1}})
	id := resp.SessionID
	sc.expect("full fetch", resp, 0, -1, "hw-0@0", "hw-1@1")
	sc.expect("nothing moved", sc.fetch(1, id, 1, nil), 0, id)
	b.Apply(ctx, core.Resume{Broker: 2})
	b.Apply(ctx, core.Resume{Broker: 3})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var hw int64
		b.Do(ctx, func(c *core.Cluster) {
			if r, err := c.Replica("hw-0@1"); err == nil {
				hw = r.HW()
			}
		})
		if hw == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hw-0's high watermark is %d, want 1", hw)
		}
	}
	sc.expect("hw-0's high watermark moved", sc.fetch(1, id, 2, nil), 0, id, "hw-0@1")
	sc.expect("and no more", sc.fetch(1, id, 3, nil), 0, id)
}

// TestFetchSessionBrokerRestart: a broker's sessions live in its
// process, so after a crash or a power-off and a restart the id a client
// holds is FETCH_SESSION_ID_NOT_FOUND, and a full fetch opens a new
// session; another broker's session lives on.
func TestFetchSessionBrokerRestart(t *testing.T) {
	for _, power := range []bool{false, true} {
		t.Run(map[bool]string{false: "crash", true: "power off"}[power], func(t *testing.T) {
			b, addr := served(t, "3.9", onBroker1("r", 1))
			sc := newSessionClient(t, b, addr, 17, "r")
			parts := []tp{{"r", 0, 0}}
			id1 := sc.fetch(1, 0, 0, parts).SessionID
			id2 := sc.fetch(2, 0, 0, parts).SessionID
			if id1 == 0 || id2 == 0 {
				t.Fatalf("session ids %d and %d", id1, id2)
			}
			ctx := context.Background()
			if power {
				b.Apply(ctx, core.PowerOff{Broker: 1})
			} else {
				b.Apply(ctx, core.CrashBroker{Broker: 1})
			}
			b.Apply(ctx, core.Restart{Broker: 1})
			var resp *kmsg.FetchResponse
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				r, err := sc.cl.Broker(1).Request(rctx, sessionFetchRequest(sc, id1, 1))
				cancel()
				if err == nil {
					resp = r.(*kmsg.FetchResponse)
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("broker 1 did not answer after its restart: %v", err)
				}
			}
			sc.expect("the old session after the restart", resp, kerr.FetchSessionIDNotFound.Code, 0)
			if r := sc.fetch(1, 0, 0, parts); r.ErrorCode != 0 || r.SessionID == 0 {
				t.Errorf("a full fetch after the restart: error %d, session %d; want a new session", r.ErrorCode, r.SessionID)
			}
			if r := sc.fetch(2, id2, 1, nil); r.ErrorCode != 0 || r.SessionID != id2 {
				t.Errorf("broker 2's session: error %d, session %d; want it alive", r.ErrorCode, r.SessionID)
			}
		})
	}
}

// sessionFetchRequest is an incremental Fetch with no partitions.
func sessionFetchRequest(sc *sessionClient, id, epoch int32) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 50, 1, 1<<20
	req.SessionID, req.SessionEpoch = id, epoch
	return req
}

// TestFetchSessionCacheBound: max.incremental.fetch.session.cache.slots
// bounds a broker's sessions. 3.8+ splits it into 8 shards of slots/8,
// filled in turn (KAFKA-9401), so 12 slots are 8 shards of one session
// and the 9th full fetch gets session id 0; 2.8's one cache of 2 takes 2. Eviction
// (FetchSessionCacheShard.tryEvict): once a session has gone unused for
// 120 s any new one may take its place, the least recently used first;
// a session older than 120 s but in use gives way only to a larger new
// one.
func TestFetchSessionCacheBound(t *testing.T) {
	slots := func(n int) core.Command {
		return core.Set{Configs: map[string]string{"max.incremental.fetch.session.cache.slots": fmt.Sprint(n)}}
	}
	t.Run("3.9 shards", func(t *testing.T) {
		b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"}, slots(12), onBroker1("c", 1))
		_, addr := startServer(t, b, 3)
		sc := newSessionClient(t, b, addr, 17, "c")
		for i := range 8 {
			if r := sc.fetch(1, 0, 0, []tp{{"c", 0, 0}}); r.SessionID == 0 {
				t.Fatalf("full fetch %d got no session", i+1)
			}
		}
		sc.expect("the 9th full fetch", sc.fetch(1, 0, 0, []tp{{"c", 0, 0}}), 0, 0, "c-0@0")
	})
	t.Run("2.8 eviction", func(t *testing.T) {
		b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "2.8", Metadata: "zk"}, slots(2), onBroker1("c", 2))
		_, addr := startServer(t, b, 3)
		sc := newSessionClient(t, b, addr, 12, "c")
		small := sc.fetch(1, 0, 0, []tp{{"c", 0, 0}}).SessionID
		large := sc.fetch(1, 0, 0, []tp{{"c", 0, 0}, {"c", 1, 0}}).SessionID
		if small == 0 || large == 0 {
			t.Fatalf("session ids %d and %d", small, large)
		}
		sc.expect("a third session", sc.fetch(1, 0, 0, []tp{{"c", 0, 0}}), 0, 0, "c-0@0")
		sc.expect("any id, one cache", sc.fetch(1, math.MaxInt32, 1, nil), kerr.FetchSessionIDNotFound.Code, 0)
		sc.expect("small in use", sc.fetch(1, small, 1, nil), 0, small)

		b.Do(context.Background(), func(c *core.Cluster) { c.Advance(121_000) })
		// Both unused for 121 s: the least recently used goes first.
		third := sc.fetch(1, 0, 0, []tp{{"c", 0, 0}}).SessionID
		if third == 0 {
			t.Fatal("no session after 121 s unused")
		}
		sc.expect("large, evicted as stale", sc.fetch(1, large, 1, nil), kerr.FetchSessionIDNotFound.Code, 0)
		sc.expect("small, used later", sc.fetch(1, small, 2, nil), 0, small)

		// small is older than 120 s and in use: a new session of one
		// partition cannot evict it, one of two can.
		sc.expect("one partition", sc.fetch(1, 0, 0, []tp{{"c", 1, 0}}), 0, 0, "c-1@0")
		if sc.fetch(1, 0, 0, []tp{{"c", 0, 0}, {"c", 1, 0}}).SessionID == 0 {
			t.Error("a session of two partitions did not evict one of one older than 120 s")
		}
		sc.expect("small, evicted by a larger one", sc.fetch(1, small, 3, nil), kerr.FetchSessionIDNotFound.Code, 0)
		sc.expect("third, too new to evict", sc.fetch(1, third, 1, nil), 0, third)
	})
}

// TestFranzGoUsesFetchSessions: franz-go opens a session and fetches
// incrementally, reading everything produced while it does.
func TestFranzGoUsesFetchSessions(t *testing.T) {
	b, addr := served(t, "3.9", onBroker1("fs", 3))
	var incremental, withSession int
	stop, _ := b.Watch(func(c *core.Cluster, evs []core.Event, reset bool) {
		for _, e := range evs {
			if e.Type == core.EvMsgSend && e.Msg == "Fetch" {
				var id, epoch int32
				if _, err := fmt.Sscanf(lastFields(e.Label, 2), "session=%d epoch=%d", &id, &epoch); err == nil {
					withSession++
					if id != 0 && epoch > 0 {
						incremental++
					}
				}
			}
		}
	})
	defer stop()
	prod := fetchClient(t, addr, 3, 0)
	cons := fetchClient(t, addr, 3, 0, kgo.ConsumeTopics("fs"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	for round := range 5 {
		produceAll(t, prod, "fs", 10, fmt.Sprintf("r%d-", round))
		if got := consume(t, cons, 10); len(got) != 10 {
			t.Fatalf("round %d: %d records", round, len(got))
		}
	}
	stop()
	if incremental < 5 {
		t.Errorf("%d Fetch requests named a session, %d of them incremental; want franz-go fetching incrementally", withSession, incremental)
	}
}

// lastFields is the last n space-separated fields of s.
func lastFields(s string, n int) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ' ' {
			if n--; n == 0 {
				return s[i+1:]
			}
		}
	}
	return s
}

// TestFetchSessionTopicIDs: a session by topic id keeps the name it
// resolved (CachedPartition.maybeResolveUnknownName), so once the topic
// is deleted its partition is UNKNOWN_TOPIC_OR_PARTITION (KafkaApis reads
// it by that name), and once a topic of that name is created again
// INCONSISTENT_TOPIC_ID (ReplicaManager finds the log's id differs),
// while a full fetch by the old id is UNKNOWN_TOPIC_ID. A session opened
// by name cannot go on by id, nor the other way
// (FETCH_SESSION_TOPIC_ID_ERROR).
func TestFetchSessionTopicIDs(t *testing.T) {
	b, addr := served(t, "3.9", onBroker1("sx", 1))
	ctx := context.Background()
	b.Apply(ctx, core.Set{Configs: map[string]string{"auto.create.topics.enable": "false"}})
	byID := newSessionClient(t, b, addr, 17, "sx")
	byName := newSessionClient(t, b, addr, 12, "sx")
	parts := []tp{{"sx", 0, 0}}
	named := byName.fetch(1, 0, 0, parts).SessionID
	id := byID.fetch(1, 0, 0, parts).SessionID
	if id == 0 || named == 0 {
		t.Fatalf("session ids %d and %d", id, named)
	}
	byID.expect("a by-name session by id", byID.fetch(1, named, 1, nil), kerr.FetchSessionTopicIDError.Code, 0)
	byName.expect("a by-id session by name", byName.fetch(1, id, 1, nil), kerr.FetchSessionTopicIDError.Code, 0)

	exists := func(want bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			var ok bool
			b.Do(ctx, func(c *core.Cluster) { _, ok = c.TopicID("sx") })
			if ok == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("topic sx exists: %v, want %v", ok, want)
			}
		}
	}
	b.Apply(ctx, core.DeleteTopic{Topic: "sx"})
	exists(false)
	time.Sleep(50 * time.Millisecond) // the deletion reaches broker 1
	byID.expect("deleted", byID.fetch(1, id, 1, nil), 0, id, fmt.Sprintf("sx-0@-1!%d", kerr.UnknownTopicOrPartition.Code))
	b.Apply(ctx, onBroker1("sx", 1))
	exists(true)
	time.Sleep(50 * time.Millisecond)
	byID.expect("created again", byID.fetch(1, id, 2, nil), 0, id, fmt.Sprintf("sx-0@-1!%d", kerr.InconsistentTopicID.Code))
	byID.expect("a full fetch by the old id", byID.fetch(1, 0, -1, parts), 0, 0, fmt.Sprintf("sx-0@-1!%d", kerr.UnknownTopicID.Code))
}

// TestFetchSessionBadInput: a Fetch forgetting more partitions than a
// request may hold closes its connection (Kafka's bound is memory; ours
// is the core's 10,000 partitions a request), and the broker goes on
// serving sessions on other connections.
func TestFetchSessionBadInput(t *testing.T) {
	b, addr := served(t, "3.9", onBroker1("bad", 1))
	sc := newSessionClient(t, b, addr, 11, "bad")
	id := sc.fetch(1, 0, 0, []tp{{"bad", 0, 0}}).SessionID
	req := kmsg.NewPtrFetchRequest()
	req.Version, req.SessionID, req.SessionEpoch = 11, id, 1
	ft := kmsg.NewFetchRequestForgottenTopic()
	ft.Topic = "bad"
	for i := range core.MaxRequestPartitions + 1 {
		ft.Partitions = append(ft.Partitions, int32(i))
	}
	req.ForgottenTopics = append(req.ForgottenTopics, ft)
	if !closedAfter(t, addr, frame(1, 11, 1, req.AppendTo(nil))) {
		t.Error("a Fetch forgetting 10,001 partitions: connection not closed")
	}
	sc.expect("the session afterwards", sc.fetch(1, id, 1, nil), 0, id)
}
