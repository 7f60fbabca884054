package app

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/kafkasim/kafkasim/core"
)

// Falling behind. The page's WebSocket callback only queues what the
// room sends (Enqueue: a copy), so the socket is always read at once and
// the room never has to drop a page that is busy; the page's animation
// frames handle the queue within a budget of wall time (Pump), so the
// picture keeps being drawn however fast the room goes. A page that
// cannot keep up (a real client's storm on a slow or overloaded
// machine) sees its queue grow: past maxQueue frames or maxQueueBytes
// it skips the events batches waiting there and catches up by resync,
// reloading the room's history (which holds every command it skipped),
// replayed in slices of virtual time across frames. Meanwhile the
// status counts the real clients' requests per API as they arrive,
// queued or not (Traffic), so the page shows the rate it is aggregating.

// Limits of the queue.
const (
	maxQueue      = 1024     // frames waiting to be handled
	maxQueueBytes = 32 << 20 // their bytes
	catchStep     = 250      // virtual ms of a history replayed at a time while catching up
	trafficWindow = 2000     // virtual ms of the traffic rates
	maxAPIs       = 64       // APIs counted
)

// Traffic is the room's real clients' requests as the page last heard
// them: Requests in all, and per API (Produce, Fetch, ...) the requests
// per virtual second over the last two seconds of the room's time.
type Traffic struct {
	Requests int64              `json:"requests"`
	Rate     float64            `json:"rate"` // requests per virtual second, all APIs
	PerAPI   map[string]float64 `json:"perAPI,omitempty"`
}

// traffic counts requests by API over the room's virtual time.
type traffic struct {
	total   int64
	samples []trafficSample // oldest first, within trafficWindow of the last
	cur     map[string]int  // since the last sample
}

type trafficSample struct {
	at     int64
	counts map[string]int
}

// note counts the requests of one events batch (its applied lines), read
// without decoding it, at the room's virtual time now.
func (t *traffic) note(data []byte, now int64) {
	for rest := data; ; {
		i := bytes.Index(rest, labelKey)
		if i < 0 {
			break
		}
		rest = rest[i+len(labelKey):]
		end := bytes.IndexAny(rest, ` \`)
		if end <= 0 {
			continue
		}
		api := string(rest[:end])
		if t.cur == nil {
			t.cur = map[string]int{}
		}
		if _, ok := t.cur[api]; ok || len(t.cur) < maxAPIs {
			t.cur[api]++
		}
		t.total++
	}
	if len(t.samples) > 0 && t.samples[len(t.samples)-1].at == now {
		for k, v := range t.cur {
			t.samples[len(t.samples)-1].counts[k] += v
		}
	} else {
		t.samples = append(t.samples, trafficSample{at: now, counts: t.cur})
	}
	t.cur = nil
	if t.samples[len(t.samples)-1].counts == nil {
		t.samples[len(t.samples)-1].counts = map[string]int{}
	}
	k := 0
	for k < len(t.samples) && t.samples[k].at < now-trafficWindow {
		k++
	}
	t.samples = t.samples[k:]
}

// labelKey is how a request's label starts inside an applied `outside`
// line as the events batch carries it (JSON in a JSON string).
var labelKey = []byte(`\"label\":\"`)

func (t *traffic) view() *Traffic {
	if t.total == 0 {
		return nil
	}
	v := &Traffic{Requests: t.total, PerAPI: map[string]float64{}}
	if len(t.samples) < 2 {
		return v
	}
	span := float64(t.samples[len(t.samples)-1].at-t.samples[0].at) / 1000
	if span <= 0 {
		return v
	}
	for _, s := range t.samples[1:] { // the first sample's requests came before the span
		for k, n := range s.counts {
			v.PerAPI[k] += float64(n) / span
			v.Rate += float64(n) / span
		}
	}
	return v
}

// batchTimes reads the room's virtual time and wall time of an events
// batch from its first members ({"type":"events","gen":G,"now":N,"t":T,
// ...}); false if it is not written so.
func batchTimes(data []byte) (now, t int64, ok bool) {
	rest, ok := bytes.CutPrefix(data, eventsPrefix)
	if !ok {
		return 0, 0, false
	}
	head := rest[:min(len(rest), 80)]
	now, ok1 := member(head, `,"now":`)
	t, ok2 := member(head, `,"t":`)
	return now, t, ok1 && ok2
}

// member reads the integer after key in head.
func member(head []byte, key string) (int64, bool) {
	i := bytes.Index(head, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := head[i+len(key):]
	j := bytes.IndexByte(rest, ',')
	if j < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return n, err == nil
}

// batchNow is batchTimes' virtual time.
func batchNow(data []byte) (int64, bool) {
	now, _, ok := batchTimes(data)
	return now, ok
}

// Enqueue keeps a message from the room for Pump; wall is the page's
// clock (Unix ms) as it arrived. It is cheap (the message is not
// decoded), so the socket's callback can always take what comes. A queue
// past its limits, or a batch that reached the page more than maxLate
// after the room sent it (the page's event loop was too busy to read its
// socket), skips the events batches waiting and catches up by resync.
func (l *Live) Enqueue(data []byte, wall int64) {
	l.pumped = true
	events := bytes.HasPrefix(data, eventsPrefix)
	late := false
	if events {
		if now, sent, ok := batchTimes(data); ok {
			l.heard = max(l.heard, now)
			l.traffic.note(data, now)
			late = l.late(wall, sent)
		}
	}
	l.queue = append(l.queue, queued{data: data, events: events})
	l.queueBytes += len(data)
	if late || len(l.queue) > l.limQueue || l.queueBytes > maxQueueBytes {
		l.skip()
	}
}

// maxLate is how long after the room sent it a batch may reach the page
// before the page skips and catches up (the room's clock and the page's
// differ by an offset, measured as the least delay seen).
const maxLate = 5000

// late reports whether a batch the room sent at sent (its wall ms) and
// the page heard at wall is later than maxLate, and keeps the Lateness.
func (l *Live) late(wall, sent int64) bool {
	if wall == 0 || sent == 0 {
		return false
	}
	d := wall - sent
	if !l.offsetSet || d < l.offset {
		l.offset, l.offsetSet = d, true
	}
	l.lateness = d - l.offset
	return l.lateness > maxLate
}

// Late reports whether the last batch reached the page more than a
// second after the room sent it: the page's event loop is behind, and
// its socket callback should only queue (Enqueue), leaving the work to
// the frames, so that the socket is read and the room never has to
// drop the page.
func (l *Live) Late() bool { return l.lateness > 1000 }

type queued struct {
	data   []byte
	events bool
}

// skip drops the queued events batches and catches up from the room's
// history (every command they held is in it).
func (l *Live) skip() {
	kept := l.queue[:0]
	n := 0
	l.queueBytes = 0
	for _, q := range l.queue {
		if q.events {
			n++
			continue
		}
		kept = append(kept, q)
		l.queueBytes += len(q.data)
	}
	clear(l.queue[len(kept):])
	l.queue = kept
	l.status.Skipped += n
	switch {
	case l.loading != nil || l.histID != 0:
		l.stale = true // the history on its way or being replayed misses what was skipped: another one follows
	case l.status.Phase == PhaseLive:
		l.status.CatchUps++
		l.resync("")
		// The count is the bar's (status.Skipped, every skip so far):
		// a second count here disagreed with it.
		l.status.Note = "this page fell behind the room: catching up from the room's history"
	}
}

// Pump handles what Enqueue queued, and replays a history being caught
// up with, while more reports there is time left in this frame (it is
// asked before each step; nil: no limit). It reports whether anything
// was done.
func (l *Live) Pump(more func() bool) bool {
	did := false
	for {
		if l.loading != nil {
			if more != nil && !more() {
				return did
			}
			did = true
			l.finishLoad(more)
			continue
		}
		if len(l.queue) == 0 || more != nil && !more() {
			return did
		}
		q := l.queue[0]
		l.queue[0] = queued{}
		l.queue = l.queue[1:]
		l.queueBytes -= len(q.data)
		did = true
		l.Receive(q.data)
	}
}

// Behind is how far the copy is behind the room's time as last heard
// (virtual ms), and how many frames wait.
func (l *Live) Behind() (int64, int) {
	return max(0, max(l.heard, l.status.RoomNow)-l.e.Now()), len(l.queue)
}

// finishLoad replays the history being loaded to its moment: within
// more's budget, catchStep virtual ms at a time; the rest waits for the
// next Pump. At its moment the copy is checked against the history's
// snapshot and follows the room from there.
func (l *Live) finishLoad(more func() bool) {
	h := l.loading
	for l.e.Now() < h.At {
		if err := l.runTo(min(h.At, l.e.Now()+catchStep)); err != nil {
			l.loading = nil
			l.resync(fmt.Sprintf("its history does not replay: %v", err))
			return
		}
		if more != nil && !more() {
			return
		}
	}
	l.loading = nil
	if l.e.Now() != h.At {
		l.resync(fmt.Sprintf("its history replays to %d ms, not %d", l.e.Now(), h.At))
		return
	}
	if diff := sameSnapshot(l.e.Snapshot(), h.Snapshot); diff != "" {
		l.resync("the replayed state differs: " + diff)
		return
	}
	l.gen, l.n, l.seq = h.Gen, h.N, h.Seq
	l.status.RoomNow = max(l.status.RoomNow, h.At)
	l.setSpeed(l.status.Speed) // Load paused the engine
	if l.stale {
		l.stale = false
		l.resync("")
		return
	}
	held := l.held
	l.held = nil
	l.phase(PhaseLive, "")
	for _, m := range held {
		if l.status.Phase != PhaseLive || l.loading != nil {
			return
		}
		l.Receive(m)
	}
}

// catchingUp describes a history being replayed, for the status note.
func (l *Live) catchingUp() string {
	if l.loading == nil {
		return ""
	}
	return "catching up: replaying the room's history, " + core.FormatTime(l.e.Now()) + " of " + core.FormatTime(l.loading.At)
}
