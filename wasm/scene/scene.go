// Package scene is the message the page's engine posts to the canvas
// iframe: everything the canvas draws at one virtual moment, and nothing it
// has to compute about Kafka. The engine builds scenes from the core's
// Snapshot and event stream; the canvas (wasm/canvas) lays them out
// (wasm/layout) and draws them. The package copies the fields it needs
// instead of importing core, so the canvas wasm does not link the
// simulator.
//
// A scene is a value: the canvas keeps the newest one it received and
// draws it until the next arrives. Between scenes the canvas advances the
// virtual clock itself from Now and Rate (see Tick), so the engine need
// not post a full scene on every animation frame while nothing but time
// changes. Protocol details (the envelope, clicks, where-queries) are in
// proto.go; the limits every decoded scene obeys are in limits.go.
//
// Encoding: JSON, field names short where a scene repeats them thousands of
// times (record cells), omitempty everywhere so a zero value costs nothing.
package scene

// Version is the scene schema version; a scene with another V is refused
// by Decode with a clear error rather than drawn wrongly.
const Version = 1

// Scene is one picture of the cluster at virtual time Now.
//
// Invariants (checked by Validate): broker ids are unique and positive;
// every replica's broker is one of Brokers; partition names are unique;
// consumer groups name only consumers listed in Consumers; cells of a
// replica are in ascending offset order; a message's SentAt <= DeliverAt.
type Scene struct {
	V    int     `json:"v"`
	Now  int64   `json:"now"`            // virtual time in ms: the timeline's position
	Rate float64 `json:"rate,omitempty"` // virtual ms per wall ms while playing; 0 when paused

	Metadata   string `json:"metadata,omitempty"`   // "zk" or "kraft"
	Version    string `json:"version,omitempty"`    // the Kafka version preset, e.g. "3.9"
	Controller int    `json:"controller,omitempty"` // broker id of the controller (ZK), 0: none or KRaft quorum

	Brokers    []Broker    `json:"brokers"`
	Producers  []Producer  `json:"producers,omitempty"`
	Consumers  []Consumer  `json:"consumers,omitempty"`
	Groups     []Group     `json:"groups,omitempty"`
	Partitions []Partition `json:"partitions"`

	// Messages are the messages in flight at Now and, for the space-time
	// view, those delivered or dropped within the last Span ms (DeliverAt
	// >= Now-Span). The cluster view draws only the ones in flight.
	Messages []Message `json:"messages,omitempty"`
	// ZKClients are the outside ZooKeeper clients connected to the
	// simulated ensemble (kafkasim serve), drawn beside zk (zkcli.go).
	ZKClients []ZKClient `json:"zkClients,omitempty"`
	// Marks are the things that happened recently (elections, ISR changes,
	// truncations, faults, rebalances), drawn as a short animation in the
	// cluster view after At and as a mark on the lanes of the space-time view.
	Marks []Mark `json:"marks,omitempty"`

	Highlights []Ref `json:"highlights,omitempty"` // what a lesson wants lit
	Selection  *Ref  `json:"selection,omitempty"`  // what the learner selected

	View View     `json:"view,omitempty"` // "" means cluster
	Hide []string `json:"hide,omitempty"` // message classes not drawn (see Classes)
	Span int64    `json:"span,omitempty"` // space-time window in virtual ms; 0: DefaultSpan

	Counters Counters `json:"counters"`
}

// DefaultSpan is the space-time window when Scene.Span is 0: long enough
// for a few produce/fetch round trips at the default 2 ms latency.
const DefaultSpan = 100

// View selects what the canvas shows.
type View string

// Views.
const (
	ViewCluster   View = "cluster"   // brokers, replicas, logs, clients, messages in flight
	ViewSpaceTime View = "spacetime" // one lane per host, time flowing down, arrows
	ViewBoth      View = "both"      // cluster view above, space-time view below
)

// Broker states. A broker's process is in exactly one of them; a network
// split is separate (Broker.Cut) because a paused broker can also be cut off.
const (
	StateAlive      = "alive"
	StateCrashed    = "crashed"
	StatePoweredOff = "poweredoff"
	StatePaused     = "paused"
)

// Broker is one broker. Side is its side of a network split (1-based, 0
// when there is no split); Cut says it cannot reach the controller or
// the metadata quorum (drawn with a dashed border).
type Broker struct {
	ID         int    `json:"id"`
	Rack       string `json:"rack,omitempty"`
	State      string `json:"state"`
	Controller bool   `json:"controller,omitempty"`
	Side       int    `json:"side,omitempty"`
	Cut        bool   `json:"cut,omitempty"`
}

// Producer is one producer client. Pending counts records sent and not yet
// acknowledged or failed; InFlight the requests on the wire; Rate the
// records per virtual second it handed to send() recently.
type Producer struct {
	Name       string  `json:"name"`
	Acks       string  `json:"acks,omitempty"` // "0", "1" or "all"
	Idempotent bool    `json:"idem,omitempty"`
	Pending    int     `json:"pending,omitempty"`
	InFlight   int     `json:"inFlight,omitempty"`
	Sent       int64   `json:"sent,omitempty"`  // records handed to send() so far
	Acked      int64   `json:"acked,omitempty"` // records acknowledged so far
	Rate       float64 `json:"rate,omitempty"`
	Side       int     `json:"side,omitempty"`
	Cut        bool    `json:"cut,omitempty"`
}

// Consumer is one consumer client. Assigned lists partition names;
// Positions the next offset poll returns per assigned partition; Recent
// the last records polls returned (newest last), flagged where a record
// arrived twice or out of order.
type Consumer struct {
	Name      string           `json:"name"`
	Group     string           `json:"group,omitempty"`
	Alive     bool             `json:"alive"`
	Assigned  []string         `json:"assigned,omitempty"`
	Positions map[string]int64 `json:"positions,omitempty"`
	Lag       int64            `json:"lag,omitempty"`    // sum over assigned partitions of HW - position
	Polled    int64            `json:"polled,omitempty"` // records returned by polls so far
	Recent    []Got            `json:"recent,omitempty"`
	Side      int              `json:"side,omitempty"`
	Cut       bool             `json:"cut,omitempty"`
}

// Got is one record a consumer's poll returned. Dup counts how many times
// this record (same value, same partition) was delivered, when more than
// once; OutOfOrder says it arrived before a record its producer sent
// earlier to the same partition.
type Got struct {
	Partition  string `json:"p"`
	Offset     int64  `json:"o"`
	Value      string `json:"v"`
	Dup        int    `json:"d,omitempty"`
	OutOfOrder bool   `json:"r,omitempty"`
}

// Group is a consumer group as its coordinator holds it. Members are
// consumer names (each also in Scene.Consumers with Group set).
type Group struct {
	Name        string   `json:"name"`
	State       string   `json:"state,omitempty"` // Stable, PreparingRebalance, CompletingRebalance, Empty, Dead, zookeeper
	Generation  int      `json:"gen,omitempty"`
	Coordinator int      `json:"coord,omitempty"` // broker id, 0 or -1: none / ZooKeeper
	Protocol    string   `json:"protocol,omitempty"`
	Leader      string   `json:"leader,omitempty"` // the leader member's consumer name
	Members     []string `json:"members,omitempty"`
}

// Partition is one topic partition: the controller's view (leader, epoch,
// ISR, assignment) and every replica as its broker has it. Name is
// "topic-index". From is the first offset of the record window shared by
// all its replicas, so cells of the same offset line up across brokers.
type Partition struct {
	Name     string `json:"name"`
	Topic    string `json:"topic"`
	Index    int    `json:"index"`
	Internal bool   `json:"internal,omitempty"`
	Leader   int    `json:"leader"` // broker id, -1: offline
	Epoch    int32  `json:"epoch"`
	Unclean  bool   `json:"unclean,omitempty"` // the current leader was elected uncleanly (out of the ISR)
	// Deleting: its topic is marked for deletion and not gone yet (ZooKeeper
	// mode: until every replica's broker has deleted its replica; an
	// offline broker holds it there)
	Deleting   bool      `json:"deleting,omitempty"`
	ISR        []int     `json:"isr"`
	Assignment []int     `json:"assignment"` // preferred leader first
	From       int64     `json:"from"`
	Replicas   []Replica `json:"replicas"`
}

// Replica roles, as the replica's broker believes (which can lag the
// controller: a deposed leader still says leader until it hears).
const (
	RoleLeader   = "leader"
	RoleFollower = "follower"
	RoleNone     = "none"
)

// Replica is one replica of a partition on Broker. LEO, HW, LogStart and
// Flushed are offsets: records below HW are committed, records below
// Flushed are on disk (the rest only in the page cache). Cells is a
// window of its log, ascending by offset, at most MaxCells long; cells
// at or above LEO may follow, flagged Lost (records this replica dropped
// by truncation or power loss, kept a while so the learner sees them go).
type Replica struct {
	Broker   int    `json:"broker"`
	Role     string `json:"role"`
	Epoch    int32  `json:"epoch"` // the leader epoch this replica knows
	InISR    bool   `json:"inIsr,omitempty"`
	LEO      int64  `json:"leo"`
	HW       int64  `json:"hw"`
	LogStart int64  `json:"logStart"`
	Flushed  int64  `json:"flushed"`
	Cells    []Cell `json:"cells,omitempty"`
}

// Committed reports whether the record in cell c is below this replica's
// high watermark (solid) rather than above it (hatched).
func (r *Replica) Committed(c Cell) bool { return c.Offset < r.HW && !c.Lost() }

// OnDisk reports whether cell c's record has been flushed (below the
// recovery point) rather than living only in the page cache (dot).
func (r *Replica) OnDisk(c Cell) bool { return c.Offset < r.Flushed && !c.Lost() }

// Cell flags.
const (
	FlagLost       = 1 << iota // truncated or lost on power-off: crossed
	FlagOutOfOrder             // some consumer got it out of order: arrow mark
)

// Cell is one record in a replica's log window. Dup, when at least 2,
// is how many times consumers were handed it (numbered badge).
type Cell struct {
	Offset int64  `json:"o"`
	Value  string `json:"v,omitempty"`
	Epoch  int32  `json:"e,omitempty"`
	Flags  int    `json:"f,omitempty"`
	Dup    int    `json:"d,omitempty"`
}

// Lost reports whether the cell is a record this replica no longer has.
func (c Cell) Lost() bool { return c.Flags&FlagLost != 0 }

// OutOfOrder reports whether a consumer received the record out of order.
func (c Cell) OutOfOrder() bool { return c.Flags&FlagOutOfOrder != 0 }

// Message is one message on the wire, copied from the core's msg.send
// event: From and To are host names ("1" for broker 1, client names, "zk"
// or "controller"); Kind is the core's message kind ("Produce",
// "FetchResponse", ...) and Class its drawing class (see Classify).
// Dropped is set once the core dropped it (split, dead broker, net drop):
// the message stops where it was and fades. N, when above 1, says this
// message stands for N similar ones the engine folded into it.
type Message struct {
	ID        uint64 `json:"id"`
	From      string `json:"from"`
	To        string `json:"to"`
	Kind      string `json:"kind"`
	Class     string `json:"class,omitempty"` // "" means Classify(Kind, From, To)
	Partition string `json:"p,omitempty"`
	SentAt    int64  `json:"sent"`
	DeliverAt int64  `json:"deliver"`
	Dropped   bool   `json:"dropped,omitempty"`
	N         int    `json:"n,omitempty"`
	// Label is what the canvas writes beside the message: a ZooKeeper
	// request's operation and znode ("getChildren2 /brokers/ids"), a watch
	// event's type and znode ("NodeDeleted /controller"), a real Kafka
	// client's API, version and software ("Fetch v12 kgo/v1.22.3",
	// core.Event.Label).
	Label string `json:"label,omitempty"`
}

// InFlight reports whether m is on the wire at virtual time now.
func (m *Message) InFlight(now int64) bool { return m.SentAt <= now && now < m.DeliverAt }

// ClassOf returns m's class, classifying by kind when the engine left it empty.
func (m *Message) ClassOf() string {
	if m.Class != "" {
		return m.Class
	}
	return Classify(m.Kind, m.From, m.To)
}

// Counters are the aggregate figures the canvas shows in its corner and
// uses when there are more messages than it draws one by one.
type Counters struct {
	Produced  int64 `json:"produced,omitempty"`  // records handed to send() by all producers
	Acked     int64 `json:"acked,omitempty"`     // records acknowledged
	Consumed  int64 `json:"consumed,omitempty"`  // records returned by polls
	Lost      int   `json:"lost,omitempty"`      // acknowledged records no replica has any more
	Dups      int   `json:"dups,omitempty"`      // records delivered more than once
	Reordered int   `json:"reordered,omitempty"` // records delivered out of order
	// Rate is records per virtual second produced, averaged over the
	// engine's recent window; PerClass the messages per virtual second of
	// each class over that window.
	Rate     float64            `json:"rate,omitempty"`
	PerClass map[string]float64 `json:"perClass,omitempty"`
	// Omitted counts messages in flight the engine left out of Messages
	// (it sends at most MaxMessages); the canvas adds them to its counts.
	Omitted int `json:"omitted,omitempty"`
}
