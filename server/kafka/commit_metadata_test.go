package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestCommitMetadataAndLeaderEpoch: franz-go's admin client commits
// offsets with metadata and a leader epoch and fetches them back as
// committed (OffsetAndMetadata keeps both; OffsetFetch v8+ and v7 answer
// them), and a metadata longer than offset.metadata.max.bytes (4096 Java
// chars, not bytes: 4096 two-byte characters pass) is
// OFFSET_METADATA_TOO_LARGE for its partition alone, which keeps what it
// had.
func TestCommitMetadataAndLeaderEpoch(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "t", Partitions: 3, RF: 3})
	cl := versionClient(t, addr, 3, 9, 0)
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wide := strings.Repeat("é", 4096)
	commit := func(os ...kadm.Offset) kadm.OffsetResponses {
		t.Helper()
		var offs kadm.Offsets
		for _, o := range os {
			offs.Add(o)
		}
		resp, err := adm.CommitOffsets(ctx, "meta", offs)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := commit(kadm.Offset{Topic: "t", Partition: 0, At: 5, LeaderEpoch: 3, Metadata: "first"},
		kadm.Offset{Topic: "t", Partition: 1, At: 7, LeaderEpoch: -1, Metadata: wide},
		kadm.Offset{Topic: "t", Partition: 2, At: 9, LeaderEpoch: 0})
	if err := resp.Error(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	resp = commit(kadm.Offset{Topic: "t", Partition: 0, At: 6, LeaderEpoch: 4, Metadata: strings.Repeat("x", 4097)},
		kadm.Offset{Topic: "t", Partition: 2, At: 10, LeaderEpoch: 1, Metadata: "second"})
	if r, _ := resp.Lookup("t", 0); r.Err != kerr.OffsetMetadataTooLarge {
		t.Errorf("4097 chars of metadata: %v, want OFFSET_METADATA_TOO_LARGE", r.Err)
	}
	if r, _ := resp.Lookup("t", 2); r.Err != nil {
		t.Errorf("the other partition of that commit: %v", r.Err)
	}
	want := map[int32]kadm.Offset{
		0: {Topic: "t", Partition: 0, At: 5, LeaderEpoch: 3, Metadata: "first"},
		1: {Topic: "t", Partition: 1, At: 7, LeaderEpoch: -1, Metadata: wide},
		2: {Topic: "t", Partition: 2, At: 10, LeaderEpoch: 1, Metadata: "second"},
	}
	fetched, err := adm.FetchOffsets(ctx, "meta")
	if err != nil || fetched.Error() != nil {
		t.Fatalf("fetch: %v %v", err, fetched.Error())
	}
	for p, w := range want {
		got, _ := fetched.Lookup("t", p)
		o := got.Offset
		if got.Err != nil || o.At != w.At || o.LeaderEpoch != w.LeaderEpoch || o.Metadata != w.Metadata {
			t.Errorf("OffsetFetch v9 of t-%d: %v offset %d epoch %d metadata %.10q, want %d %d %.10q", p, got.Err, o.At, o.LeaderEpoch, o.Metadata, w.At, w.LeaderEpoch, w.Metadata)
		}
	}
	// OffsetFetch v7: one group, every partition (a null topic list).
	old := versionClient(t, addr, 3, 9, 7)
	coord := coordinatorOf(t, old, "meta")
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = "meta"
	r7 := requestBroker[*kmsg.OffsetFetchResponse](t, old, int(coord), req)
	n := 0
	for _, rt := range r7.Topics {
		for _, rp := range rt.Partitions {
			w := want[rp.Partition]
			if rp.Offset != w.At || rp.LeaderEpoch != w.LeaderEpoch || rp.Metadata == nil || *rp.Metadata != w.Metadata {
				t.Errorf("OffsetFetch v7 of t-%d: offset %d epoch %d metadata %.10q, want %d %d %.10q", rp.Partition, rp.Offset, rp.LeaderEpoch, deref(rp.Metadata), w.At, w.LeaderEpoch, w.Metadata)
			}
			n++
		}
	}
	if n != 3 {
		t.Errorf("OffsetFetch v7 answered %d partitions, want 3: %+v", n, r7.Topics)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// TestOffsetFetchEmptyTopics: a single group's OffsetFetch (v2-v7) with
// an empty topic list asks for no partition, a null one for every
// partition the group committed (OffsetFetchRequest.isAllPartitions).
func TestOffsetFetchEmptyTopics(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "t", Partitions: 2, RF: 3})
	cl := versionClient(t, addr, 3, 9, 7)
	coord := coordinatorOf(t, cl, "g")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	offs := kadm.Offsets{}
	offs.AddOffset("t", 0, 3, -1)
	offs.AddOffset("t", 1, 4, -1)
	if resp, err := kadm.NewClient(cl).CommitOffsets(ctx, "g", offs); err != nil || resp.Error() != nil {
		t.Fatalf("commit: %v %v", err, resp.Error())
	}
	for _, tc := range []struct {
		topics []kmsg.OffsetFetchRequestTopic
		want   int
	}{{nil, 2}, {[]kmsg.OffsetFetchRequestTopic{}, 0}} {
		req := kmsg.NewPtrOffsetFetchRequest()
		req.Group, req.Topics = "g", tc.topics
		resp := requestBroker[*kmsg.OffsetFetchResponse](t, cl, int(coord), req)
		n := 0
		for _, rt := range resp.Topics {
			n += len(rt.Partitions)
		}
		if resp.ErrorCode != 0 || n != tc.want {
			t.Errorf("OffsetFetch v%d, topics %#v: code %d, %d partitions, want %d", resp.Version, tc.topics, resp.ErrorCode, n, tc.want)
		}
	}
}
