package scene

// Mark kinds: something that happened at Mark.At. The cluster view
// animates a mark for MarkLife ms of virtual time after At (wall-clock
// minimum applies in the canvas so a mark is seen even at high speed); the
// space-time view draws it on the lane of Host (or of the broker) at At.
const (
	MarkElection  = "election"   // Partition got Leader Broker at Epoch; Unclean flags an unclean election
	MarkISRShrink = "isr-shrink" // Broker left Partition's ISR
	MarkISRExpand = "isr-expand" // Broker rejoined Partition's ISR
	MarkTruncate  = "truncate"   // Broker truncated Partition to Offset; Cells are the records dropped
	MarkLost      = "lost"       // Broker lost Cells of Partition from the page cache (power off)
	MarkDup       = "dup"        // consumer Host got Cells[0] again (Dup times)
	MarkReorder   = "reorder"    // consumer Host got Cells[0] out of order
	MarkRebalance = "rebalance"  // Group moved to Generation
	MarkMove      = "move"       // Partition moved from consumer From to consumer To (either "" when none)
	MarkCrash     = "crash"      // Broker crashed
	MarkPowerOff  = "poweroff"   // Broker lost power
	MarkPause     = "pause"      // Broker paused
	MarkResume    = "resume"     // Broker resumed
	MarkRestart   = "restart"    // Broker restarted
	MarkSplit     = "split"      // the network split (Text: the sides)
	MarkHeal      = "heal"       // the network healed
	MarkControl   = "controller" // Broker became controller
)

// MarkLife is how long, in virtual ms, the cluster view animates a mark.
const MarkLife = 400

// Mark is one notable happening. Host, when set, names the lane it belongs
// on in the space-time view (a client name); otherwise Broker does, and
// marks with neither (split, heal) span every lane.
type Mark struct {
	Kind       string `json:"kind"`
	At         int64  `json:"at"`
	Broker     int    `json:"broker,omitempty"`
	Host       string `json:"host,omitempty"`
	Partition  string `json:"p,omitempty"`
	Epoch      int32  `json:"epoch,omitempty"`
	Unclean    bool   `json:"unclean,omitempty"`
	Offset     int64  `json:"offset,omitempty"`
	Cells      []Cell `json:"cells,omitempty"`
	Group      string `json:"group,omitempty"`
	Generation int    `json:"gen,omitempty"`
	From       string `json:"from,omitempty"`
	To         string `json:"to,omitempty"`
	Text       string `json:"text,omitempty"` // short ASCII, drawn as is
}

// Element kinds, shared by Ref (highlights, selection), clicks and
// where-queries.
const (
	KindBroker    = "broker"
	KindReplica   = "replica"
	KindRecord    = "record"
	KindPartition = "partition"
	KindProducer  = "producer"
	KindConsumer  = "consumer"
	KindGroup     = "group"
	KindMessage   = "message"
	KindLane      = "lane"
	KindClass     = "class" // a legend entry: Name is a message class (the engine may toggle it)
	KindHW        = "hw"    // a replica's high-watermark marker
	KindLEO       = "leo"   // a replica's log-end-offset marker
)

// Ref names one drawable element. Which fields matter depends on Kind:
//
//	broker     Broker
//	replica    Partition, Broker
//	hw, leo    Partition, Broker (Broker 0: the leader's replica)
//	record     Partition, Broker, Offset (Broker 0: the leader's copy)
//	partition  Partition
//	producer   Name
//	consumer   Name
//	group      Name
//	message    Msg
//	lane       Name (a host name: "1", "p1", "zk")
//	class      Name (a message class, from the legend)
type Ref struct {
	Kind      string `json:"kind"`
	Broker    int    `json:"broker,omitempty"`
	Partition string `json:"partition,omitempty"`
	Offset    int64  `json:"offset,omitempty"`
	Name      string `json:"name,omitempty"`
	Msg       uint64 `json:"msg,omitempty"`
}

// Is reports whether r and o name the same element.
func (r Ref) Is(o Ref) bool { return r == o }
