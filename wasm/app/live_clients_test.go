//go:build !js

package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// producer is a franz-go client of o's cluster that produces to orders
// (logging nothing); the caller closes it.
func (o *outsideServe) producer(t testing.TB) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(o.kafka), kgo.DefaultProduceTopic("orders"), kgo.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// produceStorm has cl produce n records every 10 ms (values
// storm-TICK-J, acks not awaited) until ctx ends; the channel is closed
// once it has stopped.
func produceStorm(ctx context.Context, cl *kgo.Client, n int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for i := 0; ctx.Err() == nil; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
			}
			for j := 0; j < n; j++ {
				cl.Produce(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("storm-%d-%d", i, j))}, nil)
			}
		}
	}()
	return done
}
