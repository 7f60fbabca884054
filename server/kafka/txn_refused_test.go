package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// txnFailFast bounds how long a transactional producer may take to be
// told transactions are refused: a few round trips, where a retriable
// answer had franz-go retry until its context ended and sarama for its
// 50 transaction retries.
const txnFailFast = 4 * time.Second

// TestTransactionsRefused: transactions are not simulated, so a
// transactional producer's FindCoordinator (key type 1) and
// InitProducerId are TRANSACTIONAL_ID_AUTHORIZATION_FAILED, which
// franz-go, sarama and kafkajs take as fatal and report at once. With
// COORDINATOR_NOT_AVAILABLE franz-go retried until the produce's
// context ended (30 s here), sarama for minutes at its defaults and
// kafkajs for its retries (about 30 s).
func TestTransactionsRefused(t *testing.T) {
	_, addr := served(t, "4.0", core.CreateTopic{Topic: "tx", Partitions: 1, RF: 3})
	t.Run("franz-go", func(t *testing.T) {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.TransactionalID("tx-kgo"), kgo.DefaultProduceTopic("tx"))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		// BeginTransaction initializes the producer id (franz-go's
		// maybeRecoverProducerID) and reports its fatal error; else the
		// produce does.
		if err = cl.BeginTransaction(); err == nil {
			err = cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v")}).FirstErr()
		}
		if took := time.Since(start); !errors.Is(err, kerr.TransactionalIDAuthorizationFailed) || took > txnFailFast {
			t.Fatalf("transactional produce: %v after %v, want TRANSACTIONAL_ID_AUTHORIZATION_FAILED within %v", err, took, txnFailFast)
		}
	})
	t.Run("sarama", func(t *testing.T) {
		cfg := saramaConfig()
		cfg.Producer.Idempotent = true
		cfg.Producer.Transaction.ID = "tx-sarama"
		cfg.Net.MaxOpenRequests = 1
		// sarama retries even a fatal FindCoordinator error through
		// initProducerId (Transaction.Retry.Max, 50 by default: 5 s); on
		// COORDINATOR_NOT_AVAILABLE each try also waited 2 s for
		// __transaction_state, Metadata.Retry.Max times.
		cfg.Producer.Transaction.Retry.Max = 3
		start := time.Now()
		prod, err := sarama.NewSyncProducer(addrs(addr, 3), cfg)
		if err == nil {
			prod.Close()
		}
		if took := time.Since(start); !errors.Is(err, sarama.ErrTransactionalIDAuthorizationFailed) || took > txnFailFast {
			t.Fatalf("sarama transactional producer: %v after %v, want TRANSACTIONAL_ID_AUTHORIZATION_FAILED within %v", err, took, txnFailFast)
		}
	})
	t.Run("kafkajs", func(t *testing.T) {
		dir := kafkajsDir(t)
		script, err := filepath.Abs(filepath.Join("testdata", "kafkajs", "txn.js"))
		if err != nil {
			t.Fatal(err)
		}
		out := runClient(t, "kafkajs", []string{"NODE_PATH=" + filepath.Join(dir, "node_modules")}, "node", script, strings.Join(addrs(addr, 3), ","))
		var res struct {
			Began bool
			Error string
			MS    int64
		}
		if err := json.Unmarshal([]byte(lastLines(out, 1)), &res); err != nil {
			t.Fatalf("kafkajs output %q: %v", out, err)
		}
		// kafkajs tries each broker for the transaction coordinator,
		// retrying only COORDINATOR_NOT_AVAILABLE, and reports any other
		// error as KafkaJSGroupCoordinatorNotFound without the broker's
		// (Cluster.findGroupCoordinatorMetadata).
		if took := time.Duration(res.MS) * time.Millisecond; res.Began || res.Error != "KafkaJSGroupCoordinatorNotFound" || took > txnFailFast {
			t.Fatalf("kafkajs transaction: %+v after %v, want KafkaJSGroupCoordinatorNotFound within %v", res, took, txnFailFast)
		}
	})
}
