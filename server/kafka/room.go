package kafka

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/room"
)

// FromRoom is the Backend of a served room. Outside clients' commands
// run on the room's goroutine but stay out of its scenario history: a
// real client's traffic is not something a replay or a fork can redo.
func FromRoom(r *room.Room) Backend { return roomBackend{r} }

type roomBackend struct{ r *room.Room }

func (b roomBackend) Apply(ctx context.Context, cmd core.Command) error {
	var err error
	if rerr := b.r.Do(ctx, func(c *core.Cluster) { err = c.Apply(cmd) }); rerr != nil {
		return rerr
	}
	return err
}

func (b roomBackend) Do(ctx context.Context, fn func(c *core.Cluster)) error { return b.r.Do(ctx, fn) }

func (b roomBackend) Watch(fn func(c *core.Cluster, events []core.Event, reset bool)) (func(), error) {
	return b.r.AddHook(func(c *core.Cluster, bt room.Batch) { fn(c, bt.Events, bt.Reset) })
}
