package storage

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// metadataFile is kafkasim's stand-in for the metadata store.
const metadataFile = "cluster-metadata.json"

// metaVersion is the version of cluster-metadata.json's format.
const metaVersion = 1

// clusterMeta is cluster-metadata.json: what ZooKeeper or the KRaft
// metadata log would hold for a restart, kept as plain JSON.
type clusterMeta struct {
	Version int    `json:"version"`
	Note    string `json:"note"`
	Cluster string `json:"cluster"` // the scenario's cluster line
	// Settings are what `set` gave the cluster: the brokers'
	// server.properties (and the simulated OS's knobs).
	Settings map[string]string `json:"settings,omitempty"`
	Topics   []topicMeta       `json:"topics"`
}

type topicMeta struct {
	Name    string            `json:"name"`
	ID      string            `json:"id"` // base64 topic id, as partition.metadata
	Configs map[string]string `json:"configs,omitempty"`
	Assign  [][]int           `json:"assign"`  // per partition, preferred leader first
	Leaders []int             `json:"leaders"` // per partition; -1: offline
	ISRs    [][]int           `json:"isrs"`
	Epochs  []int32           `json:"leaderEpochs"`
}

// metadata renders cluster-metadata.json for c.
func (s *Store) metadata(c *core.Cluster) string {
	o := c.Options()
	line, err := scenario.Format(scenario.Step{Cluster: &o})
	if err != nil {
		line = ""
	}
	m := clusterMeta{Version: metaVersion, Cluster: line, Topics: []topicMeta{}, Settings: c.Settings(),
		Note: "kafkasim's stand-in for the metadata store (ZooKeeper or the KRaft quorum): topics, assignments, leaders, ISRs. broker-N/ are the brokers' log.dirs."}
	for _, t := range c.Topics() {
		tid, _ := c.TopicID(t.Name)
		tm := topicMeta{Name: t.Name, ID: uuidString(tid)}
		if ov := t.Overrides(); len(ov) > 0 {
			tm.Configs = ov
		}
		for _, p := range t.Partitions() {
			tm.Assign = append(tm.Assign, p.Replicas())
			tm.Leaders = append(tm.Leaders, p.Leader())
			tm.ISRs = append(tm.ISRs, p.ISR())
			tm.Epochs = append(tm.Epochs, p.LeaderEpoch())
		}
		m.Topics = append(m.Topics, tm)
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return string(b) + "\n"
}

// metaProperties is broker id's meta.properties (MetaProperties):
// version 0 with broker.id in ZooKeeper mode, version 1 with node.id in
// KRaft mode.
func metaProperties(c *core.Cluster, id int) []byte {
	if c.Mode() == "kraft" {
		return []byte(fmt.Sprintf("#\n#kafkasim\ncluster.id=%s\nnode.id=%d\nversion=1\n", c.ClusterID(), id))
	}
	return []byte(fmt.Sprintf("#\n#kafkasim\nbroker.id=%d\ncluster.id=%s\nversion=0\n", id, c.ClusterID()))
}

// checkpointOps writes broker id's four offset checkpoints from what
// was last seen of its replicas (OffsetCheckpointFile: "topic partition
// offset" lines): cleaner-offset-checkpoint (LogCleanerManager@3.9) has
// the logs the cleaner has cleaned, each with its first dirty offset.
func (s *Store) checkpointOps(id int) []op {
	var rp, hw, start, cleaned []string
	keys := slices.SortedFunc(maps.Keys(s.reps), func(a, b repKey) int { return strings.Compare(a.partition, b.partition) })
	for _, k := range keys {
		if k.broker != id {
			continue
		}
		st := s.reps[k]
		t, n, _ := core.SplitPartitionName(k.partition)
		pre := t + " " + strconv.Itoa(n) + " "
		rp = append(rp, pre+strconv.FormatInt(st.rp, 10))
		start = append(start, pre+strconv.FormatInt(st.start, 10))
		if st.hw >= 0 {
			hw = append(hw, pre+strconv.FormatInt(st.hw, 10))
		}
		if st.cleaned >= 0 {
			cleaned = append(cleaned, pre+strconv.FormatInt(st.cleaned, 10))
		}
	}
	d := brokerDir(id)
	return []op{
		{kind: opWriteFile, dir: d, name: "recovery-point-offset-checkpoint", data: checkpoint(rp)},
		{kind: opWriteFile, dir: d, name: "replication-offset-checkpoint", data: checkpoint(hw)},
		{kind: opWriteFile, dir: d, name: "log-start-offset-checkpoint", data: checkpoint(start)},
		{kind: opWriteFile, dir: d, name: "cleaner-offset-checkpoint", data: checkpoint(cleaned)},
	}
}
