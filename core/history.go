package core

// SentRecord is one record a simulated producer was asked to send, and
// what became of it. Records are known by their value.
type SentRecord struct {
	ID        int // index in History.Sent
	Producer  string
	Value     string
	Partition string // "" until the partitioner chose one
	Acks      int    // the producer's acks setting (0, 1, -1)
	Idem      bool   // sent by an idempotent producer
	Offset    int64  // acked offset; -1 if unknown (acks=0, or not acked)
	Acked     bool
	Err       string // final error if it failed
	AckedAt   int64
	// Gen is the generation of Partition's topic when the record was
	// placed: how many topics of that name had been deleted before it
	// was created (Topic.Generation). A record whose Gen is below its
	// topic's current generation, or whose topic no longer exists, was
	// deleted with its topic by the user, not lost by Kafka.
	Gen int
}

// Delivery is one record a consumer's poll returned.
type Delivery struct {
	Consumer  string
	Group     string
	Partition string
	Offset    int64
	Value     string
	At        int64
	Session   int // bumped whenever the consumer's position is reset or its assignment changes
	Gen       int // the topic's generation (SentRecord.Gen)
}

// History is what clients observed. The checker and the scenario's
// expectations read it. It is bounded by MaxHistory records; past that,
// older entries are not kept (and Truncated says so).
type History struct {
	Sent      []SentRecord
	acked     map[string][]int // producer -> record ids in ack order
	failed    map[string][]int
	Consumed  []Delivery
	Commits   []CommitRecord
	Resets    []ResetRecord
	Truncated bool
	off       bool
}

// MaxHistory bounds History.Sent and History.Consumed.
const MaxHistory = 5_000_000

func newHistory() *History {
	return &History{acked: map[string][]int{}, failed: map[string][]int{}}
}

func (h *History) send(producer, value string, acks int, idem bool) int {
	if h.off || len(h.Sent) >= MaxHistory {
		h.Truncated = h.Truncated || !h.off
		return -1
	}
	id := len(h.Sent)
	h.Sent = append(h.Sent, SentRecord{ID: id, Producer: producer, Value: value, Acks: acks, Idem: idem, Offset: -1})
	return id
}

func (h *History) setPartition(id int, p *Partition) {
	if id >= 0 {
		h.Sent[id].Partition, h.Sent[id].Gen = p.Name, p.Topic.gen
	}
}

func (h *History) ack(id int, offset, at int64) {
	if id < 0 || h.Sent[id].Acked {
		return
	}
	s := &h.Sent[id]
	s.Acked, s.Offset, s.AckedAt = true, offset, at
	h.acked[s.Producer] = append(h.acked[s.Producer], id)
}

func (h *History) fail(id int, err string) {
	if id < 0 || h.Sent[id].Acked {
		return
	}
	h.Sent[id].Err = err
	h.failed[h.Sent[id].Producer] = append(h.failed[h.Sent[id].Producer], id)
}

func (h *History) consume(d Delivery) {
	if h.off || len(h.Consumed) >= MaxHistory {
		h.Truncated = h.Truncated || !h.off
		return
	}
	h.Consumed = append(h.Consumed, d)
}

// Acked returns the values a producer was told succeeded, in ack order.
func (h *History) Acked(producer string) []string {
	var out []string
	for _, id := range h.acked[producer] {
		out = append(out, h.Sent[id].Value)
	}
	return out
}

// Failed returns the final error of the record with this value sent by
// producer ("" if none failed).
func (h *History) Failed(producer, value string) string {
	for _, id := range h.failed[producer] {
		if h.Sent[id].Value == value {
			return h.Sent[id].Err
		}
	}
	return ""
}

// ConsumedBy returns the values a consumer's polls returned, in order.
func (h *History) ConsumedBy(consumer string) []string {
	var out []string
	for _, d := range h.Consumed {
		if d.Consumer == consumer {
			out = append(out, d.Value)
		}
	}
	return out
}

// CommitRecord is an offset a group's coordinator stored. Log and
// LogOffset say where: the __consumer_offsets partition and the offset of
// the commit's record in it (-1 for offsets kept in ZooKeeper). Records
// are in the order coordinators reported them stored, which is not always
// the log's: a deposed coordinator that was paused can report an old
// commit late.
type CommitRecord struct {
	Group     string
	Partition string
	Offset    int64
	At        int64
	Log       string
	LogOffset int64
	Gen       int // the topic's generation (SentRecord.Gen)
}

// ResetRecord is a consumer resetting its position in a partition by
// auto.offset.reset because the leader answered OFFSET_OUT_OF_RANGE
// (Fetcher.handleOffsetOutOfRange): a move that can go backwards.
type ResetRecord struct {
	Consumer  string
	Group     string // "" for a consumer outside a group
	Partition string
	From      int64 // the position that was out of range
	At        int64
}

func (h *History) reset(r ResetRecord) {
	if h.off || len(h.Resets) >= MaxHistory {
		h.Truncated = h.Truncated || !h.off
		return
	}
	h.Resets = append(h.Resets, r)
}

func (h *History) commit(r CommitRecord) {
	if h.off || len(h.Commits) >= MaxHistory {
		h.Truncated = h.Truncated || !h.off
		return
	}
	h.Commits = append(h.Commits, r)
}
