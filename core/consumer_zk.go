package core

import (
	"fmt"
	"strconv"
	"strings"
)

// zkMember is the 0.8 high-level consumer (ZookeeperConsumerConnector):
// there is no group coordinator. Each consumer registers an ephemeral
// /consumers/<g>/ids/<id>, watches that directory, and on any change runs
// the range assignment itself, releasing and then claiming ownership
// znodes /consumers/<g>/owners/<t>/<p>. Offsets are znodes
// /consumers/<g>/offsets/<t>/<p>, written by every commit: this load on
// ZooKeeper is why Kafka moved offsets into __consumer_offsets.
type zkMember struct {
	k          *Consumer
	id         string
	registered bool
	owned      []*Partition
	rebalances int // rebalance attempts in the current round
	running    bool
	again      bool
	seq        int
	polling    bool
}

const (
	zkRebalanceRetries = 4    // rebalance.max.retries (0.8)
	zkRebalanceBackoff = 2000 // rebalance.backoff.ms (0.8)
	zkConsumerSession  = 6000 // the consumer's zookeeper.session.timeout.ms (0.8)
)

func newZKMember(k *Consumer) *zkMember {
	z := &zkMember{k: k, id: k.Group + "_" + k.Name}
	k.after(0, z.ensure)
	z.commitTimer()
	return z
}

func (z *zkMember) session() string { return "consumer " + z.k.Name }

// zk sends an operation to ZooKeeper; fn runs there and its result comes
// back to the consumer in reply.
func (z *zkMember) zk(kind string, fn func() func()) {
	k, md := z.k, z.k.c.md
	k.c.net.send(k.node, md.node, kind, func() {
		back := fn()
		k.c.net.send(md.node, k.node, kind+"Response", func() {
			if k.alive && back != nil {
				back()
			}
		}, nil)
	}, nil)
}

// ensure registers the consumer once, then keeps its session alive.
func (z *zkMember) ensure() {
	k := z.k
	if !k.alive || z.registered || k.conf.manual && !z.polling {
		return
	}
	z.registered = true
	topics := k.subscription()
	k.meta.wantAll(topics)
	if len(topics) == 0 {
		z.registered = false
		k.meta.wantAll(nil)
		return
	}
	sub := make([]string, len(topics))
	for i, t := range topics {
		sub[i] = fmt.Sprintf("%q:1", t)
	}
	data := fmt.Sprintf(`{"version":1,"subscription":{%s},"pattern":"static","timestamp":"%d"}`, strings.Join(sub, ","), k.c.now)
	md := k.c.md
	z.zk("ZkCreate", func() func() {
		md.zkConsumerJoin(z, "/consumers/"+k.Group+"/ids/"+z.id, data)
		return nil
	})
	z.ping()
}

// ping keeps the consumer's ZooKeeper session alive.
func (z *zkMember) ping() {
	k, md := z.k, z.k.c.md
	var tick func()
	tick = func() {
		name := z.session()
		k.c.net.send(k.node, md.node, "Ping", func() { md.consumerBeat(name) }, nil)
		k.after(zkConsumerSession/3, tick)
	}
	tick()
}

// rebalance is ZKRebalancerListener.syncedRebalance: commit, release what
// it owns, read the members and partitions, take its range share.
func (z *zkMember) rebalance() {
	k := z.k
	if z.running {
		z.again = true
		return
	}
	z.running, z.again = true, false
	if k.conf.autoCommit {
		z.commit(nil)
	}
	owned := z.owned
	z.owned = nil
	k.setAssignment(nil)
	z.seq++
	seq := z.seq
	group, topics := k.Group, k.subscription()
	md := k.c.md
	z.zk("ZkRebalanceRead", func() func() {
		for _, p := range owned {
			md.zkDeleteIfOwner(ownerPath(group, p), z.session())
		}
		ids := md.zk.children("/consumers/" + group + "/ids")
		counts := map[string]int{}
		for _, t := range topics {
			if tp := k.c.topics[t]; tp != nil {
				counts[t] = len(tp.parts)
			}
		}
		return func() {
			if z.seq == seq {
				z.claim(zkRange(z.id, ids, topics, counts, k.c))
			}
		}
	})
}

// zkRange is the 0.8 RangeAssignor over consumer ids (one stream each).
func zkRange(me string, ids, topics []string, counts map[string]int, c *Cluster) []*Partition {
	idx := -1
	for i, id := range ids {
		if id == me {
			idx = i
		}
	}
	if idx < 0 {
		return nil
	}
	var mine []*Partition
	for _, t := range topics {
		n := counts[t]
		per, extra := n/len(ids), n%len(ids)
		start := idx*per + min(idx, extra)
		count := per
		if idx < extra {
			count++
		}
		for p := start; p < start+count; p++ {
			mine = append(mine, c.topics[t].parts[p])
		}
	}
	return mine
}

// claim creates the ownership znodes; if another consumer still owns one,
// it backs off (rebalance.backoff.ms) and tries again, up to
// rebalance.max.retries times.
func (z *zkMember) claim(mine []*Partition) {
	k := z.k
	md := k.c.md
	seq := z.seq
	z.zk("ZkClaim", func() func() {
		conflict := md.zkClaim(k.Group, mine, z.id, z.session())
		return func() {
			if z.seq != seq {
				return
			}
			if conflict != "" {
				z.rebalances++
				if z.rebalances > zkRebalanceRetries {
					k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Group: k.Group, Error: "ConsumerRebalanceFailedException",
						Detail: fmt.Sprintf("%s can't rebalance after %d retries (%s)", k.Name, zkRebalanceRetries, conflict)})
					z.running, z.rebalances = false, 0
					return
				}
				k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Group: k.Group, Detail: fmt.Sprintf("%s: %s; retrying the rebalance in %d ms", k.Name, conflict, zkRebalanceBackoff)})
				z.running = false
				k.after(zkRebalanceBackoff, z.rebalance)
				return
			}
			z.running, z.rebalances = false, 0
			z.owned = mine
			k.setAssignment(mine)
			k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Group: k.Group, Detail: fmt.Sprintf("%s owns [%s]", k.Name, partNames(mine))})
			k.pump()
			if z.again {
				z.rebalance()
			}
		}
	})
}

// fetchCommitted reads the partition's offset znode.
func (z *zkMember) fetchCommitted(p *Partition) bool {
	k := z.k
	md := k.c.md
	k.resetting[p] = true
	path := offsetPath(k.Group, p)
	z.zk("ZkGetOffset", func() func() {
		data, ok := md.zk.get(path)
		return func() {
			delete(k.resetting, p)
			if !k.owns(p) {
				return
			}
			off, err := strconv.ParseInt(data, 10, 64)
			if ok && err == nil {
				k.setPosition(p, off, fmt.Sprintf("offset %d from %s", off, path))
			} else {
				k.resetPosition(p)
			}
			k.pump()
		}
	})
	return true
}

// commit writes one offset znode per owned partition.
func (z *zkMember) commit(done func()) {
	k := z.k
	md := k.c.md
	var parts []*Partition
	offs := map[*Partition]int64{}
	for _, p := range z.owned {
		if off, ok := k.next[p]; ok {
			parts = append(parts, p)
			offs[p] = off
		}
	}
	if len(parts) == 0 {
		if done != nil {
			done()
		}
		return
	}
	z.zk("ZkSetOffsets", func() func() {
		for _, p := range parts {
			path := offsetPath(k.Group, p)
			old, had := md.zk.get(path)
			val := strconv.FormatInt(offs[p], 10)
			md.zk.set(path, val)
			k.c.history.commit(CommitRecord{Group: k.Group, Partition: p.Name, Offset: offs[p], At: k.c.now, LogOffset: -1, Gen: p.Topic.gen})
			k.c.emit(Event{Type: EvCommit, Group: k.Group, Consumer: k.Name, Partition: p.Name, Offset: offs[p],
				Detail: "written to ZooKeeper " + path, Minor: had && old == val})
		}
		return done
	})
}

func (z *zkMember) commitTimer() {
	k := z.k
	if !k.conf.autoCommit {
		return
	}
	var tick func()
	tick = func() {
		z.commit(nil)
		k.after(k.conf.autoCommitMs, tick)
	}
	k.after(k.conf.autoCommitMs, tick)
}

func (z *zkMember) onMetadata() {}
func (z *zkMember) onPoll()     {}
func (z *zkMember) pollStarted() {
	z.polling = true
	z.ensure()
}
func (z *zkMember) pollEnded()   { z.polling = false }
func (z *zkMember) stable() bool { return z.registered && !z.running }

// idle is false: the 0.8 consumer rebalances in its own threads, whether
// or not the application polls.
func (z *zkMember) idle() bool { return false }

// commitTimeout: the 0.8 consumer's commitOffsets writes ZooKeeper with
// no timer of its own; the command waits request.timeout.ms, as before.
func (z *zkMember) commitTimeout() int64 { return z.k.conf.requestTimeout }

func (z *zkMember) commitSync() (*op, error) {
	done := false
	z.commit(func() { done = true })
	return &op{
		done: func() bool { return done },
		finish: func(fault error) error {
			if fault == nil && !done {
				return fmt.Errorf("commit timed out")
			}
			return fault
		},
	}, nil
}

// leave is ZookeeperConsumerConnector.shutdown: commit, then close the
// session (its ephemeral znodes go at once).
func (z *zkMember) leave() {
	k := z.k
	md := k.c.md
	if k.conf.autoCommit {
		z.commit(nil)
	}
	name := z.session()
	k.c.net.send(k.node, md.node, "ZkCloseSession", func() { md.consumerSessionEnd(name, "closed") }, nil)
}

func ownerPath(group string, p *Partition) string {
	return fmt.Sprintf("/consumers/%s/owners/%s/%d", group, p.Topic.Name, p.ID)
}

func offsetPath(group string, p *Partition) string {
	return fmt.Sprintf("/consumers/%s/offsets/%s/%d", group, p.Topic.Name, p.ID)
}
