package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/kafkasim/kafkasim/core"
)

// saramaConfig is sarama's defaults (it speaks Kafka 2.8's protocol)
// with the short timeouts a test wants.
func saramaConfig() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.ClientID = "sarama-test"
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Retry.Backoff = 50 * time.Millisecond
	cfg.Metadata.Retry.Backoff = 50 * time.Millisecond
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 100 * time.Millisecond
	return cfg
}

// TestSarama: IBM/sarama produces (acks=all, headers and timestamps),
// consumes a partition, and runs a consumer group of two members that
// together read every record, against a 2.8 cluster (sarama's default
// protocol version), a 3.9 one and a 4.0 one: at its default version
// 2.8 sarama asks for none of the versions 4.0 removed (KIP-896 took
// sarama 1.30.1 among the clients whose versions it keeps).
func TestSarama(t *testing.T) {
	for _, preset := range []string{"2.8", "3.9", "4.0"} {
		t.Run(preset, func(t *testing.T) { saramaRun(t, preset) })
	}
}

// TestSaramaOldVersionOn40: sarama told it talks to Kafka 0.10.2 sends
// Produce v2 (message format v1), which 4.0 lists (KAFKA-18659) but
// refuses, closing the connection: the send fails with EOF, not with an
// error code.
func TestSaramaOldVersionOn40(t *testing.T) {
	b := threeBrokers(t, "4.0", "kraft", core.CreateTopic{Topic: "events", Partitions: 1, RF: 3})
	_, addr := startServer(t, b, 3)
	cfg := saramaConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Retry.Max = 1
	prod, err := sarama.NewSyncProducer(addrs(addr, 3), cfg)
	if err != nil {
		t.Fatalf("sarama producer: %v", err)
	}
	defer prod.Close()
	_, _, err = prod.SendMessage(&sarama.ProducerMessage{Topic: "events", Value: sarama.StringEncoder("v")})
	if !errors.Is(err, io.EOF) {
		t.Fatalf("Produce v2 to a 4.0 cluster: %v, want the connection closed (EOF)", err)
	}
}

func saramaRun(t *testing.T, preset string) {
	b := threeBrokers(t, preset, "kraft", core.CreateTopic{Topic: "events", Partitions: 4, RF: 3})
	_, addr := startServer(t, b, 3)
	brokers := addrs(addr, 3)
	cfg := saramaConfig()
	prod, err := sarama.NewSyncProducer(brokers, cfg)
	if err != nil {
		t.Fatalf("sarama producer: %v", err)
	}
	const n = 40
	stamp := time.UnixMilli(1_700_000_000_000)
	for i := 0; i < n; i++ {
		m := &sarama.ProducerMessage{Topic: "events", Key: sarama.StringEncoder(fmt.Sprint("k", i)), Value: sarama.StringEncoder(fmt.Sprint("v", i)),
			Timestamp: stamp.Add(time.Duration(i) * time.Second), Headers: []sarama.RecordHeader{{Key: []byte("n"), Value: []byte(fmt.Sprint(i))}}}
		if _, _, err := prod.SendMessage(m); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	prod.Close()

	// One partition through the plain consumer.
	cons, err := sarama.NewConsumer(brokers, saramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	pc, err := cons.ConsumePartition("events", 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	hwm := pc.HighWaterMarkOffset()
	deadline := time.After(20 * time.Second)
	for got := int64(0); got < hwm; got++ {
		select {
		case m := <-pc.Messages():
			i := 0
			fmt.Sscanf(string(m.Value), "v%d", &i)
			if len(m.Headers) != 1 || string(m.Headers[0].Value) != fmt.Sprint(i) || !m.Timestamp.Equal(stamp.Add(time.Duration(i)*time.Second)) {
				t.Errorf("record %s: headers %v timestamp %v", m.Value, m.Headers, m.Timestamp)
			}
		case err := <-pc.Errors():
			t.Fatalf("partition consumer: %v", err)
		case <-deadline:
			t.Fatalf("partition 0: read %d of %d", got, hwm)
		}
	}
	pc.Close()

	// A consumer group of two members.
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	seen := &saramaSeen{values: map[string]bool{}, done: make(chan struct{})}
	var wg sync.WaitGroup
	for m := 0; m < 2; m++ {
		g, err := sarama.NewConsumerGroup(brokers, "sarama-group", saramaConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := g.Consume(ctx, []string{"events"}, seen); err != nil && ctx.Err() == nil {
					t.Logf("group member: %v", err)
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	select {
	case <-seen.done:
	case <-ctx.Done():
	}
	cancel()
	wg.Wait()
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if len(seen.values) != n {
		t.Fatalf("the group read %d distinct records, want %d", len(seen.values), n)
	}
	if len(seen.members) < 2 {
		t.Errorf("records came through %d member(s), want both", len(seen.members))
	}
}

// saramaSeen is a ConsumerGroupHandler that marks every record and
// closes done when it has seen 40 distinct values.
type saramaSeen struct {
	mu      sync.Mutex
	values  map[string]bool
	members map[string]bool
	done    chan struct{}
	closed  bool
}

func (s *saramaSeen) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (s *saramaSeen) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (s *saramaSeen) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		s.mu.Lock()
		s.values[string(m.Value)] = true
		if s.members == nil {
			s.members = map[string]bool{}
		}
		s.members[sess.MemberID()] = true
		if len(s.values) == 40 && !s.closed {
			s.closed = true
			close(s.done)
		}
		s.mu.Unlock()
		sess.MarkMessage(m, "")
	}
	return nil
}
