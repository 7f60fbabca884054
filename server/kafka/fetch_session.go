package kafka

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kafkasim/kafkasim/core"
)

// Fetch sessions (KIP-227, Fetch v7+), as Kafka's broker keeps them
// (FetchSession.java, FetchSessionCacheShard.java and FetchManager.java in
// server/, kafka.server.FetchSession.scala before 4.0). Each simulated
// broker's process has a cache of sessions; a session remembers the
// partitions a client fetches and what the last response told it about
// each, so the client's next request lists only what changed and the
// response only the partitions with something new.
//
// The core knows nothing of sessions: the listener expands an incremental
// request into the session's whole partition list for the core's
// FetchRequest and filters the core's full answer back into the
// incremental response. Kafka does its session work in two steps, and so
// does the listener: FetchManager.newContext when the request is read
// (here when the listener decodes it, one network hop before the
// simulated broker reads it), and FetchContext
// .updateAndGenerateResponseData when the response is made (here when it
// reaches the client's host). A request lost on its way therefore still
// advances its session's epoch, which Kafka's would not; clients reset
// their session after a request that got no answer anyway.
//
// The cache lives as long as the broker's process: a crash or power-off
// loses it (Server.watch sees the broker's EvBrokerState), so the ids
// clients hold are FETCH_SESSION_ID_NOT_FOUND after the restart, as from
// a restarted Kafka broker. Its size is the broker config
// max.incremental.fetch.session.cache.slots (1000), read when the
// process starts. From 3.8 (KAFKA-9401) Kafka splits it into 8 shards of
// slots/8 sessions each, new sessions going to them in turn and eviction
// looking only within one; the 2.8 preset has one cache of slots.

const (
	// sessionEvictionMs is how long a session must go unused before any
	// new one may evict it, and how old it must be before a larger one
	// may (KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS).
	sessionEvictionMs = 120_000
	// defaultSessionSlots is max.incremental.fetch.session.cache.slots'
	// default (ServerConfigs).
	defaultSessionSlots = 1000
	// sessionSlotsConfig is the broker config that sizes the cache.
	sessionSlotsConfig = "max.incremental.fetch.session.cache.slots"
	// cacheShards is NumFetchSessionCacheShards (KafkaBroker, 3.8+).
	cacheShards = 8
	// maxCachedPartitions bounds the partitions one broker's sessions
	// hold, a bound of ours (Kafka's is only memory): a full fetch past
	// it gets no session, an incremental one closes the connection.
	maxCachedPartitions = 200_000
)

// Fetch session errors (Errors.java).
const (
	errUnknownServer            int16 = -1
	errInvalidRequest           int16 = 42
	errFetchSessionIDNotFound   int16 = 70
	errInvalidFetchSessionEpoch int16 = 71
	errFetchSessionTopicID      int16 = 106
)

// sessKey names a partition in a session: by topic name before v13, by
// topic id from v13 (CachedPartition's equals: id when it is not zero).
type sessKey struct {
	topic     string
	id        [16]byte
	partition int32
}

// cachedPartition is Kafka's CachedPartition: the request parameters the
// client last gave, and the high watermark and log start offset the last
// response carried (-1 before any, and the high watermark -1 again after
// an error, so the partition is sent when the error goes away).
type cachedPartition struct {
	key sessKey
	// name is, by id, the topic's name once the broker resolved it
	// (CachedPartition.maybeResolveUnknownName: never again after),
	// "" before; by name, the name.
	name        string
	fetchOffset int64
	leaderEpoch int32
	maxBytes    int32
	hw          int64
	logStart    int64
}

// fetchSession is Kafka's FetchSession.
type fetchSession struct {
	id, epoch         int32
	usesIDs           bool
	created, lastUsed int64
	// cachedSize and evictable are as of the last touch, as Kafka's
	// eviction trees see the session: its size then, and whether it was
	// older than sessionEvictionMs then (evictableByAll).
	cachedSize int
	evictable  bool
	parts      []*cachedPartition // the session's order (ImplicitLinkedHashCollection)
	byKey      map[sessKey]*cachedPartition
}

// sessionShard is Kafka's FetchSessionCacheShard.
type sessionShard struct {
	num        int
	maxEntries int
	sessions   map[int32]*fetchSession
}

// sessionCache is one broker process's FetchSessionCache.
type sessionCache struct {
	shards  []*sessionShard
	idRange int32  // sessionIdRange: shard i holds ids in [max(1, i*idRange), (i+1)*idRange)
	next    uint32 // FetchSessionCache.COUNTER: the shard the next new session goes to
	held    int    // partitions the sessions hold
}

func newSessionCache(slots, shards int) *sessionCache {
	k := &sessionCache{idRange: int32(math.MaxInt32 / shards)}
	for i := 0; i < shards; i++ {
		k.shards = append(k.shards, &sessionShard{num: i, maxEntries: slots / shards, sessions: map[int32]*fetchSession{}})
	}
	return k
}

// shardOf is getCacheShard: nil for an id outside every shard's range,
// where Kafka's list index throws (UNKNOWN_SERVER_ERROR). Before 3.8
// there was one cache for every id.
func (k *sessionCache) shardOf(id int32) *sessionShard {
	if len(k.shards) == 1 {
		return k.shards[0]
	}
	i := id / k.idRange
	if i < 0 || int(i) >= len(k.shards) {
		return nil
	}
	return k.shards[i]
}

func (k *sessionCache) get(id int32) *fetchSession {
	if sh := k.shardOf(id); sh != nil {
		return sh.sessions[id]
	}
	return nil
}

func (k *sessionCache) remove(sh *sessionShard, s *fetchSession) {
	if sh.sessions[s.id] == s {
		delete(sh.sessions, s.id)
		k.held -= len(s.parts)
	}
}

// touch is FetchSessionCacheShard.touch.
func touch(s *fetchSession, now int64) {
	s.lastUsed = now
	s.cachedSize = len(s.parts)
	s.evictable = now-s.created > sessionEvictionMs
}

// tryEvict is FetchSessionCacheShard.tryEvict for an unprivileged new
// session of size partitions (consumers' sessions are never privileged:
// only followers' are, and outside followers are refused here): the
// least recently used session if it went unused past sessionEvictionMs,
// else the smallest evictable one (by size, then id) if the new one is
// larger.
func (k *sessionCache) tryEvict(sh *sessionShard, size int, now int64) bool {
	var lru, small *fetchSession
	for _, s := range sh.sessions {
		if lru == nil || s.lastUsed < lru.lastUsed || s.lastUsed == lru.lastUsed && s.id < lru.id {
			lru = s
		}
		if s.evictable && (small == nil || s.cachedSize < small.cachedSize || s.cachedSize == small.cachedSize && s.id < small.id) {
			small = s
		}
	}
	switch {
	case lru == nil:
		return false
	case now-lru.lastUsed > sessionEvictionMs:
		k.remove(sh, lru)
		return true
	case small == nil || size <= small.cachedSize:
		// EvictableKey(false, size, 0) sorts before (false, size, id>0).
		return false
	}
	k.remove(sh, small)
	return true
}

// create is maybeCreateSession on the next shard in turn: the new
// session's id, or 0 when there is no room.
func (k *sessionCache) create(now int64, usesIDs bool, parts []*cachedPartition) int32 {
	sh := k.shards[k.next%uint32(len(k.shards))]
	k.next++
	if k.held+len(parts) > maxCachedPartitions {
		return 0
	}
	if len(sh.sessions) >= sh.maxEntries && !k.tryEvict(sh, len(parts), now) {
		return 0
	}
	lo, hi := max(1, int64(sh.num)*int64(k.idRange)), (int64(sh.num)+1)*int64(k.idRange)
	var id int32
	for id == 0 || sh.sessions[id] != nil {
		id = int32(lo + rand.Int64N(hi-lo))
	}
	s := &fetchSession{id: id, epoch: 1, usesIDs: usesIDs, created: now, parts: parts, byKey: make(map[sessKey]*cachedPartition, len(parts))}
	for _, cp := range parts {
		s.byKey[cp.key] = cp
	}
	sh.sessions[id] = s
	k.held += len(parts)
	touch(s, now)
	return id
}

// nextEpoch is FetchMetadata.nextEpoch.
func nextEpoch(e int32) int32 {
	switch {
	case e < 0:
		return -1
	case e == math.MaxInt32:
		return 1
	}
	return e + 1
}

// Kinds of fetch context (FetchContext's subclasses).
const (
	ctxSessionless = iota // SessionlessFetchContext: session id 0, every partition
	ctxFull               // FullFetchContext: opens a session if there is room
	ctxIncremental        // IncrementalFetchContext
	ctxError              // SessionErrorContext: a top-level error, no partitions
)

// fetchContext is what newContext made of one request, for its response.
type fetchContext struct {
	kind     int
	err      int16 // ctxError's
	broker   int
	usesIDs  bool
	cache    *sessionCache // the broker process's cache it was made in
	session  *fetchSession // ctxIncremental's
	reqEpoch int32
	parts    []fetchPart // what the broker fetches, in order
}

// fetchPart is one partition a context fetches.
type fetchPart struct {
	key         sessKey
	name        string // the topic name the core is asked for ("" for an id nobody resolved)
	fetchOffset int64
	leaderEpoch int32
	maxBytes    int32
	// cached is the session's partition (ctxIncremental); sticky marks
	// one whose name the session had resolved before this request.
	cached *cachedPartition
	sticky bool
}

// partResult is what the broker answered for one fetchPart.
type partResult struct {
	err          string
	hw, logStart int64
	records      bool
}

// fetchSessions is every simulated broker's session cache.
type fetchSessions struct {
	mu     sync.Mutex
	caches map[int]*sessionCache // by broker; made at its first fetch
	slots  map[int]int           // each broker's slots config, as its process started
	shards int
	// now is the cluster's virtual time as of the last step the server
	// saw (Server.watch): Kafka's clock for lastUsed and creation.
	now atomic.Int64
}

// reset forgets every session and reads the brokers' configs: a new
// cluster, or the first look at one.
func (f *fetchSessions) reset(c *core.Cluster) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.caches, f.slots = map[int]*sessionCache{}, map[int]int{}
	f.shards = cacheShards
	var major, minor int
	if _, err := fmt.Sscanf(c.Version(), "%d.%d", &major, &minor); err == nil && (major < 3 || major == 3 && minor < 8) {
		f.shards = 1 // before KAFKA-9401 (3.8)
	}
	for _, b := range c.Brokers() {
		f.slots[b.ID] = slotsOf(c, b.ID)
	}
	f.now.Store(c.Now())
}

// lost drops broker id's sessions: its process died.
func (f *fetchSessions) lost(id int) {
	f.mu.Lock()
	delete(f.caches, id)
	f.mu.Unlock()
}

// started notes the slots config broker id's new process read.
func (f *fetchSessions) started(c *core.Cluster, id int) {
	f.mu.Lock()
	delete(f.caches, id)
	if f.slots != nil {
		f.slots[id] = slotsOf(c, id)
	}
	f.mu.Unlock()
}

// slotsOf is broker id's max.incremental.fetch.session.cache.slots.
func slotsOf(c *core.Cluster, id int) int {
	cfgs, _ := c.BrokerConfigs(id)
	for _, e := range cfgs {
		if e.Name == sessionSlotsConfig {
			var n int
			if _, err := fmt.Sscan(e.Value, &n); err == nil {
				return n
			}
		}
	}
	return defaultSessionSlots
}

// cacheOf is broker id's cache, made now if its process has none yet.
func (f *fetchSessions) cacheOf(id int) *sessionCache {
	if f.caches == nil {
		f.caches, f.slots, f.shards = map[int]*sessionCache{}, map[int]int{}, cacheShards
	}
	k := f.caches[id]
	if k == nil {
		slots, ok := f.slots[id]
		if !ok {
			slots = defaultSessionSlots
		}
		k = newSessionCache(slots, f.shards)
		f.caches[id] = k
	}
	return k
}

// newContext is FetchManager.newContext for a request to broker with
// session id and epoch, listing parts and forgetting forgotten. lookup
// names a topic id from what the listener knows now (for a session's
// partitions whose name is not resolved yet). An error closes the
// connection: the request would grow its session past our bounds.
func (f *fetchSessions) newContext(broker int, version int16, id, epoch int32, parts []fetchPart, forgotten []sessKey, lookup func([16]byte) string) (*fetchContext, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := f.cacheOf(broker)
	usesIDs := version >= 13
	if epoch == 0 || epoch == -1 { // FetchMetadata.isFull
		if id != 0 {
			sh := k.shardOf(id)
			if sh == nil {
				return &fetchContext{kind: ctxError, err: errUnknownServer}, nil
			}
			if s := sh.sessions[id]; s != nil {
				k.remove(sh, s) // any session a full request names is closed
			}
		}
		kind := ctxFull
		if epoch == -1 {
			kind = ctxSessionless
		}
		return &fetchContext{kind: kind, broker: broker, usesIDs: usesIDs, cache: k, parts: parts}, nil
	}
	sh := k.shardOf(id)
	if sh == nil {
		return &fetchContext{kind: ctxError, err: errUnknownServer}, nil
	}
	s := sh.sessions[id]
	switch {
	case s == nil:
		return &fetchContext{kind: ctxError, err: errFetchSessionIDNotFound}, nil
	case s.epoch != epoch:
		return &fetchContext{kind: ctxError, err: errInvalidFetchSessionEpoch}, nil
	case s.usesIDs != usesIDs:
		return &fetchContext{kind: ctxError, err: errFetchSessionTopicID}, nil
	}
	var fresh map[sessKey]bool // the keys the request adds
	for i := range parts {
		if s.byKey[parts[i].key] == nil {
			if fresh == nil {
				fresh = map[sessKey]bool{}
			}
			fresh[parts[i].key] = true
		}
	}
	added := len(fresh)
	if added > 0 && len(s.parts)+added > core.MaxRequestPartitions {
		return nil, fmt.Errorf("fetch session %d would hold %d partitions (limit %d)", id, len(s.parts)+added, core.MaxRequestPartitions)
	}
	if k.held+added > maxCachedPartitions {
		return nil, fmt.Errorf("broker %d's fetch sessions would hold %d partitions (limit %d)", broker, k.held+added, maxCachedPartitions)
	}
	// FetchSession.update: add or update what the request lists, then
	// drop what it forgets.
	for _, p := range parts {
		if cp := s.byKey[p.key]; cp != nil {
			cp.fetchOffset, cp.leaderEpoch, cp.maxBytes = p.fetchOffset, p.leaderEpoch, p.maxBytes
			continue
		}
		cp := &cachedPartition{key: p.key, fetchOffset: p.fetchOffset, leaderEpoch: p.leaderEpoch, maxBytes: p.maxBytes, hw: -1, logStart: -1}
		if !usesIDs {
			cp.name = p.key.topic
		}
		s.parts = append(s.parts, cp)
		s.byKey[p.key] = cp
		k.held++
	}
	if len(forgotten) > 0 {
		n := len(s.parts)
		for _, key := range forgotten {
			delete(s.byKey, key)
		}
		s.parts = slices.DeleteFunc(s.parts, func(cp *cachedPartition) bool { return s.byKey[cp.key] != cp })
		k.held -= n - len(s.parts)
	}
	if len(s.parts) == 0 {
		k.remove(sh, s)
		return &fetchContext{kind: ctxSessionless, broker: broker, usesIDs: usesIDs, cache: k, parts: parts}, nil
	}
	touch(s, f.now.Load())
	s.epoch = nextEpoch(s.epoch)
	fc := &fetchContext{kind: ctxIncremental, broker: broker, usesIDs: usesIDs, cache: k, session: s, reqEpoch: epoch, parts: make([]fetchPart, len(s.parts))}
	for i, cp := range s.parts {
		p := fetchPart{key: cp.key, name: cp.name, fetchOffset: cp.fetchOffset, leaderEpoch: cp.leaderEpoch, maxBytes: cp.maxBytes, cached: cp}
		if usesIDs {
			p.sticky = cp.name != ""
			if !p.sticky {
				p.name = lookup(cp.key.id)
			}
		}
		fc.parts[i] = p
	}
	return fc, nil
}

// respond is updateAndGenerateResponseData: given what the broker
// answered for each of fc's partitions, which go into the response, its
// session id and its top-level error.
func (f *fetchSessions) respond(fc *fetchContext, res []partResult) (include []bool, id int32, topErr int16) {
	include = make([]bool, len(fc.parts))
	switch fc.kind {
	case ctxSessionless:
		for i := range include {
			include[i] = true
		}
		return include, 0, 0
	case ctxFull:
		for i := range include {
			include[i] = true
		}
		parts := make([]*cachedPartition, len(fc.parts))
		for i, p := range fc.parts {
			cp := &cachedPartition{key: p.key, fetchOffset: p.fetchOffset, leaderEpoch: p.leaderEpoch, maxBytes: p.maxBytes,
				hw: res[i].hw, logStart: res[i].logStart}
			if !fc.usesIDs || res[i].err != "UNKNOWN_TOPIC_ID" {
				cp.name = p.name // resolved: the broker read the topic by it
			}
			parts[i] = cp
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.caches[fc.broker] != fc.cache {
			// The process that read the request died before it answered:
			// the session it made died with it.
			return include, 1 + rand.Int32N(math.MaxInt32-1), 0
		}
		return include, fc.cache.create(f.now.Load(), fc.usesIDs, parts), 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := fc.session
	if s.epoch != nextEpoch(fc.reqEpoch) {
		// Another request moved the session on meanwhile: "possible
		// duplicate request".
		return include, s.id, errInvalidFetchSessionEpoch
	}
	var moved []*cachedPartition
	var isMoved map[*cachedPartition]bool
	for i, p := range fc.parts {
		cp, r := p.cached, &res[i]
		if fc.usesIDs && cp.name == "" && r.err != "UNKNOWN_TOPIC_ID" {
			cp.name = p.name
		}
		// CachedPartition.maybeUpdateResponseData. There is no preferred
		// read replica (KIP-392) or diverging epoch (followers only) here.
		must := r.records
		if cp.hw != r.hw {
			must, cp.hw = true, r.hw
		}
		if cp.logStart != r.logStart {
			must, cp.logStart = true, r.logStart
		}
		if r.err != "" {
			must, cp.hw = true, -1
		}
		include[i] = must
		if r.records && s.byKey[cp.key] == cp {
			if isMoved == nil {
				isMoved = map[*cachedPartition]bool{}
			}
			moved, isMoved[cp] = append(moved, cp), true
		}
	}
	if len(moved) > 0 {
		// A partition that returned records goes to the end of the
		// session, so the next response's bytes go to the others first.
		s.parts = slices.DeleteFunc(s.parts, func(cp *cachedPartition) bool { return isMoved[cp] })
		s.parts = append(s.parts, moved...)
	}
	return include, s.id, 0
}
