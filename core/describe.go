package core

import (
	"fmt"
	"strconv"
	"strings"
)

// Describe renders a readable snapshot: the whole cluster (""), a
// partition ("orders-0"), a broker ("2"), a group, "znodes" or "metadata".
func (c *Cluster) Describe(target string) (string, error) {
	var b strings.Builder
	switch {
	case target == "":
		c.describeCluster(&b)
	case target == "znodes":
		if c.md.kraft {
			return "", fmt.Errorf("no ZooKeeper: this cluster runs KRaft; try print metadata")
		}
		for _, zn := range c.ZNodes() {
			fmt.Fprintf(&b, "%s %s\n", zn[0], zn[1])
		}
		fmt.Fprintf(&b, "(%d writes handled by ZooKeeper)\n", c.md.zk.writes)
	case target == "metadata":
		for _, r := range c.md.records {
			b.WriteString(r + "\n")
		}
	case isDigits(target):
		id, _ := strconv.Atoi(target)
		br := c.Broker(id)
		if br == nil {
			return "", fmt.Errorf("no broker %s", target)
		}
		c.describeBroker(&b, br)
	case strings.Contains(target, "@"):
		r, err := c.Replica(target)
		if err != nil {
			return "", err
		}
		c.describeReplica(&b, r)
	default:
		if p, err := c.Partition(target); err == nil {
			c.describePartition(&b, p)
			break
		}
		if g := c.describeGroup(target); g != "" {
			b.WriteString(g)
			break
		}
		return "", fmt.Errorf("nothing named %q to print (a partition, broker id, group, znodes or metadata)", target)
	}
	return b.String(), nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (c *Cluster) describeCluster(b *strings.Builder) {
	fmt.Fprintf(b, "cluster: %d brokers, Kafka %s, %s, t=%s\n", len(c.brokers), c.preset.name, c.mode, FormatTime(c.now))
	for _, br := range c.brokers {
		role := ""
		if c.md.controller == br.ID {
			role = " (controller)"
		}
		reg := "registered"
		if !c.md.live(br.ID) {
			reg = "not registered"
		}
		fmt.Fprintf(b, "  broker %d: %s, %s%s\n", br.ID, br.state, reg, role)
	}
	for _, t := range c.order {
		if t.Internal {
			fmt.Fprintf(b, "  topic %s: %d partitions (internal)\n", t.Name, len(t.parts))
			continue
		}
		if t.del != nil {
			b.WriteString("  topic " + c.deletionText(t))
		}
		for _, p := range t.parts {
			c.describePartitionLine(b, p)
		}
	}
}

func (c *Cluster) describePartitionLine(b *strings.Builder, p *Partition) {
	leader := "none"
	if p.state.leader >= 0 {
		leader = strconv.Itoa(p.state.leader)
	}
	fmt.Fprintf(b, "  %s: leader %s, epoch %d, isr [%s], replicas [%s]", p.Name, leader, p.state.epoch, joinInts(p.state.isr), joinInts(p.replicas))
	for _, id := range p.replicas {
		if r := c.brokers[id-1].replicas[p]; r != nil {
			fmt.Fprintf(b, " | %d: LEO %d HW %d", id, r.log.LEO(), r.hw)
		}
	}
	b.WriteByte('\n')
}

func (c *Cluster) describePartition(b *strings.Builder, p *Partition) {
	c.describePartitionLine(b, p)
	for _, id := range p.replicas {
		r := c.brokers[id-1].replicas[p]
		if r == nil {
			fmt.Fprintf(b, "  replica on %d: not created\n", id)
			continue
		}
		c.describeReplica(b, r)
	}
}

// describeReplica shows one replica: role, offsets, epochs, segment files
// with their index entries, and its records.
func (c *Cluster) describeReplica(b *strings.Builder, r *Replica) {
	{
		id := r.b.ID
		role := map[role]string{roleNone: "no role", roleLeader: "leader", roleFollower: "follower"}[r.role]
		fmt.Fprintf(b, "  replica on %d (%s, broker %s): LEO %d, HW %d, log start %d, flushed to %d\n", id, role, r.b.state, r.log.LEO(), r.hw, r.log.StartOffset(), r.log.DurableOffset())
		if eps := r.epochs.Entries(); len(eps) > 0 {
			parts := make([]string, len(eps))
			for i, e := range eps {
				parts[i] = fmt.Sprintf("%d@%d", e.Epoch, e.StartOffset)
			}
			fmt.Fprintf(b, "    leader-epoch-checkpoint: %s\n", strings.Join(parts, " "))
		}
		if cp, ok := r.log.CleanerCheckpoint(); ok {
			fmt.Fprintf(b, "    cleaner-offset-checkpoint: %d (cleaned below, dirty from)\n", cp)
		}
		for _, s := range r.log.Segments() {
			offs := fmt.Sprintf("offsets %d..%d", s.BaseOffset, s.NextOffset-1)
			if s.Batches == 0 {
				offs = fmt.Sprintf("from offset %d, empty", s.BaseOffset)
			}
			fmt.Fprintf(b, "    %s: %s, %d bytes (%d flushed), %d index entries\n", s.File, offs, s.SizeBytes, s.FlushedBytes, len(s.OffsetIndex))
			if len(s.OffsetIndex) > 0 {
				ents := make([]string, 0, len(s.OffsetIndex))
				for i, e := range s.OffsetIndex {
					if i == 20 {
						ents = append(ents, "...")
						break
					}
					ents = append(ents, fmt.Sprintf("%d->%d", e.Offset, e.Position))
				}
				fmt.Fprintf(b, "      %s: %s (offset->position)\n", strings.TrimSuffix(s.File, ".log")+".index", strings.Join(ents, " "))
			}
		}
		var recs []string
		for _, bt := range r.log.Batches(r.log.StartOffset()) {
			for i, rec := range bt.RecordList() {
				o := bt.Offset(i)
				mark := ""
				if o >= r.hw {
					mark = "*"
				}
				if !r.log.IsFlushed(o) {
					mark += "~"
				}
				recs = append(recs, fmt.Sprintf("%d:%s%s", o, rec.ValueText(), mark))
			}
			if len(recs) > 200 {
				recs = append(recs, "...")
				break
			}
		}
		if len(recs) > 0 {
			fmt.Fprintf(b, "    records: %s   (* above HW, ~ only in page cache)\n", strings.Join(recs, " "))
		}
	}
}

func (c *Cluster) describeBroker(b *strings.Builder, br *Broker) {
	fmt.Fprintf(b, "broker %d: %s, rack %q, registered=%v\n", br.ID, br.state, br.Rack, c.md.live(br.ID))
	for _, r := range br.sortedReplicas() {
		role := map[role]string{roleNone: "no role", roleLeader: "leader", roleFollower: "follower"}[r.role]
		fmt.Fprintf(b, "  %s: %s (epoch %d), LEO %d, HW %d\n", r.p.Name, role, r.epoch, r.log.LEO(), r.hw)
	}
}

// describeGroup is filled in by the group coordinator; "" = no such group.
func (c *Cluster) describeGroup(name string) string { return c.groupText(name) }

// DescribeRead shows how a fetch at offset finds its data on a replica:
// the segment, the index entry, the scan and the batches returned.
func (c *Cluster) DescribeRead(replica string, offset int64) (string, error) {
	r, err := c.Replica(replica)
	if err != nil {
		return "", err
	}
	rd, err := r.log.Read(offset, 1<<20, r.log.LEO())
	if err != nil {
		return "", fmt.Errorf("fetch at %d on %s: OFFSET_OUT_OF_RANGE (log has %d..%d)", offset, replica, r.log.StartOffset(), r.log.LEO()-1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fetch at offset %d on %s:\n", offset, replica)
	if rd.Segment == "" {
		fmt.Fprintf(&b, "  nothing to read: %d is the log end offset\n", offset)
		return b.String(), nil
	}
	fmt.Fprintf(&b, "  segment %s (base offset %d: the last segment whose base is <= %d)\n", rd.Segment, rd.SegmentBase, offset)
	if rd.IndexFound {
		fmt.Fprintf(&b, "  index entry: relative offset %d (offset %d) -> position %d, the largest entry <= %d\n", rd.IndexRelOffset, rd.SegmentBase+int64(rd.IndexRelOffset), rd.IndexPosition, offset)
	} else {
		fmt.Fprintf(&b, "  no index entry <= %d: scan from position 0\n", offset)
	}
	fmt.Fprintf(&b, "  scanned %d bytes from position %d to the batch at position %d\n", rd.BytesScanned, rd.ScanFrom, rd.Position)
	for i, bt := range rd.Batches {
		if i == 5 {
			fmt.Fprintf(&b, "  ... %d more batches\n", len(rd.Batches)-5)
			break
		}
		fmt.Fprintf(&b, "  batch %s: %s\n", offRange(bt.BaseOffset, bt.LastOffset()), Values(bt.RecordList()))
	}
	return b.String(), nil
}
