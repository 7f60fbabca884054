package app

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// TestTopicDeletionScenes plays the ZooKeeper deletion golden (a topic
// deleted while a broker is down, then created again) through the page's
// engine, building the scene in every view and every panel each virtual
// second: nothing fails on a partition that vanished or came back as a
// new topic, a deleted topic's partitions leave the picture once its
// deletion completed (while it waits for broker 2 the topic still
// exists, in ZooKeeper and on broker 2's disk, and is drawn marked for
// deletion), and its
// records are not findings (they were deleted, not lost).
func TestTopicDeletionScenes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "scenario", "testdata", "topic-delete-zk.ksim"))
	if err != nil {
		t.Fatal(err)
	}
	e := New()
	if ei := e.Load(string(b)); ei != nil {
		t.Fatal(ei.Msg)
	}
	names := func(s *scene.Scene) []string {
		var out []string
		for _, p := range s.Partitions {
			out = append(out, p.Name)
		}
		return out
	}
	sawGone, sawDeleting := false, false
	for e.State(false).ScriptEnd < 0 && e.Now() < 120_000 {
		if err := e.Advance(1_000); err != nil {
			t.Fatal(err)
		}
		for _, v := range []scene.View{scene.ViewCluster, scene.ViewSpaceTime, scene.ViewBoth} {
			s, err := e.Scene(SceneOptions{View: v})
			if err != nil {
				t.Fatalf("t=%d %s: %v", e.Now(), v, err)
			}
			// orders is marked for deletion at 30 s and waits for broker
			// 2: the picture strikes it through (scene.Partition.Deleting).
			if v == scene.ViewCluster && e.Now() > 31_000 && e.Now() < 40_000 {
				for _, p := range s.Partitions {
					if p.Deleting != (p.Topic == "orders") {
						t.Fatalf("t=%d: %s deleting %v", e.Now(), p.Name, p.Deleting)
					}
					sawDeleting = sawDeleting || p.Deleting
				}
			}
			// Broker 2 is back at 41 s and the deletion completes; orders
			// is created again at 46 s.
			if v == scene.ViewCluster && e.Now() > 42_000 && e.Now() < 46_000 {
				if got := names(s); slices.Contains(got, "orders-0") || slices.Contains(got, "orders-1") {
					t.Fatalf("t=%d: the deleted topic is still in the picture: %v", e.Now(), got)
				}
				sawGone = true
			}
		}
		if _, err := e.Metadata(); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Offsets(); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Metrics(); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Overview(); err != nil {
			t.Fatal(err)
		}
		if len(e.Findings()) != 0 || e.FindingsCount() != 0 {
			t.Fatalf("t=%d: findings %+v: records of a deleted topic are not lost", e.Now(), e.Findings())
		}
	}
	if !sawGone || !sawDeleting {
		t.Fatalf("the scenario did not show orders marked for deletion (%v) and then gone (%v)", sawDeleting, sawGone)
	}
	st := e.State(true)
	if st.ScriptEnd < 0 || len(st.Failures) != 0 {
		t.Fatalf("after playing: %+v", st)
	}
	s, err := e.Scene(SceneOptions{View: scene.ViewCluster})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(s); !slices.Contains(got, "orders-0") || slices.Contains(got, "orders-1") {
		t.Fatalf("at the end: partitions %v, want the new orders-0 and no orders-1", got)
	}
	if _, err := e.Segments("orders-0", 2, 0); err != nil {
		t.Fatalf("segments of the new orders-0: %v", err)
	}
	if sm, err := e.Story("m-1"); err != nil || sm == nil {
		t.Fatalf("story of a deleted record: %v", err)
	}
}
