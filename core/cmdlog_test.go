package core_test

import (
	"encoding/json"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestReplayOutsideClients: a command log holding an outside client's
// connection and requests goes through JSON and replays to the same
// Snapshot as the live cluster had, at several instants.
func TestReplayOutsideClients(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "k1", Host: "kcat", Broker: 1})
	advance(t, c, 20)
	live := map[int64]string{}
	snap := func() {
		b, err := json.Marshal(c.Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		live[c.Now()] = string(b)
	}
	for i := int32(0); i < 4; i++ {
		apply(t, c, produceReq("k1", 2*i, -1, "a", "b"))
		advance(t, c, 7)
		snap()
		apply(t, c, fetchReq("k1", 2*i+1, int64(2*i), 100))
		advance(t, c, 150)
		snap()
	}
	apply(t, c, core.CloseConn{Conn: "k1"})
	advance(t, c, 10)
	snap()
	data, err := json.Marshal(c.CommandLog())
	if err != nil {
		t.Fatal(err)
	}
	var log []core.Logged
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	for at, want := range live {
		r, err := core.Replay(c.Options(), log, at)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r.Snapshot())
		if string(b) != want {
			t.Fatalf("replay to %d: snapshot differs\n got %s\nwant %s", at, b, want)
		}
	}
}
