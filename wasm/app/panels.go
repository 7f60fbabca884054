package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/wasm/session"
)

func (e *Engine) cluster() (*core.Cluster, error) {
	d := e.sess.Driver()
	if d == nil {
		return nil, session.ErrNoSession
	}
	return d.Cluster(), nil
}

// SegmentsView is the segment-files panel: a replica's files, how a
// fetch at Offset walks them, and its records around that offset.
type SegmentsView struct {
	Log     *core.ReplicaLogView `json:"log"`
	Walk    *core.FetchWalkView  `json:"walk,omitempty"`
	Records []core.RecordView    `json:"records"`
}

// Segments describes partition's replica on broker (0: the leader, or the
// first replica when offline) and a fetch at offset (-1: the log start).
func (e *Engine) Segments(partition string, broker int, offset int64) (*SegmentsView, error) {
	c, err := e.cluster()
	if err != nil {
		return nil, err
	}
	p, err := c.Partition(partition)
	if err != nil {
		return nil, err
	}
	if broker == 0 {
		broker = p.Leader()
		if broker <= 0 {
			broker = p.Replicas()[0]
		}
	}
	lv, err := c.ReplicaLog(partition, broker)
	if err != nil {
		return nil, err
	}
	if offset < 0 {
		offset = lv.LogStart
	}
	walk, err := c.FetchWalk(partition, broker, offset)
	if err != nil {
		return nil, err
	}
	recs, err := c.ReplicaRecords(partition, broker, offset-20, offset+30)
	if err != nil {
		return nil, err
	}
	return &SegmentsView{Log: lv, Walk: walk, Records: recs}, nil
}

// MetadataView is the ZooKeeper znode tree, or the KRaft metadata log.
type MetadataView struct {
	Mode   string      `json:"mode"` // zk or kraft
	ZNodes [][2]string `json:"znodes,omitempty"`
	Writes int64       `json:"writes,omitempty"`
	Log    []string    `json:"log,omitempty"`
}

// MaxMetadataLines bounds the KRaft log shown (the newest are kept).
const MaxMetadataLines = 2000

// Metadata is the metadata panel.
func (e *Engine) Metadata() (*MetadataView, error) {
	c, err := e.cluster()
	if err != nil {
		return nil, err
	}
	v := &MetadataView{Mode: c.Mode()}
	if c.Mode() == "zk" {
		v.ZNodes, v.Writes = c.ZNodes(), c.ZKWrites()
		return v, nil
	}
	v.Log = c.MetadataLog()
	if n := len(v.Log); n > MaxMetadataLines {
		v.Log = v.Log[n-MaxMetadataLines:]
	}
	return v, nil
}

// OffsetsView is the __consumer_offsets panel: what each group committed,
// and the records of the internal topic that hold it.
type OffsetsView struct {
	Groups   []core.GroupView  `json:"groups"`
	Records  []OffsetsRecord   `json:"records"`
	InZK     bool              `json:"inZk,omitempty"` // 0.8: offsets live in ZooKeeper
	Consumer map[string]string `json:"consumer,omitempty"`
}

// OffsetsRecord is one record of a __consumer_offsets partition.
type OffsetsRecord struct {
	Partition string `json:"partition"`
	Offset    int64  `json:"offset"`
	Key       string `json:"key"`
	Value     string `json:"value"`
}

// MaxOffsetsRecords bounds the records shown (newest kept).
const MaxOffsetsRecords = 300

// Offsets is the __consumer_offsets panel.
func (e *Engine) Offsets() (*OffsetsView, error) {
	c, err := e.cluster()
	if err != nil {
		return nil, err
	}
	snap := c.Snapshot()
	v := &OffsetsView{Groups: snap.Groups, Records: []OffsetsRecord{}}
	t := c.Topic("__consumer_offsets")
	if t == nil {
		v.InZK = c.Version() == "0.8"
		return v, nil
	}
	for _, p := range t.Partitions() {
		r := c.LeaderReplica(p)
		if r == nil {
			continue
		}
		recs, err := c.ReplicaRecords(p.Name, p.Leader(), r.LEO()-MaxOffsetsRecords, r.LEO())
		if err != nil {
			continue
		}
		for _, rec := range recs {
			v.Records = append(v.Records, OffsetsRecord{Partition: p.Name, Offset: rec.Offset, Key: rec.Key, Value: rec.Value})
		}
	}
	if n := len(v.Records); n > MaxOffsetsRecords {
		v.Records = v.Records[n-MaxOffsetsRecords:]
	}
	return v, nil
}

// MetricsView holds the figures Kafka's JMX metrics would show.
type MetricsView struct {
	UnderReplicated  []string      `json:"underReplicated"`  // kafka.server:ReplicaManager UnderReplicatedPartitions
	Offline          []string      `json:"offline"`          // kafka.controller OfflinePartitionsCount
	UnderMinISR      []string      `json:"underMinIsr"`      // UnderMinIsrPartitionCount
	ISRShrinks       int           `json:"isrShrinks"`       // IsrShrinksPerSec (a count here)
	ISRExpands       int           `json:"isrExpands"`       // IsrExpandsPerSec
	Elections        int           `json:"elections"`        // LeaderElectionRateAndTimeMs
	Unclean          int           `json:"unclean"`          // UncleanLeaderElectionsPerSec
	Truncations      int           `json:"truncations"`      // log truncations
	Lost             int           `json:"lost"`             // acknowledged records lost (the checker)
	Lag              []LagView     `json:"lag"`              // records-lag per consumer and partition
	Producers        []ProducerFig `json:"producers"`        // record-send / record-error totals
	ActiveController int           `json:"activeController"` // the controller broker (ZK), 0 in KRaft
}

// LagView is one consumer's lag on one partition: the leader's HW minus
// the consumer's position.
type LagView struct {
	Consumer  string `json:"consumer"`
	Partition string `json:"partition"`
	Position  int64  `json:"position"`
	HW        int64  `json:"hw"`
	Lag       int64  `json:"lag"`
}

// ProducerFig counts a producer's records.
type ProducerFig struct {
	Name    string `json:"name"`
	Acks    string `json:"acks"`
	Sent    int    `json:"sent"`
	Acked   int    `json:"acked"`
	Failed  int    `json:"failed"`
	Pending int    `json:"pending"`
}

// Metrics is the metrics panel.
func (e *Engine) Metrics() (*MetricsView, error) {
	c, err := e.cluster()
	if err != nil {
		return nil, err
	}
	snap := c.Snapshot()
	v := &MetricsView{UnderReplicated: []string{}, Offline: []string{}, UnderMinISR: []string{}, Lag: []LagView{}, Producers: []ProducerFig{}, ActiveController: snap.Controller}
	hw := map[string]int64{}
	for _, t := range snap.Topics {
		for _, p := range t.Partitions {
			if p.Leader < 0 {
				v.Offline = append(v.Offline, p.Name)
			}
			if len(p.ISR) < len(p.Assignment) {
				v.UnderReplicated = append(v.UnderReplicated, p.Name)
			}
			if len(p.ISR) < c.MinInSyncReplicas(t.Name) {
				v.UnderMinISR = append(v.UnderMinISR, p.Name)
			}
			for _, r := range p.Replicas {
				if r.Broker == p.Leader {
					hw[p.Name] = r.HW
				}
			}
		}
	}
	for _, ev := range e.sess.Driver().Events().Trace() {
		switch ev.Type {
		case core.EvISR:
			switch {
			case ev.Change == "shrink" || ev.Change == "" && strings.HasPrefix(ev.Detail, "shrink"):
				v.ISRShrinks++
			case ev.Change == "expand" || ev.Change == "" && strings.HasPrefix(ev.Detail, "expand"):
				v.ISRExpands++
			}
		case core.EvLeader:
			if ev.Leader >= 0 {
				v.Elections++
			}
			if ev.Unclean || ev.Election == core.ElectionUnclean {
				v.Unclean++
			}
		case core.EvTruncate:
			v.Truncations++
		}
	}
	v.Lost = len(check.LostRecords(c))
	for _, k := range snap.Consumers {
		for _, p := range slices.Sorted(maps.Keys(k.Positions)) {
			pos := k.Positions[p]
			v.Lag = append(v.Lag, LagView{Consumer: k.Name, Partition: p, Position: pos, HW: hw[p], Lag: max(0, hw[p]-pos)})
		}
	}
	figs := map[string]*ProducerFig{}
	for _, p := range snap.Producers {
		f := &ProducerFig{Name: p.Name, Acks: p.Acks, Pending: p.Pending}
		figs[p.Name] = f
		v.Producers = append(v.Producers, *f)
	}
	for _, s := range c.History().Sent {
		if f := figs[s.Producer]; f != nil {
			f.Sent++
			if s.Acked {
				f.Acked++
			} else if s.Err != "" {
				f.Failed++
			}
		}
	}
	for i := range v.Producers {
		v.Producers[i] = *figs[v.Producers[i].Name]
	}
	return v, nil
}

// Overview is the core's describe text of the whole cluster.
func (e *Engine) Overview() (string, error) {
	c, err := e.cluster()
	if err != nil {
		return "", err
	}
	return c.Describe("")
}

// Describe is the core's describe text of one target (a partition,
// "orders-0@2", a broker id, a group, "znodes", "metadata").
func (e *Engine) Describe(target string) (string, error) {
	c, err := e.cluster()
	if err != nil {
		return "", err
	}
	return c.Describe(target)
}

// RecordValue is the value of the record at offset in partition's
// replica on broker (0: the leader), including a record that replica
// dropped by its latest truncation or power loss (a crossed cell).
func (e *Engine) RecordValue(partition string, broker int, offset int64) (string, error) {
	c, err := e.cluster()
	if err != nil {
		return "", err
	}
	p, err := c.Partition(partition)
	if err != nil {
		return "", err
	}
	if broker == 0 {
		broker = p.Leader()
	}
	if recs, err := c.ReplicaRecords(partition, broker, offset, offset+1); err == nil && len(recs) == 1 {
		return recs[0].Value, nil
	}
	for _, cell := range lostCells(e.sess.Driver().Events().Trace())[replicaKey{partition, broker}] {
		if cell.Offset == offset {
			return cell.Value, nil
		}
	}
	return "", fmt.Errorf("no record at %s@%d offset %d", partition, broker, offset)
}
