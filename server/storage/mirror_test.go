package storage

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesFollowAppends: produce into a topic with small segments and a
// small index interval; every replica's files hold its log exactly, in
// Kafka's formats (batches decoded by kmsg with their CRCs, index entries
// pointing at batch starts, the time index increasing).
func TestFilesFollowAppends(t *testing.T) {
	m := newSim(t, `cluster brokers=3 seed=3 version=3.9 metadata=kraft
set log.segment.bytes=400 log.index.interval.bytes=100
topic create t partitions=2 rf=3
producer p acks=all linger.ms=0
produce p t value=v0 key=k0 count=6
wait 10ms
produce p t value=v1 key=k1 count=6
wait 10ms
produce p t value=v2 key=k2 count=6
wait 10ms
produce p t value=v3 key=k0 count=6
wait 10ms
produce p t value=v4 key=k1 count=6
wait 10ms
produce p t value=v5 key=k2 count=6
wait 10ms
produce p t value=v6 key=k0 count=6
wait 10ms
produce p t value=v7 key=k1 count=6
wait 10ms
wait 2s
`)
	m.checkFiles()
	segs := m.c.Broker(1).Replica(m.c.Topics()[0].Partitions()[1]).Log().Segments()
	if len(segs) < 2 {
		t.Fatalf("want rolled segments, got %d", len(segs))
	}
	// Index entries point at batch starts; time index increases.
	dir := filepath.Join(m.dir, "broker-1", "t-1")
	for _, si := range segs {
		n := filepath.Join(dir, si.File[:20])
		bs := readLog(t, n+".log")
		starts := map[int64]int64{}
		for _, b := range bs {
			starts[b.pos] = b.rb.FirstOffset + int64(b.rb.LastOffsetDelta)
		}
		idx, _ := os.ReadFile(n + ".index")
		for i := 0; i+8 <= len(idx); i += 8 {
			rel := int64(int32(binary.BigEndian.Uint32(idx[i:])))
			pos := int64(binary.BigEndian.Uint32(idx[i+4:]))
			if last, ok := starts[pos]; !ok || last != si.BaseOffset+rel {
				t.Fatalf("%s.index entry %d: offset %d at %d is not a batch's last offset at its start", n, i/8, si.BaseOffset+rel, pos)
			}
		}
		ti, _ := os.ReadFile(n + ".timeindex")
		prev := int64(-1)
		for i := 0; i+12 <= len(ti); i += 12 {
			ts := int64(binary.BigEndian.Uint64(ti[i:]))
			if ts <= prev {
				t.Fatalf("%s.timeindex: %d after %d", n, ts, prev)
			}
			prev = ts
		}
	}
	if len(segs[0].OffsetIndex) == 0 {
		t.Fatal("no index entries written: the test proves nothing")
	}
}

// TestPowerOffFilesMatch: a power-off loses what was not on disk; the
// files are cut to what the core kept.
func TestPowerOffFilesMatch(t *testing.T) {
	m := newSim(t, `cluster brokers=3 seed=8 version=3.9 metadata=kraft
topic create t partitions=1 rf=3 assign=1,2,3
producer p1 acks=all
produce p1 t value=old count=2
wait 40s
produce p1 t value=new count=2
wait 1s
`)
	m.checkFiles()
	before, _ := os.Stat(filepath.Join(m.dir, "broker-1", "t-0", "00000000000000000000.log"))
	m.script(`poweroff broker 1
poweroff broker 2
poweroff broker 3
wait 1s
`)
	m.checkFiles()
	after, _ := os.Stat(filepath.Join(m.dir, "broker-1", "t-0", "00000000000000000000.log"))
	if after.Size() >= before.Size() {
		t.Fatalf("the power-off cut nothing: %d bytes before, %d after", before.Size(), after.Size())
	}
	m.script(`restart broker 1
restart broker 2
restart broker 3
wait 30s
produce p1 t value=again count=3
wait 2s
`)
	m.checkFiles()
}

// TestResetReplacesFiles: when the room's cluster is replaced (a reset,
// a new scenario), the old cluster's files go and the new one's come.
func TestResetReplacesFiles(t *testing.T) {
	m := newSim(t, "cluster brokers=3 seed=1 version=3.9 metadata=kraft\ntopic create old partitions=1 rf=3\nproducer p acks=all\nproduce p old value=x count=3\nwait 1s\n")
	m.checkFiles()
	m2 := newSimAt(t, t.TempDir(), "cluster brokers=2 seed=2 version=2.8 metadata=zk", nil)
	m.c = m2.c // the hook sees another cluster
	m.script("topic create fresh partitions=1 rf=2\nwait 1s\n")
	m.checkFiles()
	if _, err := os.Stat(filepath.Join(m.dir, "broker-1", "old-0")); err == nil {
		t.Fatal("the old cluster's replica directory survived the reset")
	}
	if _, err := os.Stat(filepath.Join(m.dir, "broker-3")); err == nil {
		t.Fatal("broker 3 is gone from the new cluster but its directory stayed")
	}
	if b, _ := os.ReadFile(filepath.Join(m.dir, "broker-1", "meta.properties")); !strings.Contains(string(b), "broker.id=1") || !strings.Contains(string(b), "version=0") {
		t.Fatalf("meta.properties of the ZooKeeper-mode cluster: %q", b)
	}
}
