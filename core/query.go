package core

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Queries answer the scenario's expectations and the renderers' questions.
// They never change state.

// Replica resolves "topic-N@B".
func (c *Cluster) Replica(name string) (*Replica, error) {
	i := strings.LastIndexByte(name, '@')
	if i < 0 {
		return nil, fmt.Errorf("bad replica %q: want TOPIC-N@BROKER", name)
	}
	p, err := c.Partition(name[:i])
	if err != nil {
		return nil, err
	}
	id, err := strconv.Atoi(name[i+1:])
	if err != nil || c.Broker(id) == nil {
		return nil, fmt.Errorf("bad replica %q: no broker %q", name, name[i+1:])
	}
	if !slices.Contains(p.replicas, id) {
		return nil, fmt.Errorf("broker %d has no replica of %s (replicas: %s)", id, p.Name, joinInts(p.replicas))
	}
	r := c.brokers[id-1].replicas[p]
	if r == nil {
		return nil, fmt.Errorf("replica %s was never created (broker %d has not heard of %s yet)", name, id, p.Name)
	}
	return r, nil
}

// LeaderReplica returns the replica of p on its current leader, or nil
// when the partition is offline or the leader has not taken over yet.
func (c *Cluster) LeaderReplica(p *Partition) *Replica {
	b := c.Broker(p.state.leader)
	if b == nil || p.Topic.gone() {
		return nil
	}
	r := b.replicas[p]
	if r == nil || r.role != roleLeader {
		return nil
	}
	return r
}

// HW returns the high watermark of p on its leader.
func (c *Cluster) HW(p *Partition) (int64, error) {
	r := c.LeaderReplica(p)
	if r == nil {
		return 0, c.noLeader(p)
	}
	return r.hw, nil
}

// CommittedLog returns the records of p below its leader's HW, in offset order.
func (c *Cluster) CommittedLog(p *Partition) ([]string, error) {
	r := c.LeaderReplica(p)
	if r == nil {
		return nil, c.noLeader(p)
	}
	var out []string
	for _, b := range r.log.Batches(r.log.StartOffset()) {
		for i, rec := range b.RecordList() {
			if b.Offset(i) >= r.hw {
				return out, nil
			}
			out = append(out, rec.Value)
		}
	}
	return out, nil
}

// noLeader says why p has no active leader to read.
func (c *Cluster) noLeader(p *Partition) error {
	if p.Topic.gone() {
		return fmt.Errorf("%s: topic %s is marked for deletion (its partitions are no longer served)", p.Name, p.Topic.Name)
	}
	return fmt.Errorf("%s has no active leader", p.Name)
}

// Producer returns a producer by name, or nil.
func (c *Cluster) Producer(name string) *Producer { return c.producers[name] }

// Consumer returns a consumer by name, or nil.
func (c *Cluster) Consumer(name string) *Consumer { return c.consumers[name] }

// Version returns the preset's name; Mode returns zk or kraft.
func (c *Cluster) Version() string { return c.preset.name }

// CreateTopicDefaults reports whether CreateTopics takes -1 partitions or
// replication factor as the broker's defaults (KIP-464, 2.4+); before,
// -1 is refused.
func (c *Cluster) CreateTopicDefaults() bool { return c.preset.kip464 }

// Mode returns "zk" or "kraft".
func (c *Cluster) Mode() string { return c.mode }

// ZNode returns a znode's data (ZK mode only).
func (c *Cluster) ZNode(path string) (string, error) {
	if c.md.kraft {
		return "", fmt.Errorf("no ZooKeeper: this cluster runs KRaft (metadata=kraft)")
	}
	d, ok := c.md.zk.get(path)
	if !ok {
		return "", fmt.Errorf("no znode %s", path)
	}
	return d, nil
}

// ZNodes returns every znode path and its data, sorted by path.
func (c *Cluster) ZNodes() [][2]string {
	if c.md.kraft {
		return nil
	}
	var out [][2]string
	for _, p := range c.md.zk.paths() {
		out = append(out, [2]string{p, c.md.zk.nodes[p].data})
	}
	return out
}

// ZKWrites counts the writes the ZooKeeper ensemble handled.
func (c *Cluster) ZKWrites() int64 {
	if c.md.kraft {
		return 0
	}
	return c.md.zk.writes
}

// MetadataLog returns the KRaft metadata records (newest last).
func (c *Cluster) MetadataLog() []string { return append([]string(nil), c.md.records...) }

// Controller returns the controller: a broker id in ZK mode, 0 in KRaft.
func (c *Cluster) Controller() int { return c.md.controller }
