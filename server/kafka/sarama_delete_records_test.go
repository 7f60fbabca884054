package kafka

import (
	"errors"
	"testing"

	"github.com/IBM/sarama"
	"github.com/kafkasim/kafkasim/core"
)

// TestSaramaDeleteRecordsAndOffset: sarama's ClusterAdmin.DeleteRecords
// (DeleteRecords v2 from its 2.6 on) moves the log start offset, which
// the client's GetOffset(OffsetOldest) then answers, and one above the
// high watermark is OFFSET_OUT_OF_RANGE; DeleteConsumerGroupOffset
// (OffsetDelete v0) deletes a standalone consumer's committed offset.
func TestSaramaDeleteRecordsAndOffset(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "sdr", Partitions: 1, RF: 3})
	produceAll(t, versionClient(t, addr, 3, 0, 0), "sdr", 5, "s")
	cfg := saramaConfig()
	cfg.Version = sarama.V2_8_0_0
	cl, err := sarama.NewClient(addrs(addr, 3), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm, err := sarama.NewClusterAdminFromClient(cl)
	if err != nil {
		t.Fatal(err)
	}
	if err := adm.DeleteRecords("sdr", map[int32]int64{0: 3}); err != nil {
		t.Fatalf("delete records: %v", err)
	}
	if off, err := cl.GetOffset("sdr", 0, sarama.OffsetOldest); err != nil || off != 3 {
		t.Errorf("oldest offset %d (%v), want 3", off, err)
	}
	if err := adm.DeleteRecords("sdr", map[int32]int64{0: 9}); !errors.Is(err, sarama.ErrOffsetOutOfRange) {
		t.Errorf("delete above the high watermark: %v, want OFFSET_OUT_OF_RANGE", err)
	}
	saramaCommit(t, cl, "standalone", "sdr", 4, "")
	if err := adm.DeleteConsumerGroupOffset("standalone", "sdr", 0); err != nil {
		t.Fatalf("delete offset: %v", err)
	}
	if r, err := adm.ListConsumerGroupOffsets("standalone", map[string][]int32{"sdr": {0}}); err != nil || r.Blocks["sdr"][0].Offset != -1 {
		t.Fatalf("offsets after: %v %+v, want -1", err, r.Blocks["sdr"][0])
	}
}
