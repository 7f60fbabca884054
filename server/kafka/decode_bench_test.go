package kafka

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
)

// BenchmarkDecodeSnappyBatch decodes a Produce's batch as franz-go sends
// it in make bench (snappy, 100-byte values, keys the record's number):
// the server's own share of each produced record (CRC, inflating,
// checking every record), reported a record.
func BenchmarkDecodeSnappyBatch(b *testing.B) {
	const n = 500
	recs := make([]log.Record, n)
	for i := range recs {
		recs[i] = log.Record{Key: strconv.Itoa(100000 + i), HasKey: true, Value: strings.Repeat("x", 100)}
	}
	w := compressBatch(b, encode(recordbatch.Batch{Timestamp: 5, ProducerID: 1, BaseSequence: 0, Records: recs}), codecSnappy)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := decodeBatches(w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/rec")
}
