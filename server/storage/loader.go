package storage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// The loader: what a recovery reads from a data dir, broker by broker and
// replica by replica, before Store.restore hands it to the core.

// brokerFiles is what a broker directory's own files said.
type brokerFiles struct {
	id         int
	hw, start  map[string]int64 // "topic partition" -> offset
	dirs       []string         // partition directories found
	cleanShut  bool
	dirMissing bool
}

// loader reads a data dir's logs.
type loader struct {
	root     string
	shift    int64
	logf     func(string, ...any)
	total    int64
	replicas int
	segments int
	clean    int
	loaded   []repKey
	// later holds the file changes recovery makes (cut tails, deleted
	// segments and orphans, clean-shutdown markers) and notes what it
	// says: both happen only once the whole directory restored, so a
	// foreign file anywhere leaves every file as it was.
	later []func() error
	notes []string
}

func (ld *loader) note(f string, a ...any) { ld.notes = append(ld.notes, fmt.Sprintf(f, a...)) }

func (ld *loader) remove(p string) {
	ld.later = append(ld.later, func() error {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

func (ld *loader) removeAll(p string) {
	ld.later = append(ld.later, func() error { return os.RemoveAll(p) })
}

// finish makes the file changes and says what recovery did.
func (ld *loader) finish() error {
	for _, f := range ld.later {
		if err := f(); err != nil {
			return err
		}
	}
	for _, n := range ld.notes {
		ld.logf("%s", n)
	}
	return nil
}

func (ld *loader) shutdownNote(n int) string {
	switch ld.clean {
	case n:
		return " after a clean shutdown"
	case 0:
		return " after an unclean shutdown (no .kafka_cleanshutdown): every segment was checked"
	}
	return fmt.Sprintf(" (%d of %d brokers shut down cleanly)", ld.clean, n)
}

// broker reads broker id's meta.properties and checkpoints.
func (ld *loader) broker(c *core.Cluster, id int) (*brokerFiles, error) {
	rel := brokerDir(id)
	dir := filepath.Join(ld.root, rel)
	bf := &brokerFiles{id: id}
	ents, err := readDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		ld.note("data dir: %s is missing: broker %d starts with no logs", rel, id)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkMetaProperties(filepath.Join(dir, "meta.properties"), c, id); err != nil {
		return nil, err
	}
	if bf.hw, err = readOffsetCheckpoint(filepath.Join(dir, "replication-offset-checkpoint")); err != nil {
		return nil, err
	}
	if bf.start, err = readOffsetCheckpoint(filepath.Join(dir, "log-start-offset-checkpoint")); err != nil {
		return nil, err
	}
	marker := filepath.Join(dir, cleanShutdownFile)
	if _, err := os.Stat(marker); err == nil {
		bf.cleanShut = true
		ld.clean++
		ld.remove(marker) // LogManager deletes it once the logs are loaded
	}
	for _, e := range ents {
		switch {
		case e.IsDir() && isDeleteDir(e.Name()):
			// A deleted partition's log, renamed by LogManager.asyncDelete
			// and not yet removed: LogManager.loadLogs schedules it for
			// deletion instead of loading it.
			ld.note("data dir: %s is a deleted partition's log: removed", filepath.Join(rel, e.Name()))
			ld.removeAll(filepath.Join(dir, e.Name()))
		case e.IsDir():
			bf.dirs = append(bf.dirs, e.Name())
		}
	}
	return bf, nil
}

// replica reads partition i of topic tm on broker bf: its segments, cut
// at a torn tail, its leader-epoch checkpoint and its checkpoints.
func (ld *loader) replica(bf *brokerFiles, tm topicMeta, i int) (core.RestoredReplica, bool, error) {
	name := tm.Name + "-" + strconv.Itoa(i)
	rel := filepath.Join(brokerDir(bf.id), name)
	dir := filepath.Join(ld.root, rel)
	rr := core.RestoredReplica{Broker: bf.id}
	ents, err := readDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return rr, false, nil
	}
	if err != nil {
		return rr, false, err
	}
	if err := checkPartitionMetadata(filepath.Join(dir, "partition.metadata"), tm.ID); err != nil {
		return rr, false, err
	}
	var bases []int64
	logs := map[int64]bool{}
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".log") && isSegmentFile(n) {
			base, err := strconv.ParseInt(n[:20], 10, 64)
			if err != nil || base < 0 {
				return rr, false, fmt.Errorf("%s: %s is not named by a base offset", rel, n)
			}
			bases = append(bases, base)
			logs[base] = true
		}
	}
	slices.Sort(bases)
	for _, e := range ents {
		n := e.Name()
		switch {
		case isSegmentFile(n) && !strings.HasSuffix(n, ".log"):
			if base, err := strconv.ParseInt(n[:20], 10, 64); err != nil || !logs[base] {
				ld.note("data dir: %s/%s: an orphaned index file with no .log: deleted", rel, n) // LogLoader does the same
				ld.remove(filepath.Join(dir, n))
			}
		case strings.HasSuffix(n, ".tmp"):
			ld.remove(filepath.Join(dir, n))
		case isSegmentFile(n), n == "partition.metadata", n == "leader-epoch-checkpoint":
		default:
			ld.note("data dir: %s/%s: not a file kafkasim writes: ignored", rel, n)
		}
	}
	key := tm.Name + " " + strconv.Itoa(i)
	rr.HW = bf.hw[key]
	var next int64
	for k, base := range bases {
		p := filepath.Join(dir, segmentName(base)+".log")
		st, err := os.Stat(p)
		if err != nil {
			return rr, false, err
		}
		if st.Size() > maxSegment || ld.total+st.Size() > maxTotalBytes {
			return rr, false, fmt.Errorf("%s: %d bytes: over the limit of what a recovery reads (%d per segment, %d in all)", p, st.Size(), int64(maxSegment), int64(maxTotalBytes))
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return rr, false, err
		}
		ld.total += int64(len(data))
		if base < next {
			return rr, false, fmt.Errorf("%s: base offset %d inside the previous segment (which ends at %d)", p, base, next)
		}
		bs, torn, err := readSegment(data, base, next, ld.shift)
		if err != nil {
			return rr, false, fmt.Errorf("%s: %w", p, err)
		}
		if len(bs) > 0 {
			next = bs[len(bs)-1].LastOffset() + 1
		} else {
			next = max(next, base)
		}
		rr.Segments = append(rr.Segments, log.RestoredSegment{Base: base, Batches: bs})
		if torn == nil {
			continue
		}
		cut := torn.at
		ld.later = append(ld.later, func() error { return os.Truncate(p, cut) })
		var later []string
		for _, lb := range bases[k+1:] {
			for _, f := range segFiles(dir, lb) {
				ld.remove(f)
			}
			later = append(later, segmentName(lb)+".log")
		}
		ld.note("%s", tornMessage(filepath.Join(rel, segmentName(base)+".log"), torn, next, later))
		break
	}
	// Only the last segment may be empty: an empty one before others
	// holds nothing (a roll right before a crash) and goes.
	kept := rr.Segments[:0]
	for k, sg := range rr.Segments {
		if len(sg.Batches) == 0 && k < len(rr.Segments)-1 {
			for _, f := range segFiles(dir, sg.Base) {
				ld.remove(f)
			}
			ld.note("data dir: %s/%s.log: empty and not the last segment: deleted", rel, segmentName(sg.Base))
			continue
		}
		kept = append(kept, sg)
	}
	rr.Segments = kept
	if len(rr.Segments) == 0 {
		rr.Segments = []log.RestoredSegment{{Base: bf.start[key]}}
	}
	if start, ok := bf.start[key]; ok {
		rr.StartOffset = start
	} else {
		rr.StartOffset = rr.Segments[0].Base
	}
	if rr.Epochs, err = readEpochCheckpoint(filepath.Join(dir, "leader-epoch-checkpoint")); err != nil {
		return rr, false, err
	}
	ld.replicas++
	ld.segments += len(rr.Segments)
	ld.loaded = append(ld.loaded, repKey{bf.id, name})
	return rr, true, nil
}

// tornMessage says what a recovery cut: the file, where, how much, why,
// and which offsets are gone.
func tornMessage(file string, t *tornTail, end int64, later []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "data dir: %s: torn tail: cut at byte %d of %d (%d bytes: %s)", file, t.at, t.size, t.size-t.at, t.reason)
	if t.offset >= end && t.offset < end+maxBatchRecords {
		fmt.Fprintf(&b, "; the batch claiming offset %d and everything after it is gone", t.offset)
	}
	fmt.Fprintf(&b, "; the log now ends at offset %d", end)
	if len(later) > 0 {
		fmt.Fprintf(&b, "; later segments deleted: %s", strings.Join(later, ", "))
	}
	return b.String()
}

func readDir(dir string) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(maxDirEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(ents) > maxDirEntries {
		return nil, fmt.Errorf("%s: more than %d entries", dir, maxDirEntries)
	}
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// readSmall reads a file of at most limit bytes.
func readSmall(p string, limit int64) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, over the limit of %d", p, st.Size(), limit)
	}
	return os.ReadFile(p)
}

// checkpointLines reads a CheckpointFile: version 0, a count, that many
// lines of want fields each. A missing file is empty.
func checkpointLines(p string, want int) ([][]string, error) {
	data, err := readSmall(p, maxSmallFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(lines) < 2 || lines[0] != "0" {
		return nil, fmt.Errorf("%s: not a checkpoint file (want a version line 0 and a count line)", p)
	}
	n, err := strconv.Atoi(lines[1])
	if err != nil || n != len(lines)-2 {
		return nil, fmt.Errorf("%s: the count line says %q, the file has %d entries", p, lines[1], len(lines)-2)
	}
	out := make([][]string, 0, n)
	for i, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) != want {
			return nil, fmt.Errorf("%s: malformed line %d in checkpoint file: %q", p, i+3, l)
		}
		out = append(out, f)
	}
	return out, nil
}

// readOffsetCheckpoint reads "topic partition offset" lines.
func readOffsetCheckpoint(p string) (map[string]int64, error) {
	ls, err := checkpointLines(p, 3)
	if err != nil {
		return nil, err
	}
	m := map[string]int64{}
	for _, f := range ls {
		part, err1 := strconv.Atoi(f[1])
		off, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || part < 0 || off < 0 {
			return nil, fmt.Errorf("%s: malformed line in checkpoint file: %q", p, strings.Join(f, " "))
		}
		m[f[0]+" "+strconv.Itoa(part)] = off
	}
	return m, nil
}

// readEpochCheckpoint reads a leader-epoch-checkpoint.
func readEpochCheckpoint(p string) ([]log.EpochEntry, error) {
	ls, err := checkpointLines(p, 2)
	if err != nil {
		return nil, err
	}
	var out []log.EpochEntry
	for _, f := range ls {
		e, err1 := strconv.ParseInt(f[0], 10, 32)
		off, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil || e < 0 || off < 0 {
			return nil, fmt.Errorf("%s: malformed line in checkpoint file: %q", p, strings.Join(f, " "))
		}
		out = append(out, log.EpochEntry{Epoch: int32(e), StartOffset: off})
	}
	return out, nil
}

// checkMetaProperties refuses a broker directory of another broker or
// cluster (Kafka: "The broker is trying to join the wrong cluster").
func checkMetaProperties(p string, c *core.Cluster, id int) error {
	data, err := readSmall(p, maxSmallFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	props := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l == "" || l[0] == '#' {
			continue
		}
		k, v, _ := strings.Cut(l, "=")
		props[k] = v
	}
	got := props["broker.id"]
	if got == "" {
		got = props["node.id"]
	}
	if got != strconv.Itoa(id) {
		return fmt.Errorf("%s: broker id %q in the directory of broker %d", p, got, id)
	}
	if cid := props["cluster.id"]; cid != c.ClusterID() {
		return fmt.Errorf("%s: cluster.id %q, the cluster's is %q: the directory belongs to another cluster", p, cid, c.ClusterID())
	}
	return nil
}

// checkPartitionMetadata refuses a replica directory of another topic
// with the same name (Kafka compares partition.metadata's topic id).
func checkPartitionMetadata(p, want string) error {
	data, err := readSmall(p, maxSmallFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var version, id string
	for _, l := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(l, ": ")
		switch k {
		case "version":
			version = v
		case "topic_id":
			id = v
		}
	}
	if version != "0" {
		return fmt.Errorf("%s: version %q, want 0", p, version)
	}
	if want != "" && id != want {
		return fmt.Errorf("%s: topic id %s, the metadata says %s: the directory belongs to another topic of that name", p, id, want)
	}
	return nil
}
