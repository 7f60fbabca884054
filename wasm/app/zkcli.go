package app

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// zkMessage gives a ZooKeeper message its picture: an outside client's
// messages go to and from that client's own host (scene.ZKClientHostOf
// its connection), and every ZooKeeper message that names a znode gets
// a label: the operation and the znode ("getChildren2 /brokers/ids"), a
// watch event's type ("NodeDeleted /controller").
func zkMessage(ev *core.Event, m *scene.Message) {
	if ev.From == core.ZKClientHost {
		m.From = scene.ZKClientHostOf(ev.Conn)
	}
	if ev.To == core.ZKClientHost {
		m.To = scene.ZKClientHostOf(ev.Conn)
	}
	m.Label = zkLabel(ev)
}

// msgLabelled reports whether ev's message gets a label (zkMessage): a
// ZooKeeper message naming a znode, or one of an outside client's.
func msgLabelled(ev *core.Event) bool {
	return strings.HasPrefix(ev.Msg, "Zk") && zkLabel(ev) != ""
}

// zkLabel is a ZooKeeper message's label, "" for other messages and for
// the brokers' routine ZooKeeper traffic (no znode named).
func zkLabel(ev *core.Event) string {
	op, ok := strings.CutPrefix(ev.Msg, "Zk")
	if !ok || op == "" {
		return ""
	}
	outside := ev.From == core.ZKClientHost || ev.To == core.ZKClientHost
	if ev.Path == "" && !outside {
		return ""
	}
	op = strings.TrimSuffix(op, "Response")
	op = strings.ToLower(op[:1]) + op[1:]
	switch {
	case ev.Msg == "ZkWatchEvent":
		op = ev.Op
	case ev.Msg == "ZkSessionExpired":
		return "session expired"
	}
	return clipText(strings.TrimSpace(op + " " + ev.Path))
}

// zkClients lists the outside ZooKeeper clients to draw: every open
// outside session (the cluster's, and those of a room a page in live mode
// follows: extra), and every client host of the scene's messages (one
// whose session has ended but whose last messages are still shown), each
// with its last request.
func zkClients(c *core.Cluster, extra []core.ZKClientInfo, wire []core.Event, msgs []scene.Message) []scene.ZKClient {
	var out []scene.ZKClient
	at := map[string]int{}
	add := func(host, addr string) int {
		if i, ok := at[host]; ok {
			return i
		}
		if len(out) == scene.MaxZKClients {
			return -1
		}
		at[host] = len(out)
		out = append(out, scene.ZKClient{Host: host, Addr: addr})
		return len(out) - 1
	}
	if zk := c.ZooKeeper(); zk != nil {
		for _, cl := range append(zk.Clients(), extra...) {
			if i := add(scene.ZKClientHostOf(cl.Conn), cl.Conn); i >= 0 {
				out[i].Session = fmt.Sprintf("0x%x", cl.Session)
			}
		}
	}
	for _, m := range msgs {
		for _, h := range []string{m.From, m.To} {
			if scene.IsZKClientHost(h) {
				add(h, strings.TrimPrefix(strings.TrimPrefix(h, scene.ZKClientHost), "@"))
			}
		}
	}
	if len(out) == 0 {
		return out // no client to label: the wire window is not scanned
	}
	for i := range wire {
		ev := &wire[i]
		if ev.Type != core.EvMsgSend || ev.From != core.ZKClientHost {
			continue
		}
		if j, ok := at[scene.ZKClientHostOf(ev.Conn)]; ok {
			out[j].Last = zkLabel(ev)
			if out[j].Session == "" && ev.Session != 0 {
				out[j].Session = fmt.Sprintf("0x%x", ev.Session)
			}
		}
	}
	return out
}
