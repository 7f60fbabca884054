// Package web is what the page's lesson pane asks of Go: the bundled
// lesson index and lessons, parsing a teacher's file, evaluating a step's
// checks on the engine's cluster, turning highlight targets into the
// canvas scene's element references, and the script that rebuilds a
// lesson's cluster at a step (Back rewinds by replaying it). It is pure
// Go with JSON-encodable results; the engine's wasm glue (wasm/engine)
// exposes it as window.kafkasim.model.
package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/lessons/model"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// Result is the outcome of a step's checks on a cluster: whether all hold,
// and per line what the cluster has.
type Result struct {
	OK  bool     `json:"ok"`
	Got []string `json:"got"`
}

// Check evaluates expect lines on c; lastErr is the error of the step's
// last command ("" if it succeeded).
func Check(c *core.Cluster, lastErr string, checks []model.ScriptLine) (Result, error) {
	ok, got, err := model.Holds(c, lastErr, checks)
	return Result{OK: ok, Got: got}, err
}

// Judgement says which choice of a predict step is what happened.
type Judgement struct {
	Holds   []bool `json:"holds"`   // per choice: its checks hold now
	Correct int    `json:"correct"` // index of the choice marked right
	Agrees  bool   `json:"agrees"`  // the marked choice holds and no other does
}

// Judge evaluates every choice of a predict step on c, after its commands
// have run. Agrees false means the cluster did not do what the lesson says
// (a teacher's file that Verify would reject); the page says so.
func Judge(c *core.Cluster, lastErr string, st *model.Step) (Judgement, error) {
	j := Judgement{Correct: -1, Agrees: true}
	for i, ch := range st.Choices {
		ok, _, err := model.Holds(c, lastErr, ch.Checks)
		if err != nil {
			return j, err
		}
		j.Holds = append(j.Holds, ok)
		if ch.Correct {
			j.Correct = i
		}
		if ok != ch.Correct {
			j.Agrees = false
		}
	}
	return j, nil
}

// Refs turns a step's targets into scene references for the canvas. A
// record is found by its value: where it was acknowledged, else in its
// partition's leader log; a record the cluster does not know (yet) is left
// out. "hw T" lights the partition and, for a canvas that draws it, the
// leader's HW marker itself (kind "hw"); "leo T@B" the replica and its
// LEO marker (kind "leo"); "zk" ZooKeeper's lane;
// "controller" the controller broker in ZooKeeper mode, else its lane.
func Refs(c *core.Cluster, ts []model.Target) []scene.Ref {
	var out []scene.Ref
	for _, t := range ts {
		switch t.Kind {
		case "broker":
			n, _ := strconv.Atoi(t.Name)
			out = append(out, scene.Ref{Kind: scene.KindBroker, Broker: n})
		case "partition":
			out = append(out, scene.Ref{Kind: scene.KindPartition, Partition: t.Name})
		case "hw":
			out = append(out, scene.Ref{Kind: scene.KindPartition, Partition: t.Name}, scene.Ref{Kind: scene.KindHW, Partition: t.Name})
		case "replica", "leo":
			p, b, _ := strings.Cut(t.Name, "@")
			n, _ := strconv.Atoi(b)
			out = append(out, scene.Ref{Kind: scene.KindReplica, Partition: p, Broker: n})
			if t.Kind == "leo" {
				out = append(out, scene.Ref{Kind: scene.KindLEO, Partition: p, Broker: n})
			}
		case "record":
			if r, ok := findRecord(c, t.Name); ok {
				out = append(out, r)
			}
		case "producer":
			out = append(out, scene.Ref{Kind: scene.KindProducer, Name: t.Name})
		case "consumer":
			out = append(out, scene.Ref{Kind: scene.KindConsumer, Name: t.Name})
		case "group":
			out = append(out, scene.Ref{Kind: scene.KindGroup, Name: t.Name})
		case "zk":
			out = append(out, scene.Ref{Kind: scene.KindLane, Name: "zk"})
		case "controller":
			if c != nil && c.Controller() > 0 {
				out = append(out, scene.Ref{Kind: scene.KindBroker, Broker: c.Controller()})
			} else {
				out = append(out, scene.Ref{Kind: scene.KindLane, Name: "controller"})
			}
		}
	}
	return out
}

// findRecord locates the newest record sent with value v.
func findRecord(c *core.Cluster, v string) (scene.Ref, bool) {
	if c == nil {
		return scene.Ref{}, false
	}
	sent := c.History().Sent
	for i := len(sent) - 1; i >= 0; i-- {
		s := sent[i]
		if s.Value != v || s.Partition == "" {
			continue
		}
		if s.Acked && s.Offset >= 0 {
			return scene.Ref{Kind: scene.KindRecord, Partition: s.Partition, Offset: s.Offset}, true
		}
		p, err := c.Partition(s.Partition)
		if err != nil || p.Leader() < 1 {
			continue
		}
		rep, err := c.Replica(fmt.Sprintf("%s@%d", s.Partition, p.Leader()))
		if err != nil {
			continue
		}
		for _, b := range rep.Log().Batches(rep.Log().StartOffset()) {
			for k, r := range b.RecordList() {
				if r.Value == v {
					return scene.Ref{Kind: scene.KindRecord, Partition: s.Partition, Offset: b.Offset(k)}, true
				}
			}
		}
	}
	return scene.Ref{}, false
}

// Replay is the script that rebuilds a lesson's cluster as it is when step
// `at` is about to run: the commands of every earlier step from the last
// one that started a cluster (an act step contributes its "show me"
// commands, the canonical way it was done). From is the first step it
// covers. With at == 0 there is nothing to replay ("").
func Replay(l *model.Lesson, at int) (script string, from int, err error) {
	if at < 0 || at > len(l.Steps) {
		return "", 0, fmt.Errorf("step %d: the lesson has %d", at, len(l.Steps))
	}
	for from = at - 1; from > 0 && !model.StartsCluster(&l.Steps[from]); from-- {
	}
	if at == 0 {
		return "", 0, nil
	}
	var b strings.Builder
	for i := from; i < at; i++ {
		for _, c := range l.Steps[i].Commands {
			b.WriteString(c.Text)
			b.WriteByte('\n')
		}
	}
	if _, err := scenario.Parse(b.String()); err != nil {
		return "", 0, err
	}
	return b.String(), from, nil
}
