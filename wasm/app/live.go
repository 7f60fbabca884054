package app

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// Live phases (LiveStatus.Phase).
const (
	PhaseConnecting   = "connecting"   // the socket is opening
	PhaseSyncing      = "syncing"      // the room's history is on its way
	PhaseLive         = "live"         // the copy follows the room
	PhaseUnreplayable = "unreplayable" // the room ran a command with no scenario form: the copy stopped
	PhaseDiverged     = "diverged"     // the copy kept differing from the room: it stopped
	PhaseClosed       = "closed"       // the socket closed
)

// Limits of live mode.
const (
	maxHeld     = 4096 // messages held while the history is on its way
	maxResyncs  = 3    // divergences in a row before the copy gives up
	maxNotices  = 256  // notices kept for the page between two Take calls
	maxLiveText = 1 << 20
)

// Live is the page's live mode: instead of running its own scenario, the
// engine keeps a copy of a server room's cluster in step with it. It
// loads the room's history (the cluster line and every command with its
// virtual time) into the session, then replays each command the room
// announces (the Applied of its events batches) at its virtual time and
// moves the clock to each batch's Now. The core is deterministic, so the copy is
// the room's cluster: the same scenes, stories and panels as local mode.
// Every event the room streams is checked against the copy's (seq, type,
// time, partition, broker); a difference, a gap, a reset, a load or a
// resync snapshot reloads the history.
//
// Live is pure Go (no syscall/js): the page's WebSocket is outside;
// Receive takes each message, and send carries the replies. It never
// runs the clock on its own: a copy must not pass a moment the room may
// still act at.
type Live struct {
	e       *Engine
	send    func([]byte) error
	token   string
	status  LiveStatus
	gen     int    // generation the copy follows (0: none yet)
	n       int    // commands of the history replayed
	seq     uint64 // last room event checked
	held    [][]byte
	overrun bool // held overflowed: the history asked for is stale
	histID  int64
	nextID  int64
	fails   int
	notices []json.RawMessage

	// Falling behind (live_queue.go).
	pumped     bool // Enqueue and Pump are in use: histories replay in slices
	limQueue   int  // maxQueue (tests lower it)
	queue      []queued
	queueBytes int
	heard      int64             // the room's latest virtual time in a queued batch
	traffic    traffic           // real clients' requests by API
	loading    *protocol.History // a history being replayed to its moment
	stale      bool              // events were skipped while it loaded: resync again after
	offset     int64             // the least (page's clock - room's) seen for a batch, ms
	offsetSet  bool
	lateness   int64 // how much later than that the last batch came
}

// LiveStatus is what the page shows about live mode.
type LiveStatus struct {
	Live     bool    `json:"live"`
	Phase    string  `json:"phase"`
	Room     string  `json:"room,omitempty"`
	Role     string  `json:"role,omitempty"` // watcher or driver
	Scenario string  `json:"scenario,omitempty"`
	Gen      int     `json:"gen"`
	Applied  int     `json:"applied"` // commands of the room's history in the copy
	Checked  uint64  `json:"checked"` // the last room event the copy matched
	Now      int64   `json:"now"`     // the copy's virtual time
	RoomNow  int64   `json:"roomNow"` // the room's, as last heard
	Speed    float64 `json:"speed"`   // the room's (0: paused)
	Resyncs  int     `json:"resyncs"` // histories reloaded after the first
	Note     string  `json:"note,omitempty"`
	Clients  int     `json:"clients,omitempty"`
	Watchers int     `json:"watchers,omitempty"`

	// Falling behind (live_queue.go): how far the copy is behind the
	// room's time as last heard (virtual ms), the room's frames waiting
	// to be handled, events batches skipped and the catch-ups they
	// caused, and the real clients' traffic.
	Behind   int64    `json:"behind,omitempty"`
	Queued   int      `json:"queued,omitempty"`
	Skipped  int      `json:"skipped,omitempty"`
	CatchUps int      `json:"catchUps,omitempty"`
	Traffic  *Traffic `json:"traffic,omitempty"`

	Lesson     *protocol.Lesson     `json:"lesson,omitempty"`
	Prediction *protocol.Prediction `json:"prediction,omitempty"`
	Tally      *protocol.Tally      `json:"tally,omitempty"`  // drivers: the open prediction's answers
	Reveal     *protocol.Tally      `json:"reveal,omitempty"` // the last revealed prediction
	Answer     *int                 `json:"answer,omitempty"` // this page's answer to the open prediction
}

// ErrWatching is what a page that only watches gets for driving.
type ErrWatching struct{ Room string }

func (e *ErrWatching) Error() string {
	return fmt.Sprintf("you are watching room %s: only the teacher (who holds its control token) can change it. Fork your own copy to try this yourself.", e.Room)
}

// NewLive puts e in live mode: send carries messages to the room (the
// socket is the caller's); token, if any, is sent to become a driver once
// the room welcomes the page. Until the history arrives the page keeps
// showing what it had. While a Live is in use, the caller must not run
// e's clock (Tick, Advance, Seek) or change its session: the room does.
func NewLive(e *Engine, send func([]byte) error, token string) *Live {
	return &Live{e: e, send: send, token: token, limQueue: maxQueue, status: LiveStatus{Live: true, Phase: PhaseConnecting, Role: "watcher"}}
}

// Stop leaves live mode: the copy stays loaded as a local session at the
// room's moment, paused, the page's own from now on (a fork of the room).
func (l *Live) Stop() {
	l.e.playing, l.e.acc = false, 0
	l.e.version++
	l.e.loadVer++
	l.status.Live = false
}

// Status is live mode's state for the page.
func (l *Live) Status() LiveStatus {
	s := l.status
	s.Now, s.Gen, s.Applied, s.Checked = l.e.Now(), l.gen, l.n, l.seq
	s.Behind, s.Queued = l.Behind()
	s.Traffic = l.traffic.view()
	if c := l.catchingUp(); c != "" {
		s.Note = c
	}
	return s
}

// Driver reports whether this page holds the room's control token.
func (l *Live) Driver() bool { return l.status.Role == "driver" }

// Take returns the notices for the page's classroom UI since the last
// call (messages as the room sent them: welcome, result, error, lesson,
// prediction, tally, reveal, presence, clock, plus the page's own
// {"type":"live","phase",...}), oldest first.
func (l *Live) Take() []json.RawMessage {
	out := l.notices
	l.notices = nil
	if out == nil {
		out = []json.RawMessage{}
	}
	return out
}

func (l *Live) notice(data []byte) {
	if len(l.notices) >= maxNotices {
		l.notices = l.notices[1:]
	}
	l.notices = append(l.notices, json.RawMessage(append([]byte(nil), data...)))
}

func (l *Live) phase(p, note string) {
	l.status.Phase, l.status.Note = p, note
	b, _ := json.Marshal(map[string]string{"type": "live", "phase": p, "note": note})
	l.notice(b)
	l.e.version++
}

// Send sends a client message to the room with a fresh id, which it
// returns. Messages that need the token are refused here for a watcher.
func (l *Live) Send(in protocol.In) (int64, error) {
	switch in.Type {
	case protocol.TCmd, protocol.TReset, protocol.TLoad, protocol.TSpeed, protocol.TAdvance,
		protocol.TLesson, protocol.TPredict, protocol.TReveal:
		if !l.Driver() {
			return 0, &ErrWatching{Room: l.status.Room}
		}
	}
	if l.status.Phase == PhaseClosed {
		return 0, errors.New("the connection to the room is closed: join it again")
	}
	l.nextID++
	in.ID = l.nextID
	b, err := json.Marshal(in)
	if err != nil {
		return 0, err
	}
	if len(b) > maxLiveText {
		return 0, fmt.Errorf("message of %d bytes: at most %d", len(b), maxLiveText)
	}
	return in.ID, l.send(b)
}

// Command is a console line in live mode: a print answers from the copy
// (it reads, it changes nothing); anything else goes to the room, for a
// driver. The room's result comes later as a notice.
func (l *Live) Command(line string) CommandResult {
	st, err := scenario.ParseLine(line, 1)
	if err != nil {
		return CommandResult{At: l.e.Now(), Error: errorInfo(err)}
	}
	if st != nil && st.Print != nil {
		res, err := l.e.sess.Command(line)
		out := CommandResult{At: res.At, Output: res.Output, Error: errorInfo(err)}
		if err == nil && res.Error != "" {
			out.Error = &ErrorInfo{Msg: res.Error}
		}
		return out
	}
	if st != nil && st.Cluster != nil {
		return CommandResult{At: l.e.Now(), Error: &ErrorInfo{Msg: "a cluster line makes a new cluster: load a scenario into the room instead"}}
	}
	if _, err := l.Send(protocol.In{Type: protocol.TCmd, Text: line}); err != nil {
		return CommandResult{At: l.e.Now(), Error: &ErrorInfo{Msg: err.Error()}}
	}
	return CommandResult{At: l.e.Now(), Output: "sent to room " + l.status.Room}
}

// Closed is the socket's end.
func (l *Live) Closed(why string) {
	if why == "" {
		why = "the connection to the room closed"
	}
	l.phase(PhaseClosed, why)
}

// Receive handles one message from the room. A message it cannot read is
// a notice, never a panic: the copy goes on.
func (l *Live) Receive(data []byte) {
	typ, id, err := peek(data)
	if err != nil {
		l.phase(l.status.Phase, "the room sent something unreadable: "+err.Error())
		return
	}
	if typ == protocol.TEvents && !l.pumped {
		if now, ok := batchNow(data); ok {
			l.traffic.note(data, now)
		}
	}
	if (l.histID != 0 || l.loading != nil) && typ == protocol.TEvents {
		if len(l.held) >= maxHeld {
			l.held, l.overrun = nil, true
		} else {
			l.held = append(l.held, append([]byte(nil), data...))
		}
		return
	}
	switch typ {
	case protocol.TWelcome:
		l.welcome(data)
	case protocol.THistory:
		if id == l.histID {
			l.history(data)
		}
	case protocol.TEvents:
		l.events(data)
	case protocol.TSnapshot:
		var s protocol.Snapshot
		if json.Unmarshal(data, &s) == nil {
			l.status.Scenario = s.Scenario
			switch s.Reason {
			case "reset", "load", "resync":
				l.resync("") // the cluster was replaced, or this page fell behind
			}
		}
	case protocol.TClock:
		var c protocol.Clock
		if json.Unmarshal(data, &c) == nil {
			l.setSpeed(c.Speed)
		}
		l.notice(data)
	default:
		l.classroom(typ, data)
	}
}

func (l *Live) welcome(data []byte) {
	var w protocol.Welcome
	if err := json.Unmarshal(data, &w); err != nil {
		l.phase(PhaseClosed, "the room's welcome is unreadable: "+err.Error())
		return
	}
	if w.Protocol != protocol.Version {
		l.phase(PhaseClosed, fmt.Sprintf("the room speaks protocol %d, this page %d", w.Protocol, protocol.Version))
		return
	}
	l.status.Room, l.status.Role, l.status.Scenario = w.Room, w.Role, w.Scenario
	l.status.Lesson, l.status.Prediction = w.Lesson, w.Open
	l.setSpeed(w.Speed)
	l.notice(data)
	if l.token != "" {
		if err := l.send(mustJSON(protocol.In{Type: protocol.TAuth, Token: l.token})); err != nil {
			l.phase(PhaseClosed, err.Error())
			return
		}
	}
	l.resync("")
}

// resync asks for the room's history; events and commands wait for it.
func (l *Live) resync(why string) {
	l.loading = nil // a history being replayed is stale too
	if why != "" {
		l.fails++
		if l.fails > maxResyncs {
			l.phase(PhaseDiverged, "this page's copy keeps differing from the room ("+why+"): reload the page to try again")
			l.histID = 0
			return
		}
	}
	if l.gen != 0 {
		l.status.Resyncs++
	}
	l.nextID++
	l.histID, l.held, l.overrun = l.nextID, nil, false
	if err := l.send(mustJSON(protocol.In{Type: protocol.THistory, ID: l.histID})); err != nil {
		l.phase(PhaseClosed, err.Error())
		return
	}
	l.phase(PhaseSyncing, why)
}

// history loads the room's history as the copy and plays the messages
// held meanwhile.
func (l *Live) history(data []byte) {
	l.histID = 0
	var h protocol.History
	if err := json.Unmarshal(data, &h); err != nil {
		l.resync("its history is unreadable: " + err.Error())
		return
	}
	if l.overrun {
		l.resync("")
		return
	}
	if h.Stopped != "" {
		l.unreplayable(h.Stopped, h.StoppedAt)
		return
	}
	if h.Gen != l.gen {
		l.e.outZK = nil // a new cluster: the old one's sessions are gone
	}
	if ei := l.e.Load(h.Ksim); ei != nil {
		l.phase(PhaseDiverged, "the room's history does not load here: "+ei.Msg)
		return
	}
	l.loading = &h
	if !l.pumped {
		l.finishLoad(nil)
	}
}

// applied replays one command of the room's history at its time; false
// when the copy cannot go on (it resynced or stopped).
func (l *Live) applied(a *protocol.Applied) bool {
	switch {
	case a.N <= l.n:
		return true // already in the copy
	case a.N != l.n+1:
		l.resync(fmt.Sprintf("command %d came after %d", a.N, l.n))
		return false
	case !a.Replayable:
		l.unreplayable(a.Why, a.At)
		return false
	}
	if err := l.runTo(a.At); err != nil {
		l.resync(err.Error())
		return false
	}
	res := l.e.Command(a.Line)
	if res.Error != nil {
		l.resync(fmt.Sprintf("%q worked in the room but not here: %s", a.Line, res.Error.Msg))
		return false
	}
	l.n = a.N
	return true
}

func (l *Live) events(data []byte) {
	if l.status.Phase != PhaseLive {
		return
	}
	b, full, err := decodeEvents(data)
	if err != nil {
		l.resync("unreadable events: " + err.Error())
		return
	}
	if b.Gen != l.gen {
		return // a new generation's snapshot is on its way
	}
	for i := range b.Applied {
		if !l.applied(&b.Applied[i]) {
			return
		}
	}
	if err := l.runTo(b.Now); err != nil {
		l.resync(err.Error())
		return
	}
	l.status.RoomNow = b.Now
	d := l.e.sess.Driver()
	for i := range b.Events {
		lev := &b.Events[i]
		if lev.Outside {
			l.outside(&full.Events[i])
			continue
		}
		if lev.Seq <= l.seq {
			continue
		}
		if lev.Seq != l.seq+1 {
			l.resync(fmt.Sprintf("event %d came after %d", lev.Seq, l.seq))
			return
		}
		ev := lev.event()
		if why := matchEvent(d.Events(), &ev); why != "" {
			l.resync(why)
			return
		}
		l.seq = lev.Seq
	}
	if len(b.Events) > 0 {
		l.fails = 0
	}
}

// runTo moves the copy to virtual time t (never back).
func (l *Live) runTo(t int64) error {
	for l.e.Now() < t {
		step := min(t, l.e.Now()+session.MaxRunMs)
		if err := l.e.sess.RunTo(step); err != nil {
			return err
		}
		l.e.version++
	}
	return nil
}

// setSpeed shows the room's clock: the canvas animates at its rate.
func (l *Live) setSpeed(x float64) {
	l.status.Speed = x
	if x <= 0 {
		l.e.playing = false
	} else {
		l.e.playing = true
		l.e.speed = max(MinSpeed, min(MaxSpeed, x))
	}
	l.e.version++
}

// classroom keeps what the page's classroom UI shows and hands it on.
func (l *Live) classroom(typ string, data []byte) {
	switch typ {
	case protocol.TResult:
		var r protocol.Result
		if json.Unmarshal(data, &r) == nil && r.Of == protocol.TAuth && r.Role != "" {
			l.status.Role = r.Role
		}
	case protocol.TLesson:
		var ls protocol.Lesson
		if json.Unmarshal(data, &ls) == nil {
			l.status.Lesson = &ls
		}
	case protocol.TPrediction:
		var p protocol.Prediction
		if json.Unmarshal(data, &p) == nil {
			l.status.Prediction, l.status.Tally, l.status.Answer, l.status.Reveal = &p, nil, nil, nil
		}
	case protocol.TTally:
		var t protocol.Tally
		if json.Unmarshal(data, &t) == nil {
			l.status.Tally = &t
		}
	case protocol.TReveal:
		var t protocol.Tally
		if json.Unmarshal(data, &t) == nil {
			l.status.Reveal = &t
			if l.status.Prediction != nil && l.status.Prediction.ID == t.ID {
				l.status.Tally = &t
			}
		}
	case protocol.TPresence:
		var p protocol.Presence
		if json.Unmarshal(data, &p) == nil {
			l.status.Clients, l.status.Watchers = p.Clients, p.Watchers
		}
	}
	l.notice(data)
}

// Answer sends this page's answer to the open prediction.
func (l *Live) Answer(choice int) error {
	p := l.status.Prediction
	if p == nil || (l.status.Reveal != nil && l.status.Reveal.ID == p.ID) {
		return errors.New("no question is open")
	}
	if choice < 0 || choice >= len(p.Choices) {
		return fmt.Errorf("choice %d: the question has %d", choice, len(p.Choices))
	}
	if _, err := l.Send(protocol.In{Type: protocol.TAnswer, Prediction: p.ID, Choice: &choice}); err != nil {
		return err
	}
	l.status.Answer = &choice
	return nil
}

// matchEvent checks a room event against the copy's event of the same
// seq; "" when they agree.
func matchEvent(st *session.Store, ev *core.Event) string {
	list := st.Trace()
	if ev.Verbose() {
		list = st.Wire()
	}
	lo, hi := 0, len(list)
	for lo < hi {
		m := (lo + hi) / 2
		if list[m].Seq < ev.Seq {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(list) || list[lo].Seq != ev.Seq {
		return fmt.Sprintf("the room's event %d (%s at %d ms) is not in the copy", ev.Seq, ev.Type, ev.At)
	}
	m := &list[lo]
	if m.Type != ev.Type || m.At != ev.At || m.Partition != ev.Partition || m.Broker != ev.Broker {
		return fmt.Sprintf("event %d is %s at %d ms in the room, %s at %d ms here", ev.Seq, ev.Type, ev.At, m.Type, m.At)
	}
	return ""
}

// sameSnapshot compares two snapshots by their JSON; "" when equal, else
// the first place they differ.
func sameSnapshot(a, b *core.Snapshot) string {
	if b == nil {
		return ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) == string(jb) {
		return ""
	}
	i := 0
	for i < len(ja) && i < len(jb) && ja[i] == jb[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("at byte %d: here %q, in the room %q", i, clipAt(ja, lo, i+40), clipAt(jb, lo, i+40))
}

func clipAt(b []byte, lo, hi int) string { return string(b[lo:min(hi, len(b))]) }

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
