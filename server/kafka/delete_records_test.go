package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// logStarts is each replica's log start offset of partition.
func logStarts(t *testing.T, b *wallBackend, partition string) map[int]int64 {
	t.Helper()
	out := map[int]int64{}
	b.Do(context.Background(), func(c *core.Cluster) {
		p, err := c.Partition(partition)
		if err != nil {
			t.Error(err)
			return
		}
		for _, id := range p.Replicas() {
			if r := c.Broker(id).Replica(p); r != nil {
				out[id] = r.Log().StartOffset()
			}
		}
	})
	return out
}

// TestKadmDeleteRecords: kadm's DeleteRecords (DeleteRecords v2,
// KIP-107) moves the partition's log start offset: answered with the
// low watermark once every replica's log start has reached it (the
// followers take it from their Fetch responses), after which
// ListOffsets earliest is the new start and a consumer from the start
// reads from there. An offset above the high watermark is
// OFFSET_OUT_OF_RANGE and moves nothing. The API was not served: kadm
// failed with "broker does not support".
func TestKadmDeleteRecords(t *testing.T) {
	for _, preset := range kgoPresets {
		t.Run(preset, func(t *testing.T) {
			b, addr := served(t, preset, core.CreateTopic{Topic: "dr", Partitions: 1, RF: 3})
			cl := versionClient(t, addr, 3, 0, 0)
			produceAll(t, cl, "dr", 10, "r")
			adm := kadm.NewClient(cl)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			del := kadm.Offsets{}
			del.Add(kadm.Offset{Topic: "dr", Partition: 0, At: 6})
			res, err := adm.DeleteRecords(ctx, del)
			starts := logStarts(t, b, "dr-0") // right after the answer
			if err != nil {
				t.Fatal(err)
			}
			r, ok := res.Lookup("dr", 0)
			if !ok || r.Err != nil || r.LowWatermark != 6 {
				t.Fatalf("delete: %+v (%v), want low watermark 6", r, ok)
			}
			if len(starts) != 3 {
				t.Fatalf("replicas %v", starts)
			}
			for id, s := range starts {
				if s < 6 {
					t.Errorf("answered while broker %d's log start was %d, below 6 (log starts %v)", id, s, starts)
				}
			}
			lo, err := adm.ListStartOffsets(ctx, "dr")
			if err != nil {
				t.Fatal(err)
			}
			if o, _ := lo.Lookup("dr", 0); o.Err != nil || o.Offset != 6 {
				t.Errorf("earliest %+v, want 6", o)
			}
			cons := versionClient(t, addr, 3, 0, 0, kgo.ConsumeTopics("dr"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			fs := cons.PollRecords(ctx, 1)
			if recs := fs.Records(); len(recs) == 0 || recs[0].Offset != 6 || string(recs[0].Value) != "r6" {
				t.Errorf("a consumer from the start read %+v (errors %v), want r6 at 6 first", recs, fs.Errors())
			}
			del = kadm.Offsets{}
			del.Add(kadm.Offset{Topic: "dr", Partition: 0, At: 11})
			res, err = adm.DeleteRecords(ctx, del)
			if err != nil {
				t.Fatal(err)
			}
			if r, _ := res.Lookup("dr", 0); !errors.Is(r.Err, kerr.OffsetOutOfRange) {
				t.Errorf("above the high watermark: %+v, want OFFSET_OUT_OF_RANGE", r)
			}
			if s := logStarts(t, b, "dr-0"); s[1] != 6 || s[2] != 6 || s[3] != 6 {
				t.Errorf("log starts %v after the refused delete, want 6", s)
			}
		})
	}
}

// TestDeleteRecordsAdvertised: DeleteRecords from the 0.11 preset on
// (KIP-107), not on 0.8, whose followers do not take their leader's log
// start; OffsetDelete (KIP-496, 2.4) from 2.8.
func TestDeleteRecordsAdvertised(t *testing.T) {
	for _, tc := range []struct {
		preset                   string
		deleteRecords, offsetDel bool
	}{{"0.8", false, false}, {"0.11", true, false}, {"2.8", true, true}, {"3.9", true, true}, {"4.0", true, true}} {
		tb := tableFor(tc.preset)
		dr, hasDR := tb[21]
		_, hasOD := tb[47]
		if hasDR != tc.deleteRecords || hasOD != tc.offsetDel {
			t.Errorf("%s: DeleteRecords %v, OffsetDelete %v; want %v, %v", tc.preset, hasDR, hasOD, tc.deleteRecords, tc.offsetDel)
		}
		if hasDR && tc.preset != "0.11" && dr.max != 2 {
			t.Errorf("%s: DeleteRecords up to v%d, want v2", tc.preset, dr.max)
		}
	}
}
