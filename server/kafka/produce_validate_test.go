package kafka

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceOne is a Produce of records to partition 0 of topic, acks=1.
func produceOne(topic string, records []byte) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = 1, 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = records
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// TestProduceValidateRecords: Kafka's ProduceRequest.validateRecords
// (KafkaApis.handleProduceRequest) answers a v3+ partition whose batch
// is not magic 2 INVALID_RECORD, and a zstd batch below v7
// UNSUPPORTED_COMPRESSION_TYPE (KIP-110); from v7 zstd is appended.
func TestProduceValidateRecords(t *testing.T) {
	b, addr := served(t, "3.9", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	leader, _, _ := leaderOf(t, b, "t")
	plain := encode(recordbatch.Batch{Timestamp: 5, Records: []log.Record{{Value: "v"}}})
	magic1 := append([]byte{}, plain...)
	magic1[16] = 1
	zstd := compressBatch(t, plain, codecZstd)
	badCRC := func(b []byte) []byte {
		b = append([]byte{}, b...)
		b[17] ^= 0xff
		return b
	}
	twice := func(b []byte) []byte { return append(append([]byte{}, b...), b...) }
	// validateRecords's checks come in its order, on the first batch's
	// header, before LogValidator reads the CRC and the records: zstd below
	// v7 is UNSUPPORTED_COMPRESSION_TYPE however broken the rest is.
	for i, c := range []struct {
		v       int16
		records []byte
		want    int16
	}{
		{6, zstd, 76}, {7, zstd, 0}, {7, magic1, 87}, {3, magic1, 87},
		{6, twice(zstd), 76}, {6, badCRC(zstd), 76}, {7, twice(zstd), 87}, {7, badCRC(zstd), 2},
		{7, plain[:16], 87},
	} {
		cl := versionClient(t, addr, 3, 0, c.v)
		resp := requestBroker[*kmsg.ProduceResponse](t, cl, leader, produceOne("t", c.records))
		if resp.Version != c.v {
			t.Fatalf("Produce went out as v%d, want v%d", resp.Version, c.v)
		}
		if got := resp.Topics[0].Partitions[0].ErrorCode; got != c.want {
			t.Errorf("Produce v%d of case %d (%d bytes): code %d, want %d", c.v, i, len(c.records), got, c.want)
		}
	}
}

// TestProduceRefusesFlaggedBatches: a client's batch with the control
// bit is INVALID_RECORD (LogValidator.validateBatch: "Clients are not
// allowed to write control records"), and so, here, are a transactional
// batch (transactions are not simulated) and one with the delete-horizon
// bit (the log cleaner's); each answer is that partition's alone, and a
// plain batch after them is appended.
func TestProduceRefusesFlaggedBatches(t *testing.T) {
	b, addr := served(t, "3.9", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	leader, _, _ := leaderOf(t, b, "t")
	plain := encode(recordbatch.Batch{Timestamp: 5, ProducerID: -1, BaseSequence: -1, Records: []log.Record{{Value: "v"}}})
	flagged := func(bit uint16) []byte {
		f := append([]byte{}, plain...)
		binary.BigEndian.PutUint16(f[21:], binary.BigEndian.Uint16(f[21:])|bit)
		binary.BigEndian.PutUint32(f[17:], crc32.Checksum(f[recordbatch.CRCStart:], recordbatch.CRC32C))
		return f
	}
	cl := versionClient(t, addr, 3, 0, 0)
	for _, c := range []struct {
		name    string
		records []byte
		want    int16
	}{
		{"transactional", flagged(0x10), 87}, {"control", flagged(0x20), 87}, {"delete horizon", flagged(0x40), 87}, {"plain", plain, 0},
	} {
		resp := requestBroker[*kmsg.ProduceResponse](t, cl, leader, produceOne("t", c.records))
		if got := resp.Topics[0].Partitions[0].ErrorCode; got != c.want {
			t.Errorf("a %s batch: code %d, want %d", c.name, got, c.want)
		}
	}
}
