package app

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// MaxCompareEvents bounds the events listed per side after the
// divergence.
const MaxCompareEvents = 200

// CompareView puts two branches side by side at the same moment.
type CompareView struct {
	At        int64       `json:"at"`
	DivergeAt int64       `json:"divergeAt"` // first moment their traces differ; -1: identical so far
	A         BranchSide  `json:"a"`
	B         BranchSide  `json:"b"`
	Common    []EventView `json:"common"` // the last few shared events before the divergence
}

// BranchSide is one branch of a comparison.
type BranchSide struct {
	ID        int               `json:"id"`
	Name      string            `json:"name"`
	ForkAt    int64             `json:"forkAt"`
	Change    string            `json:"change,omitempty"`
	Findings  []check.Violation `json:"findings"`
	Logs      map[string]string `json:"logs"` // partition -> committed values on its leader
	Leaders   map[string]string `json:"leaders"`
	After     []EventView       `json:"after"` // events from the divergence on
	Snapshot  *core.Snapshot    `json:"snapshot"`
	TraceHash string            `json:"traceHash"`
}

// Compare replays branches a and b to the moment at (-1: now) and
// finds where their traces part.
func (e *Engine) Compare(a, b int, at int64) (*CompareView, error) {
	if !e.sess.Loaded() {
		return nil, session.ErrNoSession
	}
	if at < 0 {
		at = e.sess.Now()
	}
	da, err := e.driverFor(a, at)
	if err != nil {
		return nil, err
	}
	db, err := e.driverFor(b, at)
	if err != nil {
		return nil, err
	}
	ta, tb := da.Events().Trace(), db.Events().Trace()
	n := 0
	for n < len(ta) && n < len(tb) && sameEvent(&ta[n], &tb[n]) {
		n++
	}
	v := &CompareView{At: at, DivergeAt: -1, Common: []EventView{}}
	if n < len(ta) || n < len(tb) {
		v.DivergeAt = at
		if n < len(ta) {
			v.DivergeAt = ta[n].At
		}
		if n < len(tb) && tb[n].At < v.DivergeAt {
			v.DivergeAt = tb[n].At
		}
	}
	for i := max(0, n-5); i < n; i++ {
		v.Common = append(v.Common, eventView(&ta[i]))
	}
	v.A, v.B = e.side(a, da, ta[n:]), e.side(b, db, tb[n:])
	return v, nil
}

func sameEvent(x, y *core.Event) bool {
	return x.At == y.At && x.Type == y.Type && x.Text() == y.Text()
}

// driverFor is the current driver when id is current and already at t,
// else a replay.
func (e *Engine) driverFor(id int, t int64) (*session.Driver, error) {
	if b := e.sess.Branch(); b != nil && b.ID == id && e.sess.Now() == t {
		return e.sess.Driver(), nil
	}
	return e.sess.Replay(id, t)
}

func (e *Engine) side(id int, d *session.Driver, after []core.Event) BranchSide {
	s := BranchSide{ID: id, Logs: map[string]string{}, Leaders: map[string]string{}, After: []EventView{}, TraceHash: d.TraceHash()}
	for _, b := range e.sess.Branches() {
		if b.ID == id {
			s.Name, s.ForkAt, s.Change = b.Name, b.ForkAt, b.Change
		}
	}
	c := d.Cluster()
	s.Findings = check.All(c)
	if s.Findings == nil {
		s.Findings = []check.Violation{}
	}
	for _, t := range c.Topics() {
		if t.Internal {
			continue
		}
		for _, p := range t.Partitions() {
			vals, err := c.CommittedLog(p)
			if err != nil {
				s.Logs[p.Name] = "(" + err.Error() + ")"
			} else {
				s.Logs[p.Name] = list(vals)
			}
			s.Leaders[p.Name] = fmt.Sprintf("leader %d, epoch %d", p.Leader(), p.LeaderEpoch())
		}
	}
	for i := range after {
		if i == MaxCompareEvents {
			break
		}
		s.After = append(s.After, eventView(&after[i]))
	}
	s.Snapshot = c.Snapshot()
	return s
}

func eventView(ev *core.Event) EventView {
	return EventView{Seq: ev.Seq, At: ev.At, Type: string(ev.Type), Text: ev.Text(), Partition: ev.Partition, Broker: ev.Broker, Values: values(ev)}
}

func list(v []string) string {
	if len(v) == 0 {
		return "(empty)"
	}
	out := v[0]
	for _, x := range v[1:] {
		out += "," + x
	}
	return out
}
