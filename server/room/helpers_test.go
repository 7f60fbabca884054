package room

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// appliedOf drains sub's queued frames and returns the commands their
// event batches announce, in order.
func appliedOf(t *testing.T, sub *Sub) []protocol.Applied {
	t.Helper()
	var applied []protocol.Applied
	for len(sub.C) > 0 {
		f := <-sub.C
		if f.Kind != protocol.TEvents {
			continue
		}
		var b protocol.Events
		if err := json.Unmarshal(f.Data, &b); err != nil {
			t.Fatal(err)
		}
		applied = append(applied, b.Applied...)
	}
	return applied
}

// replayHistory replays r's history from scratch and fails t unless it
// parses, runs without a failed check and ends in the room's own state;
// it returns the history and the room's snapshot as JSON.
func replayHistory(t *testing.T, r *Room) (protocol.History, string) {
	t.Helper()
	h, err := r.History(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(h.Ksim)
	if err != nil {
		t.Fatalf("the history does not parse: %v\n%s", err, h.Ksim)
	}
	res, err := scenario.Run(sc, scenario.RunOptions{NoTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("the replay failed: %+v\n%s", res.Failures, h.Ksim)
	}
	if res.Cluster.Now() != h.At {
		t.Fatalf("the replay ends at %d, the room is at %d", res.Cluster.Now(), h.At)
	}
	got, _ := json.Marshal(res.Cluster.Snapshot())
	want, _ := json.Marshal(h.Snapshot)
	if string(got) != string(want) {
		t.Fatalf("the history replays to another state\nreplay: %s\nroom:   %s\nhistory:\n%s", got, want, h.Ksim)
	}
	return h, string(want)
}
