package sample

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// Reference shape: the scene make bench measures.
const (
	RefBrokers    = 5
	RefTopics     = 3
	RefPartitions = 8 // per topic
	RefRF         = 3
	RefRate       = 500 // records per virtual second, all producers together
	refWindow     = 10  // cells per replica
	refSpan       = 40  // space-time window, virtual ms
	refLatency    = 2   // one-way, virtual ms
)

var refTopics = []string{"orders", "payments", "clicks"}

// stream is a periodic message exchange: a request from -> to every
// period ms starting at phase, answered after wait ms (no answer when
// resp is "").
type stream struct {
	from, to, kind, resp, part string
	period, phase, wait        int64
}

// Reference is a busy, healthy cluster at virtual time now: 5 brokers, 3
// topics of 8 partitions with RF 3, producers p1 and p2 writing 500
// records/s between them, group g1 (c1, c2, c3) reading orders and
// payments, group g2 (c4, c5) reading clicks. Messages follow periodic
// schedules (produce every 10 ms per producer and leader broker, follower
// fetches every 6 ms per broker pair, consumer fetches, heartbeats,
// metadata, ZooKeeper pings); load multiplies every schedule's rate (the
// storm sample uses 40 to test aggregation). The picture depends only on
// now and load.
func Reference(now int64, load int) *scene.Scene {
	if load < 1 {
		load = 1
	}
	s := &scene.Scene{V: scene.Version, Now: now, Rate: 0, Metadata: "zk", Version: "3.9", Controller: 1,
		View: scene.ViewBoth, Span: refSpan}
	for b := 1; b <= RefBrokers; b++ {
		s.Brokers = append(s.Brokers, scene.Broker{ID: b, Rack: "r" + strconv.Itoa((b-1)%3+1), State: scene.StateAlive, Controller: b == 1})
	}
	perPart := float64(RefRate) / float64(RefTopics*RefPartitions) / 1000 // records per ms
	leads := map[int][]string{}
	for k, t := range refTopics {
		for i := 0; i < RefPartitions; i++ {
			p := refPartition(t, k, i, now, perPart)
			leads[p.Leader] = append(leads[p.Leader], p.Name)
			s.Partitions = append(s.Partitions, p)
		}
	}
	s.Producers = []scene.Producer{
		{Name: "p1", Acks: "all", Idempotent: true, Sent: now * RefRate / 2000, Acked: now*RefRate/2000 - 3, InFlight: 5, Pending: 12, Rate: RefRate / 2},
		{Name: "p2", Acks: "1", Sent: now * RefRate / 2000, Acked: now*RefRate/2000 - 2, InFlight: 5, Pending: 9, Rate: RefRate / 2},
	}
	s.Groups = []scene.Group{
		{Name: "g1", State: "Stable", Generation: 3, Coordinator: 2, Protocol: "range", Leader: "c1", Members: []string{"c1", "c2", "c3"}},
		{Name: "g2", State: "Stable", Generation: 1, Coordinator: 4, Protocol: "cooperative-sticky", Leader: "c4", Members: []string{"c4", "c5"}},
	}
	members := map[string][]string{"g1": {"c1", "c2", "c3"}, "g2": {"c4", "c5"}}
	assigned := map[string][]string{}
	for _, p := range s.Partitions {
		g := "g1"
		if p.Topic == "clicks" {
			g = "g2"
		}
		ms := members[g]
		c := ms[p.Index%len(ms)]
		assigned[c] = append(assigned[c], p.Name)
	}
	for _, g := range s.Groups {
		for _, c := range members[g.Name] {
			pos := map[string]int64{}
			var recent []scene.Got
			for _, pn := range assigned[c] {
				p := findPartition(s, pn)
				pos[pn] = p.Replicas[0].HW - 1
				if len(recent) < 4 {
					recent = append(recent, scene.Got{Partition: pn, Offset: pos[pn] - 1, Value: refValue(p.Topic, p.Index, pos[pn]-1)})
				}
			}
			s.Consumers = append(s.Consumers, scene.Consumer{Name: c, Group: g.Name, Alive: true, Assigned: assigned[c], Positions: pos, Lag: int64(len(assigned[c])), Polled: now * RefRate / 5000, Recent: recent})
		}
	}
	var omitted int
	s.Messages, omitted = refMessages(s, leads, now, load)
	s.Counters = scene.Counters{Omitted: omitted, Produced: now * RefRate / 1000, Acked: now*RefRate/1000 - 5, Consumed: now*RefRate/1000 - 20, Rate: RefRate,
		PerClass: map[string]float64{scene.ClassProduce: 1000 * float64(load), scene.ClassAck: 1000 * float64(load), scene.ClassFetch: 6667 * float64(load), scene.ClassConsume: 1000 * float64(load)}}
	return s
}

func findPartition(s *scene.Scene, name string) *scene.Partition {
	for i := range s.Partitions {
		if s.Partitions[i].Name == name {
			return &s.Partitions[i]
		}
	}
	return nil
}

func refValue(topic string, i int, o int64) string {
	return topic[:1] + strconv.Itoa(i) + "." + strconv.FormatInt(o, 10)
}

// refPartition is partition i of topic number k at now: leader and ISR
// rotate over the brokers; followers trail the leader by a record or two.
func refPartition(topic string, k, i int, now int64, perPart float64) scene.Partition {
	name := topic + "-" + strconv.Itoa(i)
	leo := int64(float64(now)*perPart) + int64(i%3)
	p := scene.Partition{Name: name, Topic: topic, Index: i, Epoch: int32(k), From: max(0, leo-refWindow)}
	for j := 0; j < RefRF; j++ {
		p.Assignment = append(p.Assignment, (i+k*3+j)%RefBrokers+1)
	}
	p.Leader = p.Assignment[0]
	p.ISR = append([]int(nil), p.Assignment...)
	hw := max(0, leo-int64(1+(i+int(now/97))%2))
	for j, b := range p.Assignment {
		r := scene.Replica{Broker: b, Role: scene.RoleFollower, Epoch: p.Epoch, InISR: true, HW: hw}
		r.LEO = leo
		if j > 0 {
			r.LEO = max(hw, leo-int64((j+i+int(now/53))%3))
		} else {
			r.Role = scene.RoleLeader
		}
		r.Flushed = max(0, r.LEO-(r.LEO%7))
		for o := p.From; o < r.LEO; o++ {
			r.Cells = append(r.Cells, scene.Cell{Offset: o, Value: refValue(topic, i, o), Epoch: p.Epoch})
		}
		p.Replicas = append(p.Replicas, r)
	}
	return p
}

// refMessages lists every message of the periodic schedules whose delivery
// is not older than the span and whose send is not in the future.
// It returns at most scene.MaxMessages, the newest, and how many it left out.
func refMessages(s *scene.Scene, leads map[int][]string, now int64, load int) ([]scene.Message, int) {
	var streams []stream
	for pi, p := range s.Producers {
		for b := 1; b <= RefBrokers; b++ {
			part := ""
			if ps := leads[b]; len(ps) > 0 {
				part = ps[pi%len(ps)]
			}
			streams = append(streams, stream{from: p.Name, to: strconv.Itoa(b), kind: "Produce", resp: "ProduceResponse", part: part, period: 10, phase: int64(pi*3 + b), wait: 2})
		}
		streams = append(streams, stream{from: p.Name, to: strconv.Itoa(pi + 2), kind: "Metadata", resp: "MetadataResponse", period: 300, phase: int64(pi * 37)})
	}
	for f := 1; f <= RefBrokers; f++ {
		for l := 1; l <= RefBrokers; l++ {
			if f != l {
				streams = append(streams, stream{from: strconv.Itoa(f), to: strconv.Itoa(l), kind: "Fetch", resp: "FetchResponse", period: 6, phase: int64(f*5 + l), wait: 1})
			}
		}
		streams = append(streams, stream{from: strconv.Itoa(f), to: "zk", kind: "Ping", resp: "PingResponse", period: 200, phase: int64(f * 31)})
	}
	for ci, c := range s.Consumers {
		coord := 2
		if c.Group == "g2" {
			coord = 4
		}
		seen := map[int]bool{}
		for _, pn := range c.Assigned {
			l := findPartition(s, pn).Leader
			if !seen[l] {
				seen[l] = true
				streams = append(streams, stream{from: c.Name, to: strconv.Itoa(l), kind: "Fetch", resp: "FetchResponse", part: pn, period: 12, phase: int64(ci*2 + l), wait: 3})
			}
		}
		streams = append(streams, stream{from: c.Name, to: strconv.Itoa(coord), kind: "Heartbeat", resp: "HeartbeatResponse", period: 300, phase: int64(ci * 53)})
		streams = append(streams, stream{from: c.Name, to: strconv.Itoa(coord), kind: "OffsetCommit", resp: "OffsetCommitResponse", period: 500, phase: int64(ci * 71)})
	}
	var ms []scene.Message
	for si, st := range streams {
		// load shortens every period: load times the messages.
		period := max(1, st.period*1000/int64(load)) // µs
		phase := st.phase * 1000 % period
		nowUS := now * 1000
		first := nowUS - (refSpan+2*refLatency+st.wait)*1000
		for t := (first-phase)/period*period + phase; t <= nowUS; t += period {
			sent := t / 1000
			id := uint64(si)<<32 | uint64(t/period)&0x7FFFFFFF
			req := scene.Message{ID: id, From: st.from, To: st.to, Kind: st.kind, Partition: st.part, SentAt: sent, DeliverAt: sent + refLatency}
			if req.DeliverAt >= now-refSpan && sent <= now && sent >= 0 {
				ms = append(ms, req)
			}
			if st.resp == "" {
				continue
			}
			rs := req.DeliverAt + st.wait
			resp := scene.Message{ID: id | 1<<31, From: st.to, To: st.from, Kind: st.resp, Partition: st.part, SentAt: rs, DeliverAt: rs + refLatency}
			if resp.DeliverAt >= now-refSpan && rs <= now && rs >= 0 {
				ms = append(ms, resp)
			}
		}
	}
	if len(ms) <= scene.MaxMessages {
		return ms, 0
	}
	// Keep the newest, as the engine does, and count the rest.
	slices.SortStableFunc(ms, func(a, b scene.Message) int { return cmp.Or(cmp.Compare(a.SentAt, b.SentAt), cmp.Compare(a.ID, b.ID)) })
	return ms[len(ms)-scene.MaxMessages:], len(ms) - scene.MaxMessages
}
