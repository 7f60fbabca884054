package main

import (
	"context"
	"fmt"
	"io"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/kafka"
	"github.com/kafkasim/kafkasim/server/storage"
)

// startStorage keeps the default room's replica logs in dir (--data-dir):
// Kafka's layout, one log.dirs per simulated broker (dir/broker-N). It
// returns the store's clock (so Kafka clients read the timestamps the
// files hold) and its closer.
func startStorage(ctx context.Context, dir string, srv *server.Server, stdout, stderr io.Writer) (func(*core.Cluster) int64, func(), error) {
	st, err := storage.Open(dir, storage.Options{Logf: func(f string, a ...any) { fmt.Fprintf(stderr, "kafkasim: "+f+"\n", a...) }})
	if err != nil {
		return nil, nil, err
	}
	b := kafka.FromRoom(srv.DefaultRoom())
	if err := st.Follow(ctx, b); err != nil {
		st.Close()
		return nil, nil, err
	}
	fmt.Fprintf(stdout, "  disk:    %s/broker-N/<topic>-<partition>/ holds each replica's log in Kafka's format (docs/storage.md)\n", dir)
	return st.ClockOffset, func() { st.Close() }, nil
}
