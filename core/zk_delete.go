package core

import (
	"fmt"
	"strconv"
)

// ZKControllerPath is the one znode an outside ZooKeeper client may
// delete: /controller, the ephemeral znode whose holder is the controller.
// Deleting it is the classic way to force a controller election.
const ZKControllerPath = "/controller"

// ZKDelete is an outside ZooKeeper client's delete request (zkCli.sh
// `delete /controller`, kazoo's delete, go-zookeeper's Delete). It is a
// command, so the room's history keeps it and a replay holds the same
// election. The request travels from ZKClientHost to zk; there ZooKeeper's
// checks run in PrepRequestProcessor's order (the znode exists: NONODE;
// Version is -1 or the znode's data version: BADVERSION; it has no
// children: NOTEMPTY) and the delete is a transaction; the answer travels
// back to the session (Session, 0 for a scenario's `zk delete`), which
// hears it as a ZKWatchEvent with Reply set if it is still open. Only ZKControllerPath may be
// deleted: Apply refuses any other path, and KRaft clusters, which have no
// ZooKeeper.
type ZKDelete struct {
	Path    string `json:"path"`
	Version int32  `json:"version"`           // the expected data version; -1: any
	Session int64  `json:"session,omitempty"` // the outside session sending it
	Xid     int32  `json:"xid,omitempty"`     // the client's request id, echoed in the reply
	Conn    string `json:"conn,omitempty"`    // the client's connection (its address), for the picture
}

// ZKReply is the answer to an outside write: the request's Xid, the
// transaction's zxid (the ensemble's last zxid when it failed) and Err,
// ZooKeeper's error code name ("" when it worked; NONODE, BADVERSION,
// NOTEMPTY).
type ZKReply struct {
	Xid  int32
	Zxid int64
	Err  string
}

func (ZKDelete) Kind() string     { return "zk_delete" }
func (x ZKDelete) clone() Command { return x }

func (x ZKDelete) applyConn(c *Cluster) error {
	z := c.md.zk
	switch {
	case z == nil:
		return fmt.Errorf("zk delete: this cluster runs KRaft (metadata=kraft): there is no ZooKeeper and no /controller; the controller quorum elects its leader by Raft")
	case x.Path != ZKControllerPath:
		return fmt.Errorf("zk delete %s: only %s may be deleted from outside (it forces a controller election); other writes are refused", x.Path, ZKControllerPath)
	case x.Version < -1:
		return fmt.Errorf("zk delete: version %d: want -1 (any) or the znode's data version", x.Version)
	}
	k := (&ZooKeeper{z: z, command: true}).As(x.Conn, x.Session)
	k.Send("ZkDelete", x.Path, func() func() {
		// The session only says who hears the answer: the delete runs
		// whether or not it is still open, so a replay of the history
		// (where no outside session exists) holds the same election.
		var deliver func(ZKWatchEvent)
		if s := z.outside().sessions[x.Session]; s != nil && x.Session != 0 {
			z.touch(s)
			deliver = s.notify
		}
		r := z.deleteOutside(x)
		if deliver == nil {
			return nil
		}
		return func() { deliver(ZKWatchEvent{Reply: &r}) }
	})
	return nil
}

// deleteOutside runs an outside client's delete at zk.
func (z *zkTree) deleteOutside(x ZKDelete) ZKReply {
	who := clientName(x.Conn)
	if x.Session != 0 {
		who += " (session " + sessionHex(x.Session) + ")"
	}
	n, ok := z.nodes[x.Path]
	fail := ""
	switch {
	case !ok:
		fail = "NONODE"
	case x.Version != -1 && x.Version != n.stat.Version:
		fail = "BADVERSION"
	case len(n.kids) > 0:
		fail = "NOTEMPTY"
	}
	if fail != "" {
		z.c.emit(Event{Type: EvZK, Op: "delete", Path: x.Path, Session: x.Session, Conn: x.Conn, Error: fail,
			Detail: fmt.Sprintf("delete %s by %s failed: %s", x.Path, who, fail)})
		return ZKReply{Xid: x.Xid, Zxid: z.zxid, Err: fail}
	}
	owner := n.owner
	zxid := z.txn()
	z.remove(x.Path, zxid)
	z.writes++
	z.c.emit(Event{Type: EvZK, Op: "delete", Path: x.Path, Zxid: zxid, Session: x.Session, Conn: x.Conn,
		Detail: fmt.Sprintf("delete %s by %s (it was %s's)", x.Path, who, ownerName(owner))})
	if x.Path == ZKControllerPath {
		z.c.md.controllerDeleted()
	}
	return ZKReply{Xid: x.Xid, Zxid: zxid}
}

func ownerName(owner string) string {
	if owner == "" {
		return "persistent"
	}
	return owner
}

// controllerDeleted is KafkaController's ControllerChangeHandler firing on
// every broker: /controller is gone (deleted from outside), so ZooKeeper
// sends each broker holding a session the NodeDeleted watch event, and
// each runs processReelect when it arrives (reelect). Until a broker
// creates /controller again there is no controller: the metadata's
// controller is the holder of /controller.
func (m *metadata) controllerDeleted() {
	old := m.controller
	m.controller = 0
	m.watchQ, m.watchBusy = nil, false // the old controller's pending watch events die with its office
	m.c.emit(Event{Type: EvZK, Op: "watch", Path: ZKControllerPath, Broker: old,
		Detail: "/controller deleted: every broker's controller watch fires (NodeDeleted), and each tries to become the controller"})
	for _, id := range m.registeredIDs() {
		m.sendReelect(id, old, &reelectState{})
	}
}

// sendReelect sends broker id the NodeDeleted event, and sends it again
// every zkWatchRetryMs while the broker has not finished its election
// (done), nobody holds /controller and the broker still has a session: a
// broker cut off from ZooKeeper for less than its session timeout hears
// the event when it reconnects (its SetWatches fires it) and its lost
// requests are retried (retryRequestUntilConnected), so a short split
// during the election does not leave the cluster without a controller.
func (m *metadata) sendReelect(id, old int, done *reelectState) {
	b := m.c.Broker(id)
	m.c.net.sendFixed(m.node, b.node, zkMsg{kind: "ZkWatchEvent", path: ZKControllerPath, op: ZKNodeDeleted.String(), jitter: true},
		func() { b.run(b.incarnation, func() { m.reelect(id, old, done) }) })
	m.c.after(zkWatchRetryMs, func() {
		if _, ok := m.registered[id]; ok && !done.done && m.controller == 0 {
			m.sendReelect(id, old, done)
		}
	})
}

// reelectState is one broker's progress in an election: it resigned (the
// old controller), it finished (learnt the winner or had its create
// answered).
type reelectState struct{ resigned, done bool }

// reelect is KafkaController.processReelect on broker id: maybeResign (the
// broker that was the controller and no longer holds /controller resigns:
// onControllerResignation), then elect: it reads /controller and, if
// nobody holds it, registers itself (registerControllerAndIncrementControllerEpoch:
// create /controller and write /controller_epoch + 1; the first create to
// reach ZooKeeper wins, the others get NODEEXISTS and learn who won).
func (m *metadata) reelect(id, old int, done *reelectState) {
	b := m.c.Broker(id)
	if id == old && m.controller != id && !done.resigned {
		done.resigned = true
		m.c.emit(Event{Type: EvController, Broker: id, Detail: fmt.Sprintf("broker %d resigns as controller (onControllerResignation): /controller is gone", id)})
	}
	ask := zkMsg{kind: "ZkGetData", path: ZKControllerPath, jitter: true}
	m.c.net.sendFixed(b.node, m.node, ask, func() {
		held := m.controller
		m.c.net.sendFixed(m.node, b.node, zkMsg{kind: "ZkGetDataResponse", path: ZKControllerPath, jitter: true}, func() {
			b.run(b.incarnation, func() {
				if held != 0 {
					done.done = true
					return // elect: broker `held` has been elected already
				}
				m.tryCreateController(id, done)
			})
		})
	})
}

// tryCreateController sends broker id's create of /controller (with the
// epoch's write) to ZooKeeper; there it wins if /controller is still free
// and the broker's session lives.
func (m *metadata) tryCreateController(id int, done *reelectState) {
	b := m.c.Broker(id)
	// From 2.2 (KAFKA-6082) the create and the epoch's write are one
	// multi request; before, a create, the epoch written after winning.
	kind := "ZkCreate"
	if m.c.preset.brokerEpochs {
		kind = "ZkMulti"
	}
	m.c.net.sendFixed(b.node, m.node, zkMsg{kind: kind, path: ZKControllerPath, jitter: true}, func() {
		switch _, registered := m.registered[id]; {
		case m.controller != 0:
			m.c.emit(Event{Type: EvZK, Op: "create", Path: ZKControllerPath, Broker: id, Error: "NODEEXISTS",
				Detail: fmt.Sprintf("broker %d's create /controller: NODEEXISTS (broker %d was first)", id, m.controller)})
		case !registered:
			m.c.emit(Event{Type: EvZK, Op: "create", Path: ZKControllerPath, Broker: id, Error: "SESSIONEXPIRED",
				Detail: fmt.Sprintf("broker %d's create /controller: its session is gone", id)})
		default:
			m.takeController(id)
		}
		m.c.net.sendFixed(m.node, b.node, zkMsg{kind: kind + "Response", path: ZKControllerPath, jitter: true}, func() { done.done = true })
	})
}

// takeController makes broker id the controller as electController does:
// /controller and /controller_epoch + 1, then onControllerFailover.
func (m *metadata) takeController(id int) {
	m.controller = id
	m.watchQ, m.watchBusy = nil, false
	m.ctrlEpoch++
	m.zk.create(ZKControllerPath, fmt.Sprintf(`{"version":1,"brokerid":%d,"timestamp":"%d"}`, id, m.c.now), brokerSession(id))
	m.zk.set("/controller_epoch", strconv.Itoa(m.ctrlEpoch))
	m.c.emit(Event{Type: EvController, Broker: id, Detail: fmt.Sprintf("broker %d is the controller (epoch %d)", id, m.ctrlEpoch)})
	m.notifyController(func() { m.onControllerFailover() })
}
