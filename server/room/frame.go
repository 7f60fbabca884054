package room

import (
	"sync"

	"github.com/kafkasim/kafkasim/core"
)

// Frame is one encoded protocol message on its way to subscribers. One
// Frame is shared by every subscriber of a broadcast: it is never changed
// after it is sent, and Prepared lets the websocket layer build its
// prepared form once for all of them.
type Frame struct {
	Data []byte // one JSON protocol message
	Kind string // its type, for stats and tests

	once sync.Once
	prep any
}

// NewFrame wraps an encoded message.
func NewFrame(kind string, data []byte) *Frame { return &Frame{Kind: kind, Data: data} }

// Prepared returns build(f.Data), built at most once however many
// subscribers ask (the websocket layer's *websocket.PreparedMessage).
func (f *Frame) Prepared(build func([]byte) any) any {
	f.once.Do(func() { f.prep = build(f.Data) })
	return f.prep
}

// Batch is what a Hook sees after every step of the room: the events in
// order (shared: do not modify) and, when Reset is set, that the room's
// cluster was replaced (a reset or a load) and Gen is new.
type Batch struct {
	Gen    int
	Reset  bool
	Now    int64
	Events []core.Event
}

// Hook is called on the room's goroutine after every step that produced
// events or replaced the cluster, with the cluster as it is now. It must
// not block and must not keep c beyond the call (the cluster is not safe
// for use from other goroutines); protocol listeners (ZooKeeper, Kafka)
// use it to answer requests whose answers are events.
type Hook func(c *core.Cluster, b Batch)
