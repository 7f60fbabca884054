package core

import (
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
)

// TestCleanedBatchKeepsItsLastSequence: a batch the cleaner compacted
// keeps its header's offset span, so its last sequence is baseSequence +
// lastOffsetDelta (RecordBatch.lastSequence), whatever records are left.
// A replica rebuilding producer state from such a batch (a restart, or a
// new follower fetching a compacted log) must accept the producer's next
// sequence, and an emptied batch kept as the producer's last counts too.
func TestCleanedBatchKeepsItsLastSequence(t *testing.T) {
	for name, b := range map[string]*log.Batch{
		"two of five records left": {BaseOffset: 100, ProducerID: 7, BaseSequence: 10,
			Records: []log.Record{{Value: "a"}, {Value: "e"}}, OffsetDeltas: []int32{0, 4}, LastOffsetDelta: 4},
		"emptied": {BaseOffset: 100, ProducerID: 7, BaseSequence: 10,
			Records: []log.Record{}, OffsetDeltas: []int32{}, LastOffsetDelta: 4},
	} {
		r := &Replica{}
		r.trackProducer(b)
		if _, errName := r.checkSequence(7, 0, 15, 1); errName != "" {
			t.Errorf("%s: sequence 15 after a batch of sequences 10..14: %s", name, errName)
		}
		if _, errName := r.checkSequence(7, 0, 12, 1); errName != "OUT_OF_ORDER_SEQUENCE_NUMBER" {
			t.Errorf("%s: sequence 12 after 10..14 answered %q", name, errName)
		}
	}
}
