package core

import (
	"fmt"
)

// setPosition starts consuming p at off.
func (k *Consumer) setPosition(p *Partition, off int64, why string) {
	k.pos[p], k.next[p] = off, off
	k.session++
	k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Group: k.Group, Partition: p.Name, Offset: off, Detail: fmt.Sprintf("%s starts %s at %s", k.Name, p.Name, why)})
}

// initPosition finds where to start in p: the committed offset (groups),
// else auto.offset.reset via ListOffsets.
func (k *Consumer) initPosition(p *Partition) {
	if k.member != nil && k.member.fetchCommitted(p) {
		return
	}
	k.resetPosition(p)
}

// resetPosition applies auto.offset.reset by asking the leader for its log
// start (earliest) or high watermark (latest) with ListOffsets.
func (k *Consumer) resetPosition(p *Partition) {
	c := k.c
	if k.conf.reset == "none" {
		c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Partition: p.Name, Error: "NoOffsetForPartitionException", Detail: k.Name + " " + p.Name + ": no committed offset and auto.offset.reset=none (NoOffsetForPartitionException)"})
		return
	}
	l := k.meta.leader(p)
	b := c.Broker(l)
	if b == nil {
		k.meta.refresh()
		return
	}
	k.resetting[p] = true
	retry := func() {
		delete(k.resetting, p)
		k.after(k.conf.backoff, k.pump)
	}
	k.send(b, "ListOffsets", func() {
		ts := listLatest
		if k.conf.reset == "earliest" {
			ts = listEarliest
		}
		res := b.handleListOffsets(listOffsetsReq{parts: []listOffsetsPart{{p: p, timestamp: ts}}})[0]
		off, errName := res.offset, res.err
		k.reply(b, "ListOffsetsResponse", func() {
			if errName != "" || !k.owns(p) {
				if errName != "" {
					k.meta.refresh()
				}
				retry()
				return
			}
			delete(k.resetting, p)
			if _, known := k.pos[p]; known {
				// SubscriptionState.maybeSeekUnvalidated: "Skipping reset
				// ... since reset is no longer needed".
				return
			}
			k.setPosition(p, off, fmt.Sprintf("offset %d (auto.offset.reset=%s)", off, k.conf.reset))
			k.pump()
		})
	}, retry)
}
