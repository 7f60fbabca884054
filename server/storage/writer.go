package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkasim/kafkasim/core/log"
)

type opKind uint8

const (
	opMkdir     opKind = iota // dir, and partition.metadata when data is set
	opWriteFile               // dir/name = data, atomically (temp file, rename)
	opCreateSeg               // empty .log, .index, .timeindex at base
	opAppend                  // batches at size, index entries at nIdx, nTime
	opTruncSeg                // cut .log to size, .index to nIdx, .timeindex to nTime entries
	opDeleteSeg               // remove the segment's three files
	opSync                    // fsync the segment's files
	opClear                   // remove every file of a replica directory
	opDeleteDir               // a deleted replica: rename its directory <dir>.<id>-delete, remove it later
	opWipe                    // remove every broker directory (the cluster was replaced)
	opClose                   // fsync everything, leave .kafka_cleanshutdown
)

// op is one write. Paths are relative to the data dir.
type op struct {
	kind        opKind
	dir, name   string
	base        int64
	data        []byte
	size        int32
	nIdx, nTime int
	batches     []*log.Batch
	positions   []int32
	idx         []log.IndexEntry
	tidx        []log.TimeIndexEntry
}

// writer does the I/O, on the store's writer goroutine only.
type writer struct {
	root  string
	files map[string]*os.File // open segment files by relative path
	buf   []byte
	logf  func(string, ...any)
	// doomed are deleted replicas' renamed directories waiting for
	// file.delete.delay.ms (LogManager's logsToBeDeleted), oldest first.
	doomed []doomedDir
	delay  time.Duration
	now    func() time.Time
	unique func() string
}

// doomedDir is a renamed directory and when to remove it.
type doomedDir struct {
	rel string
	at  time.Time
}

// maxDoomed bounds the renamed directories waiting for removal; past it
// the oldest is removed at once.
const maxDoomed = 10_000

func (w *writer) path(rel string) string { return filepath.Join(w.root, rel) }

func segFiles(dir string, base int64) [3]string {
	n := segmentName(base)
	return [3]string{filepath.Join(dir, n+".log"), filepath.Join(dir, n+".index"), filepath.Join(dir, n+".timeindex")}
}

// file returns the open file at rel, opening (creating) it if needed.
func (w *writer) file(rel string) (*os.File, error) {
	if f := w.files[rel]; f != nil {
		return f, nil
	}
	if len(w.files) >= openFiles {
		for victim := range w.files { // any one: a busy file is reopened cheaply
			w.forget(victim)
			break
		}
	}
	f, err := os.OpenFile(w.path(rel), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	w.files[rel] = f
	return f, nil
}

func (w *writer) forget(rel string) {
	if f := w.files[rel]; f != nil {
		f.Close()
		delete(w.files, rel)
	}
}

func (w *writer) closeAll() {
	for rel, f := range w.files {
		f.Close()
		delete(w.files, rel)
	}
}

func (w *writer) apply(o *op, offset int64) error {
	ts := func(t int64) int64 {
		if t == -1 {
			return t
		}
		return t + offset
	}
	switch o.kind {
	case opMkdir:
		if err := os.MkdirAll(w.path(o.dir), 0o755); err != nil {
			return err
		}
		if o.data != nil {
			return w.writeFile(o.dir, "partition.metadata", o.data)
		}
	case opWriteFile:
		return w.writeFile(o.dir, o.name, o.data)
	case opCreateSeg:
		for _, rel := range segFiles(o.dir, o.base) {
			if _, err := w.file(rel); err != nil {
				return err
			}
		}
	case opAppend:
		return w.append(o, ts)
	case opTruncSeg:
		fs := segFiles(o.dir, o.base)
		sizes := [3]int64{int64(o.size), int64(o.nIdx) * indexEntryBytes, int64(o.nTime) * timeEntryBytes}
		for i, rel := range fs {
			f, err := w.file(rel)
			if err != nil {
				return err
			}
			if err := f.Truncate(sizes[i]); err != nil {
				return err
			}
		}
	case opDeleteSeg:
		for _, rel := range segFiles(o.dir, o.base) {
			w.forget(rel)
			if err := os.Remove(w.path(rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	case opSync:
		for _, rel := range segFiles(o.dir, o.base) {
			f, err := w.file(rel)
			if err != nil {
				return err
			}
			if err := f.Sync(); err != nil {
				return err
			}
		}
	case opDeleteDir:
		w.forgetUnder(o.dir)
		to := deleteDirName(o.dir, w.unique())
		if err := os.Rename(w.path(o.dir), w.path(to)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if len(w.doomed) >= maxDoomed {
			if err := w.removeDoomed(w.doomed[0]); err != nil {
				return err
			}
			w.doomed = w.doomed[1:]
		}
		w.doomed = append(w.doomed, doomedDir{rel: to, at: w.now().Add(w.delay)})
	case opClear:
		w.forgetUnder(o.dir)
		ents, err := os.ReadDir(w.path(o.dir))
		if err != nil {
			return err
		}
		for _, e := range ents {
			if n := e.Name(); isSegmentFile(n) || n == "leader-epoch-checkpoint" {
				if err := os.Remove(w.path(filepath.Join(o.dir, n))); err != nil {
					return err
				}
			}
		}
	case opWipe:
		w.closeAll()
		ents, err := os.ReadDir(w.root)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "broker-") && e.IsDir() {
				if err := os.RemoveAll(w.path(e.Name())); err != nil {
					return err
				}
			}
		}
	case opClose:
		for _, f := range w.files {
			if err := f.Sync(); err != nil {
				return err
			}
		}
		ents, err := os.ReadDir(w.root)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "broker-") && e.IsDir() {
				if err := os.WriteFile(w.path(filepath.Join(e.Name(), cleanShutdownFile)), nil, 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// deleteSuffix ends a deleted log's directory name (UnifiedLog.DeleteDirSuffix).
const deleteSuffix = "-delete"

// deleteDirName is LocalLog.logDeleteDirName: <topic>-<n>.<32 hex>-delete
// next to the log's directory.
func deleteDirName(dir, unique string) string { return dir + "." + unique + deleteSuffix }

// isDeleteDir reports whether a directory name is a deleted log's.
func isDeleteDir(name string) bool {
	base, ok := strings.CutSuffix(name, deleteSuffix)
	i := strings.LastIndexByte(base, '.')
	return ok && i > 0 && len(base)-i-1 == 32
}

// removeDue removes the renamed directories whose delay has passed (the
// kafka-delete-logs task) and returns when the next one is due (zero:
// none waiting).
func (w *writer) removeDue() (time.Time, error) {
	now := w.now()
	for len(w.doomed) > 0 && !w.doomed[0].at.After(now) {
		if err := w.removeDoomed(w.doomed[0]); err != nil {
			return time.Time{}, err
		}
		w.doomed = w.doomed[1:]
	}
	if len(w.doomed) == 0 {
		return time.Time{}, nil
	}
	return w.doomed[0].at, nil
}

func (w *writer) removeDoomed(d doomedDir) error {
	w.logf("data dir: %s removed (file.delete.delay.ms passed)", d.rel)
	return os.RemoveAll(w.path(d.rel))
}

// cleanShutdownFile is LogLoader's CleanShutdownFileHandler marker.
const cleanShutdownFile = ".kafka_cleanshutdown"

func isSegmentFile(n string) bool {
	for _, ext := range []string{".log", ".index", ".timeindex"} {
		if strings.HasSuffix(n, ext) && len(n) == 20+len(ext) {
			return true
		}
	}
	return false
}

func (w *writer) forgetUnder(dir string) {
	pre := dir + string(filepath.Separator)
	for rel := range w.files {
		if strings.HasPrefix(rel, pre) {
			w.forget(rel)
		}
	}
}

// append writes batches at the end of the .log (the page cache: no
// fsync) and the new index entries after the old ones.
func (w *writer) append(o *op, ts toDisk) error {
	fs := segFiles(o.dir, o.base)
	if len(o.batches) > 0 {
		w.buf = w.buf[:0]
		at := int64(o.size)
		for i, b := range o.batches {
			if want := int64(o.positions[i]); int64(len(w.buf))+at != want {
				return fmt.Errorf("%s: batch at offset %d belongs at byte %d, the file would put it at %d", fs[0], b.BaseOffset, want, int64(len(w.buf))+at)
			}
			w.buf = appendBatch(w.buf, b, ts)
		}
		if err := w.writeAt(fs[0], w.buf, at); err != nil {
			return err
		}
	}
	if len(o.idx) > 0 {
		if err := w.writeAt(fs[1], appendIndex(nil, o.base, o.idx), int64(o.nIdx)*indexEntryBytes); err != nil {
			return err
		}
	}
	if len(o.tidx) > 0 {
		if err := w.writeAt(fs[2], appendTimeIndex(nil, o.base, o.tidx, ts), int64(o.nTime)*timeEntryBytes); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) writeAt(rel string, data []byte, at int64) error {
	f, err := w.file(rel)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, at)
	return err
}

// writeFile replaces dir/name atomically (CheckpointFile.write: a temp
// file, then a rename).
func (w *writer) writeFile(dir, name string, data []byte) error {
	p := w.path(filepath.Join(dir, name))
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
