package app

import (
	"bytes"
	"encoding/json"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// What a page in live mode reads of an events batch. Under a real
// client's storm most of a batch is its events' records (an append event
// carries the batch it appended), which the copy has already: it only
// checks each event's number, type, time, partition and broker against
// its own. So a batch is decoded into liteEvents, which leaves the rest
// unread, and only a batch with an outside observer's event in it (an
// outside ZooKeeper client's traffic, drawn from the room's stream) is
// decoded whole.

// liteEvents is protocol.Events without the events' details.
type liteEvents struct {
	Gen     int                `json:"gen"`
	Now     int64              `json:"now"`
	Events  []liteEvent        `json:"events"`
	Applied []protocol.Applied `json:"applied"`
}

// liteEvent is what matchEvent reads of a room's event.
type liteEvent struct {
	Seq       uint64         `json:"seq"`
	At        int64          `json:"at"`
	Type      core.EventType `json:"type"`
	Broker    int            `json:"broker"`
	Partition string         `json:"partition"`
	Minor     bool           `json:"minor"`
	Outside   bool           `json:"outside"`
}

// event is the core.Event matchEvent needs.
func (e *liteEvent) event() core.Event {
	return core.Event{Seq: e.Seq, At: e.At, Type: e.Type, Broker: e.Broker, Partition: e.Partition, Minor: e.Minor}
}

// decodeEvents reads an events batch: the events whole only when one is
// an outside observer's (full is then set).
func decodeEvents(data []byte) (lite liteEvents, full *protocol.Events, err error) {
	if err := json.Unmarshal(data, &lite); err != nil {
		return lite, nil, err
	}
	for i := range lite.Events {
		if lite.Events[i].Outside {
			var b protocol.Events
			if err := json.Unmarshal(data, &b); err != nil {
				return lite, nil, err
			}
			return lite, &b, nil
		}
	}
	return lite, nil, nil
}

// eventsPrefix is how the room writes every events batch (protocol.Events
// encoded by encoding/json: its fields in order).
var eventsPrefix = []byte(`{"type":"events","gen":`)

// peek is protocol.Peek without reading a whole events batch twice: a
// batch is the room's most frequent and largest message, and its type
// is its first member.
func peek(data []byte) (string, int64, error) {
	if bytes.HasPrefix(data, eventsPrefix) {
		return protocol.TEvents, 0, nil
	}
	return protocol.Peek(data)
}
