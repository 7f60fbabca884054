package app

import (
	"sort"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// StepView is one step of the current branch's script.
type StepView struct {
	Index int    `json:"i"`
	Text  string `json:"text"`
	At    int64  `json:"at"` // -1: not started yet
	Error string `json:"error,omitempty"`
	Line  int    `json:"line,omitempty"` // line in the loaded script, 0 for steps added since
}

// StateView is what the top bar, the timeline and the script list show.
type StateView struct {
	Loaded    bool               `json:"loaded"`
	Now       int64              `json:"now"`
	Playing   bool               `json:"playing"`
	Speed     float64            `json:"speed"`
	Horizon   int64              `json:"horizon"`   // furthest moment this branch was played to
	ScriptEnd int64              `json:"scriptEnd"` // when the script's last step finished; -1 while it runs
	Next      int                `json:"next"`      // index of the next step to run
	Branch    int                `json:"branch"`
	Branches  []*session.Branch  `json:"branches"`
	Version   string             `json:"version,omitempty"`
	Metadata  string             `json:"metadata,omitempty"`
	Brokers   int                `json:"brokers"`
	Fault     string             `json:"fault,omitempty"`
	Forgotten int                `json:"forgotten,omitempty"`
	Events    int                `json:"events"`
	Hash      string             `json:"hash,omitempty"`
	Steps     []StepView         `json:"steps,omitempty"`
	Failures  []scenarioFailures `json:"failures,omitempty"`
}

// scenarioFailures are expectations that did not hold and commands that
// failed without an `expect error` after them; Line is the script line (0
// for a command typed since).
type scenarioFailures struct {
	Line int    `json:"line"`
	Msg  string `json:"msg"`
}

// State describes the engine now; withSteps adds the script's steps.
func (e *Engine) State(withSteps bool) StateView {
	v := StateView{Loaded: e.sess.Loaded(), Now: e.sess.Now(), Playing: e.playing, Speed: e.speed, ScriptEnd: -1, Branches: []*session.Branch{}}
	d := e.sess.Driver()
	if d == nil {
		return v
	}
	b := e.sess.Branch()
	v.Horizon, v.Branch, v.Branches, v.Next = b.Horizon, b.ID, e.sess.Branches(), d.Next()
	if d.Done() {
		v.ScriptEnd = d.ScriptEnd()
	}
	c := d.Cluster()
	v.Version, v.Metadata, v.Brokers = c.Version(), c.Mode(), len(c.Brokers())
	if err := d.Fault(); err != nil {
		v.Fault = err.Error()
	}
	v.Forgotten, v.Events, v.Hash = d.Events().Forgotten(), d.Events().TraceCount(), d.TraceHash()
	for _, f := range d.Failures() {
		v.Failures = append(v.Failures, scenarioFailures{Line: f.Line, Msg: f.Msg})
	}
	if withSteps {
		starts := d.Starts()
		errs := map[int]string{}
		for _, r := range d.Results() {
			errs[r.Index] = r.Error
		}
		for i, st := range d.Steps() {
			sv := StepView{Index: i, Text: st.Text, At: -1, Error: errs[i], Line: st.Line}
			if i < len(starts) {
				sv.At = starts[i]
			}
			v.Steps = append(v.Steps, sv)
		}
	}
	return v
}

// EventView is one trace event as the event log shows it.
type EventView struct {
	Seq       uint64   `json:"seq"`
	At        int64    `json:"at"`
	Type      string   `json:"type"`
	Text      string   `json:"text"`
	Partition string   `json:"partition,omitempty"`
	Broker    int      `json:"broker,omitempty"`
	Values    []string `json:"values,omitempty"`
}

// EventQuery filters the event log: Text is a case-insensitive
// substring of the line (or its type); Since keeps events with a larger
// Seq; Limit bounds the answer (newest kept; 0 = 2000, at most 20000).
type EventQuery struct {
	Text  string `json:"text"`
	Since uint64 `json:"since"`
	Limit int    `json:"limit"`
	Wire  bool   `json:"wire"` // include wire messages (the verbose trace)
	// Types keeps only events of these types (empty: all); it is tested
	// before anything is formatted, so the timeline's few marks cost a
	// scan of the log, not a text for each of its last 3000 lines.
	Types []string `json:"types"`
}

// MaxEventTypes bounds a query's Types.
const MaxEventTypes = 64

// MaxEventsAnswer bounds one Events answer.
const MaxEventsAnswer = 20_000

// Events answers an event-log query.
func (e *Engine) Events(q EventQuery) []EventView {
	out := []EventView{}
	d := e.sess.Driver()
	if d == nil {
		return out
	}
	if q.Limit <= 0 {
		q.Limit = 2000
	}
	q.Limit = min(q.Limit, MaxEventsAnswer)
	needle := strings.ToLower(q.Text)
	var types map[core.EventType]bool
	if len(q.Types) > 0 {
		types = map[core.EventType]bool{}
		for _, t := range q.Types[:min(len(q.Types), MaxEventTypes)] {
			types[core.EventType(t)] = true
		}
	}
	lists := [][]core.Event{d.Events().Trace()}
	if q.Wire {
		lists = append(lists, d.Events().Wire())
	}
	var picked []core.Event
	for _, list := range lists {
		for i := len(list) - 1; i >= 0 && len(picked) < q.Limit*len(lists); i-- {
			ev := &list[i]
			if ev.Seq <= q.Since && q.Since > 0 {
				break
			}
			if types != nil && !types[ev.Type] {
				continue
			}
			if needle != "" && !strings.Contains(strings.ToLower(ev.Text()), needle) && !strings.Contains(string(ev.Type), needle) {
				continue
			}
			picked = append(picked, *ev)
		}
	}
	// newest first from each list: merge by Seq ascending, keep the last Limit
	sortBySeq(picked)
	if len(picked) > q.Limit {
		picked = picked[len(picked)-q.Limit:]
	}
	for i := range picked {
		ev := &picked[i]
		out = append(out, EventView{Seq: ev.Seq, At: ev.At, Type: string(ev.Type), Text: ev.Text(), Partition: ev.Partition, Broker: ev.Broker, Values: values(ev)})
	}
	return out
}

func sortBySeq(evs []core.Event) {
	sort.Slice(evs, func(i, j int) bool { return evs[i].Seq < evs[j].Seq })
}

func values(ev *core.Event) []string {
	if len(ev.Records) == 0 {
		return nil
	}
	n := min(len(ev.Records), 50)
	v := make([]string, n)
	for i := 0; i < n; i++ {
		v[i] = ev.Records[i].Value
	}
	return v
}
