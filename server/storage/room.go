package storage

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/room"
)

// FromRoom is the Backend of a served room.
func FromRoom(r *room.Room) Backend { return roomBackend{r} }

type roomBackend struct{ r *room.Room }

func (b roomBackend) Do(ctx context.Context, fn func(c *core.Cluster)) error { return b.r.Do(ctx, fn) }

func (b roomBackend) Watch(fn func(c *core.Cluster, events []core.Event, reset bool)) (func(), error) {
	return b.r.AddHook(func(c *core.Cluster, bt room.Batch) { fn(c, bt.Events, bt.Reset) })
}

func (b roomBackend) DoUnreplayable(ctx context.Context, why string, fn func(c *core.Cluster) error) error {
	return b.r.DoUnreplayable(ctx, why, fn)
}

// unreplayable is a Backend that can record that a change has no command
// a replay could redo (room.Room.DoUnreplayable).
type unreplayable interface {
	DoUnreplayable(ctx context.Context, why string, fn func(c *core.Cluster) error) error
}
