package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchByID sends one Fetch for partition 0 of the topic with id to broker.
func fetchByID(t *testing.T, cl *kgo.Client, broker int, id [16]byte, epoch int32) *kmsg.FetchResponse {
	t.Helper()
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 100, 1, 1<<20
	rt := kmsg.NewFetchRequestTopic()
	rt.TopicID = id
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = 0, 0, 1<<20, epoch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return requestBroker[*kmsg.FetchResponse](t, cl, broker, req)
}

// onePartition is the response's only partition, failing unless the
// response names exactly the one topic id asked.
func onePartition(t *testing.T, resp *kmsg.FetchResponse, id [16]byte) kmsg.FetchResponseTopicPartition {
	t.Helper()
	if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("v%d: error %d, %d topics: %+v", resp.Version, resp.ErrorCode, len(resp.Topics), resp.Topics)
	}
	if resp.Topics[0].TopicID != id {
		t.Fatalf("v%d: answered topic id %x, asked %x", resp.Version, resp.Topics[0].TopicID, id)
	}
	return resp.Topics[0].Partitions[0]
}

// TestFetchByTopicID: Fetch v13-v17 reads a topic by the id Metadata
// advertises and names it by id in the response; an id no topic has is
// UNKNOWN_TOPIC_ID. From v16 a broker that does not lead the partition
// (a replica, or one that only knows it from its metadata) says who does
// at which epoch and where that broker listens (KIP-951), and so does the
// leader for a stale leader epoch (FENCED_LEADER_EPOCH); before v16
// neither. The first leader is crashed so that the leader epoch is 1.
func TestFetchByTopicID(t *testing.T) {
	b, addr := served(t, "3.9", core.CreateTopic{Topic: "ids", Partitions: 1, RF: 2})
	produceAll(t, fetchClient(t, addr, 3, 0), "ids", 3, "v")
	first, _, id := leaderOf(t, b, "ids")
	md, err := kadm.NewClient(fetchClient(t, addr, 3, 0)).Metadata(context.Background(), "ids")
	if err != nil || md.Topics["ids"].ID != kadm.TopicID(id) {
		t.Fatalf("Metadata's id %v (%v), the cluster's %x", md.Topics["ids"].ID, err, id)
	}
	setSpeed(b, 20) // through KRaft's 9 s broker session timeout
	b.Apply(context.Background(), core.CrashBroker{Broker: first})
	leader, epoch := first, int32(0)
	for deadline := time.Now().Add(10 * time.Second); leader == first || leader < 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no new leader after broker %d crashed", first)
		}
		leader, epoch, _ = leaderOf(t, b, "ids")
	}
	setSpeed(b, 1)
	outsider := 6 - first - leader     // the broker without a replica
	time.Sleep(100 * time.Millisecond) // the new leader reaches every broker's metadata
	_, port := startPort(addr, leader)
	for _, v := range []int16{13, 14, 15, 16, 17} {
		cl := fetchClient(t, addr, 3, v, kgo.SeedBrokers(addrs(addr, 3)[leader-1])) // not the crashed one
		resp := fetchByID(t, cl, leader, id, epoch)
		if resp.Version != v {
			t.Fatalf("sent v%d, want v%d", resp.Version, v)
		}
		p := onePartition(t, resp, id)
		if p.ErrorCode != 0 || p.HighWatermark != 3 || len(p.RecordBatches) == 0 {
			t.Errorf("v%d from the leader: error %d, HW %d, %d bytes", v, p.ErrorCode, p.HighWatermark, len(p.RecordBatches))
		}

		unknown := id
		unknown[0] ^= 0xff
		if p := onePartition(t, fetchByID(t, cl, leader, unknown, -1), unknown); p.ErrorCode != kerr.UnknownTopicID.Code {
			t.Errorf("v%d: an unknown id answered %d, want UNKNOWN_TOPIC_ID", v, p.ErrorCode)
		}

		for _, tc := range []struct {
			broker int
			epoch  int32
			err    *kerr.Error
		}{{outsider, -1, kerr.NotLeaderForPartition}, {leader, epoch - 1, kerr.FencedLeaderEpoch}} {
			resp := fetchByID(t, cl, tc.broker, id, tc.epoch)
			p := onePartition(t, resp, id)
			if p.ErrorCode != tc.err.Code {
				t.Errorf("v%d from broker %d at epoch %d: error %d, want %s", v, tc.broker, tc.epoch, p.ErrorCode, tc.err.Message)
				continue
			}
			cur := p.CurrentLeader
			if v < 16 {
				if cur.LeaderID != -1 || len(resp.Brokers) != 0 {
					t.Errorf("v%d (%s): current leader %+v, endpoints %+v, want none before v16", v, tc.err.Message, cur, resp.Brokers)
				}
				continue
			}
			if cur.LeaderID != int32(leader) || cur.LeaderEpoch != epoch || len(resp.Brokers) != 1 ||
				resp.Brokers[0].NodeID != int32(leader) || resp.Brokers[0].Port != port {
				t.Errorf("v%d (%s): current leader %+v, endpoints %+v, want broker %d epoch %d at port %d", v, tc.err.Message, cur, resp.Brokers, leader, epoch, port)
			}
		}
	}
}

// TestProduceLeaderHint: a Produce v10 (KIP-951) to a broker that does
// not lead the partition is answered NOT_LEADER_OR_FOLLOWER with the
// leader, its epoch and its endpoint; v9 has neither.
func TestProduceLeaderHint(t *testing.T) {
	b, addr := served(t, "3.9", core.CreateTopic{Topic: "hint", Partitions: 1, RF: 2})
	leader, epoch, _ := leaderOf(t, b, "hint")
	_, port := startPort(addr, leader)
	for _, v := range []int16{9, 10} {
		cl := versionClient(t, addr, 3, 0, v)
		req := kmsg.NewPtrProduceRequest()
		req.Acks, req.TimeoutMillis = -1, 5000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic = "hint"
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Records = recordbatch.Append(nil, &recordbatch.Batch{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Timestamp: 1,
			Records: []log.Record{{Value: "x"}}}, nil)
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp := requestBroker[*kmsg.ProduceResponse](t, cl, leader%3+1, req)
		if resp.Version != v || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("v%d: %+v", resp.Version, resp)
		}
		p := resp.Topics[0].Partitions[0]
		if p.ErrorCode != kerr.NotLeaderForPartition.Code {
			t.Fatalf("v%d: error %d, want NOT_LEADER_OR_FOLLOWER", v, p.ErrorCode)
		}
		cur := p.CurrentLeader
		switch {
		case v < 10 && (cur.LeaderID != -1 || len(resp.Brokers) != 0):
			t.Errorf("v%d: current leader %+v, endpoints %+v, want none", v, cur, resp.Brokers)
		case v >= 10 && (cur.LeaderID != int32(leader) || cur.LeaderEpoch != epoch || len(resp.Brokers) != 1 ||
			resp.Brokers[0].NodeID != int32(leader) || resp.Brokers[0].Port != port):
			t.Errorf("v%d: current leader %+v, endpoints %+v, want broker %d epoch %d at port %d", v, cur, resp.Brokers, leader, epoch, port)
		}
	}
}

func setSpeed(b *wallBackend, speed int64) {
	b.mu.Lock()
	b.speed = speed
	b.mu.Unlock()
}

// startPort is broker id's host and port when broker 1 listens on first.
func startPort(first string, id int) (string, int32) {
	a := addrs(first, id)[id-1]
	i := strings.LastIndexByte(a, ':')
	var port int32
	fmt.Sscan(a[i+1:], &port)
	return a[:i], port
}

// TestFranzGoTopicRecreatedWhileConsuming: a consumer reads a topic that
// is deleted and created again under the same name while it fetches. By
// id (Fetch v13+, franz-go's default against 3.9) its fetches of the old
// id get UNKNOWN_TOPIC_ID (surfaced at once with KeepRetryableFetchErrors;
// franz-go would otherwise wait for the sixth), and it never reads the new
// topic's records: the old id names a topic that is gone. By name (Fetch pinned to v12) the same consumer
// goes on into the new topic (OFFSET_OUT_OF_RANGE, reset to its start)
// and reads its records as if they were the old one's: what topic ids
// were made to prevent (KIP-516).
func TestFranzGoTopicRecreatedWhileConsuming(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fetch int16
	}{{"by id", 0}, {"by name", 12}} {
		t.Run(tc.name, func(t *testing.T) {
			b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "churn", Partitions: 1, RF: 3})
			b.Apply(context.Background(), core.Set{Configs: map[string]string{"auto.create.topics.enable": "false"}})
			_, addr := startServer(t, b, 3)
			prod := fetchClient(t, addr, 3, 0)
			produceAll(t, prod, "churn", 5, "old")
			cons := fetchClient(t, addr, 3, tc.fetch, kgo.ConsumeTopics("churn"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
				kgo.FetchMaxWait(200*time.Millisecond), kgo.MetadataMinAge(100*time.Millisecond), kgo.MetadataMaxAge(500*time.Millisecond),
				kgo.KeepRetryableFetchErrors()) // UNKNOWN_TOPIC_ID at once, not after franz-go's sixth
			if got := consume(t, cons, 5); string(got[4].Value) != "old4" {
				t.Fatalf("read %q last, want old4", got[4].Value)
			}

			adm := kadm.NewClient(prod)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if r, err := adm.DeleteTopics(ctx, "churn"); err != nil || r["churn"].Err != nil {
				t.Fatalf("delete: %v %v", err, r["churn"].Err)
			}
			if r, err := adm.CreateTopic(ctx, 1, 3, nil, "churn"); err != nil || r.Err != nil {
				t.Fatalf("create again: %v %v", err, r.Err)
			}
			prod.PurgeTopicsFromClient("churn") // franz-go keeps the old id for a producer too
			produceAll(t, prod, "churn", 3, "new")

			var records []string
			var unknownID bool
			poll, stop := context.WithTimeout(context.Background(), 8*time.Second)
			defer stop()
			for poll.Err() == nil && !unknownID && len(records) < 3 {
				fs := cons.PollFetches(poll)
				fs.EachRecord(func(r *kgo.Record) { records = append(records, string(r.Value)) })
				fs.EachError(func(topic string, _ int32, err error) {
					unknownID = unknownID || topic == "churn" && errors.Is(err, kerr.UnknownTopicID)
				})
			}
			switch tc.fetch {
			case 0:
				if !unknownID || len(records) > 0 {
					t.Errorf("by id: UNKNOWN_TOPIC_ID surfaced %v, read %q from the new topic; want the error and nothing", unknownID, records)
				}
			default:
				if unknownID || strings.Join(records, ",") != "new0,new1,new2" {
					t.Errorf("by name: UNKNOWN_TOPIC_ID %v, read %q; want the new topic's records", unknownID, records)
				}
			}
		})
	}
}
