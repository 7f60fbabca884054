package core

import (
	"fmt"
	"slices"
	"strings"
)

// isrChange is one ISR change a leader asks for: its kind (ISRShrink,
// ISRExpand), the brokers it moves with each one's reason code, and the
// trace's description.
type isrChange struct {
	kind    string
	brokers []int
	reasons []string
	why     string
}

// maybeExpandISR adds a follower that caught up: LEO >= HW and >= the start
// of the leader's epoch (Partition.isFollowerInSync). From 3.3 (KIP-841) a
// KRaft leader also requires the follower to be ISR-eligible
// (Partition.isReplicaIsrEligible: not fenced in its metadata cache), so
// it does not propose a fenced broker that the controller would refuse
// with INELIGIBLE_REPLICA, over and over.
func (r *Replica) maybeExpandISR(id int) {
	fs := r.followers[id]
	if slices.Contains(r.isr, id) || r.pending != nil || fs.leo < r.hw || fs.leo < r.epochStart() {
		return
	}
	if md := r.b.c.md; md.kraft && r.b.c.preset.kip841 && !md.live(id) {
		return
	}
	r.requestISR(append(append([]int(nil), r.isr...), id), isrChange{kind: ISRExpand, brokers: []int{id}, reasons: []string{ISRCaughtUp},
		why: fmt.Sprintf("expand: %d caught up (LEO %d >= HW %d)", id, fs.leo, r.hw)})
}

// isrCheckPeriod is how often checkISR runs: every replica.lag.time.max.ms
// / 2 (ReplicaManager.startup, 0.10.2+: KAFKA-4485), every
// replica.lag.time.max.ms before (the 0.8 preset).
func (b *Broker) isrCheckPeriod() int64 {
	if b.c.preset.slowISRCheck {
		return b.c.bc.lagTimeMs
	}
	return max(1, b.c.bc.lagTimeMs/2)
}

// checkISR is the leader's periodic ISR shrink (see isrCheckPeriod).
func (b *Broker) checkISR() {
	for _, r := range b.sortedReplicas() {
		if r.role == roleLeader && r.pending == nil {
			r.maybeShrinkISR()
		}
	}
}

func (r *Replica) maybeShrinkISR() {
	var keep []int
	var why []string
	ch := isrChange{kind: ISRShrink}
	for _, id := range r.isr {
		fs := r.followers[id]
		if id == r.b.ID || fs == nil {
			keep = append(keep, id)
			continue
		}
		if code, reason := r.outOfSync(fs); code != "" {
			ch.brokers, ch.reasons = append(ch.brokers, id), append(ch.reasons, code)
			why = append(why, fmt.Sprintf("%d %s", id, reason))
			continue
		}
		keep = append(keep, id)
	}
	if len(ch.brokers) > 0 {
		ch.why = "shrink: " + strings.Join(why, "; ")
		r.requestISR(keep, ch)
	}
}

// outOfSync says why a follower is out of sync (a reason code and its
// description), or "". Since 0.9 a follower is out of sync when it has
// not caught up for replica.lag.time.max.ms; 0.8 used the time since its
// last fetch and replica.lag.max.messages.
func (r *Replica) outOfSync(fs *followerState) (string, string) {
	c := r.b.c
	now, leo, lag := c.now, r.log.LEO(), c.bc.lagTimeMs
	if c.preset.lagMessages {
		if now-fs.lastFetch > lag {
			return ISRNotFetching, fmt.Sprintf("has not fetched for %d ms (replica.lag.time.max.ms=%d)", now-fs.lastFetch, lag)
		}
		if max := c.bc.lagMaxMessages; max > 0 && leo-fs.leo > max {
			return ISRMessagesBehind, fmt.Sprintf("is %d messages behind (replica.lag.max.messages=%d)", leo-fs.leo, max)
		}
		return "", ""
	}
	if fs.leo != leo && now-fs.lastCaughtUp > lag {
		return ISRLagging, fmt.Sprintf("has not caught up for %d ms (replica.lag.time.max.ms=%d)", now-fs.lastCaughtUp, lag)
	}
	return "", ""
}

// notControllerBackoffMs is how long a broker waits before it sends a
// request the old controller refused with NOT_CONTROLLER to the new one
// (BrokerToControllerRequestThread polls for the new controller with a
// short backoff; retry.backoff.ms's default).
const notControllerBackoffMs = 100

// requestISR asks the metadata service to change the ISR: before 2.7 the
// leader writes the state znode itself; from 2.7 it sends AlterIsr
// (AlterPartition) to the controller. The new ISR takes effect when the
// write succeeds.
func (r *Replica) requestISR(isr []int, ch isrChange) {
	b, c := r.b, r.b.c
	md := c.md
	r.pending = isr
	r.isrReq++
	req, epoch, version, inc := r.isrReq, r.epoch, r.version, b.incarnation
	done, first := false, true
	var send func()
	send = func() {
		retry := func() {
			b.after(c.bc.offsetsCommitMs*2, func() {
				// No answer: the request or its answer was lost. Kafka
				// resends it until it hears back (AlterPartitionManager;
				// the ZooKeeper client retries until connected), and the
				// leader keeps the pending (maximal) ISR meanwhile.
				// Forgetting it let the HW pass records that a replica the
				// controller had already added to the ISR did not have,
				// and the controller could then elect that replica.
				if !done && r.role == roleLeader && r.epoch == epoch && r.isrReq == req && r.pending != nil {
					send()
				}
			})
		}
		to, kind := md.node, "ZkSetIsr"
		if md.kraft {
			kind = "AlterPartition"
		} else if c.preset.alterIsr {
			kind = "AlterIsr"
			if to = md.ctrlNode(); to == nil {
				if first {
					r.pending = nil // no controller: nothing sent, the next check retries
					return
				}
				retry()
				return
			}
		}
		first = false
		b.send(to, kind, func() {
			var res alterPartitionResult
			if kind == "AlterIsr" && md.ctrlNode() != to {
				// The broker it was sent to no longer leads the cluster
				// (it was paused past its ZooKeeper session, or its
				// request arrived late): KafkaController.processAlterPartition
				// answers NOT_CONTROLLER when !isActive, and a zombie's
				// write would fail anyway (its session expired; the
				// controller-epoch check op of KAFKA-6082). Applying it
				// bumped the state znode's version behind the real
				// controller's back, which then refused every later ISR
				// change of that partition as INVALID_UPDATE_VERSION
				// (simtest seed 45100067).
				res.err = "NOT_CONTROLLER"
			} else {
				res = md.handleAlterPartition(alterPartitionReq{p: r.p, leader: b.ID, epoch: epoch, version: version, isr: isr})
			}
			v, errName := res.version, res.err
			c.net.send(to, b.node, kind+"Response", func() {
				b.run(inc, func() {
					if done {
						return
					}
					if errName == "NOT_CONTROLLER" {
						// BrokerToControllerRequestThread puts the
						// request back at the head of its queue and sends
						// it again once it knows the new controller; the
						// pending ISR stays (AlterPartitionManager).
						b.after(notControllerBackoffMs, func() {
							if !done && r.role == roleLeader && r.epoch == epoch && r.isrReq == req && r.pending != nil {
								send()
							}
						})
						return
					}
					done = true
					r.isrResult(req, epoch, isr, v, errName, ch)
				})
			}, nil)
			if errName == "" {
				md.cacheISRChange(r.p, b.ID)
			}
		}, nil)
		retry()
	}
	send()
}

// isrResult handles the answer to ISR change req. An answer to a change
// the leader no longer waits for (new metadata replaced its state
// meanwhile) is ignored, as Partition.submitAlterPartition does.
//
// A rejection does not simply drop the pending change
// (Partition.handleAlterPartitionError, 2.7+): only OPERATION_NOT_ATTEMPTED
// and INELIGIBLE_REPLICA, which say the request was not applied and the
// leader's partition epoch is current, reset the leader to its last
// committed ISR. On FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION and
// UNKNOWN_TOPIC_OR_PARTITION the leader gives up and keeps the pending
// state, and with it the maximal ISR, until new metadata arrives: a leader
// that dropped an expansion the controller had applied could advance its
// HW past a record the newly added replica never got, and the controller
// could elect that replica (KIP-497; simtest seed 921120). Before 2.7 the
// leader's own conditional ZooKeeper write failed and its ISR stayed as it
// was (Partition.updateIsr: "Cached zkVersion not equal").
func (r *Replica) isrResult(req int, epoch int32, isr []int, version int32, errName string, ch isrChange) {
	if r.role != roleLeader || r.epoch != epoch || r.isrReq != req {
		return
	}
	c := r.b.c
	if errName != "" {
		c.emit(Event{Type: EvISR, Partition: r.p.Name, Broker: r.b.ID, Change: ch.kind, Brokers: ch.brokers, Reasons: ch.reasons,
			Error: errName, Detail: "ISR change rejected: " + errName})
		if !c.preset.alterIsr && !c.md.kraft {
			r.pending = nil
			return
		}
		switch errName {
		case "OPERATION_NOT_ATTEMPTED", "INELIGIBLE_REPLICA":
			r.pending = nil
		case "FENCED_LEADER_EPOCH", "INVALID_UPDATE_VERSION", "UNKNOWN_TOPIC_OR_PARTITION":
			// stays pending until new metadata (applyState)
		default:
			r.pending = nil
		}
		return
	}
	r.pending = nil
	r.isr, r.version = isr, version
	c.emit(Event{Type: EvISR, Partition: r.p.Name, Broker: r.b.ID, ISR: slices.Sorted(slices.Values(isr)), Change: ch.kind,
		Brokers: ch.brokers, Reasons: ch.reasons, Detail: ch.why})
	if c.preset.hwWaitsAfterAlterIsr {
		// KAFKA-13091 (2.7 to 3.0): the committed ISR is only recorded; the
		// HW moves at the next append or follower fetch.
		return
	}
	r.maybeAdvanceHW()
	r.completeWaiting()
}
