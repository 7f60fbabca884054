package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
)

// restoredTopics is a topic of two partitions as three brokers' disks
// held it: batches of records whose values are not UTF-8, enough of them
// that the restore needs several parts.
func restoredTopics() []RestoredTopic {
	x := uint32(7)
	rnd := func() byte { x = x*1664525 + 1013904223; return byte(x >> 24) }
	assign := [][]int{{1, 2, 3}, {2, 3, 1}}
	rt := RestoredTopic{Topic: "t", Configs: map[string]string{"segment.bytes": "100000"}, Assign: assign, LeaderEpochs: []int32{2, 0}}
	for p := range assign {
		var reps []RestoredReplica
		for _, b := range assign[p] {
			var seg log.RestoredSegment
			for i := 0; i < 40; i++ {
				bt := &log.Batch{BaseOffset: int64(i * 3), Epoch: 2, ProducerID: 4000 + int64(p), BaseSequence: int32(i * 3), Timestamp: int64(i)}
				for j := 0; j < 3; j++ {
					v := make([]byte, 200)
					for k := range v {
						v[k] = rnd()
					}
					bt.Records = append(bt.Records, log.Record{Key: "k\xff", HasKey: true, Value: string(v), TimestampDelta: int64(j),
						Headers: []log.Header{{Key: "h", Value: "\x00\x80"}, {Key: "n", Null: true}}})
					if i == 4 && j == 2 { // a tombstone
						bt.Records[j].Value, bt.Records[j].NullValue = "", true
					}
				}
				seg.Batches = append(seg.Batches, bt)
			}
			if b == 3 { // a follower behind
				seg.Batches = seg.Batches[:30]
			}
			reps = append(reps, RestoredReplica{Broker: b, Segments: []log.RestoredSegment{seg}, Epochs: []log.EpochEntry{{Epoch: 2, StartOffset: 0}}, HW: 60})
		}
		rt.Replicas = append(rt.Replicas, reps)
	}
	return []RestoredTopic{rt}
}

// trace is the events of c so far as text, and its snapshot as JSON.
func trace(t *testing.T, c *Cluster) (string, string) {
	t.Helper()
	if _, err := c.Advance(5000); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range c.Events() {
		fmt.Fprintf(&b, "%d %s %s\n", e.At, e.Type, e.Text())
	}
	js, _ := json.Marshal(c.Snapshot())
	return b.String(), string(js)
}

// TestRestoreChunks: a restore applied as its parts gives the cluster
// RestoreTopics gives (same events, same snapshot), every byte of the
// records included.
func TestRestoreChunks(t *testing.T) {
	opts := Options{Brokers: 3, Seed: 3, Version: "3.9", Metadata: "kraft"}
	direct, _ := New(opts)
	if err := direct.RestoreTopics(restoredTopics()); err != nil {
		t.Fatal(err)
	}
	parts, err := EncodeRestore(restoredTopics())
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 2 {
		t.Fatalf("%d parts: the test wants several", len(parts))
	}
	viaCmds, _ := New(opts)
	for _, p := range parts {
		if len(p.Data) > MaxRestoreChunkBytes {
			t.Fatalf("part %d: %d bytes", p.Part, len(p.Data))
		}
		if err := viaCmds.Apply(p); err != nil {
			t.Fatal(err)
		}
	}
	t1, s1 := trace(t, direct)
	t2, s2 := trace(t, viaCmds)
	if t1 != t2 || s1 != s2 {
		t.Fatalf("restored by parts differs:\n%s\n%s\nvs\n%s\n%s", t2, s2, t1, s1)
	}
	if !strings.Contains(t1, "restored t from disk") {
		t.Fatalf("no restore in the trace:\n%s", t1)
	}
	back, err := DecodeRestore(joinParts(parts))
	if err != nil {
		t.Fatal(err)
	}
	r := back[0].Replicas[1][2].Segments[0].Batches[4].Records[1]
	w := restoredTopics()[0].Replicas[1][2].Segments[0].Batches[4].Records[1]
	if r.Value != w.Value || r.Key != "k\xff" || r.Headers[0].Value != "\x00\x80" || !r.Headers[1].Null {
		t.Fatalf("a record came back as %+v", r)
	}
	if n := back[0].Replicas[1][2].Segments[0].Batches[4].Records[2]; !n.NullValue || n.Value != "" || r.NullValue {
		t.Fatalf("a null value came back as %+v (the record before it %+v)", n, r)
	}
}

func joinParts(ps []RestoreChunk) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Data)
	}
	return b.String()
}

// TestRestoreChunkErrors: parts out of order, bad sizes and text that
// does not decode are errors that change nothing.
func TestRestoreChunkErrors(t *testing.T) {
	parts, err := EncodeRestore(restoredTopics())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(Options{Brokers: 3, Seed: 3, Version: "3.9", Metadata: "kraft"})
	for _, tc := range []struct {
		cmd  RestoreChunk
		want string
	}{
		{parts[1], "came where part 1 was expected"},
		{RestoreChunk{Part: 0, Of: 2, Data: "AA"}, "part 0 of 2"},
		{RestoreChunk{Part: 1, Of: MaxRestoreParts + 1, Data: "AA"}, "parts: want 1 to"},
		{RestoreChunk{Part: 1, Of: 1, Data: ""}, "0 bytes of data"},
		{RestoreChunk{Part: 1, Of: 1, Data: strings.Repeat("A", MaxRestoreChunkBytes+1)}, "bytes of data"},
		{RestoreChunk{Part: 1, Of: 1, Data: "ab#c"}, "not base64"},
		{RestoreChunk{Part: 1, Of: 1, Data: "AAAA"}, "restore:"},
	} {
		err := c.Apply(tc.cmd)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("part %d of %d: %v, want %q", tc.cmd.Part, tc.cmd.Of, err, tc.want)
		}
	}
	if err := c.Apply(parts[0]); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(RestoreChunk{Part: 3, Of: parts[0].Of, Data: "AA"}); err == nil || !strings.Contains(err.Error(), "where part 2 of") {
		t.Fatalf("a skipped part: %v", err)
	}
	for _, p := range parts[1:] {
		if err := c.Apply(p); err != nil {
			t.Fatal(err)
		}
	}
	if c.Topic("t") == nil {
		t.Fatal("not restored after the errors")
	}
	// The same restore again: the topic exists.
	for i, p := range parts {
		err := c.Apply(p)
		if i < len(parts)-1 && err != nil || i == len(parts)-1 && (err == nil || !strings.Contains(err.Error(), "TOPIC_ALREADY_EXISTS")) {
			t.Fatalf("part %d again: %v", p.Part, err)
		}
	}
}

// TestRestoreRefusesNullValueWithBytes: a restored record with a null
// value and value bytes breaks log.Record's invariant, so RestoreTopics
// refuses it, as checkProduce refuses it in a produce, and makes nothing.
func TestRestoreRefusesNullValueWithBytes(t *testing.T) {
	c, _ := New(Options{Brokers: 3, Seed: 3, Version: "3.9", Metadata: "kraft"})
	ts := restoredTopics()
	ts[0].Replicas[1][0].Segments[0].Batches[7].Records[1].NullValue = true
	err := c.RestoreTopics(ts)
	if err == nil || !strings.Contains(err.Error(), "null value") {
		t.Fatalf("RestoreTopics: %v, want a null value error", err)
	}
	if c.topics["t"] != nil {
		t.Errorf("topic t made despite the error")
	}
}
