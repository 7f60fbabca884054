package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// Backend is the served cluster as the store needs it (server/kafka's
// FromRoom is one): the goroutine that owns a core.Cluster.
type Backend interface {
	Do(ctx context.Context, fn func(c *core.Cluster)) error
	Watch(fn func(c *core.Cluster, events []core.Event, reset bool)) (stop func(), err error)
}

// Limits.
const (
	opsQueue  = 64  // lists of operations waiting for the writer
	openFiles = 256 // file handles the writer keeps open
	maxFiles  = 1e6 // directory entries a recovery looks at
)

// Store keeps one served cluster's logs in a directory. Its methods are
// safe for use from any goroutine; observe runs on the cluster's.
type Store struct {
	dir  string
	logf func(string, ...any)
	now  func() time.Time

	ops       chan opList
	quit      chan struct{}
	done      chan struct{}
	stop      func()
	once      sync.Once
	offset    atomic.Int64 // Unix ms minus virtual ms of the cluster followed
	failed    atomic.Pointer[error]
	following atomic.Bool // Follow was called: Close leaves the clean-shutdown markers

	// Owned by the cluster's goroutine.
	cluster    *core.Cluster
	reps       map[repKey]*repState
	adopted    map[repKey]*repState // what a restore put on the cluster, matching the files
	lastMeta   string
	meta       *clusterMeta // what Cluster read, for Restore
	lastTopics int
	nextFor    *core.Cluster // the cluster nextOffset was fixed for
	nextOffset int64

	// Owned by the writer goroutine.
	w writer
}

// Options configure a store.
type Options struct {
	// Logf reports what was recovered and cut, and write errors.
	Logf func(format string, args ...any)
	// Now is the wall clock (time.Now if nil).
	Now func() time.Time
	// FileDeleteDelay is how long a deleted replica's renamed directory
	// (<topic>-<n>.<id>-delete) stays before it is removed: Kafka's
	// file.delete.delay.ms, 60 s if 0.
	FileDeleteDelay time.Duration
}

// defaultFileDeleteDelay is file.delete.delay.ms's default.
const defaultFileDeleteDelay = 60 * time.Second

// Open makes a store for dir, creating it if needed. It reads nothing
// yet: Restore does.
func Open(dir string, o Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("data dir: empty path")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FileDeleteDelay <= 0 {
		o.FileDeleteDelay = defaultFileDeleteDelay
	}
	s := &Store{dir: dir, logf: o.Logf, now: o.Now, ops: make(chan opList, opsQueue), done: make(chan struct{}), quit: make(chan struct{})}
	s.w = writer{root: dir, files: map[string]*os.File{}, logf: o.Logf, delay: o.FileDeleteDelay, now: o.Now, unique: uniqueID}
	go s.write()
	return s, nil
}

// ClockOffset is what to add to a virtual timestamp of c to get the Unix
// ms stored on disk and shown to clients, fixed the first time it is
// asked for c. server/kafka uses it so the files and the wire agree. It
// must be called on c's goroutine.
func (s *Store) ClockOffset(c *core.Cluster) int64 {
	if c == s.cluster {
		return s.offset.Load()
	}
	if c != s.nextFor {
		s.nextFor, s.nextOffset = c, s.now().UnixMilli()-c.Now()
	}
	return s.nextOffset
}

// Follow starts writing what the cluster behind b does.
func (s *Store) Follow(ctx context.Context, b Backend) error {
	if err := b.Do(ctx, func(c *core.Cluster) { s.observe(c, nil) }); err != nil {
		return err
	}
	stop, err := b.Watch(func(c *core.Cluster, evs []core.Event, _ bool) { s.observe(c, evs) })
	if err != nil {
		return err
	}
	s.stop = stop
	s.following.Store(true)
	return nil
}

// opList is one observation's operations and the clock offset their
// timestamps use.
type opList struct {
	ops    []op
	offset int64
	sync   chan struct{} // closed once applied (Sync)
}

// send hands ops to the writer; it blocks when the writer is behind (a
// bounded queue: the cluster waits rather than memory grows).
func (s *Store) send(ops []op) {
	if len(ops) > 0 {
		s.enqueue(opList{ops: ops, offset: s.offset.Load()})
	}
}

func (s *Store) enqueue(l opList) {
	select {
	case s.ops <- l:
	case <-s.done:
	}
}

// Sync waits until everything queued so far is written.
func (s *Store) Sync() {
	ch := make(chan struct{})
	s.enqueue(opList{sync: ch})
	select {
	case <-ch:
	case <-s.done:
	}
}

// Err is the first write error, if any: from then on the disk no longer
// follows the simulation.
func (s *Store) Err() error {
	if e := s.failed.Load(); e != nil {
		return *e
	}
	return nil
}

// Close stops following, writes what is queued, fsyncs every open file,
// leaves .kafka_cleanshutdown in each broker directory (as a broker's
// controlled shutdown does) and stops the writer.
func (s *Store) Close() error {
	s.once.Do(func() {
		if s.stop != nil {
			s.stop()
		}
		if s.following.Load() {
			s.enqueue(opList{ops: []op{{kind: opClose}}})
		}
		s.Sync()
		close(s.quit)
		<-s.done
	})
	return s.Err()
}

// uniqueID is a random UUID's 32 hex digits (UUID.randomUUID without
// dashes), as LocalLog.logDeleteDirName names a deleted log.
func uniqueID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Store) write() {
	defer close(s.done)
	defer s.w.closeAll()
	due := time.NewTimer(time.Hour)
	due.Stop()
	arm := func() {
		next, err := s.w.removeDue()
		if err != nil {
			s.logf("data dir %s: %v", s.dir, err)
		}
		if !next.IsZero() {
			due.Reset(max(next.Sub(s.now()), time.Millisecond))
		}
	}
	for {
		select {
		case <-due.C:
			arm()
		case l := <-s.ops:
			for i := range l.ops {
				if s.Err() != nil {
					break
				}
				if err := s.w.apply(&l.ops[i], l.offset); err != nil {
					err = fmt.Errorf("data dir %s: %w (from now on the files no longer follow the simulation)", s.dir, err)
					s.failed.Store(&err)
					s.logf("%v", err)
				}
			}
			arm()
			if l.sync != nil {
				close(l.sync)
			}
		case <-s.quit:
			return
		}
	}
}
