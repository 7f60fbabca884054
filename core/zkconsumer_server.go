package core

import (
	"sort"
	"strings"
)

// zkSession is a 0.8 consumer's ZooKeeper session as the ensemble sees it.
type zkSession struct {
	member   *zkMember
	group    string
	lastBeat int64
}

// zkConsumerJoin creates a consumer's registration znode and tells the
// group's members (child watch on /consumers/<g>/ids).
func (m *metadata) zkConsumerJoin(z *zkMember, path, data string) {
	if m.zkSessions == nil {
		m.zkSessions = map[string]*zkSession{}
	}
	name := z.session()
	m.zkSessions[name] = &zkSession{member: z, group: z.k.Group}
	m.consumerBeat(name)
	m.zk.create(path, data, name)
	m.zkNotifyGroup(z.k.Group)
}

// consumerBeat renews a consumer session and arms its expiry.
func (m *metadata) consumerBeat(name string) {
	s := m.zkSessions[name]
	if s == nil {
		return
	}
	at := m.c.now
	s.lastBeat = at
	m.c.after(zkConsumerSession, func() {
		if cur := m.zkSessions[name]; cur == s && s.lastBeat == at {
			m.consumerSessionEnd(name, "expired")
		}
	})
}

// consumerSessionEnd deletes the session's ephemeral znodes (registration,
// ownerships) and tells the rest of the group.
func (m *metadata) consumerSessionEnd(name, why string) {
	s := m.zkSessions[name]
	if s == nil {
		return
	}
	delete(m.zkSessions, name)
	m.c.emit(Event{Type: EvZK, Group: s.group, Op: "closeSession", Session: m.zk.sessions[name], Detail: "session of " + name + " " + why})
	m.zk.endSession(name)
	m.zkNotifyGroup(s.group)
}

// zkNotifyGroup fires the ids child watch of every live member of group.
func (m *metadata) zkNotifyGroup(group string) {
	names := make([]string, 0, len(m.zkSessions))
	for n, s := range m.zkSessions {
		if s.group == group {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		z := m.zkSessions[n].member
		m.c.net.send(m.node, z.k.node, "ZkWatch", func() {
			if z.k.alive {
				z.rebalance()
			}
		}, nil)
	}
}

// zkDeleteIfOwner releases an ownership znode held by session.
func (m *metadata) zkDeleteIfOwner(path, session string) {
	if n, ok := m.zk.nodes[path]; ok && n.owner == session {
		m.zk.delete(path)
	}
}

// zkClaim creates ownership znodes for parts, all or nothing; it returns
// "" or why it could not.
func (m *metadata) zkClaim(group string, parts []*Partition, id, session string) string {
	for _, p := range parts {
		if n, ok := m.zk.nodes[ownerPath(group, p)]; ok && n.owner != session {
			return p.Name + " is still owned by " + n.data
		}
	}
	for _, p := range parts {
		path := ownerPath(group, p)
		if !m.zk.exists(path) {
			m.zk.create(path, id, session)
		}
	}
	return ""
}

// zkGroupAssignment reads /consumers/<g>/owners: consumer name -> partitions.
func (c *Cluster) zkGroupAssignment(group string) (map[string][]string, bool) {
	if c.md.zk == nil {
		return nil, false
	}
	prefix := "/consumers/" + group + "/"
	out := map[string][]string{}
	found := false
	for _, path := range c.md.zk.paths() {
		if !strings.HasPrefix(path, prefix) {
			continue
		}
		found = true
		rest := strings.Split(path[len(prefix):], "/")
		switch {
		case len(rest) == 2 && rest[0] == "ids":
			name := strings.TrimPrefix(rest[1], group+"_")
			if out[name] == nil {
				out[name] = []string{}
			}
		case len(rest) == 3 && rest[0] == "owners":
			name := strings.TrimPrefix(c.md.zk.nodes[path].data, group+"_")
			out[name] = append(out[name], rest[1]+"-"+rest[2])
		}
	}
	return out, found
}
