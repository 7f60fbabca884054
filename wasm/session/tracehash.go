package session

import (
	"encoding/binary"
	"encoding/hex"
	"math/bits"

	"github.com/kafkasim/kafkasim/core"
)

// traceHash is the driver's running hash of its events (Driver.TraceHash):
// every field of each event but Seq, in a fixed order, mixed into two
// 64-bit lanes. It allocates nothing and formats nothing: the page hashes
// every event the simulation emits (thousands a second on the reference
// scene), and formatting each one's trace line for the hash (as it once
// did) cost more than storing it. Two drivers that emitted the same events
// in the same order have the same hash; any field that differs (a value,
// an offset, a time) makes it differ. TestTraceHashCoversEveryField checks
// that a field added to core.Event is hashed too.
type traceHash struct{ a, b uint64 }

const (
	thK1 = 0x9E3779B185EBCA87
	thK2 = 0xC2B2AE3D27D4EB4F
	thK3 = 0x165667B19E3779F9
)

func newTraceHash() traceHash { return traceHash{a: 0x243F6A8885A308D3, b: 0x13198A2E03707344} }

// u64 mixes one word into both lanes (xxhash's round, lanes crossed so
// they stay independent functions of the whole stream).
func (h *traceHash) u64(x uint64) {
	h.a = bits.RotateLeft64(h.a+x*thK2, 31) * thK1
	h.b = bits.RotateLeft64(h.b^(x*thK1), 27)*thK3 + h.a
}

func (h *traceHash) i64(x int64) { h.u64(uint64(x)) }

func (h *traceHash) flag(b bool) {
	if b {
		h.u64(1)
	} else {
		h.u64(0)
	}
}

// str mixes the length, then the bytes eight at a time: "ab","c" and
// "a","bc" differ.
func (h *traceHash) str(s string) {
	h.u64(uint64(len(s)))
	for len(s) >= 8 {
		h.u64(binary.LittleEndian.Uint64([]byte(s[:8])))
		s = s[8:]
	}
	if len(s) > 0 {
		var w [8]byte
		copy(w[:], s)
		h.u64(binary.LittleEndian.Uint64(w[:]))
	}
}

func (h *traceHash) ints(v []int) {
	h.u64(uint64(len(v)))
	for _, x := range v {
		h.i64(int64(x))
	}
}

// event mixes every field of e but Seq (the core's numbering, which the
// events' order already fixes). A Reply (an outside client's answer, a
// tree of response types) is mixed as its trace text.
func (h *traceHash) event(e *core.Event) {
	h.i64(e.At)
	h.str(string(e.Type))
	h.i64(int64(e.Broker))
	h.str(e.Partition)
	h.str(e.Topic)
	h.str(e.From)
	h.str(e.To)
	h.str(e.Msg)
	h.u64(e.MsgID)
	h.i64(e.SentAt)
	h.i64(e.DeliverAt)
	h.i64(int64(e.Leader))
	h.i64(int64(e.Epoch))
	h.ints(e.ISR)
	h.u64(uint64(len(e.Replicas)))
	for _, r := range e.Replicas {
		h.ints(r)
	}
	h.i64(e.Offset)
	h.i64(e.EndOffset)
	h.i64(e.HW)
	recs := e.RecordList() // Records, or a packed batch's (a real client's)
	h.u64(uint64(len(recs)))
	for i := range recs {
		r := &recs[i]
		h.str(r.Key)
		h.str(r.Value)
		h.flag(r.NullValue)
		h.flag(r.HasKey)
		h.i64(r.TimestampDelta)
		h.u64(uint64(len(r.Headers)))
		for _, hd := range r.Headers {
			h.str(hd.Key)
			h.str(hd.Value)
			h.flag(hd.Null)
		}
	}
	h.str(e.Producer)
	h.str(e.Consumer)
	h.str(e.Group)
	h.i64(int64(e.Generation))
	h.str(e.Error)
	h.flag(e.Retry)
	h.flag(e.Unclean)
	h.flag(e.IsLeader)
	h.i64(int64(e.Attempt))
	h.str(e.Detail)
	h.str(e.Op)
	h.str(e.Path)
	h.i64(e.Zxid)
	h.i64(e.Session)
	h.str(e.Change)
	h.ints(e.Brokers)
	h.u64(uint64(len(e.Reasons)))
	for _, r := range e.Reasons {
		h.str(r)
	}
	h.str(e.Election)
	h.str(e.Role)
	h.i64(e.LEO)
	h.str(e.State)
	h.str(e.Fate)
	h.str(e.Conn)
	h.str(e.Reason)
	h.u64(uint64(len(e.Pending)))
	for _, p := range e.Pending {
		h.i64(int64(p))
	}
	if e.Reply != nil {
		h.u64(1)
		h.str(e.Text())
	} else {
		h.u64(0)
	}
	h.str(e.Label)
	h.flag(e.Minor)
	h.flag(e.Outside)
}

// sum is the hash as 32 hex digits.
func (h traceHash) sum() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], h.a)
	binary.BigEndian.PutUint64(b[8:], h.b)
	return hex.EncodeToString(b[:])
}
