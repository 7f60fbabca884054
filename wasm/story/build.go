package story

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
)

// builder walks the events once for one value.
type builder struct {
	value     string
	st        *Story
	part      string
	leader    map[string]int // partition -> leader broker, as events tell
	hold      holds          // brokers holding the value, and at which offset
	ever      map[int]bool   // brokers that ever appended it
	appended  bool
	committed bool
	sentAt    int64
	groups    map[string]int // group (or consumer) -> deliveries of it
	// candidate causes, by kind
	elections []int // line indexes of elections won by a broker without the value
	removals  []int // truncations and page-cache losses
	retries   []int // failed attempts the producer retried
	leaderOff []int64
	rebalance []int // group events after a first delivery
	redeliver bool
	lastNet   core.Event // the last split or heal seen
	splits    []int      // splits while the record was not yet committed
	electInfo []string   // how each election in elections reads in a summary
	removInfo []string   // same for removals
}

// Build tells the story of the record(s) whose value is value, from the
// trace events (in order) and the cluster's history and checker.
// forgotten says the engine dropped older events.
func Build(c *core.Cluster, events []core.Event, value string, forgotten bool) *Story {
	b := &builder{value: value, st: &Story{Value: value, Fates: []string{}, Lines: []Line{}, Forgotten: forgotten},
		leader: map[string]int{}, hold: holds{}, ever: map[int]bool{}, groups: map[string]int{}, sentAt: -1}
	var sent []core.SentRecord
	for _, s := range c.History().Sent {
		if s.Value == value {
			sent = append(sent, s)
		}
	}
	if len(sent) > 0 {
		b.st.Producer, b.st.Partition, b.st.Acks = sent[0].Producer, sent[0].Partition, acksText(sent[0].Acks)
		b.part = sent[0].Partition
	}
	for i := range events {
		b.event(&events[i])
		if len(b.st.Lines) >= MaxLines {
			break
		}
	}
	b.conclude(c, sent)
	return b.st
}

func (b *builder) add(e *core.Event, kind, text string, off int64) int {
	b.st.Lines = append(b.st.Lines, Line{At: e.At, Seq: e.Seq, Kind: kind, Text: text, Broker: e.Broker, Offset: off, Partition: e.Partition})
	return len(b.st.Lines) - 1
}

// relevant reports whether e concerns the record's partition.
func (b *builder) samePart(e *core.Event) bool { return b.part != "" && e.Partition == b.part }

func (b *builder) event(e *core.Event) {
	switch e.Type {
	case core.EvLeader:
		if e.Partition != "" {
			b.leader[e.Partition] = e.Leader
		}
		if b.samePart(e) && b.appended {
			b.election(e)
		}
		return
	case core.EvRole:
		if e.Partition != "" && e.Role == core.RoleLeader {
			b.leader[e.Partition] = e.Broker
		}
		return
	case core.EvBrokerState:
		if _, ok := b.hold[e.Broker]; ok && b.sentAt >= 0 {
			b.add(e, KindBroker, fmt.Sprintf("broker %d %s while holding %s at offset %d", e.Broker, e.Detail, b.value, b.hold[e.Broker]), b.hold[e.Broker])
		} else if b.sentAt >= 0 && !b.committed && b.part != "" && b.leader[b.part] == e.Broker {
			b.add(e, KindBroker, fmt.Sprintf("broker %d (leader of %s) %s", e.Broker, b.part, e.Detail), -1)
		}
		return
	case core.EvNet:
		if b.sentAt >= 0 && !b.committed {
			i := b.add(e, KindNet, "network: "+e.Detail, -1)
			if strings.HasPrefix(e.Detail, "split") {
				b.splits = append(b.splits, i)
			}
		}
		b.lastNet = *e
		return
	case core.EvISR:
		if b.samePart(e) && b.appended && !b.committed {
			b.add(e, KindISR, fmt.Sprintf("ISR of %s is now [%s] (%s)", e.Partition, ints(e.ISR), e.Detail), -1)
		}
		return
	case core.EvHW:
		b.hw(e)
		return
	case core.EvGroup:
		if b.groups[e.Group] > 0 {
			b.rebalance = append(b.rebalance, b.add(e, KindRebalance, fmt.Sprintf("group %s: %s (generation %d)", e.Group, e.Detail, e.Generation), -1))
		}
		return
	}
	if !hasValue(e, b.value) {
		return
	}
	if b.part == "" && e.Partition != "" {
		b.part = e.Partition
	}
	if e.Partition != "" && b.part != "" && e.Partition != b.part {
		return
	}
	switch e.Type {
	case core.EvProduceSend:
		if b.sentAt < 0 {
			b.sentAt = e.At
			if strings.HasPrefix(b.lastNet.Detail, "split") {
				l := b.lastNet
				i := b.add(&l, KindNet, fmt.Sprintf("network: %s (since %s): hosts on different sides cannot talk", l.Detail, core.FormatTime(l.At)), -1)
				b.splits = append(b.splits, i)
			}
		}
		acks := ""
		if b.st.Acks != "" {
			acks = ", acks=" + b.st.Acks
		}
		b.add(e, KindAttempt, fmt.Sprintf("%s sends %s to %s on broker %d (attempt %d%s)", e.Producer, b.value, e.Partition, e.Broker, e.Attempt, acks), -1)
	case core.EvProduceError:
		if e.Retry {
			b.retries = append(b.retries, b.add(e, KindRetry, fmt.Sprintf("attempt %d failed: %s; %s will send it again", e.Attempt, e.Error, e.Producer), -1))
		} else {
			b.add(e, KindError, fmt.Sprintf("%s gave up: %s", e.Producer, e.Error), -1)
		}
	case core.EvAppend:
		for _, off := range offsetsOf(e, b.value) {
			b.appended = true
			b.hold[e.Broker] = off
			b.ever[e.Broker] = true
			if e.IsLeader {
				b.leader[e.Partition] = e.Broker
				b.leaderOff = append(b.leaderOff, off)
				b.add(e, KindAppend, fmt.Sprintf("appended on leader %d at offset %d (epoch %d)", e.Broker, off, e.Epoch), off)
			} else {
				b.add(e, KindReplicate, fmt.Sprintf("replicated to follower %d at offset %d (it fetched it)", e.Broker, off), off)
			}
		}
	case core.EvAck:
		what := "acks=all: every in-sync replica has it"
		switch b.st.Acks {
		case "1":
			what = "acks=1: only the leader had to have it"
		case "0":
			what = "acks=0: nobody waited for the broker"
		}
		if e.Offset < 0 {
			b.add(e, KindAck, fmt.Sprintf("%s counts it as sent (%s)", e.Producer, what), -1)
			break
		}
		for _, off := range offsetsOf(e, b.value) {
			b.add(e, KindAck, fmt.Sprintf("%s got the ack: offset %d (%s)", e.Producer, off, what), off)
		}
	case core.EvTruncate:
		off := b.hold[e.Broker]
		delete(b.hold, e.Broker)
		b.removals = append(b.removals, b.add(e, KindTruncate, fmt.Sprintf("broker %d truncated %s to offset %d, dropping %s (%s)", e.Broker, e.Partition, e.Offset, b.value, e.Detail), off))
		b.removInfo = append(b.removInfo, fmt.Sprintf("at %s broker %d truncated its log to offset %d, removing it (%s)", core.FormatTime(e.At), e.Broker, e.Offset, e.Detail))
	case core.EvLost:
		off := b.hold[e.Broker]
		delete(b.hold, e.Broker)
		b.removals = append(b.removals, b.add(e, KindLost, fmt.Sprintf("broker %d lost %s with its page cache: it was not yet on disk (%s)", e.Broker, b.value, e.Detail), off))
		b.removInfo = append(b.removInfo, fmt.Sprintf("at %s broker %d lost it with its page cache (not yet flushed to disk)", core.FormatTime(e.At), e.Broker))
	case core.EvConsume:
		owner := e.Group
		if owner == "" {
			owner = "consumer " + e.Consumer
		}
		for _, off := range offsetsOf(e, b.value) {
			b.groups[owner]++
			who := e.Consumer
			if e.Group != "" {
				who += " (group " + e.Group + ")"
			}
			text := fmt.Sprintf("%s polled it at offset %d", who, off)
			if n := b.groups[owner]; n > 1 {
				b.redeliver = true
				text += fmt.Sprintf(": again, delivery %d to %s", n, owner)
				for _, i := range b.rebalance {
					b.st.Lines[i].Cause = true
				}
			}
			b.add(e, KindConsume, text, off)
		}
	}
}

func (b *builder) election(e *core.Event) {
	if e.Leader < 0 {
		b.add(e, KindElection, fmt.Sprintf("%s is offline: no live replica in the ISR (%s)", e.Partition, e.Detail), -1)
		return
	}
	kind := "clean election"
	switch {
	case e.Unclean || e.Election == core.ElectionUnclean:
		kind = "UNCLEAN election: a replica outside the ISR (unclean.leader.election.enable)"
	case e.Election == core.ElectionPreferred:
		kind = "preferred leader election"
	}
	if why := nonEmpty(e.Reason, e.Detail); why != "" && !strings.Contains(kind, why) {
		kind += ": " + why
	}
	text := fmt.Sprintf("election: broker %d leads %s in epoch %d (%s)", e.Leader, e.Partition, e.Epoch, kind)
	if _, ok := b.hold[e.Leader]; ok {
		text += fmt.Sprintf("; it has %s", b.value)
		b.st.Lines[b.add(e, KindElection, text, -1)].Broker = e.Leader
		return
	}
	text += fmt.Sprintf("; broker %d does not have %s", e.Leader, b.value)
	i := b.add(e, KindElection, text, -1)
	b.st.Lines[i].Broker = e.Leader
	b.elections = append(b.elections, i)
	b.electInfo = append(b.electInfo, fmt.Sprintf("at %s broker %d became leader (epoch %d, %s election) without it", core.FormatTime(e.At), e.Leader, e.Epoch, map[bool]string{true: "an unclean", false: "a clean"}[e.Unclean]))
}

func (b *builder) hw(e *core.Event) {
	if b.committed || !b.samePart(e) || b.leader[e.Partition] != e.Broker {
		return
	}
	off, ok := b.hold[e.Broker]
	if !ok || e.HW <= off {
		return
	}
	b.committed = true
	b.add(e, KindCommit, fmt.Sprintf("committed: leader %d's high watermark passed offset %d (HW %d); consumers may read it now", e.Broker, off, e.HW), off)
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// conclude decides the fates, marks the causes and writes the summary.
func (b *builder) conclude(c *core.Cluster, sent []core.SentRecord) {
	st := b.st
	if len(sent) == 0 && len(st.Lines) == 0 {
		st.Fates = []string{FateUnknown}
		st.Summary = fmt.Sprintf("No record with value %q was sent (yet).", b.value)
		return
	}
	var why []string
	mark := func(idx []int) {
		for _, i := range idx {
			st.Lines[i].Cause = true
		}
	}
	acked := len(sent) > 0 && sent[0].Acked
	if isLost(c, b.value) {
		st.Fates = append(st.Fates, FateLost)
		mark(b.elections)
		mark(b.removals)
		why = append(why, b.lostWhy(c, sent[0]))
		if len(b.ever) < b.replicaCount(c) {
			mark(b.splits) // why the followers never fetched it
		}
	}
	for _, v := range check.Duplicates(c) {
		if slices.Contains(v.Values, b.value) {
			st.Fates = append(st.Fates, FateDuplicated)
			mark(b.retries)
			why = append(why, fmt.Sprintf("it is stored more than once in %s (offsets %s): an attempt was written but %s did not hear so and sent it again; without idempotence the broker cannot tell a retry from a new record.", v.Partition, int64s(b.leaderOff), st.Producer))
			break
		}
	}
	for _, v := range check.Reorders(c) {
		if slices.Contains(v.Values, b.value) {
			st.Fates = append(st.Fates, FateReordered)
			mark(b.retries)
			why = append(why, v.Detail+": a failed attempt was retried after a later batch was already written (max.in.flight.requests.per.connection > 1 without idempotence).")
			break
		}
	}
	if b.redeliver {
		st.Fates = append(st.Fates, FateRedeliver)
		why = append(why, "a group consumed it more than once: the offset committed before a rebalance (or a crash) was behind what had been processed, so the next owner read it again.")
	}
	if len(st.Fates) == 0 {
		switch {
		case len(sent) > 0 && sent[0].Err != "":
			st.Fates = append(st.Fates, FateFailed)
			why = append(why, fmt.Sprintf("%s gave up on it: %s.", sent[0].Producer, sent[0].Err))
		case b.committed && len(b.hold) > 0:
			st.Fates = append(st.Fates, FateCommitted)
			why = append(why, fmt.Sprintf("it is committed, and %s.", holdText(b.hold.brokers())))
		case b.appended && len(b.hold) == 0:
			st.Fates = append(st.Fates, FateTruncated)
			mark(b.removals)
			mark(b.elections)
			why = append(why, "it was written but never committed, and every copy was removed since.")
		case acked:
			st.Fates = append(st.Fates, FateAcked)
			why = append(why, "it is acknowledged but not yet below the high watermark.")
		default:
			st.Fates = append(st.Fates, FatePending)
			why = append(why, "it is still on its way.")
		}
	}
	head := b.value
	if len(sent) > 0 {
		head = fmt.Sprintf("%s was sent by %s to %s (acks=%s)", b.value, sent[0].Producer, nonEmpty(b.part, "a partition not chosen yet"), st.Acks)
	}
	st.Summary = head + ": " + strings.Join(why, " ")
	fateAt := int64(0)
	if n := len(st.Lines); n > 0 {
		fateAt = st.Lines[n-1].At
	}
	st.Lines = append(st.Lines, Line{At: fateAt, Kind: KindFate, Text: strings.ToUpper(st.Fates[0]) + ": " + strings.Join(why, " "), Offset: -1})
	for _, l := range st.Lines {
		if l.Cause {
			st.Causes = append(st.Causes, l.Seq)
		}
	}
}

// lostWhy explains a lost record: which replicas never had it, who led
// without it, who truncated it.
func (b *builder) lostWhy(c *core.Cluster, s core.SentRecord) string {
	var never []int
	if p, err := c.Partition(s.Partition); err == nil {
		for _, id := range p.Replicas() {
			if !b.ever[id] {
				never = append(never, id)
			}
		}
	}
	out := fmt.Sprintf("it was acknowledged at offset %d and then lost", s.Offset)
	if len(never) > 0 {
		out += ": it never reached " + joinInts(never, "broker", "or")
	}
	parts := append(append([]string(nil), b.electInfo...), b.removInfo...)
	if len(parts) > 0 {
		out += "; " + strings.Join(parts, "; ")
	}
	return out + "."
}

func (b *builder) replicaCount(c *core.Cluster) int {
	if p, err := c.Partition(b.part); err == nil {
		return len(p.Replicas())
	}
	return 0
}

func isLost(c *core.Cluster, value string) bool {
	for _, s := range check.LostRecords(c) {
		if s.Value == value {
			return true
		}
	}
	return false
}

func int64s(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " and ")
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
