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

func (b roomBackend) DoRecorded(ctx context.Context, fn func(c *core.Cluster, rec room.Recorder) error) error {
	return b.r.DoRecorded(ctx, fn)
}

// recording is a Backend whose changes join a history a replay redoes
// (room.Room.DoRecorded): a restore is recorded as commands there.
type recording interface {
	DoRecorded(ctx context.Context, fn func(c *core.Cluster, rec room.Recorder) error) error
}
