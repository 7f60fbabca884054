package main

import (
	"context"
	"fmt"
	"io"

	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/storage"
)

// openStorage opens --data-dir before the room is made: a directory that
// holds a cluster gives the cluster line the room must be made from
// ("" for a new directory).
func openStorage(dir string, stderr io.Writer) (*storage.Store, string, error) {
	st, err := storage.Open(dir, storage.Options{Logf: func(f string, a ...any) { fmt.Fprintf(stderr, "kafkasim: "+f+"\n", a...) }})
	if err != nil {
		return nil, "", err
	}
	line, err := st.Cluster()
	if err != nil {
		st.Close()
		return nil, "", err
	}
	return st, line, nil
}

// followStorage recovers the directory's logs into the default room's
// cluster (made from its cluster line), then keeps every replica's log
// there in Kafka's layout, one log.dirs per simulated broker
// (DIR/broker-N).
func followStorage(ctx context.Context, st *storage.Store, dir string, srv *server.Server, stdout io.Writer) error {
	b := storage.FromRoom(srv.DefaultRoom())
	if err := st.Restore(ctx, b); err != nil {
		return err
	}
	if err := st.Follow(ctx, b); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "  disk:    %s/broker-N/<topic>-<partition>/ holds each replica's log in Kafka's format (docs/storage.md)\n", dir)
	return nil
}
