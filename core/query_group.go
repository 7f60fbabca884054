package core

import (
	"fmt"
	"strconv"
	"strings"
)

// group returns the group as its current coordinator holds it, or nil.
func (c *Cluster) group(name string) *group {
	p := c.offsetsPartition(name)
	if p == nil {
		return nil
	}
	b := c.Broker(p.state.leader)
	if b == nil || !b.processUp() {
		return nil
	}
	return b.groups.groups[name]
}

// GroupGeneration returns a group's generation per its coordinator.
func (c *Cluster) GroupGeneration(name string) (int, bool) {
	if g := c.group(name); g != nil {
		return g.generation, true
	}
	return 0, false
}

// GroupState returns a group's state (Empty, PreparingRebalance, ...).
func (c *Cluster) GroupState(name string) (string, bool) {
	if g := c.group(name); g != nil {
		return g.state.String(), true
	}
	return "", false
}

// GroupAssignment returns the assignment the coordinator last handed out:
// consumer name -> partitions. Every member is listed, with no partitions
// if it has none.
func (c *Cluster) GroupAssignment(name string) (map[string][]string, bool) {
	if c.preset.offsetsInZK {
		return c.zkGroupAssignment(name)
	}
	g := c.group(name)
	if g == nil {
		return nil, false
	}
	out := map[string][]string{}
	for _, m := range g.sortedMembers() {
		names := []string{}
		for _, p := range m.assignment {
			names = append(names, p.Name)
		}
		out[m.client] = names
	}
	return out, true
}

// GroupCommitted returns a group's committed offset for p.
func (c *Cluster) GroupCommitted(name string, p *Partition) (int64, bool, error) {
	if c.preset.offsetsInZK {
		data, ok := c.md.zk.get(offsetPath(name, p))
		off, err := strconv.ParseInt(data, 10, 64)
		return off, ok && err == nil, nil
	}
	g := c.group(name)
	if g == nil {
		if op := c.offsetsPartition(name); op != nil {
			if b := c.Broker(op.state.leader); b != nil && b.processUp() && b.groups.loaded[op] {
				return 0, false, nil // the coordinator knows no such group (never used, or Dead after expiry)
			}
		}
		return 0, false, fmt.Errorf("group %s has no active coordinator", name)
	}
	off, ok := g.offsets[p]
	return off, ok, nil
}

// groupText describes a group for `print`; "" if there is no such group.
func (c *Cluster) groupText(name string) string {
	if c.preset.offsetsInZK {
		var b strings.Builder
		for _, zn := range c.ZNodes() {
			if strings.HasPrefix(zn[0], "/consumers/"+name+"/") {
				fmt.Fprintf(&b, "%s %s\n", zn[0], zn[1])
			}
		}
		if b.Len() == 0 {
			return ""
		}
		fmt.Fprintf(&b, "(ZooKeeper has handled %d writes in all)\n", c.md.zk.writes)
		return b.String()
	}
	g := c.group(name)
	if g == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "group %s: %s, generation %d, protocol %q, coordinator broker %d (%s)\n", g.id, g.state, g.generation, g.protocol, g.co.b.ID, g.p.Name)
	for _, m := range g.sortedMembers() {
		lead := ""
		if m.id == g.leader {
			lead = " (leader)"
		}
		fmt.Fprintf(&b, "  member %s = %s%s: [%s]\n", m.client, m.id, lead, partNames(m.assignment))
	}
	for _, t := range c.order {
		for _, p := range t.parts {
			if off, ok := g.offsets[p]; ok {
				fmt.Fprintf(&b, "  committed %s: %d\n", p.Name, off)
			}
		}
	}
	return b.String()
}
