package core

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// MaxCommandLog bounds the command log. Past it the log is marked
// truncated (CommandLogTruncated) and a replay can no longer rebuild the
// cluster; the cluster itself runs on.
const MaxCommandLog = 1 << 20

// Logged is one command as the cluster received it, with its exact
// position in the run: the virtual time, and where among the timers and
// operations of that millisecond it came. The cluster is a deterministic
// function of its Options and its command log, so Replay rebuilds it at
// any moment from the log alone. Every command Apply received is logged,
// failed ones included (they fail again, the same way, in a replay).
type Logged struct {
	At    int64   // virtual time (ms) of the Apply
	Fired uint64  // timers fired before it (it came after them)
	Ops   uint64  // blocking operations completed before it
	Cmd   Command // a private copy: later changes to the caller's maps or slices do not reach it
}

// CommandLog returns a copy of the commands applied so far, in order.
func (c *Cluster) CommandLog() []Logged { return slices.Clone(c.cmdlog) }

// CommandLogTruncated reports whether commands were left out of the log
// because it reached MaxCommandLog.
func (c *Cluster) CommandLogTruncated() bool { return c.cmdlogFull }

// StopCommandLog forgets the command log and logs no more: for a driver
// that never replays this cluster (a served room keeps a history of its
// own), so that what real clients produce is held only as long as
// retention keeps it, not by the log of the requests that carried it.
// CommandLogTruncated reports true from then on, and Replay of what
// CommandLog returns can no longer rebuild the cluster. The run itself is
// unchanged.
func (c *Cluster) StopCommandLog() { c.cmdlog, c.cmdlogFull = nil, true }

func (c *Cluster) logCommand(cmd Command) {
	if c.cmdlogFull {
		return
	}
	if len(c.cmdlog) >= MaxCommandLog {
		c.cmdlogFull = true
		return
	}
	c.cmdlog = append(c.cmdlog, Logged{At: c.now, Fired: c.fired, Ops: c.completed, Cmd: cloneCommand(cmd)})
}

// Replay rebuilds a cluster at virtual time `to` from the Options it was
// created with (Cluster.Options) and its command log: it applies every
// logged command with At < to, each at its own position, then advances to
// `to`. The result is the live cluster as it was at `to`, with every timer
// due at or before `to` fired and before any command logged at `to` was
// applied: the same Snapshot, the same state, and from then on the same
// run (its own CommandLog is the prefix replayed). Events of the replay are
// not kept (Events starts empty) but are counted, so the events that follow
// carry the sequence numbers they had live. A log that does not come from such a run (out
// of order, or positions the run never reaches) is an error.
func Replay(opts Options, log []Logged, to int64) (*Cluster, error) {
	c, err := New(opts)
	if err != nil {
		return nil, err
	}
	c.MuteEvents(true) // counted, not kept: later events are numbered as they were live
	defer c.MuteEvents(false)
	for i, e := range log {
		if e.At >= to {
			break
		}
		if err := c.replayTo(e); err != nil {
			return nil, fmt.Errorf("replay: command %d (%s at t=%s): %v", i, kindOf(e.Cmd), FormatTime(e.At), err)
		}
		_ = c.Apply(e.Cmd) // a command that failed live fails again
	}
	for c.now < to {
		if _, err := c.Advance(min(to-c.now, MaxAdvance)); err != nil {
			return nil, fmt.Errorf("replay: %v", err)
		}
	}
	return c, nil
}

// replayTo advances until the run reaches e's position.
func (c *Cluster) replayTo(e Logged) error {
	for c.now < e.At || c.fired < e.Fired || c.completed < e.Ops {
		now, fired, ops := c.now, c.fired, c.completed
		if _, err := c.Advance(min(e.At-c.now, MaxAdvance)); err != nil {
			return err
		}
		if c.now > e.At || c.fired > e.Fired || c.completed > e.Ops {
			return fmt.Errorf("the run passes its position (t=%s, %d timers, %d operations)", FormatTime(c.now), c.fired, c.completed)
		}
		if c.now == now && c.fired == fired && c.completed == ops {
			return fmt.Errorf("the run never reaches its position (stuck at t=%s, %d timers, %d operations)", FormatTime(c.now), c.fired, c.completed)
		}
	}
	return nil
}

func kindOf(cmd Command) string {
	if cmd == nil {
		return "nil"
	}
	return cmd.Kind()
}

// cloneCommand copies the maps, slices and pointers of a (value) command.
func cloneCommand(cmd Command) Command {
	switch x := cmd.(type) {
	case CreateTopic:
		x.Assign = cloneLists(x.Assign)
		x.Configs = maps.Clone(x.Configs)
		return x
	case Set:
		x.Configs = maps.Clone(x.Configs)
		return x
	case NewProducer:
		x.Configs = maps.Clone(x.Configs)
		return x
	case Produce:
		x.Key = clonePtr(x.Key)
		x.Partition = clonePtr(x.Partition)
		return x
	case NewConsumer:
		x.Topics = slices.Clone(x.Topics)
		x.Configs = maps.Clone(x.Configs)
		return x
	case Assign:
		x.Partitions = slices.Clone(x.Partitions)
		return x
	case NetSplit:
		x.Groups = cloneLists(x.Groups)
		return x
	case connCommand:
		return x.clone()
	}
	return cmd // the other commands hold plain values only
}

func cloneLists[T any](l [][]T) [][]T {
	if l == nil {
		return nil
	}
	out := make([][]T, len(l))
	for i := range l {
		out[i] = slices.Clone(l[i])
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// loggedJSON is Logged on the wire: the command in DecodeCommand's form.
type loggedJSON struct {
	At    int64           `json:"at"`
	Fired uint64          `json:"fired"`
	Ops   uint64          `json:"ops"`
	Cmd   json.RawMessage `json:"cmd"`
}

// MarshalJSON encodes a log entry as {"at","fired","ops","cmd"}, the
// command as EncodeCommand writes it, so a command log can be saved and
// shared (and replayed elsewhere).
func (e Logged) MarshalJSON() ([]byte, error) {
	b, err := EncodeCommand(e.Cmd)
	if err != nil {
		return nil, err
	}
	return json.Marshal(loggedJSON{At: e.At, Fired: e.Fired, Ops: e.Ops, Cmd: b})
}

// UnmarshalJSON decodes what MarshalJSON wrote; the command goes through
// DecodeCommand, with its checks.
func (e *Logged) UnmarshalJSON(data []byte) error {
	var w loggedJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.At < 0 {
		return fmt.Errorf("logged command: at=%d is before the start", w.At)
	}
	cmd, err := DecodeCommand(w.Cmd)
	if err != nil {
		return fmt.Errorf("logged command: %v", err)
	}
	*e = Logged{At: w.At, Fired: w.Fired, Ops: w.Ops, Cmd: cmd}
	return nil
}
