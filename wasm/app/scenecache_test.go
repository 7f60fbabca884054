package app

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestSceneCacheMatchesFullScan: frame after frame through the acks=1
// story (a split, a crash, an election, a truncation), the incremental
// cache has what a scan of the whole trace gives (the split, the lost
// cells, what each producer sent and got acked, how often each record
// was delivered within its group), and each consumer's
// recent deliveries count earlier deliveries as a scan of the history
// does; a seek back starts the cache afresh.
func TestSceneCacheMatchesFullScan(t *testing.T) {
	for _, name := range []string{"acks1-leader-death", "group-autocommit-duplicates"} {
		t.Run(name, func(t *testing.T) { sceneCacheRun(t, name) })
	}
}

func sceneCacheRun(t *testing.T, name string) {
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "scenario", "testdata", name+".ksim"))
	if err != nil {
		t.Fatal(err)
	}
	e := New()
	if ei := e.Load(string(b)); ei != nil {
		t.Fatal(ei.Msg)
	}
	e.Play()
	dups := 0
	check := func(when string) {
		t.Helper()
		d := e.sess.Driver()
		tc := e.traceCache()
		if want := currentSplit(d.Events().Trace()); !reflect.DeepEqual(tc.split, want) {
			t.Fatalf("%s: split %v, a full scan %v", when, tc.split, want)
		}
		want := lostCells(d.Events().Trace())
		for k, v := range want {
			if len(v) == 0 {
				delete(want, k)
			}
		}
		got := map[replicaKey]int{}
		for k, v := range tc.lost {
			if len(v) > 0 {
				got[k] = len(v)
				if !reflect.DeepEqual(v, want[k]) {
					t.Fatalf("%s: lost cells of %v %v, a full scan %v", when, k, v, want[k])
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: lost cells %v, a full scan %v", when, got, want)
		}
		s, err := e.Scene(SceneOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sent, ps := d.Cluster().History().Sent, d.Cluster().Snapshot().Producers
		n, acked := tc.producerCounts(sent, ps)
		if wn, wa := producerCountsScan(sent, ps); !reflect.DeepEqual(n, wn) || !reflect.DeepEqual(acked, wa) {
			t.Fatalf("%s: producers sent %v acked %v, a full scan %v %v", when, n, acked, wn, wa)
		}
		hist := d.Cluster().History().Consumed
		if got, want := e.dscan.update(d, e.loadVer, hist), dupCountScan(hist); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: deliveries per record %v, a full scan %v", when, got, want)
		}
		for _, k := range s.Consumers {
			var seen []int // deliveries so far of each of the consumer's deliveries, in order
			counts := map[string]int{}
			for _, dl := range hist {
				if dl.Consumer == k.Name {
					key := dl.Partition + "\x00" + dl.Value
					counts[key]++
					seen = append(seen, counts[key])
				}
			}
			if len(k.Recent) > len(seen) {
				t.Fatalf("%s: %s has %d recent of %d", when, k.Name, len(k.Recent), len(seen))
			}
			tail := seen[len(seen)-len(k.Recent):]
			for i, g := range k.Recent {
				want := tail[i]
				if want == 1 {
					want = 0
				}
				if g.Dup > 0 {
					dups++
				}
				if g.Dup != want {
					t.Fatalf("%s: %s recent %d (%s) dup %d, want %d", when, k.Name, i, g.Value, g.Dup, want)
				}
			}
		}
	}
	for i := 0; i < 160; i++ {
		if _, err := e.Tick(250); err != nil {
			t.Fatal(err)
		}
		check("playing")
	}
	if err := e.Advance(20_000); err != nil {
		t.Fatal(err)
	}
	check("20 s later") // the duplicates story's group delivers records twice by now
	if name == "group-autocommit-duplicates" && len(e.dscan.dupCount) == 0 {
		t.Errorf("no record delivered twice within its group")
	}
	if err := e.SeekTo(1500); err != nil {
		t.Fatal(err)
	}
	check("after a seek back")
	t.Logf("%d recent deliveries marked duplicate along the way", dups)
}

// TestFindingsCount: paused, the badge count is the checker's count now;
// playing, it is at most findingsEvery virtual ms old.
func TestFindingsCount(t *testing.T) {
	e := acks1(t)
	if err := e.Advance(62_000); err != nil {
		t.Fatal(err)
	}
	if got, want := e.FindingsCount(), len(e.Findings()); got != want || want == 0 {
		t.Fatalf("paused: count %d, findings %d", got, want)
	}
	e2 := acks1(t)
	e2.Play()
	for i := 0; i < 260; i++ {
		if _, err := e2.Tick(250); err != nil {
			t.Fatal(err)
		}
		got := e2.FindingsCount()
		stale := e2.fcache.at != e2.sess.Driver().Events().TraceCount()
		if age := e2.Now() - e2.fcache.now; stale && age >= findingsEvery {
			t.Fatalf("count %d is %d virtual ms old", got, age)
		}
	}
	e2.Pause()
	if got, want := e2.FindingsCount(), len(e2.Findings()); got != want {
		t.Errorf("paused after playing: count %d, findings %d", got, want)
	}
}

// producerCountsScan is sceneCache.producerCounts by a walk of the whole
// history.
func producerCountsScan(sent []core.SentRecord, ps []core.ProducerView) (n, acked []int64) {
	n, acked = make([]int64, len(ps)), make([]int64, len(ps))
	last, li := "", -1
	for i := range sent {
		r := &sent[i]
		if r.Producer != last || li < 0 {
			last, li = r.Producer, -1
			for j := range ps {
				if ps[j].Name == r.Producer {
					li = j
					break
				}
			}
			if li < 0 {
				continue
			}
		}
		n[li]++
		if r.Acked {
			acked[li]++
		}
	}
	return n, acked
}

// dupCountScan is dupScan's answer by a walk of the whole history.
func dupCountScan(h []core.Delivery) map[string]int {
	per, out := map[string]int{}, map[string]int{}
	for _, dl := range h {
		owner := dl.Group
		if owner == "" {
			owner = "c:" + dl.Consumer
		}
		k := owner + "\x00" + dl.Partition + "\x00" + strconv.FormatInt(dl.Offset, 10)
		per[k]++
		if per[k] > 1 {
			key := dl.Partition + "\x00" + dl.Value
			out[key] = max(out[key], per[k])
		}
	}
	return out
}
