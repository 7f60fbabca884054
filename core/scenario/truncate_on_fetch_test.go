package scenario

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestTruncateOnFetchFrom28: the old leader of acks1-leader-death comes
// back with m3, which the new leader never had. Before 2.8 it asks
// OffsetsForLeaderEpoch where its epoch ended, then truncates; from 2.8
// (KAFKA-10554) it sends no such request: its first Fetch names its last
// epoch, the leader answers DivergingEpoch, and it truncates from that.
// Either way m3 is cut at the same offset.
func TestTruncateOnFetchFrom28(t *testing.T) {
	for _, tc := range []struct {
		version string
		asks    bool
	}{{"0.11", true}, {"2.8", false}, {"3.9", false}} {
		s, err := Parse(variant(t, "testdata/acks1-leader-death.ksim", "version=3.9", "version="+tc.version))
		if err != nil {
			t.Fatal(err)
		}
		queries := 0
		res, err := Run(s, RunOptions{OnEvent: func(e *core.Event) {
			if e.Type == core.EvMsgSend && e.Msg == "OffsetsForLeaderEpoch" {
				queries++
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Failures {
			t.Errorf("%s: line %d: %s", tc.version, f.Line, f.Msg)
		}
		via := "(Fetch DivergingEpoch)"
		if tc.asks {
			via = "(OffsetsForLeaderEpoch)"
		}
		if asked := queries > 0; asked != tc.asks || !strings.Contains(res.Trace, "truncate to 2, dropping m3 (leader epoch 0 ends at 2 on the leader "+via+")") {
			t.Errorf("%s: %d OffsetsForLeaderEpoch requests, want some: %v; the truncation should name %s:\n%s", tc.version, queries, tc.asks, via, res.Trace)
		}
	}
}
