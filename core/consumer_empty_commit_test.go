package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestNothingToCommitSendsNothing: a member with no partition (three
// members, two partitions) auto-commits every 100 ms and calls
// commitSync, yet sends no OffsetCommit: ConsumerCoordinator's
// sendOffsetCommitRequest returns voidSuccess for empty offsets and
// commitOffsetsSync returns at once (0.9 to 4.0). The members that own a
// partition keep committing.
func TestNothingToCommitSendsNothing(t *testing.T) {
	s, err := scenario.Parse(`cluster brokers=3 seed=3 version=3.9 metadata=kraft
set group.initial.rebalance.delay.ms=0 offsets.topic.num.partitions=1
topic create t partitions=2 rf=3
consumer a group=g topics=t auto.commit.interval.ms=100 offset.reset=earliest assignor=range
consumer b group=g topics=t auto.commit.interval.ms=100 offset.reset=earliest assignor=range
consumer c group=g topics=t auto.commit.interval.ms=100 offset.reset=earliest assignor=range
settle
wait 5s
commit a
expect error == none
commit b
expect error == none
commit c
expect error == none
wait 2s
`)
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string]int{}
	res, err := scenario.Run(s, scenario.RunOptions{OnEvent: func(e *core.Event) {
		if e.Type == core.EvMsgSend && e.Msg == "OffsetCommit" {
			sent[e.From]++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Errorf("line %d: %s", f.Line, f.Msg)
	}
	idle := 0
	for _, name := range []string{"a", "b", "c"} {
		if sent[name] == 0 {
			idle++
		} else if sent[name] < 5 {
			t.Errorf("%s sent %d OffsetCommits in 7 s of polls auto-committing every 100 ms", name, sent[name])
		}
	}
	if idle != 1 {
		t.Errorf("OffsetCommits sent by member: %v; want none from the one member without a partition", sent)
	}
}
