package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// logValues lists every replica's records as "offset=value", by replica.
func logValues(c *core.Cluster) map[string]string {
	out := map[string]string{}
	for _, t := range c.Topics() {
		for _, p := range t.Partitions() {
			for _, id := range p.Replicas() {
				r := c.Broker(id).Replica(p)
				if r == nil {
					continue
				}
				var b strings.Builder
				for _, bt := range r.Log().Batches(0) {
					for i, rec := range bt.Records {
						fmt.Fprintf(&b, "%d=%s@%d,", bt.BaseOffset+int64(i), rec.Value, bt.RecordTimestamp(i))
					}
				}
				out[fmt.Sprintf("%s@%d", p.Name, id)] = b.String()
			}
		}
	}
	return out
}

const restoreScript = `cluster brokers=3 seed=5 version=3.9 metadata=kraft
set log.segment.bytes=400 log.index.interval.bytes=100
topic create t partitions=2 rf=3
producer p acks=all linger.ms=0
produce p t value=a count=6
wait 10ms
produce p t value=b count=6
wait 10ms
produce p t value=c count=6
wait 10ms
produce p t value=d count=6
wait 10ms
produce p t value=e count=6
wait 6s
`

// TestRestartRecoversLogs: a new cluster made from the data dir gets
// every replica's log back exactly (offsets, values, timestamps), the
// indexes are rebuilt, and it goes on: a produce after the restart lands
// after the old records, with a higher leader epoch, and the files
// follow.
func TestRestartRecoversLogs(t *testing.T) {
	m := newSim(t, restoreScript)
	m.checkFiles()
	want := logValues(m.c)
	m.s.Close()
	// Damage the index files: a restart rebuilds them.
	idx, _ := filepath.Glob(filepath.Join(m.dir, "broker-*", "t-*", "*.index"))
	for _, f := range idx {
		os.WriteFile(f, []byte("garbage!"), 0o644)
	}
	var logs []string
	m2 := restartSim(t, m.dir, &logs)
	got := logValues(m2.c)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("restored logs differ:\n got %v\nwant %v", got, want)
	}
	if len(logs) == 0 || !strings.Contains(logs[len(logs)-1], "recovered 1 topic(s), 6 replica log(s)") || !strings.Contains(logs[len(logs)-1], "clean shutdown") {
		t.Fatalf("no recovery summary: %q", logs)
	}
	if got := m2.c.Settings()["log.segment.bytes"]; got != "400" {
		t.Fatalf("the cluster's settings after the restart: log.segment.bytes=%q, want 400", got)
	}
	m2.script("wait 2s\n")
	m2.checkFiles()
	p := m2.c.Topics()[0].Partitions()[1]
	if p.LeaderEpoch() < 1 {
		t.Fatalf("leader epoch %d after the restart: want above the old ones", p.LeaderEpoch())
	}
	m2.script("producer q acks=all linger.ms=0\nproduce q t value=after count=4 partition=1\nwait 3s\n")
	m2.checkFiles()
	after := logValues(m2.c)
	k := fmt.Sprintf("%s@%d", p.Name, p.Replicas()[0])
	if !strings.HasPrefix(after[k], want[k]) || !strings.Contains(after[k], "=after-1@") {
		t.Fatalf("%s after the restart: %s (before: %s)", k, after[k], want[k])
	}
}

// TestTornTail: garbage appended to one replica's last segment and
// another's cut in the middle of a batch are truncated on restart with
// a message naming the file, the byte and the offsets cut; the replica
// that lost records gets them back from the leader.
func TestTornTail(t *testing.T) {
	m := newSim(t, restoreScript)
	want := logValues(m.c)
	m.s.Close()
	// Garbage after the leader's last batch (nothing lost), a follower's
	// last batch cut short (it fetches it back), another follower's
	// first segment corrupt (cut there, later segments deleted).
	tp := m.c.Topics()[0].Partitions()[1]
	gB := tp.Leader()
	var fs []int
	for _, id := range tp.Replicas() {
		if id != gB {
			fs = append(fs, id)
		}
	}
	cB, fB := fs[0], fs[1]
	last := func(id int) string {
		fs, _ := filepath.Glob(filepath.Join(m.dir, fmt.Sprintf("broker-%d", id), "t-1", "*.log"))
		return fs[len(fs)-1]
	}
	f2, f3 := last(gB), last(cB)
	fh, _ := os.OpenFile(f2, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write([]byte("\x00\x00\x00\x00\x00\x00\x00\x63\x00\x00\x01\x00garbage that is no batch"))
	fh.Close()
	// Broker 1: a flipped byte inside its first segment's second batch:
	// the CRC catches it, the segment is cut there and the later ones go.
	first1 := filepath.Join(m.dir, brokerDir(fB), "t-1", "00000000000000000000.log")
	data, _ := os.ReadFile(first1)
	second := readLog(t, first1)[1].pos
	data[second+70] ^= 0x55
	os.WriteFile(first1, data, 0o644)
	later1, _ := filepath.Glob(filepath.Join(m.dir, brokerDir(fB), "t-1", "*.log"))
	st, _ := os.Stat(f3)
	os.Truncate(f3, st.Size()-10)
	os.Remove(filepath.Join(m.dir, brokerDir(cB), cleanShutdownFile))
	var logs []string
	m2 := restartSim(t, m.dir, &logs)
	all := strings.Join(logs, "\n")
	rel2, _ := filepath.Rel(m.dir, f2)
	rel3, _ := filepath.Rel(m.dir, f3)
	if !strings.Contains(all, rel2+": torn tail: cut at byte ") || !strings.Contains(all, "the batch claiming offset 99") {
		t.Fatalf("no message for the garbage in %s:\n%s", rel2, all)
	}
	if !strings.Contains(all, rel3+": torn tail: cut at byte ") || !strings.Contains(all, "a write cut short") || !strings.Contains(all, "the log now ends at offset") {
		t.Fatalf("no message for the cut batch in %s:\n%s", rel3, all)
	}
	if !strings.Contains(all, filepath.Join(brokerDir(fB), "t-1", "00000000000000000000.log")+fmt.Sprintf(": torn tail: cut at byte %d of %d", second, len(data))) ||
		!strings.Contains(all, "record is corrupt (stored crc = ") || !strings.Contains(all, "later segments deleted: "+filepath.Base(later1[1])) {
		t.Fatalf("no message for the corrupt batch in the first segment:\n%s", all)
	}
	if left, _ := filepath.Glob(filepath.Join(m.dir, brokerDir(fB), "t-1", "*.log")); len(left) != 1 {
		t.Fatalf("the corrupt follower keeps %d segments, want the cut first one only", len(left))
	}
	if !strings.Contains(all, "2 of 3 brokers shut down cleanly") {
		t.Fatalf("no shutdown note:\n%s", all)
	}
	got := logValues(m2.c)
	if k := fmt.Sprintf("t-1@%d", gB); got[k] != want[k] {
		t.Fatalf("garbage cut, the records stay: got %s want %s", got[k], want[k])
	}
	if k := fmt.Sprintf("t-1@%d", cB); len(got[k]) >= len(want[k]) || !strings.HasPrefix(want[k], got[k]) {
		t.Fatalf("%s should have lost its last batch: got %s want a prefix of %s", k, got[k], want[k])
	}
	m2.checkFiles()
	m2.script("wait 5s\n")
	m2.checkFiles()
	for _, k := range []string{fmt.Sprintf("t-1@%d", cB), fmt.Sprintf("t-1@%d", fB)} {
		if got := logValues(m2.c); got[k] != want[k] {
			t.Fatalf("%s did not catch up from the leader: %s, want %s", k, got[k], want[k])
		}
	}
}

// TestForeignFileChangesNothing: one file recovery cannot take (here a
// partition.metadata naming another topic id) fails the restore with an
// error naming it, and no file anywhere is cut or deleted meanwhile.
func TestForeignFileChangesNothing(t *testing.T) {
	m := newSim(t, restoreScript)
	m.s.Close()
	torn := filepath.Join(m.dir, "broker-1", "t-1", "00000000000000000000.log")
	fh, _ := os.OpenFile(torn, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write([]byte("garbage"))
	fh.Close()
	before, _ := os.Stat(torn)
	pm := filepath.Join(m.dir, "broker-3", "t-0", "partition.metadata")
	os.WriteFile(pm, []byte("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA"), 0o644)
	s, err := Open(m.dir, Options{Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	line, _ := s.Cluster()
	m2 := newSimAt(t, t.TempDir(), line, nil)
	err = s.Restore(context.Background(), m2)
	if err == nil || !strings.Contains(err.Error(), pm) || !strings.Contains(err.Error(), "another topic") {
		t.Fatalf("restore with a foreign partition.metadata: %v", err)
	}
	if after, _ := os.Stat(torn); after.Size() != before.Size() {
		t.Fatalf("a failed restore cut %s from %d to %d bytes", torn, before.Size(), after.Size())
	}
	if len(m2.c.Topics()) != 0 {
		t.Fatal("a failed restore left topics in the cluster")
	}
}
