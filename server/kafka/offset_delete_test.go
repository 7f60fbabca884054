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

// TestKadmDeleteOffsets: kadm's DeleteOffsets (OffsetDelete v0,
// KIP-496, kafka-consumer-groups.sh --delete-offsets) deletes an Empty
// group's committed offset, which OffsetFetch then answers -1, and the
// group, with no offset left, is gone (GROUP_ID_NOT_FOUND). A group with
// an active consumer keeps the offsets of the topic it subscribes to
// (GROUP_SUBSCRIBED_TO_TOPIC) and loses those of another. The API was
// not served: kadm failed with "broker does not support".
func TestKadmDeleteOffsets(t *testing.T) {
	for _, preset := range kgoPresets {
		t.Run(preset, func(t *testing.T) {
			_, addr := served(t, preset, core.CreateTopic{Topic: "sub", Partitions: 1, RF: 3}, core.CreateTopic{Topic: "other", Partitions: 1, RF: 3})
			adm := kadm.NewClient(versionClient(t, addr, 3, 0, 0))
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			commit := kadm.Offsets{}
			commit.Add(kadm.Offset{Topic: "sub", Partition: 0, At: 3, LeaderEpoch: -1})
			commit.Add(kadm.Offset{Topic: "other", Partition: 0, At: 5, LeaderEpoch: -1})
			for _, g := range []string{"idle", "active"} {
				if _, err := adm.CommitOffsets(ctx, g, commit); err != nil {
					t.Fatal(err)
				}
			}

			res, err := adm.DeleteOffsets(ctx, "idle", kadm.TopicsSet{"sub": {0: {}}})
			if err != nil || res.Error() != nil {
				t.Fatalf("delete of an Empty group's offset: %v %v", err, res.Error())
			}
			fo, err := adm.FetchOffsetsForTopics(ctx, "idle", "sub", "other")
			if err != nil {
				t.Fatal(err)
			}
			if o, ok := fo.Lookup("sub", 0); !ok || o.Err != nil || o.At != -1 {
				t.Errorf("sub-0 after the delete: %+v, want -1", o)
			}
			if o, _ := fo.Lookup("other", 0); o.At != 5 {
				t.Errorf("other-0 after the delete: %+v, want 5 kept", o)
			}
			if _, err := adm.DeleteOffsets(ctx, "idle", kadm.TopicsSet{"other": {0: {}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := adm.DeleteOffsets(ctx, "idle", kadm.TopicsSet{"other": {0: {}}}); !errors.Is(err, kerr.GroupIDNotFound) {
				t.Errorf("the group with no offsets left: %v, want GROUP_ID_NOT_FOUND", err)
			}

			mem := versionClient(t, addr, 3, 0, 0, kgo.ConsumerGroup("active"), kgo.ConsumeTopics("sub"), kgo.DisableAutoCommit())
			go mem.PollFetches(ctx) // joins the group
			waitUntil(t, ctx, "a Stable group", func() bool {
				gs, err := adm.DescribeGroups(ctx, "active")
				return err == nil && gs["active"].State == "Stable"
			})
			res, err = adm.DeleteOffsets(ctx, "active", kadm.TopicsSet{"sub": {0: {}}, "other": {0: {}}})
			if err != nil {
				t.Fatal(err)
			}
			if e, _ := res.Lookup("sub", 0); !errors.Is(e, kerr.GroupSubscribedToTopic) {
				t.Errorf("the subscribed topic: %v, want GROUP_SUBSCRIBED_TO_TOPIC", e)
			}
			if e, ok := res.Lookup("other", 0); !ok || e != nil {
				t.Errorf("the other topic: %v %v, want deleted", e, ok)
			}
			fo, err = adm.FetchOffsetsForTopics(ctx, "active", "sub", "other")
			if err != nil {
				t.Fatal(err)
			}
			if o, _ := fo.Lookup("sub", 0); o.At != 3 {
				t.Errorf("sub-0 of the active group: %+v, want 3 kept", o)
			}
			if o, _ := fo.Lookup("other", 0); o.At != -1 {
				t.Errorf("other-0 of the active group: %+v, want -1", o)
			}
		})
	}
}
