package kafka

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/room"
)

// FromRoom is the Backend of a served room. Outside clients' commands
// (connections and requests) run on the room's goroutine and join its
// history as `outside` lines (room.Room.Apply): a page following the room
// applies the same typed requests at the same virtual times, so its copy
// of the cluster stays the room's, and the room's exported history
// replays them.
func FromRoom(r *room.Room) Backend { return roomBackend{r} }

type roomBackend struct{ r *room.Room }

func (b roomBackend) Apply(ctx context.Context, cmd core.Command) error { return b.r.Apply(ctx, cmd) }

func (b roomBackend) Do(ctx context.Context, fn func(c *core.Cluster)) error { return b.r.Do(ctx, fn) }

func (b roomBackend) Watch(fn func(c *core.Cluster, events []core.Event, reset bool)) (func(), error) {
	return b.r.AddHook(func(c *core.Cluster, bt room.Batch) { fn(c, bt.Events, bt.Reset) })
}
