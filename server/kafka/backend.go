package kafka

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
)

// Backend is the served cluster as the listeners need it: the one
// goroutine that owns a core.Cluster, advanced by the wall clock
// (server/room.Room is one; see FromRoom).
type Backend interface {
	// Apply runs one command on the cluster at the current instant.
	Apply(ctx context.Context, cmd core.Command) error
	// Do runs fn on the cluster's goroutine and waits for it.
	Do(ctx context.Context, fn func(c *core.Cluster)) error
	// Watch calls fn on the cluster's goroutine after every step that
	// produced events, and with reset true when the cluster was replaced
	// (a reset or a new scenario). fn must not block.
	Watch(fn func(c *core.Cluster, events []core.Event, reset bool)) (stop func(), err error)
}
