package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// sim runs a scenario on a bare cluster the way a room does: commands
// at once, waits in 20 ms ticks, the store watching after each.
type sim struct {
	// lenient: a command the core refuses is logged, not fatal; every
	// is set: the files are checked every that many observations.
	lenient bool
	every   int
	n       int
	t       *testing.T
	c       *core.Cluster
	s       *Store
	dir     string
	hooks   []func(c *core.Cluster, ev []core.Event, reset bool)
	clock   atomic.Int64 // the store's wall clock (Unix ms), fixedNow unless a test moves it
}

func (m *sim) Do(_ context.Context, fn func(c *core.Cluster)) error { fn(m.c); return nil }
func (m *sim) Watch(fn func(c *core.Cluster, ev []core.Event, reset bool)) (func(), error) {
	m.hooks = append(m.hooks, fn)
	return func() { m.hooks = nil }, nil
}

func (m *sim) observe(evs []core.Event) {
	for _, h := range m.hooks {
		h(m.c, evs, false)
	}
	m.n++
	if m.every > 0 && m.n%m.every == 0 {
		m.checkFiles()
	}
}

var fixedNow = time.UnixMilli(1_700_000_000_000)

// newSim makes the cluster of script's first line and a store on a
// temporary directory following it; the rest of script runs.
func newSim(t *testing.T, script string) *sim {
	t.Helper()
	return newSimAt(t, t.TempDir(), script, nil)
}

// restartSim makes a new cluster from dir's cluster line, restores the
// logs into it and follows it; logs collects the store's messages.
func restartSim(t *testing.T, dir string, logs *[]string) *sim {
	t.Helper()
	probe, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	line, err := probe.Cluster()
	probe.Close()
	if err != nil || line == "" {
		t.Fatalf("cluster line %q: %v", line, err)
	}
	return newSimAt(t, dir, line, logs)
}

func newSimAt(t *testing.T, dir, script string, logs *[]string) *sim {
	t.Helper()
	m := &sim{t: t, dir: dir}
	m.clock.Store(fixedNow.UnixMilli())
	sc, err := scenario.Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	r := scenario.NewRunner(scenario.RunOptions{NoTrace: true})
	if err := r.Step(&sc.Steps[0]); err != nil {
		t.Fatal(err)
	}
	m.c = r.Cluster()
	logf := t.Logf
	if logs != nil {
		logf = func(f string, a ...any) { *logs = append(*logs, fmt.Sprintf(f, a...)); t.Logf(f, a...) }
	}
	m.s, err = Open(m.dir, Options{Now: func() time.Time { return time.UnixMilli(m.clock.Load()) }, Logf: logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.s.Close() })
	if logs != nil {
		if _, err := m.s.Cluster(); err != nil {
			t.Fatal(err)
		}
		if err := m.s.Restore(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.s.Follow(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	m.run(sc.Steps[1:])
	return m
}

// script runs more steps.
func (m *sim) script(text string) {
	m.t.Helper()
	sc, err := scenario.Parse("cluster brokers=1\n" + text)
	if err != nil {
		m.t.Fatal(err)
	}
	m.run(sc.Steps[1:])
}

func (m *sim) run(steps []scenario.Step) {
	m.t.Helper()
	for _, st := range steps {
		if st.Cmd == nil {
			continue
		}
		if w, ok := st.Cmd.(core.Wait); ok {
			for d := w.Duration; d > 0; d -= 20 {
				if _, err := m.c.Advance(min(d, 20)); err != nil {
					m.t.Fatal(err)
				}
				m.observe(m.c.Events())
			}
			continue
		}
		if err := m.c.Apply(st.Cmd); err != nil {
			if !m.lenient {
				m.t.Fatalf("line %d: %v", st.Line, err)
			}
			m.t.Logf("line %d: %v", st.Line, err)
		}
		m.observe(m.c.Events())
	}
}

// diskBatch is one batch read from a .log file with kmsg.
type diskBatch struct {
	pos int64
	rb  kmsg.RecordBatch
	rec []kmsg.Record
}

// readLog decodes a .log file with franz-go's kmsg, checking each
// batch's CRC-32C and length.
func readLog(t *testing.T, path string) []diskBatch {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []diskBatch
	pos := int64(0)
	for len(data) > 0 {
		if len(data) < 61 {
			t.Fatalf("%s: %d trailing bytes at %d", path, len(data), pos)
		}
		n := int(binary.BigEndian.Uint32(data[8:])) + 12
		var db diskBatch
		db.pos = pos
		if err := db.rb.ReadFrom(data[:n]); err != nil {
			t.Fatalf("%s at %d: %v", path, pos, err)
		}
		if got := crc32.Checksum(data[21:n], crc32.MakeTable(crc32.Castagnoli)); got != uint32(db.rb.CRC) {
			t.Fatalf("%s at %d: CRC %08x, stored %08x", path, pos, got, uint32(db.rb.CRC))
		}
		recs := db.rb.Records
		for i := 0; i < int(db.rb.NumRecords); i++ {
			l, w := binary.Varint(recs)
			var r kmsg.Record
			if err := r.ReadFrom(recs[:w+int(l)]); err != nil {
				t.Fatal(err)
			}
			db.rec = append(db.rec, r)
			recs = recs[w+int(l):]
		}
		if len(recs) != 0 {
			t.Fatalf("%s at %d: %d bytes after the records", path, pos, len(recs))
		}
		out = append(out, db)
		data, pos = data[n:], pos+int64(n)
	}
	return out
}

// checkFiles asserts that every replica's directory holds exactly its
// log: segment files, batches (bytes decoded by kmsg, CRC), positions,
// index and time-index entries, the leader-epoch checkpoint.
func (m *sim) checkFiles() {
	t := m.t
	t.Helper()
	m.s.Sync()
	if err := m.s.Err(); err != nil {
		t.Fatal(err)
	}
	off := m.s.ClockOffset(m.c)
	want := map[string]bool{}
	for _, tp := range m.c.Topics() {
		for _, p := range tp.Partitions() {
			for _, id := range p.Replicas() {
				r := m.c.Broker(id).Replica(p)
				if r == nil {
					continue
				}
				dir := filepath.Join(m.dir, brokerDir(id), p.Name)
				want[filepath.Join(brokerDir(id), p.Name)] = true
				var files []string
				ents, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range ents {
					if isSegmentFile(e.Name()) {
						files = append(files, e.Name())
					}
				}
				var wantFiles []string
				v := r.Log()
				for _, si := range v.Segments() {
					n := strings.TrimSuffix(si.File, ".log")
					wantFiles = append(wantFiles, n+".index", n+".log", n+".timeindex")
				}
				sort.Strings(wantFiles)
				if fmt.Sprint(files) != fmt.Sprint(wantFiles) {
					t.Fatalf("%s: files %v, log has %v", dir, files, wantFiles)
				}
				for i, si := range v.Segments() {
					n := filepath.Join(dir, strings.TrimSuffix(si.File, ".log"))
					got := readLog(t, n+".log")
					bs, pos := v.SegmentBatches(i, 0)
					if len(got) != len(bs) {
						t.Fatalf("%s.log: %d batches, the log %d", n, len(got), len(bs))
					}
					for j, db := range got {
						b := bs[j]
						if db.pos != int64(pos[j]) || db.rb.FirstOffset != b.BaseOffset || int(db.rb.NumRecords) != len(b.Records) ||
							db.rb.PartitionLeaderEpoch != b.Epoch || db.rb.FirstTimestamp != b.Timestamp+off || db.rb.MaxTimestamp != b.MaxTimestamp()+off {
							t.Fatalf("%s.log batch %d: at %d offset %d n %d epoch %d ts %d; log at %d offset %d n %d epoch %d ts %d", n, j,
								db.pos, db.rb.FirstOffset, db.rb.NumRecords, db.rb.PartitionLeaderEpoch, db.rb.FirstTimestamp, pos[j], b.BaseOffset, len(b.Records), b.Epoch, b.Timestamp+off)
						}
						for k, r := range db.rec {
							if string(r.Value) != b.Records[k].Value || (r.Key != nil) != b.Records[k].HasKey || string(r.Key) != b.Records[k].Key {
								t.Fatalf("%s.log offset %d: %q=%q, log %q=%q", n, b.BaseOffset+int64(k), r.Key, r.Value, b.Records[k].Key, b.Records[k].Value)
							}
						}
					}
					var idx, tidx []byte
					idx = appendIndex(idx, si.BaseOffset, si.OffsetIndex)
					tidx = appendTimeIndex(tidx, si.BaseOffset, si.TimeIndex, func(x int64) int64 { return x + off })
					if gi, _ := os.ReadFile(n + ".index"); !bytes.Equal(gi, idx) {
						t.Fatalf("%s.index: % x, want % x", n, gi, idx)
					}
					if gt, _ := os.ReadFile(n + ".timeindex"); !bytes.Equal(gt, tidx) {
						t.Fatalf("%s.timeindex: % x, want % x", n, gt, tidx)
					}
				}
				if ge, _ := os.ReadFile(filepath.Join(dir, "leader-epoch-checkpoint")); !bytes.Equal(ge, epochCheckpoint(r.Epochs())) {
					t.Fatalf("%s leader-epoch-checkpoint: %q, want %q", dir, ge, epochCheckpoint(r.Epochs()))
				}
			}
		}
	}
	// No stray replica directories.
	bds, _ := filepath.Glob(filepath.Join(m.dir, "broker-*", "*"))
	for _, d := range bds {
		rel, _ := filepath.Rel(m.dir, d)
		if st, err := os.Stat(d); err == nil && st.IsDir() && !want[rel] && !isDeleteDir(filepath.Base(d)) {
			t.Fatalf("stray directory %s", rel)
		}
	}
}
