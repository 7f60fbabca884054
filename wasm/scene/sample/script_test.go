package sample

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestReferenceScript: the bench's scenario is the reference shape and
// produces RefRate records a second.
func TestReferenceScript(t *testing.T) {
	src := ReferenceScript(2)
	s, err := scenario.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenario.Run(s, scenario.RunOptions{NoTrace: true})
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("the reference script: %v %v", err, res.Failures)
	}
	c := res.Cluster
	snap := c.Snapshot()
	if len(snap.Brokers) != RefBrokers || len(snap.Topics) < 3 || len(snap.Groups) != 2 {
		t.Fatalf("brokers %d topics %d groups %d", len(snap.Brokers), len(snap.Topics), len(snap.Groups))
	}
	for _, tp := range snap.Topics {
		if strings.HasPrefix(tp.Name, "__") {
			continue
		}
		if len(tp.Partitions) != RefPartitions || len(tp.Partitions[0].Replicas) != RefRF {
			t.Errorf("%s: %d partitions, RF %d", tp.Name, len(tp.Partitions), len(tp.Partitions[0].Replicas))
		}
	}
	if sent := len(c.History().Sent); sent != 2*RefRate {
		t.Errorf("%d records in 2 s, want %d", sent, 2*RefRate)
	}
}
