package scenario

import "github.com/kafkasim/kafkasim/core"

// Script is a parsed scenario: its steps in file order.
type Script struct {
	Steps []Step
}

// Step is one non-blank, non-comment line of a scenario. Exactly one of
// Cluster, Cmd, Expect and Print is set.
type Step struct {
	Line    int    // 1-based line number
	Text    string // the line as written, without comment and surrounding space
	Cluster *core.Options
	Cmd     core.Command
	// During, for `during +D COMMAND`, is D: Cmd is applied D ms after
	// the start of the settle, poll or commit in progress (during.go).
	During *int64
	Expect *Expect
	Print  *Print
}

// Expect is an `expect` line. Kind is the word after expect (leader, isr,
// hw, leo, segments, epoch, acked, failed, log, lost, consumed, assignment, generation,
// committed, znode). Target is the thing examined (partition "orders-0",
// replica "orders-0@3", producer, consumer, group, znode path; "" for lost).
// Arg is the extra operand some kinds take (failed: the record value;
// committed: the partition). Op is "==" or "contains" ("" for assignment).
// Want is the expected text after the operator, trimmed (for assignment:
// the member operands as written). None is set when Want is "none" (leader,
// isr, acked, failed, log, lost, consumed, committed). List is Want split
// on commas (nil when None, and for znode and assignment); Members is set
// for assignment (member -> partitions, in the order written; an empty,
// non-nil list for `c3=`). Col is the 1-based column of Want, for error
// messages.
type Expect struct {
	Kind    string
	Target  string
	Arg     string
	Op      string
	Want    string
	List    []string
	None    bool
	Members []MemberAssignment
	Col     int
}

// MemberAssignment is one `member=p1,p2` operand of `expect assignment`.
type MemberAssignment struct {
	Member     string
	Partitions []string
}

// Print is a `print` line; Target is "" (whole cluster), a partition, a
// replica ("orders-0@2"), a group, a broker id, "znodes" or "metadata".
// Offset >= 0 (only with a replica, `offset=N`) shows how a fetch at that
// offset finds its segment and index entry.
type Print struct {
	Target string
	Offset int64
}
