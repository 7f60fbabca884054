package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/room"
)

// Limits of a recovery.
const (
	maxMetaBytes  = 16 << 20 // cluster-metadata.json
	maxSmallFile  = 64 << 20 // checkpoints, meta.properties
	maxSegment    = 1<<31 - 1
	maxTotalBytes = 16 << 30 // all segments together (they are held in memory)
	maxDirEntries = 100_000  // entries one directory may have
)

// Cluster reads the data dir's cluster line: "" for a new (empty)
// directory, an error for one that holds something other than a
// kafkasim cluster. Restore needs it to have been called.
func (s *Store) Cluster() (string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return "", fmt.Errorf("data dir: %w", err)
	}
	p := filepath.Join(s.dir, metadataFile)
	data, err := readSmall(p, maxMetaBytes)
	if errors.Is(err, fs.ErrNotExist) {
		for _, e := range ents {
			if e.Name() != "lost+found" {
				return "", fmt.Errorf("data dir %s is not empty (%s) and holds no kafkasim cluster (no %s): use an empty directory or one kafkasim wrote", s.dir, e.Name(), metadataFile)
			}
		}
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("data dir: %w", err)
	}
	var m clusterMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	if m.Version != metaVersion {
		return "", fmt.Errorf("%s: version %d, this kafkasim reads version %d", p, m.Version, metaVersion)
	}
	sc, err := scenario.Parse(m.Cluster)
	if err != nil || len(sc.Steps) != 1 || sc.Steps[0].Cluster == nil {
		return "", fmt.Errorf("%s: cluster %q is not a cluster line", p, m.Cluster)
	}
	s.meta = &m
	return m.Cluster, nil
}

// Restore loads the logs the data dir holds into the cluster behind b,
// which must have been made from Cluster's line and have no topics yet.
// Every segment is read and validated (CRC, lengths, offsets); a torn
// tail is cut from the file and reported (file, byte position, offsets
// gone), with the later segments deleted, as LogLoader does; indexes
// are rebuilt. What was cut or ignored goes to Options.Logf. A foreign
// or inconsistent file is an error and changes nothing in the cluster.
func (s *Store) Restore(ctx context.Context, b Backend) error {
	if s.meta == nil {
		return nil
	}
	if rb, ok := b.(recording); ok && (len(s.meta.Topics) > 0 || len(s.meta.Settings) > 0) {
		// A room's history gets the restore as commands (its settings,
		// then the topics as restore parts), so pages following the room
		// and its exported .ksim redo it (docs/storage.md).
		return rb.DoRecorded(ctx, func(c *core.Cluster, rec room.Recorder) error {
			return s.restore(c, rec.Apply, func(ts []core.RestoredTopic) error { return s.restoreRecorded(c, rec, ts) })
		})
	}
	var err error
	if derr := b.Do(ctx, func(c *core.Cluster) { err = s.restore(c, c.Apply, c.RestoreTopics) }); derr != nil {
		return derr
	}
	return err
}

// restoreRecorded restores ts as core.RestoreChunk commands in the room's
// history. Topics too large for the history are restored directly, and
// the history stops there, saying why.
func (s *Store) restoreRecorded(c *core.Cluster, rec room.Recorder, ts []core.RestoredTopic) error {
	if len(ts) == 0 {
		return nil
	}
	parts, err := core.EncodeRestore(ts)
	size := 0
	for _, p := range parts {
		size += len(p.Data) + 32
	}
	if err == nil && !rec.Fits(len(parts), size) {
		err = fmt.Errorf("the restored logs are %d bytes as restore lines, more than the room's history holds", size)
	}
	if err != nil {
		if rerr := c.RestoreTopics(ts); rerr != nil {
			return rerr
		}
		rec.Stop("the cluster was restored from the data dir " + s.dir + " and its logs cannot be kept in the history (" + err.Error() + ")")
		return nil
	}
	for _, p := range parts {
		if err := rec.Apply(p); err != nil {
			return err
		}
	}
	return nil
}

// restore reads the data dir into c: the settings through apply, the
// topics through restoreTopics.
func (s *Store) restore(c *core.Cluster, apply func(core.Command) error, restoreTopics func([]core.RestoredTopic) error) error {
	m := s.meta
	if len(m.Settings) > 0 {
		if err := apply(core.Set{Configs: m.Settings}); err != nil {
			return fmt.Errorf("data dir %s: %s: settings: %w", s.dir, metadataFile, err)
		}
	}
	shift := s.ClockOffset(c)
	ld := loader{root: s.dir, shift: shift, logf: s.logf}
	brokers := map[int]*brokerFiles{}
	for _, b := range c.Brokers() {
		bf, err := ld.broker(c, b.ID)
		if err != nil {
			return err
		}
		brokers[b.ID] = bf
	}
	known := map[string]bool{}
	var ts []core.RestoredTopic
	for _, tm := range m.Topics {
		rt := core.RestoredTopic{Topic: tm.Name, Configs: tm.Configs, Assign: tm.Assign, Leaders: tm.Leaders, ISRs: tm.ISRs, LeaderEpochs: tm.Epochs}
		for i, reps := range tm.Assign {
			var found []core.RestoredReplica
			for _, id := range reps {
				bf := brokers[id]
				name := tm.Name + "-" + strconv.Itoa(i)
				known[filepath.Join(brokerDir(id), name)] = true
				if bf == nil {
					continue
				}
				rr, ok, err := ld.replica(bf, tm, i)
				if err != nil {
					return err
				}
				if ok {
					found = append(found, rr)
				}
			}
			rt.Replicas = append(rt.Replicas, found)
		}
		ts = append(ts, rt)
	}
	for _, b := range c.Brokers() {
		bf := brokers[b.ID]
		if bf == nil {
			continue
		}
		for _, d := range bf.dirs {
			if rel := filepath.Join(brokerDir(bf.id), d); !known[rel] {
				ld.note("data dir: %s is no replica the metadata knows of: left alone", rel)
			}
		}
	}
	if err := restoreTopics(ts); err != nil {
		return fmt.Errorf("data dir %s: %w", s.dir, err)
	}
	if err := ld.finish(); err != nil {
		return fmt.Errorf("data dir %s: %w", s.dir, err)
	}
	s.adopt(c, ld.loaded)
	s.logf("data dir %s: recovered %d topic(s), %d replica log(s), %d segment(s)%s", s.dir, len(ts), ld.replicas, ld.segments, ld.shutdownNote(len(brokers)))
	return nil
}

// adopt records the restored replicas as written (their .log files hold
// exactly the logs) and queues a rewrite of their indexes, which the
// core rebuilt.
func (s *Store) adopt(c *core.Cluster, loaded []repKey) {
	s.adopted = map[repKey]*repState{}
	var ops []op
	for _, k := range loaded {
		t, n, _ := core.SplitPartitionName(k.partition)
		tp := c.Topic(t)
		if tp == nil || n >= len(tp.Partitions()) {
			continue
		}
		r := c.Broker(k.broker).Replica(tp.Partitions()[n])
		if r == nil {
			continue
		}
		v := r.Log()
		tid, _ := c.TopicID(t)
		st := &repState{view: v, rewrites: v.Rewrites(), hw: -1, cleaned: -1, dir: dirOf(k), topicID: tid}
		for i := 0; i < v.NumSegments(); i++ {
			ref := v.SegmentRef(i)
			st.segs = append(st.segs, segState{base: ref.Base, batches: ref.Batches, size: ref.Size})
			ops = append(ops, op{kind: opTruncSeg, dir: dirOf(k), base: ref.Base, size: ref.Size})
		}
		s.adopted[k] = st
	}
	s.send(ops)
}
