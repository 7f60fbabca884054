package app

import (
	"github.com/kafkasim/kafkasim/core"
)

// maxOutsideZK bounds the outside ZooKeeper sessions a page in live mode
// remembers (core.MaxZKSessions are open at most).
const maxOutsideZK = core.MaxZKSessions

// outside takes one of the room's outside observer events (Event.Outside:
// an outside ZooKeeper client's request, reply, watch event or session,
// which are not commands and so not in the copy): it is drawn, not
// matched. The copy's own events, its trace and its hash stay the
// simulation's, as in the room: an observer perturbs nothing.
func (l *Live) outside(ev *core.Event) {
	d := l.e.sess.Driver()
	if d == nil || !d.Events().AddOutside(*ev) {
		return
	}
	if ev.Type == core.EvZK && ev.Session != 0 {
		switch ev.Op {
		case "createSession":
			l.e.noteZKSession(ev.Session, ev.Conn, true)
		case "closeSession":
			l.e.noteZKSession(ev.Session, ev.Conn, false)
		}
	}
	l.e.version++
}

// noteZKSession keeps (open) or forgets an outside ZooKeeper session of
// the room a page follows, so its client's box stays drawn while it is
// open, between its pings, as in local mode.
func (e *Engine) noteZKSession(id int64, conn string, open bool) {
	if !open {
		delete(e.outZK, id)
		return
	}
	if e.outZK == nil {
		e.outZK = map[int64]string{}
	}
	if len(e.outZK) < maxOutsideZK {
		e.outZK[id] = conn
	}
}

// outsideZKClients are the room's outside ZooKeeper sessions a page in
// live mode knows of, as the copy's cluster would list them.
func (e *Engine) outsideZKClients() []core.ZKClientInfo {
	out := make([]core.ZKClientInfo, 0, len(e.outZK))
	for id, conn := range e.outZK {
		out = append(out, core.ZKClientInfo{Session: id, Conn: conn})
	}
	sortZK(out)
	return out
}

func sortZK(v []core.ZKClientInfo) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j].Session < v[j-1].Session; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// unreplayable stops the copy: the room did something at virtual time at
// that a replay cannot redo exactly (why, as the room says it).
func (l *Live) unreplayable(why string, at int64) {
	if why == "" {
		why = "a command has no scenario form"
	}
	l.phase(PhaseUnreplayable, "this page cannot follow the room from "+core.FormatTime(at)+" on: "+why+". The picture stops there; the room's events go on in the Events tab of the classroom page (/classroom).")
}
