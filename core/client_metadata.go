package core

import (
	"maps"
	"slices"
)

// metaView is a client's metadata cache (Kafka's Metadata): partition
// counts and leaders as some broker last reported them. It may be stale;
// clients refresh it on errors, unknown topics and leaders, and every
// metadata.max.age.ms.
type metaView struct {
	c        *Cluster
	from     *node
	counts   map[string]int
	leaders  map[*Partition]int
	epochs   map[*Partition]int32
	nodes    []int           // the brokers the last answer listed (Metadata's nodes); read only
	topics   map[string]bool // topics of interest
	deleted  map[string]bool // topics it knew that the brokers no longer know (forget)
	absent   map[string]bool // topics the last answer about them said do not exist (UNKNOWN_TOPIC_OR_PARTITION)
	sorted   []string        // topics' keys in order (what a refresh asks for); never changed in place
	all      bool            // ask for every topic (pattern subscription)
	maxAge   int64           // metadata.max.age.ms: refresh at least this often
	ageSeq   int
	inflight bool
	again    bool // topics were added while a request was in flight
	seq      int
	next     int   // bootstrap broker to ask next
	backoff  int64 // retry.backoff.ms
	timeout  int64 // request.timeout.ms
	onUpdate func()
	alive    func() bool
}

func newMetaView(c *Cluster, from *node, s settings, onUpdate func(), alive func() bool) *metaView {
	return &metaView{c: c, from: from, counts: map[string]int{}, leaders: map[*Partition]int{}, epochs: map[*Partition]int32{},
		topics: map[string]bool{}, deleted: map[string]bool{}, absent: map[string]bool{}, next: c.rng.Intn(len(c.brokers)), backoff: s.int("retry.backoff.ms"), timeout: s.int("request.timeout.ms"),
		maxAge: s.int("metadata.max.age.ms"), onUpdate: onUpdate, alive: alive}
}

// leader returns the known leader of p, or -1.
func (m *metaView) leader(p *Partition) int {
	if l, ok := m.leaders[p]; ok {
		return l
	}
	return -1
}

// wantAll switches to asking for every topic when topics is empty (a
// pattern subscription), else adds the topics.
func (m *metaView) wantAll(topics []string) {
	if len(topics) == 0 || m.all {
		if !m.all {
			m.all = true
			m.refresh()
		}
		return
	}
	for _, t := range topics {
		m.want(t)
	}
}

// snapshot returns the known partition counts of topics.
func (m *metaView) snapshot(topics []string) map[string]int {
	out := map[string]int{}
	for _, t := range topics {
		out[t] = m.counts[t]
	}
	return out
}

// want adds a topic of interest and refreshes if it is unknown.
func (m *metaView) want(topic string) {
	if !m.topics[topic] {
		m.topics[topic] = true
		m.sorted = slices.Sorted(maps.Keys(m.topics))
		m.refresh()
	}
}

// refresh sends a Metadata request to the next bootstrap broker, unless
// one is in flight.
func (m *metaView) refresh() {
	if m.inflight {
		m.again = true
		return
	}
	if !m.alive() {
		return
	}
	m.again = false
	c := m.c
	b := c.brokers[m.next%len(c.brokers)]
	m.next++
	m.inflight = true
	m.seq++
	seq := m.seq
	topics := m.sorted // a new slice whenever topics grows, so a request's list stays as sent
	if m.all {
		topics = nil
	}
	fail := func() {
		if m.seq == seq && m.inflight && m.alive() {
			m.inflight = false
			c.after(m.backoff, m.refresh)
		}
	}
	c.net.send(m.from, b.node, "Metadata", func() {
		res := b.handleMetadata(metadataReq{topics: topics})
		resp, empty := res.topics, res.empty
		c.net.send(b.node, m.from, "MetadataResponse", func() {
			if m.seq != seq || !m.alive() {
				return
			}
			if empty {
				// A broker that has no metadata yet (just restarted) lists
				// no brokers, and the client ignores its answer ("Ignoring
				// empty metadata response", NetworkClient) and asks again.
				fail()
				return
			}
			m.inflight = false
			m.nodes = res.brokers
			m.apply(resp)
			if m.again {
				m.refresh()
			}
		}, nil)
	}, fail)
	c.after(m.timeout, fail)
}

func (m *metaView) apply(resp []topicMeta) {
	m.ageSeq++
	seq := m.ageSeq
	if m.maxAge > 0 {
		m.c.after(m.maxAge, func() { // metadata.max.age.ms
			if m.ageSeq == seq && m.alive() {
				m.refresh()
			}
		})
	}
	missing := false
	for _, tm := range resp {
		if tm.err == "UNKNOWN_TOPIC_OR_PARTITION" {
			m.forget(tm.name)
			m.absent[tm.name] = true
		}
		if tm.err != "" {
			missing = true
			continue
		}
		m.counts[tm.name] = tm.parts[len(tm.parts)-1].p.ID + 1
		delete(m.deleted, tm.name)
		delete(m.absent, tm.name)
		for _, pm := range tm.parts {
			if old, ok := m.epochs[pm.p]; ok && pm.epoch < old && m.c.preset.clientEpochs {
				// KIP-320: a broker with stale metadata (a deposed leader
				// answering late, say) must not send the client back to it.
				continue
			}
			m.leaders[pm.p] = pm.leader
			m.epochs[pm.p] = pm.epoch
			if pm.leader < 0 {
				missing = true
			}
		}
	}
	if m.all {
		// A full answer replaces the client's view (Metadata.update): a
		// topic missing from it that no longer exists was deleted.
		listed := map[string]bool{}
		for _, tm := range resp {
			listed[tm.name] = true
		}
		for _, name := range slices.Sorted(maps.Keys(m.counts)) {
			if t := m.c.topics[name]; !listed[name] && (t == nil || t.gone()) {
				m.forget(name)
			}
		}
	}
	if missing {
		m.c.after(m.backoff, m.refresh)
	}
	m.onUpdate()
}

// lostTopic reports whether p's topic is one the brokers said they no
// longer know, or was deleted: no refresh at once for it (the answer
// that said so scheduled the next one after retry.backoff.ms, as
// Metadata's refresh backoff does), where a refresh for a partition
// whose leader is merely unknown goes out at once.
func (m *metaView) lostTopic(p *Partition) bool { return m.deleted[p.Topic.Name] || p.Topic.gone() }

// forget drops a topic the brokers no longer know (deleted): its
// partition count and its partitions' leaders, so the producer holds its
// batches for it (no leader) until they expire and a group's leader sees
// the subscription change and rebalances.
func (m *metaView) forget(topic string) {
	if _, known := m.counts[topic]; !known {
		return
	}
	delete(m.counts, topic)
	m.deleted[topic] = true
	for p := range m.leaders {
		if p.Topic.Name == topic && p.Topic.gone() {
			delete(m.leaders, p)
			delete(m.epochs, p)
		}
	}
}
