package core

import (
	"fmt"
	"slices"
	"strings"
)

const defaultPollTimeout = 10_000

// poll is KafkaConsumer.poll(timeout) in virtual time: it starts an
// operation that completes when the consumer has records to return, or at
// the timeout. Records already fetched complete it at once, inside Apply
// (KafkaConsumer.poll returns as soon as it has any).
func (c *Cluster) poll(x Poll) error {
	k := c.consumers[x.Consumer]
	if k == nil {
		return fmt.Errorf("unknown consumer %q", x.Consumer)
	}
	if !k.alive {
		return fmt.Errorf("consumer %s is closed", k.Name)
	}
	if x.Timeout < 0 || x.Max < 0 || x.Timeout > MaxPollTimeout {
		return fmt.Errorf("poll: max and timeout must be >= 0, timeout at most 1 hour")
	}
	timeout := x.Timeout
	if timeout == 0 {
		timeout = defaultPollTimeout
	}
	max := x.Max
	if max == 0 {
		max = k.conf.maxPollRecords
	}
	k.lastPoll = c.now
	k.retryFailed()
	if k.member != nil {
		k.member.pollStarted()
	}
	k.pump()
	start := k.polled
	return c.start(x, timeout, &op{
		done: func() bool {
			if !k.alive || k.pollErr != "" {
				return true
			}
			if k.conf.manual {
				return len(k.buffer) > 0 && (k.member == nil || k.member.stable())
			}
			return k.polled > start
		},
		finish: func(fault error) error {
			if fault == nil && k.pollErr != "" {
				// poll throws before it returns any record (auto.offset.reset=none)
				fault = fmt.Errorf("%s", k.pollErr)
			} else if fault == nil && k.alive && k.conf.manual {
				k.deliver(max)
			}
			if k.member != nil {
				k.member.pollEnded()
			}
			return fault
		},
	})
}

// commit is commitSync: it starts an operation that completes when the
// coordinator has stored the offsets or answered an error commitSync
// does not retry, or when its timer runs out (commitTimeout).
func (c *Cluster) commit(x Commit) error {
	k := c.consumers[x.Consumer]
	if k == nil {
		return fmt.Errorf("unknown consumer %q", x.Consumer)
	}
	if !k.alive {
		return fmt.Errorf("consumer %s is closed", k.Name)
	}
	if k.member == nil {
		return fmt.Errorf("consumer %s has no group: nothing to commit to", k.Name)
	}
	o, err := k.member.commitSync()
	if err != nil {
		return err
	}
	return c.start(x, k.member.commitTimeout(), o)
}

// closeConsumer closes (LeaveGroup) or crashes (nothing sent) a consumer.
func (c *Cluster) closeConsumer(name string, crash bool) error {
	k := c.consumers[name]
	if k == nil {
		return fmt.Errorf("unknown consumer %q", name)
	}
	if !k.alive {
		return fmt.Errorf("consumer %s is already closed", name)
	}
	if !crash && k.member != nil {
		k.member.leave()
	}
	k.alive = false
	k.inc++
	what := "closed"
	if crash {
		what = "crashed"
	}
	c.emit(Event{Type: EvConsumerInfo, Consumer: name, Group: k.Group, Detail: name + " " + what})
	return nil
}

const defaultSettleMs = 5 * 60 * 1000

// settle starts an operation that completes when nothing is in flight:
// producers have nothing pending, every reachable live follower has caught
// up with its leader, every live broker the controller reaches has each
// partition's current leader epoch in its metadata cache, and groups are
// stable. It fails, naming what is
// still busy, if that takes more than Max ms (0: 5 minutes).
func (c *Cluster) settle(x Settle) error {
	maxMs := x.Max
	if maxMs <= 0 {
		maxMs = defaultSettleMs
	}
	if maxMs > MaxWait {
		return fmt.Errorf("settle max=%d ms: at most 24 hours", maxMs)
	}
	return c.start(x, maxMs, &op{
		done: c.settled,
		finish: func(fault error) error {
			if fault != nil {
				return fault
			}
			if why := c.busy(); why != "" {
				return fmt.Errorf("did not settle within %d ms: %s", maxMs, why)
			}
			return nil
		},
	})
}

// settled reports whether nothing is in flight (busy, without the words:
// settle asks after every virtual millisecond with work).
func (c *Cluster) settled() bool { return c.busyWhy(false) == "" }

// busy says what is still in flight, or "".
func (c *Cluster) busy() string { return c.busyWhy(true) }

// busyWhy is busy; without explain it stops at the first reason and
// returns "busy".
func (c *Cluster) busyWhy(explain bool) string {
	var why []string
	for _, cl := range c.clients {
		if p, ok := cl.(*Producer); ok && p.pending > 0 {
			if !explain {
				return "busy"
			}
			why = append(why, fmt.Sprintf("producer %s has %d record(s) pending", p.Name, p.pending))
		}
		if k, ok := cl.(*Consumer); ok && k.alive && k.member != nil && !k.member.stable() && !k.member.idle() {
			if !explain {
				return "busy"
			}
			why = append(why, fmt.Sprintf("consumer %s is rebalancing", k.Name))
		}
	}
	for _, b := range c.brokers {
		// A running broker that can reach the metadata service but is not
		// yet registered (or is fenced) will be back: a restarted broker
		// waits out its old session first. Until then its replicas are out
		// of every ISR, so the cluster has not settled.
		if b.state == stateUp && !c.md.live(b.ID) && !c.net.cut(b.node, c.md.node) {
			if !explain {
				return "busy"
			}
			why = append(why, fmt.Sprintf("broker %d is not registered yet", b.ID))
		}
	}
	for _, t := range c.order {
		for _, p := range t.parts {
			w := c.partitionBusy(p, explain)
			if w == "" {
				w = c.metadataBusy(p, explain)
			}
			if w != "" {
				if !explain {
					return "busy"
				}
				why = append(why, w)
			}
		}
		if len(why) > 5 {
			break
		}
	}
	return strings.Join(why, "; ")
}

// metadataBusy reports a live broker the controller can reach whose
// metadata cache does not have partition p's current leader epoch yet
// (a LeaderAndIsr or UpdateMetadata lost to a split waits for the
// controller's resend). Such a broker answers clients' Metadata requests
// with the old leader or without a new partition, and a consumer group
// leader that reads it assigns without that partition until its next
// metadata refresh (metadata.max.age.ms): the cluster has not settled.
func (c *Cluster) metadataBusy(p *Partition, explain bool) string {
	ctrl := c.md.ctrlNode()
	if ctrl == nil {
		return ""
	}
	for _, b := range c.brokers {
		if b.state != stateUp || !c.md.live(b.ID) || c.net.cut(ctrl, b.node) {
			continue
		}
		if st, ok := b.cache[p]; !ok || st.epoch < p.state.epoch {
			if !explain {
				return "busy"
			}
			return fmt.Sprintf("broker %d's metadata for %s is not current yet", b.ID, p.Name)
		}
	}
	return ""
}

// partitionBusy reports a live, reachable follower still catching up with
// the leader, or a leader whose HW lags its ISR ("busy" without explain).
func (c *Cluster) partitionBusy(p *Partition, explain bool) string {
	lb := c.Broker(p.state.leader)
	if lb == nil || lb.state != stateUp {
		return ""
	}
	lr := lb.replicas[p]
	if lr == nil || lr.role != roleLeader {
		return p.Name + " has no active leader yet"
	}
	for _, id := range p.replicas {
		b := c.brokers[id-1]
		if id == lb.ID || b.state != stateUp || c.net.cut(b.node, lb.node) || !c.md.live(id) {
			continue
		}
		// Caught up means holding the leader's records and being back in
		// its ISR (a follower with every record that does not fetch, its
		// request lost, is not: the ISR may be down to the leader alone). A
		// follower's high watermark follows on its next fetch response,
		// which the leader may hold for replica.fetch.wait.max.ms when
		// nothing new arrives; waiting for that as well means that consumers
		// auto-committing to two offsets partitions in turn keep the
		// cluster from ever settling (each partition's followers lag its HW
		// half the time).
		r := b.replicas[p]
		if r == nil || r.log.LEO() != lr.log.LEO() || !slices.Contains(lr.isr, id) {
			if !explain {
				return "busy"
			}
			return fmt.Sprintf("%s@%d is catching up", p.Name, id)
		}
	}
	if lr.hw != lr.log.LEO() && len(lr.isr) >= lr.p.Topic.conf.minISR {
		if !explain {
			return "busy"
		}
		return fmt.Sprintf("%s HW %d < LEO %d", p.Name, lr.hw, lr.log.LEO())
	}
	return ""
}

func splitComma(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
