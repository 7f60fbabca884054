package scenario

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// TestFormatOutsideTooBig: a Produce request whose records alone are past
// the outside limit as JSON is refused before it is encoded (the error
// says so), one whose records fit is formatted, and one between (its
// keys and values within the limit, its JSON not) is still refused,
// by the encoder.
func TestFormatOutsideTooBig(t *testing.T) {
	req := func(n int) core.BrokerRequest {
		recs := make([]log.Record, n)
		for i := range recs {
			recs[i] = log.Record{Key: strconv.Itoa(i), HasKey: true, Value: strings.Repeat("x", 100), TimestampDelta: int64(i)}
		}
		return core.BrokerRequest{Conn: "k1", Correlation: 1, Produce: &core.ProduceRequest{Acks: -1,
			Partitions: []core.ProducePartition{{Topic: "t", Records: recs}}}}
	}
	if _, err := FormatCommand(req(12_000)); err == nil || !strings.Contains(err.Error(), "records alone") {
		t.Fatalf("12,000 records of 100 bytes: %v, want the records-alone refusal", err)
	}
	if _, err := FormatCommand(req(7_000)); err == nil || strings.Contains(err.Error(), "records alone") || !strings.Contains(err.Error(), "more than the limit") {
		t.Fatalf("7,000 records of 100 bytes: %v, want the encoder's refusal", err)
	}
	line, err := FormatCommand(req(100))
	if err != nil || !strings.HasPrefix(line, "outside ") {
		t.Fatalf("100 records: %q, %v", line, err)
	}
}
